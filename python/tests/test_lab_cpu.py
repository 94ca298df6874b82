"""interop_lab on the cpu path (host memory, no CUDA): what runs in CI, on Mesa's llvmpipe through EGL.
The GPU side (CuPy, PyTorch, cuda.core on mapped CUDA memory) is python/tests/test_lab_gpu.py."""

import gc
import warnings

import numpy
import pytest

import interop_lab
from interop_lab import InteropLabError


@pytest.fixture
def pattern_lab():
    with interop_lab.Lab("pattern", size=(64, 48), mode="cpu") as lab:
        yield lab


def test_resources_describe_the_scene(pattern_lab):
    assert pattern_lab.resources == [
        {"label": "pattern texture", "kind": "texture", "role": "output", "bytes": 64 * 48 * 4, "width": 64,
         "height": 48}
    ]
    assert not pattern_lab.uses_cuda


def test_what_python_writes_is_the_frame(pattern_lab):
    rng = numpy.random.default_rng(7)
    picture = rng.integers(0, 256, size=(48, 64, 4), dtype=numpy.uint8)
    picture[..., 3] = 255
    with pattern_lab.map(frame=3) as frame:
        texture = numpy.asarray(frame["pattern texture"])
        assert texture.shape == (48, 64, 4) and texture.dtype == numpy.uint8
        texture[...] = picture
    shown = pattern_lab.read_frame()
    # Textures keep GL's row order (row 0 at the bottom); the frame comes back top row first.
    numpy.testing.assert_array_equal(shown, picture[::-1])


def test_dlpack_shares_the_memory(pattern_lab):
    with pattern_lab.map() as frame:
        view = frame["pattern texture"]
        assert view.__dlpack_device__() == (1, 0)  # kDLCPU
        numpy.asarray(view)[...] = 200
        through_dlpack = numpy.from_dlpack(view)  # NumPy makes DLPack imports read-only
        assert through_dlpack.ctypes.data == numpy.asarray(view).ctypes.data  # the same memory, no copy
        assert through_dlpack[5, 7, 2] == 200
        del through_dlpack
    assert (pattern_lab.read_frame() == 200).all()


def test_a_dlpack_tensor_alive_at_the_unmap_is_reported(pattern_lab):
    with pytest.warns(ResourceWarning, match="still alive at the unmap"):
        with pattern_lab.map() as frame:
            kept = numpy.from_dlpack(frame["pattern texture"])
    del kept
    gc.collect()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with pattern_lab.map() as frame:
            assert numpy.from_dlpack(frame["pattern texture"]).shape == (48, 64, 4)  # dropped inside: no warning


def test_views_refuse_use_after_the_block(pattern_lab):
    with pattern_lab.map() as frame:
        view = frame["pattern texture"]
    for use in (lambda: numpy.asarray(view), lambda: view.__dlpack__(), lambda: frame["pattern texture"]):
        with pytest.raises(InteropLabError, match="unmapped"):
            use()


def test_the_postprocess_input_is_what_gl_rendered():
    with interop_lab.Lab("postprocess", size=(96, 64), mode="cpu") as lab:
        labels = [r["label"] for r in lab.resources]
        assert labels == ["rendered scene", "filtered image"]
        with lab.map(frame=10) as frame:
            rendered = numpy.asarray(frame["rendered scene"]).copy()
            numpy.asarray(frame["filtered image"])[...] = rendered  # show the input as it is
        # Lit cubes over a floor against a dark background: many distinct colours, not a cleared target.
        assert len(numpy.unique(rendered.reshape(-1, 4), axis=0)) > 50
        numpy.testing.assert_array_equal(lab.read_frame(), rendered[::-1])


def test_wave_vertices_are_float32_and_drawn():
    with interop_lab.Lab("wave", size=(128, 96), mode="cpu") as lab:
        with lab.map() as frame:
            vertices = numpy.asarray(frame["vertex buffer"])
            assert vertices.dtype == numpy.float32 and vertices.ndim == 1
            vertices[...] = 0.0  # every vertex at the origin: nothing but the background is drawn
        flat = lab.read_frame()
        assert len(numpy.unique(flat.reshape(-1, 4), axis=0)) == 1


def test_a_lab_speaks_the_pages_protocol_and_hands_out_what_it_switched_to(pattern_lab):
    state = pattern_lab.state
    assert (state["scene"], state["size"], state["mode"]) == ("pattern", [64, 48], "cpu")
    assert pattern_lab.command({"scene": "postprocess"}) == ""
    assert pattern_lab.scene == "postprocess" and pattern_lab.state["scene"] == "postprocess"
    assert [r["label"] for r in pattern_lab.resources] == ["rendered scene", "filtered image"]
    assert pattern_lab.command({"size": [32, 24]}) == ""
    assert pattern_lab.size == (32, 24)
    assert {(r["width"], r["height"]) for r in pattern_lab.resources} == {(32, 24)}
    assert pattern_lab.command({"filter": "blur"}) == "" and pattern_lab.state["filter"] == "blur"
    # The next map block hands out the new scene's objects at the new size, and they are the frame.
    with pattern_lab.map(frame=4) as frame:
        filtered = numpy.asarray(frame["filtered image"])
        assert filtered.shape == (24, 32, 4)
        filtered[...] = 77
    assert pattern_lab.read_frame().shape == (24, 32, 4) and (pattern_lab.read_frame() == 77).all()

    # Refused, saying why, and nothing changes: the app's own frames' controls, a mode without halves, interop
    # without CUDA (in Python's words, not the command line's). Where CUDA-GL interop works, the Lab switches
    # to it, and back.
    assert pattern_lab.command({"pause": True}).startswith("pause refused: a Lab's frames are its caller's")
    assert pattern_lab.command({"mode": "pbo"}).startswith("mode pbo refused: a Lab maps through interop or cpu")
    refusal = pattern_lab.command({"mode": "interop"})
    if refusal:
        assert refusal.startswith("mode interop is unavailable: ") and "--mode" not in refusal
    else:
        assert pattern_lab.mode == "interop" and pattern_lab.state["mode"] == "interop"
        assert pattern_lab.command({"mode": "cpu"}) == ""
    assert pattern_lab.mode == "cpu" and pattern_lab.scene == "postprocess"
    with pytest.raises(ValueError):
        pattern_lab.command({"scene": "nope"})
    with pattern_lab.map():
        with pytest.raises(InteropLabError, match="inside a map block"):
            pattern_lab.command({"scene": "wave"})
    assert pattern_lab.scene == "postprocess"


@pytest.mark.parametrize(
    "arguments, message",
    [
        ({"scene": "nope"}, "scene 'nope': use wave, pattern or postprocess"),
        ({"scene": "pattern", "mode": "pbo"}, "mode 'pbo': use interop or cpu"),
        ({"scene": "pattern", "size": (0, 10)}, "size 0x10"),
        ({"scene": "pattern", "size": (20000, 10)}, "size 20000x10"),
    ],
)
def test_bad_arguments_say_what_is_accepted(arguments, message):
    with pytest.raises(InteropLabError, match=message):
        interop_lab.Lab(**{"mode": "cpu", **arguments})


def test_misuse_inside_and_outside_a_block(pattern_lab):
    with pytest.raises(TypeError, match="no CUDA stream"):
        with pattern_lab.map(stream="fast"):
            pass
    with pattern_lab.map() as frame:
        with pytest.raises(InteropLabError, match="mapped already"):
            with pattern_lab.map():
                pass
        with pytest.raises(InteropLabError, match="inside a map block"):
            pattern_lab.read_frame()
        with pytest.raises(KeyError, match="pattern texture"):
            frame["vertex buffer"]
    pattern_lab.read_frame()  # fine again after the block


def test_interop_without_a_gpu_says_why():
    try:
        lab = interop_lab.Lab("pattern", size=(32, 32), mode="interop")
    except InteropLabError as error:
        assert "interop is unavailable here" in str(error) and "mode='cpu'" in str(error)
    else:
        lab.close()
        pytest.skip("CUDA-GL interop works on this machine: test_lab_gpu.py covers it")


def test_a_lab_refuses_calls_from_another_thread_and_stays_whole(pattern_lab):
    import threading

    said = []

    def use():
        for call in (pattern_lab.read_frame, pattern_lab.close):
            try:
                call()
            except InteropLabError as error:
                said.append(str(error))

    worker = threading.Thread(target=use)
    worker.start()
    worker.join()
    assert len(said) == 2 and all("was opened on thread" in text and "call it from there" in text for text in said)
    with pattern_lab.map() as frame:  # neither the read nor the close went through: the lab still works
        numpy.asarray(frame["pattern texture"])[...] = 66
    assert (pattern_lab.read_frame() == 66).all()


def test_a_frame_answers_in_and_keys_by_label(pattern_lab):
    with pattern_lab.map() as frame:
        assert "pattern texture" in frame and "vertex buffer" not in frame
        assert list(frame.keys()) == ["pattern texture"] == [r["label"] for r in pattern_lab.resources]
        assert [view.label for view in frame] == list(frame.keys())  # iterating still yields the views
    with pytest.raises(InteropLabError, match="unmapped"):
        "pattern texture" in frame


@pytest.mark.parametrize("size, error, message", [
    ((2**32 + 64, 48), ValueError, r"size 4294967360x48: each edge from 1 to 16384"),
    ((64, -48), ValueError, r"size 64x-48: each edge from 1 to 16384"),
    ((64.5, 48), TypeError, r"64.5 is no whole number: pass an int"),
    (64, TypeError, r"pass \(width, height\)"),
])
def test_a_size_is_judged_before_it_crosses_the_c_abi(size, error, message):
    # 2**32 + 64 wrapped to 64 in the C ABI's int: the lab opened at 64x48 and said it was (4294967360, 48).
    with pytest.raises(error, match=message):
        interop_lab.Lab("pattern", size=size, mode="cpu")


def test_frame_indices_and_max_diff_are_whole_numbers_in_range(pattern_lab):
    with pytest.raises(ValueError, match="frame 18446744073709551616: from"):
        with pattern_lab.map(frame=2**64):
            pass
    with pytest.raises(TypeError, match="frame: 1.5 is no whole number"):
        with pattern_lab.map(frame=1.5):
            pass
    pattern_lab.read_frame()
    with pytest.raises(ValueError, match="max_diff 4294967296: from 0 to 255"):  # wrapped to 0: "matches"
        pattern_lab.compare_png("unused.png", max_diff=2**32)


def test_a_refusal_speaks_python_not_the_command_line():
    try:
        lab = interop_lab.Lab("pattern", size=(32, 32), mode="interop")
    except InteropLabError as error:
        assert "--mode" not in str(error) and "--doctor" not in str(error), str(error)
        assert str(error).endswith("open the lab with mode='cpu'")
    else:
        lab.close()
        pytest.skip("CUDA-GL interop works on this machine: nothing is refused")
