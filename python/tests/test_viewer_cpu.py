"""interop_lab.show and interop_lab.Viewer on the cpu path (NumPy arrays, headless EGL on Mesa llvmpipe in
CI). Expected pictures are computed here with NumPy, and PNGs decoded here with zlib, independently of
the package's conversion and of the project's PNG code. The CUDA paths are test_viewer_gpu.py."""

import ctypes
import os
import subprocess
import sys
import tempfile
import threading
import warnings

import numpy
import pytest

import interop_lab
from interop_lab import InteropLabError
from pictures import decode_png, expected_bytes


@pytest.fixture
def viewer():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", interop_lab.PathNotice)
        with interop_lab.Viewer(size=(40, 24), window=False, mode="cpu") as opened:
            yield opened


def random_picture(shape, seed=3):
    return numpy.random.default_rng(seed).integers(0, 256, size=shape, dtype=numpy.uint8)


def test_show_headless_writes_the_png_of_an_rgba_array(tmp_path):
    picture = random_picture((24, 40, 4))
    path = interop_lab.show(picture, window=False, png=tmp_path / "rgba.png")
    assert path == str(tmp_path / "rgba.png")
    numpy.testing.assert_array_equal(decode_png(path), picture)


def test_show_headless_writes_the_png_of_an_rgb_array(tmp_path, capsys):
    picture = random_picture((17, 33, 3), seed=4)
    path = interop_lab.show(picture, window=False, png=tmp_path / "rgb.png")
    assert f"wrote {path}" in capsys.readouterr().err  # says where
    shown = decode_png(path)
    numpy.testing.assert_array_equal(shown[..., :3], picture)
    assert (shown[..., 3] == 255).all()


def test_show_headless_writes_a_float32_array_through_its_colormap(tmp_path):
    values = numpy.linspace(-0.25, 1.25, 20 * 30, dtype=numpy.float32).reshape(20, 30)
    path = interop_lab.show(values, colormap="gray", window=False, png=tmp_path / "gray.png")
    shown = decode_png(path)
    grey = expected_bytes(values)
    assert numpy.abs(shown[..., :3].astype(int) - grey[..., None]).max() <= 1
    assert (shown[..., 3] == 255).all()


def test_a_value_range_and_a_colormap_of_your_own(viewer):
    values = numpy.linspace(10.0, 30.0, 24 * 40, dtype=numpy.float32).reshape(24, 40, 1)
    table = numpy.zeros((256, 3), dtype=numpy.uint8)
    table[:, 1] = 255 - numpy.arange(256)  # green falls as the value rises
    viewer.show(values, range=(10.0, 30.0), colormap=table)
    frame = viewer.read_frame()
    index = expected_bytes(values[..., 0], 10.0, 30.0)
    assert numpy.abs(frame[..., 1].astype(int) - (255 - index.astype(int))).max() <= 1
    assert (frame[..., 0] == 0).all() and (frame[..., 3] == 255).all()


@pytest.mark.parametrize("dtype", [numpy.float16, numpy.float32])
def test_the_frame_is_the_float_array_within_one_step(viewer, dtype):
    values = numpy.random.default_rng(5).random((24, 40, 3)).astype(dtype)
    viewer.show(values)
    frame = viewer.read_frame()
    assert numpy.abs(frame[..., :3].astype(int) - expected_bytes(values.astype(numpy.float32))).max() <= 1


def test_the_frame_is_the_uint8_array_exactly_in_every_layout(viewer):
    picture = random_picture((24, 40, 4), seed=6)
    for array, expected in [
        (picture, picture),
        (picture[..., 0], None),  # one channel: the gray colormap
        (picture[..., :1], None),
    ]:
        viewer.show(array)
        frame = viewer.read_frame()
        if expected is None:
            numpy.testing.assert_array_equal(frame[..., 0], picture[..., 0])
            numpy.testing.assert_array_equal(frame[..., 2], picture[..., 0])
        else:
            numpy.testing.assert_array_equal(frame, expected)


def test_a_non_contiguous_array_is_copied_and_said_once(viewer, monkeypatch):
    monkeypatch.setattr(interop_lab._arrays, "_said_copied", False)
    wide = random_picture((24, 80, 4), seed=8)
    with pytest.warns(RuntimeWarning, match="not C-contiguous: it is copied"):
        viewer.show(wide[:, ::2])
    numpy.testing.assert_array_equal(viewer.read_frame(), wide[:, ::2])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        viewer.show(wide[:, 1::2])  # the second time: no word
    numpy.testing.assert_array_equal(viewer.read_frame(), wide[:, 1::2])


def test_a_dlpack_host_array_is_shown(viewer):
    class OnlyDlpack:  # what a library offering nothing but DLPack on the CPU looks like
        def __init__(self, array):
            self.array = array

        def __dlpack__(self, stream=None):
            return self.array.__dlpack__()

        def __dlpack_device__(self):
            return self.array.__dlpack_device__()

    picture = random_picture((24, 40, 4), seed=9)
    viewer.show(OnlyDlpack(picture))
    numpy.testing.assert_array_equal(viewer.read_frame(), picture)


def test_frame_hands_out_the_memory_that_is_drawn(viewer):
    picture = random_picture((24, 40, 4), seed=10)
    with viewer.frame() as target:
        assert isinstance(target, numpy.ndarray) and target.shape == (24, 40, 4)
        target[...] = picture
    numpy.testing.assert_array_equal(viewer.read_frame(), picture)
    with viewer.frame(size=(8, 6)) as target:  # another size: the picture follows it, its aspect kept
        target[...] = 99
    frame = viewer.read_frame()  # 8x6 in 40x24: 32x24 in the middle, black bars of 4 columns either side
    assert (frame[:, 4:36, :3] == 99).all() and (frame[:, :4, :3] == 0).all() and (frame[:, 36:, :3] == 0).all()
    viewer.fit = "stretch"  # the whole frame, as before the fits
    assert (viewer.read_frame()[..., :3] == 99).all()


def test_a_picture_of_another_size_is_scaled_to_the_frame(viewer):
    small = random_picture((12, 20, 4), seed=11)
    viewer.show(small)
    numpy.testing.assert_array_equal(viewer.read_frame(), numpy.repeat(numpy.repeat(small, 2, axis=0), 2, axis=1))
    viewer.resize(20, 12)
    assert viewer.read_frame().shape == (12, 20, 4)
    numpy.testing.assert_array_equal(viewer.read_frame(), small)


@pytest.mark.parametrize(
    "array, error, message",
    [
        (numpy.zeros((2, 4, 4, 5), numpy.uint8), ValueError, r"has 5 channels: pass 1 .* 3 \(RGB\) or 4 \(RGBA\)"),
        (numpy.zeros((2, 4, 4, 7), numpy.float32), ValueError, r"has 7 channels: pass 1 .* 3 \(RGB\) or 4 \(RGBA\)"),
        (numpy.zeros((4, 4, 2), numpy.float32), ValueError, r"has 2 channels: pass 1 .* 3 \(RGB\) or 4 \(RGBA\)"),
        (numpy.zeros((4, 4), numpy.int64), TypeError,
         r"^show: dtype int64 is not shown: 64-bit integers are not converted; pass x.astype\(numpy.float64\)"),
        (numpy.zeros((4, 4), numpy.uint64), TypeError, r"^show: dtype uint64 is not shown: .*numpy.int32"),
        (numpy.zeros((4, 4), numpy.complex64), TypeError,
         r"^show: dtype complex64 is not shown: pick a real part to look at, e.g. numpy.abs\(x\)"),
        (numpy.zeros((4, 4), numpy.float128 if hasattr(numpy, "float128") else numpy.datetime64), TypeError,
         r"^show: dtype \w+ is not shown: pass uint8, uint16, uint32, int8, int16, int32, float16, bfloat16, float32"),
        (numpy.zeros((0, 4, 3), numpy.uint8), ValueError, r"empty \(shape \(0, 4, 3\)\): pass at least one pixel"),
        (numpy.zeros((1, 2, 3, 4, 4), numpy.uint8), ValueError, r"pass \(H, W\), \(H, W, C\), \(N, H, W\) or \(N, H, W, C\)"),
        ("pixels", TypeError, "is no array"),
    ],
)
def test_bad_arrays_raise_one_error_naming_the_fix(viewer, array, error, message):
    with pytest.raises(error, match=message):
        viewer.show(array)
    with pytest.raises(error, match=message):
        interop_lab.show(array, window=False)


def test_bad_arguments_name_the_fix(viewer):
    picture = random_picture((24, 40, 3))
    with pytest.raises(TypeError, match="no CUDA stream: pass a CuPy, PyTorch or cuda.core stream"):
        viewer.show(picture, stream="fast")
    with pytest.raises(ValueError, match="a colormap is for one-channel arrays"):
        viewer.show(picture, colormap="viridis")
    with pytest.raises(ValueError, match="colormap 'rainbow': use one of gray, viridis, turbo"):
        viewer.show(picture[..., 0], colormap="rainbow")
    with pytest.raises(ValueError, match="high must be above low"):
        viewer.show(picture, range=(1, 1))
    with pytest.raises(InteropLabError, match="mode 'fast': use auto, interop, staging or cpu"):
        interop_lab.Viewer(window=False, mode="fast")
    with pytest.raises(InteropLabError, match="size 0x10"):
        interop_lab.Viewer(size=(0, 10), window=False)


def test_a_closed_viewer_says_to_open_a_new_one():
    viewer = interop_lab.Viewer(size=(8, 8), window=False, mode="cpu")
    viewer.close()
    assert viewer.closed
    for use in (lambda: viewer.show(numpy.zeros((8, 8, 4), numpy.uint8)), viewer.read_frame,
                lambda: viewer.screenshot("never.png")):
        with pytest.raises(InteropLabError, match="the viewer is closed: open a new interop_lab.Viewer"):
            use()
    assert not os.path.exists("never.png")


def test_a_cuda_path_without_cuda_says_what_to_use():
    try:
        viewer = interop_lab.Viewer(size=(8, 8), window=False, mode="interop")
    except InteropLabError as error:
        assert "mode='staging' or mode='cpu'" in str(error) or "use mode='cpu'" in str(error)
    else:
        viewer.close()
        pytest.skip("CUDA-GL interop works on this machine: test_viewer_gpu.py covers it")


def test_auto_says_which_path_and_why():
    with warnings.catch_warnings(record=True) as said:
        warnings.simplefilter("always")
        interop_lab.viewer._said.clear()
        with interop_lab.Viewer(size=(8, 8), window=False) as viewer:
            assert viewer.path in ("interop", "staging", "cpu")
            if viewer.path == "interop":
                pytest.skip("CUDA-GL interop works here: there is no fallback to explain")
            assert viewer.path_reason
        with interop_lab.Viewer(size=(8, 8), window=False):
            pass
    notices = [str(w.message) for w in said if issubclass(w.category, interop_lab.PathNotice)]
    assert len(notices) == 1 and f"path {viewer.path}" in notices[0]  # once, however many viewers


def test_calls_from_another_thread_are_refused_saying_which_thread_can(viewer):
    errors = []

    def use():
        try:
            viewer.show(numpy.zeros((24, 40, 4), numpy.uint8))
        except InteropLabError as error:
            errors.append(str(error))

    worker = threading.Thread(target=use)
    worker.start()
    worker.join()
    assert len(errors) == 1 and "was opened on thread" in errors[0] and "call it from there" in errors[0]
    viewer.show(numpy.full((24, 40, 4), 5, numpy.uint8))  # the owner still can
    assert (viewer.read_frame() == 5).all()


def test_labs_and_viewers_in_one_process_keep_to_their_own_contexts():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", interop_lab.PathNotice)
        first_lab = interop_lab.Lab("pattern", size=(32, 16), mode="cpu")
        first_viewer = interop_lab.Viewer(size=(32, 16), window=False, mode="cpu")
        second_lab = interop_lab.Lab("pattern", size=(32, 16), mode="cpu")
        second_viewer = interop_lab.Viewer(size=(32, 16), window=False, mode="cpu")
    for value, lab in ((10, first_lab), (20, second_lab)):
        with lab.map() as frame:
            numpy.asarray(frame["pattern texture"])[...] = value
    first_viewer.show(numpy.full((16, 32, 4), 30, numpy.uint8))
    second_viewer.show(numpy.full((16, 32, 4), 40, numpy.uint8))
    assert (first_lab.read_frame() == 10).all() and (second_lab.read_frame() == 20).all()
    assert (first_viewer.read_frame() == 30).all() and (second_viewer.read_frame() == 40).all()
    # Closing one leaves the others whole (each closes on its own context; EGL stays initialised).
    first_lab.close()
    first_viewer.close()
    assert (second_lab.read_frame() == 20).all() and (second_viewer.read_frame() == 40).all()
    second_lab.close()
    second_viewer.close()


def test_no_context_is_left_current_for_a_caller_that_had_none(viewer):
    egl = ctypes.CDLL("libEGL.so.1")
    egl.eglGetCurrentContext.restype = ctypes.c_void_p
    viewer.show(numpy.zeros((24, 40, 4), numpy.uint8))
    viewer.read_frame()
    with interop_lab.Lab("pattern", size=(8, 8), mode="cpu") as lab:
        lab.read_frame()
        assert not egl.eglGetCurrentContext()
    assert not egl.eglGetCurrentContext()


def test_python_m_interop_lab_shows_a_file(tmp_path):
    picture = random_picture((10, 14, 3), seed=12)
    numpy.save(tmp_path / "picture.npy", picture)
    out = tmp_path / "shown.png"
    command = [sys.executable, "-m", "interop_lab", str(tmp_path / "picture.npy"), "--headless", "--png", str(out)]
    done = subprocess.run(command, capture_output=True, text=True, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    numpy.testing.assert_array_equal(decode_png(out)[..., :3], picture)
    again = tmp_path / "again.png"  # and a PNG shows as itself
    command = [sys.executable, "-m", "interop_lab", str(out), "--headless", "--png", str(again)]
    assert subprocess.run(command, capture_output=True, cwd=tmp_path).returncode == 0
    numpy.testing.assert_array_equal(decode_png(again), decode_png(out))
    numpy.save(tmp_path / "bad.npy", numpy.zeros((2, 4, 4, 5), numpy.uint8))
    for arguments, code, message in [([str(tmp_path / "missing.npy")], 2, "no such file"),
                                     ([str(tmp_path / "bad.npy"), "--headless"], 2, "5 channels")]:
        done = subprocess.run([sys.executable, "-m", "interop_lab", *arguments], capture_output=True, text=True,
                              cwd=tmp_path)
        assert done.returncode == code and message in done.stderr


def test_a_window_shows_the_array_when_there_is_a_display():
    if not os.environ.get("DISPLAY"):
        pytest.skip("needs an X display (run under xvfb-run)")
    picture = random_picture((24, 40, 4), seed=13)
    with interop_lab.Viewer(size=(40, 24), window=True, mode="cpu", panel=False) as viewer:
        assert viewer.is_window and not viewer.closed
        viewer.show(picture)
        numpy.testing.assert_array_equal(viewer.read_frame()[..., :3], picture[..., :3])


def test_two_windows_with_their_panels_live_side_by_side():
    if not os.environ.get("DISPLAY"):
        pytest.skip("needs an X display (run under xvfb-run)")
    first = interop_lab.Viewer(size=(40, 24), window=True, mode="cpu", title="first")
    second = interop_lab.Viewer(size=(40, 24), window=True, mode="cpu", title="second")
    first.show(numpy.full((24, 40, 4), 60, numpy.uint8))
    second.show(numpy.full((24, 40, 4), 70, numpy.uint8))
    assert first.stats["frames"] >= 2 and second.stats["frames"] >= 2  # drawn with the panel, presented
    first.close()  # GLFW stays up for the other window
    assert not second.closed
    second.show(numpy.full((24, 40, 4), 80, numpy.uint8))
    assert (second.read_frame()[..., :3] == 80).all()
    second.close()


def test_a_window_and_headless_contexts_take_turns_on_one_thread():
    if not os.environ.get("DISPLAY"):
        pytest.skip("needs an X display (run under xvfb-run)")
    with interop_lab.Viewer(size=(32, 16), window=True, mode="cpu", panel=False) as window, \
            interop_lab.Viewer(size=(32, 16), window=False, mode="cpu") as headless, \
            interop_lab.Lab("pattern", size=(32, 16), mode="cpu") as lab:
        for round_ in range(3):  # GLX (through GLFW) and EGL contexts, one after the other
            window.show(numpy.full((16, 32, 4), 10 + round_, numpy.uint8))
            headless.show(numpy.full((16, 32, 4), 20 + round_, numpy.uint8))
            with lab.map() as frame:
                numpy.asarray(frame["pattern texture"])[...] = 30 + round_
            assert (window.read_frame()[..., :3] == 10 + round_).all()
            assert (headless.read_frame() == 20 + round_).all()
            assert (lab.read_frame() == 30 + round_).all()


def run_headless(code):
    """Runs `code` in a fresh interpreter without a display: a crash there is a signal, not this test's."""
    environment = {key: value for key, value in os.environ.items() if key not in ("DISPLAY", "WAYLAND_DISPLAY")}
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=environment, timeout=120)


def test_a_size_past_32_bits_is_refused_not_wrapped_into_a_crash():
    # 2**32 + 4 arrived in the C ABI's int as 4: the library made a 4x4 frame and Python a view of 2**32 + 4
    # columns over its 64 bytes, whose write killed the process (SIGSEGV).
    done = run_headless(
        "import sys, interop_lab\n"
        "v = interop_lab.Viewer(size=(8, 8), mode='cpu')\n"
        "try:\n"
        "    t = v.frame(size=(2**32 + 4, 4)).__enter__()\n"
        "    t[...] = 1\n"
        "except ValueError as error:\n"
        "    print(f'ValueError: {error}')\n"
        "    sys.exit(3)\n"
    )
    assert done.returncode == 3, (done.returncode, done.stderr)  # a negative code is the signal that killed it
    assert "frame: size 4294967300x4: each edge from 1 to 16384" in done.stdout


@pytest.mark.parametrize("size", [(2**32 + 8, 8), (8, 2**32 + 8), (2**64 + 8, 8), (-1, 8), (20000, 8)])
def test_viewer_and_resize_refuse_a_size_out_of_range_and_keep_theirs(viewer, size):
    with pytest.raises(ValueError, match=r"size -?\d+x-?\d+: each edge from [01] to 16384"):
        interop_lab.Viewer(size=size, window=False, mode="cpu")
    with pytest.raises(ValueError, match=r"size -?\d+x-?\d+: each edge from 0 to 16384"):
        viewer.resize(*size)
    with pytest.raises(ValueError, match=r"frame: size -?\d+x-?\d+: each edge from 1 to 16384"):
        with viewer.frame(size=size):
            pass
    assert viewer.size == (40, 24) and viewer.read_frame().shape == (24, 40, 4)


@pytest.mark.parametrize("size", [(1.5, 2.7), (8.0, 8), ("8", 8), (True, 8)])
def test_a_size_that_is_no_whole_number_is_refused_naming_the_fix(viewer, size):
    with pytest.raises(TypeError, match="pass an int|pass a whole number"):
        interop_lab.Viewer(size=size, window=False, mode="cpu")
    with pytest.raises(TypeError, match="pass an int|pass a whole number"):
        viewer.resize(*size)
    with pytest.raises(TypeError, match="pass an int|pass a whole number"):
        with viewer.frame(size=size):
            pass
    assert viewer.size == (40, 24)


def test_numpy_integers_are_sizes_too(viewer):
    viewer.resize(numpy.int64(20), numpy.int32(12))
    assert viewer.size == (20, 12) and viewer.read_frame().shape == (12, 20, 4)


def test_the_c_abi_checks_its_own_sizes_and_byte_counts(tmp_path):
    # What Python no longer sends, the library refuses too: a byte count that is not width * height * 4, or
    # a negative edge, returned -1 with the reason instead of reading past the caller's memory.
    done = run_headless(
        "import ctypes, interop_lab\n"
        "from interop_lab._native import lib\n"
        "v = interop_lab.Viewer(size=(8, 8), mode='cpu')\n"
        "pixels = (ctypes.c_uint8 * 64)()\n"
        "for call in (lambda: lib.ilab_viewer_show_host(v._handle, pixels, 64, 8, 8),\n"
        f"             lambda: lib.ilab_write_rgba_png(b'{tmp_path}/bad.png', pixels, 64, -4, -4),\n"
        f"             lambda: lib.ilab_write_rgba_png(b'{tmp_path}/big.png', pixels, 64, 8, 8)):\n"
        "    print(call(), lib.ilab_last_error().decode())\n"
    )
    assert done.returncode == 0, (done.returncode, done.stderr)
    lines = done.stdout.splitlines()
    assert lines[0] == "-1 an image of 8x8 needs 256 bytes (width * height * 4), not 64"
    assert lines[1] == "-1 an image of -4x-4: each edge from 1 to 16384"
    assert lines[2] == "-1 an image of 8x8 needs 256 bytes (width * height * 4), not 64"
    assert not os.path.exists(tmp_path / "bad.png") and not os.path.exists(tmp_path / "big.png")


@pytest.mark.parametrize("value_range", [(0, float("inf")), (float("-inf"), 1), (0, float("nan")),
                                         (float("nan"), 1), (0, 1e39), (-3e38, 3e38), (0, 1e-45)])
def test_a_range_float32_cannot_hold_raises_one_value_error(viewer, value_range):
    values = numpy.ones((4, 4), numpy.float32)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no RuntimeWarning of NumPy's on the way
        with pytest.raises(ValueError, match=r"^range: \("):
            viewer.show(values, range=value_range)
        with pytest.raises(ValueError, match=r"^range: \("):
            viewer.show(values[..., None].repeat(3, axis=2), range=value_range)


def test_the_widest_float32_range_still_shows():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with interop_lab.Viewer(size=(4, 4), window=False, mode="cpu") as viewer:
            viewer.show(numpy.full((4, 4), 1.7e38, numpy.float32), range=(-1.7e38, 1.7e38), colormap="gray")
            assert (viewer.read_frame()[..., 0] == 255).all()


@pytest.mark.parametrize("edge", [20000, 100000])
def test_a_shape_over_the_edge_limit_is_refused_before_any_copy(viewer, monkeypatch, edge):
    # A broadcast array is no C-contiguous memory: the check came after numpy.ascontiguousarray copied it
    # (1.6 GB at 20000x20000; at 100000x100000 NumPy's MemoryError instead of the reason).
    def no_copy(*_):
        raise AssertionError("the array was copied before its shape was judged")

    monkeypatch.setattr(interop_lab._arrays.numpy, "ascontiguousarray", no_copy)
    monkeypatch.setattr(interop_lab._arrays, "to_rgba8", no_copy)
    huge = numpy.broadcast_to(numpy.uint8(7), (edge, edge, 4))
    with pytest.raises(ValueError, match=rf"shape \({edge}, {edge}, 4\) is an image of {edge}x{edge}: each edge "
                                         "from 1 to 16384"):
        viewer.show(huge)
    with pytest.raises(ValueError, match="each edge from 1 to 16384"):
        interop_lab.show(numpy.broadcast_to(numpy.float32(0.5), (4, edge)), window=False)


def test_the_path_notice_names_the_callers_line(tmp_path):
    interop_lab.viewer._said.clear()
    with warnings.catch_warnings(record=True) as said:
        warnings.simplefilter("always")
        interop_lab.show(numpy.zeros((4, 4, 4), numpy.uint8), window=False, png=tmp_path / "shown.png")
    notices = [w for w in said if issubclass(w.category, interop_lab.PathNotice)]
    if not notices:
        pytest.skip("CUDA-GL interop works here: there is no fallback to notice")
    assert [os.path.abspath(w.filename) for w in notices] == [os.path.abspath(__file__)]


def test_show_writes_a_new_png_each_call_and_overwrites_none(tmp_path, monkeypatch):
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    (tmp_path / "interop_lab_show-0001.png").write_bytes(b"someone else's")
    first, second = random_picture((6, 5, 4), seed=20), random_picture((6, 5, 4), seed=21)
    first_path = interop_lab.show(first, window=False, mode="cpu")
    second_path = interop_lab.show(second, window=False, mode="cpu")
    assert (tmp_path / "interop_lab_show-0001.png").read_bytes() == b"someone else's"
    assert os.path.basename(first_path) == "interop_lab_show-0002.png"
    assert os.path.basename(second_path) == "interop_lab_show-0003.png"
    numpy.testing.assert_array_equal(decode_png(first_path), first)
    numpy.testing.assert_array_equal(decode_png(second_path), second)


# Every dtype, its default range and its bytes (docs/python.md's table). Each ramp holds 256 values whose
# bytes under the documented rule are 0, 1, ... 255 in order, away from any rounding edge: a (16, 16) picture
# whose gray bytes read as numpy.arange(256).
RAMP = numpy.arange(256).reshape(16, 16)
RAMPS = {
    "uint8": RAMP.astype(numpy.uint8),  # 0..255, the bytes as they are
    "float16": (RAMP / 255.0).astype(numpy.float16),  # 0..1
    "float32": (RAMP / 255.0).astype(numpy.float32),
    "float64": RAMP / 255.0,
    "int8": (RAMP - 128).astype(numpy.int8),  # "auto": -128..127
    "int16": (RAMP * 7 - 1000).astype(numpy.int16),  # "auto": -1000..785
    "int32": (RAMP * 1000003 - 2**31 + 5).astype(numpy.int32),  # "auto", in float64
    "uint16": (RAMP * 257).astype(numpy.uint16),  # "auto": 0..65535
    "uint32": (RAMP * 16843009).astype(numpy.uint32),  # "auto": 0..2**32 - 1, in float64
}
DEFAULT_RANGES = {"uint8": (0, 255), "float16": (0, 1), "float32": (0, 1), "float64": (0, 1), "int8": (-128, 127),
                  "int16": (-1000, 785), "int32": (-2**31 + 5, 255 * 1000003 - 2**31 + 5), "uint16": (0, 65535),
                  "uint32": (0, 2**32 - 1)}
NAN_COLOUR, POSINF_COLOUR, NEGINF_COLOUR = (255, 0, 255, 255), (255, 255, 255, 255), (0, 0, 0, 255)  # the docs'


class HostDlpack:
    """A host array offered through DLPack alone, with the dtype given (bfloat16: `bits` are its uint16 bits)."""

    def __init__(self, bits, typestr):
        self.bits, self.typestr = numpy.ascontiguousarray(bits), typestr

    def __dlpack__(self, stream=None):
        strides = tuple(s // self.bits.itemsize for s in self.bits.strides)
        return interop_lab._dlpack.capsule(self.bits.ctypes.data, self.bits.shape, strides, self.typestr,
                                           interop_lab._dlpack.kDLCPU, 0, owner=self)

    def __dlpack_device__(self):
        return (interop_lab._dlpack.kDLCPU, 0)


def bfloat16_bits(values):
    """bfloat16 bits of float32 values that bfloat16 holds exactly (their float32 bits' upper half)."""
    bits = numpy.asarray(values, numpy.float32).view(numpy.uint32)
    assert not (bits & 0xFFFF).any(), "not a bfloat16 number"
    return (bits >> 16).astype(numpy.uint16)


@pytest.fixture
def ramp_viewer():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", interop_lab.PathNotice)
        with interop_lab.Viewer(size=(16, 16), window=False, mode="cpu") as opened:
            yield opened


@pytest.mark.parametrize("dtype", list(RAMPS))
def test_each_dtype_shows_its_ramp_through_its_default_range(ramp_viewer, dtype):
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # not a word on the way
        assert ramp_viewer.show(RAMPS[dtype]) == DEFAULT_RANGES[dtype] == ramp_viewer.range
    frame = ramp_viewer.read_frame()
    numpy.testing.assert_array_equal(frame[..., 0], RAMP.astype(numpy.uint8))
    numpy.testing.assert_array_equal(frame[..., 2], RAMP.astype(numpy.uint8))
    assert (frame[..., 3] == 255).all()


def test_bool_shows_false_black_and_true_white(ramp_viewer):
    mask = (RAMP % 3 == 0)
    assert ramp_viewer.show(mask) == (0, 1)
    numpy.testing.assert_array_equal(ramp_viewer.read_frame()[..., 0], numpy.where(mask, 255, 0))


def test_bfloat16_through_dlpack_shows_its_ramp(ramp_viewer):
    bits = bfloat16_bits(RAMP)  # 0..255: whole numbers bfloat16 holds exactly
    assert ramp_viewer.show(HostDlpack(bits, "bfloat16"), range=(0, 255)) == (0, 255)
    numpy.testing.assert_array_equal(ramp_viewer.read_frame()[..., 0], RAMP.astype(numpy.uint8))
    assert ramp_viewer.show(HostDlpack(bits, "bfloat16"), range="auto") == (0, 255)
    numpy.testing.assert_array_equal(ramp_viewer.read_frame()[..., 0], RAMP.astype(numpy.uint8))


def test_ml_dtypes_bfloat16_is_shown():
    ml_dtypes = pytest.importorskip("ml_dtypes")
    values = RAMP.astype(numpy.float32).astype(ml_dtypes.bfloat16)
    with interop_lab.Viewer(size=(16, 16), window=False, mode="cpu") as viewer:
        viewer.show(values, range=(0, 255))
        numpy.testing.assert_array_equal(viewer.read_frame()[..., 0], RAMP.astype(numpy.uint8))


@pytest.mark.parametrize("dtype", ["float16", "float32", "float64", "bfloat16"])
def test_nan_and_inf_get_their_own_colours_in_every_float_dtype(ramp_viewer, dtype):
    values = (RAMP / 255.0).astype(numpy.float32 if dtype == "bfloat16" else dtype)
    values.flat[[3, 100, 200]] = numpy.nan, numpy.inf, -numpy.inf
    table = interop_lab._colormaps.table("viridis")  # whose ends are neither black nor white
    if dtype == "bfloat16":
        values = (values * 255).astype(numpy.float32)  # whole numbers, which bfloat16 holds
        shown = HostDlpack(bfloat16_bits(values), "bfloat16")
        value_range = (0, 255)
    else:
        shown, value_range = values, (0, 1)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no RuntimeWarning of NumPy's for NaN or inf
        ramp_viewer.show(shown, colormap="viridis", range=value_range)
    frame = ramp_viewer.read_frame().reshape(256, 4)
    assert tuple(frame[3]) == NAN_COLOUR and tuple(frame[100]) == POSINF_COLOUR and tuple(frame[200]) == NEGINF_COLOUR
    rest = numpy.setdiff1d(numpy.arange(256), [3, 100, 200])
    numpy.testing.assert_array_equal(frame[rest], table[rest])


def test_a_pixel_with_nan_or_inf_in_any_channel_takes_its_colour_whole(ramp_viewer):
    rgb = numpy.full((16, 16, 3), 0.5, numpy.float32)
    rgb[0, 0, 1] = numpy.nan
    rgb[0, 1, 2] = numpy.inf
    rgb[0, 2, 0] = -numpy.inf
    rgb[0, 3] = (numpy.nan, numpy.inf, -numpy.inf)  # NaN first, then +inf, then -inf
    rgb[0, 4] = (numpy.inf, -numpy.inf, 0.0)
    ramp_viewer.show(rgb)
    frame = ramp_viewer.read_frame()
    assert [tuple(frame[0, x]) for x in range(5)] == [NAN_COLOUR, POSINF_COLOUR, NEGINF_COLOUR, NAN_COLOUR,
                                                      POSINF_COLOUR]
    assert (frame[1:, :, :3] == 128).all()


def test_auto_takes_the_first_arrays_finite_min_and_max_and_keeps_it(ramp_viewer):
    first = numpy.linspace(-2.0, 6.0, 256, dtype=numpy.float32).reshape(16, 16)
    first.flat[:3] = numpy.nan, numpy.inf, -numpy.inf  # left out of the range
    assert ramp_viewer.show(first, range="auto") == (float(first.flat[3]), 6.0)
    frame = ramp_viewer.read_frame()[..., 0]
    numpy.testing.assert_array_equal(frame.ravel()[3:], expected_bytes(first.ravel()[3:], float(first.flat[3]), 6.0))
    assert frame.flat[255] == 255 and frame.flat[3] == 0
    second = first * 2  # the range is the first array's: an animation's colours hold still
    assert ramp_viewer.show(second, range="auto") == ramp_viewer.range == (float(first.flat[3]), 6.0)
    assert ramp_viewer.show(second, range="each") == (float(second.flat[3]), 12.0)
    assert ramp_viewer.show(first, range="each") == (float(first.flat[3]), 6.0)
    assert ramp_viewer.show(second, range="auto") == (float(second.flat[3]), 12.0)  # after "each": afresh
    ramp_viewer.show(first, range=(0, 1))
    assert ramp_viewer.show(first, range="auto") == (float(first.flat[3]), 6.0)  # after a fixed range: afresh
    with ramp_viewer.frame() as target:  # pixels written as they are shown: no range
        target[...] = 9
    assert ramp_viewer.range is None


def test_integers_default_to_auto_from_the_first_array(ramp_viewer):
    assert ramp_viewer.show(RAMPS["int16"]) == (-1000, 785)
    assert ramp_viewer.show(RAMPS["int16"] // 2) == (-1000, 785)  # kept: the default is "auto"
    numpy.testing.assert_array_equal(ramp_viewer.read_frame()[..., 0],
                                     expected_bytes(RAMPS["int16"] // 2, -1000, 785))


@pytest.mark.parametrize("values, expected_range, byte", [
    (numpy.full((16, 16), 7.5, numpy.float32), (7.5, 8.5), 0),  # one value: the bottom of low..low + 1
    (numpy.full((16, 16), numpy.nan, numpy.float32), (0.0, 1.0), None),  # nothing finite: NaN's colour
    (numpy.full((16, 16), 3, numpy.int32), (3.0, 4.0), 0),
])
def test_auto_of_an_array_without_a_span(ramp_viewer, values, expected_range, byte):
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert ramp_viewer.show(values, range="auto") == expected_range
    frame = ramp_viewer.read_frame()
    if byte is None:
        assert (frame == NAN_COLOUR).all()
    else:
        assert (frame[..., :3] == byte).all()


def test_auto_of_a_span_float32_cannot_hold_computes_in_float64(ramp_viewer):
    values = numpy.array([-3e38, 0.0, 3e38] * 85 + [0.0], numpy.float32).reshape(16, 16)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # float32 would overflow, with a RuntimeWarning, and show black
        assert ramp_viewer.show(values, range="auto") == (float(numpy.float32(-3e38)), float(numpy.float32(3e38)))
    frame = ramp_viewer.read_frame()[..., 0].ravel()
    assert list(frame[:3]) == [0, 128, 255]


def test_a_fixed_range_of_float64_is_judged_in_float64(ramp_viewer):
    values = RAMP * 1e300  # past float32: shown as float64 numbers
    assert ramp_viewer.show(values, range=(0, 255e300)) == (0, 255e300)
    numpy.testing.assert_array_equal(ramp_viewer.read_frame()[..., 0], RAMP.astype(numpy.uint8))
    with pytest.raises(ValueError, match=r"^range: \(0.0, inf\): pass finite bounds"):
        ramp_viewer.show(values, range=(0, float("inf")))
    with pytest.raises(ValueError, match=r"^range: \(-1e\+308, 1e\+308\): high - low overflows float64"):
        ramp_viewer.show(values, range=(-1e308, 1e308))
    with pytest.raises(ValueError, match=r"^range: 'fit': pass \(low, high\), 'auto' .* or 'each'"):
        ramp_viewer.show(values, range="fit")


def test_python_m_interop_lab_shows_a_float64_npy(tmp_path):
    values = numpy.linspace(0, 1, 10000).reshape(100, 100)  # NumPy's default dtype
    numpy.save(tmp_path / "x.npy", values)
    for extra, shown in [([], values), (["--range", "auto"], values), (["--range", "0", "2"], values / 2)]:
        out = tmp_path / "x.png"
        command = [sys.executable, "-m", "interop_lab", str(tmp_path / "x.npy"), "--headless", "--png", str(out),
                   *extra]
        done = subprocess.run(command, capture_output=True, text=True, cwd=tmp_path)
        assert done.returncode == 0, done.stderr
        assert "range 0..1" in done.stderr or "range 0..2" in done.stderr
        numpy.testing.assert_array_equal(decode_png(out)[..., 0], expected_bytes(shown))
    numpy.save(tmp_path / "wide.npy", numpy.zeros((4, 4), numpy.int64))
    for arguments, message in [([str(tmp_path / "wide.npy")], "dtype int64 is not shown"),
                               ([str(tmp_path / "x.npy"), "--range", "fit"], "--range fit: pass two numbers")]:
        done = subprocess.run([sys.executable, "-m", "interop_lab", *arguments, "--headless"], capture_output=True,
                              text=True, cwd=tmp_path)
        assert done.returncode == 2 and done.stderr.count("\n") == 1 and message in done.stderr, done.stderr


def test_show_and_python_m_interop_lab_take_a_fit_and_refuse_a_bad_one(tmp_path, monkeypatch):
    from interop_lab import viewer as viewer_module

    picture = numpy.zeros((30, 40, 3), numpy.uint8)
    with pytest.raises(ValueError, match=r"^fit='zoom': pass one of contain, stretch, cover, actual$"):
        interop_lab.show(picture, fit="zoom", png=tmp_path / "never.png")
    assert not (tmp_path / "never.png").exists()  # refused before anything opened
    fits = []
    opened = viewer_module.Viewer.__init__

    def recording(self, *arguments, **options):
        opened(self, *arguments, **options)
        fits.append(self.fit)

    monkeypatch.setattr(viewer_module.Viewer, "__init__", recording)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", interop_lab.PathNotice)
        interop_lab.show(picture, fit="cover", png=tmp_path / "cover.png", mode="cpu")
    assert fits == ["cover"]
    numpy.save(tmp_path / "x.npy", numpy.linspace(0, 1, 1200).reshape(30, 40))
    done = subprocess.run([sys.executable, "-m", "interop_lab", str(tmp_path / "x.npy"), "--headless", "--png",
                           str(tmp_path / "x.png"), "--fit", "actual"], capture_output=True, text=True, cwd=tmp_path)
    assert done.returncode == 0 and (tmp_path / "x.png").exists(), done.stderr
    done = subprocess.run([sys.executable, "-m", "interop_lab", str(tmp_path / "x.npy"), "--headless", "--fit", "zoom"],
                          capture_output=True, text=True, cwd=tmp_path)
    assert done.returncode == 2, done.stderr
    assert "--fit: invalid choice: 'zoom' (choose from 'contain', 'stretch', 'cover', 'actual')" in done.stderr
