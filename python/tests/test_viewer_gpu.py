"""interop_lab.Viewer on a GPU: CuPy, PyTorch and DLPack arrays on the interop and staging paths, zero copy
through viewer.frame() (the data pointer is the mapped memory), stream order, labs and viewers side by
side, and a 1000-update soak. Skips without CUDA (or CuPy), saying why; where INTEROP_LAB_REQUIRE_GPUS
is set (scripts/gpu-tests.sh on a GPU server) it fails instead. Expected pixels are computed here with
NumPy from the array itself."""

import gc
import os
import subprocess
import sys

import numpy
import pytest

import interop_lab
from gpu_required import cupy_with_a_device, needs_gpu
from interop_lab import InteropLabError

from pictures import decode_png, expected_bytes


@pytest.fixture(scope="module")
def cupy():
    return cupy_with_a_device()


def _viewer(size, mode="interop"):
    try:
        return interop_lab.Viewer(size=size, window=False, mode=mode)
    except InteropLabError as error:
        needs_gpu(f"needs a CUDA device whose GL interop works ({mode}): {error}")


@pytest.fixture(params=["interop", "staging"])
def viewer(request, cupy):
    with _viewer((96, 64), request.param) as opened:
        assert opened.path == request.param
        yield opened


def test_a_cupy_rgba_array_is_the_frame(cupy, viewer):
    stream = cupy.cuda.Stream(non_blocking=True)
    with stream:
        picture = cupy.random.randint(0, 256, size=(64, 96, 4), dtype=cupy.uint8)
    viewer.show(picture, stream=stream)
    numpy.testing.assert_array_equal(viewer.read_frame(), cupy.asnumpy(picture))


def test_rgb_float_and_one_channel_colormaps_convert_on_the_gpu(cupy, viewer):
    rng = cupy.random.default_rng(2)
    rgb = rng.random((64, 96, 3), dtype=cupy.float32)
    viewer.show(rgb)
    frame = viewer.read_frame()
    assert numpy.abs(frame[..., :3].astype(int) - expected_bytes(cupy.asnumpy(rgb))).max() <= 1
    assert (frame[..., 3] == 255).all()
    values = cupy.linspace(-5.0, 5.0, 64 * 96, dtype=cupy.float32).reshape(64, 96).astype(cupy.float16)
    viewer.show(values, range=(-5, 5), colormap="viridis")
    table = interop_lab._colormaps.table("viridis")
    expected = table[expected_bytes(cupy.asnumpy(values).astype(numpy.float32), -5.0, 5.0)]
    assert numpy.abs(viewer.read_frame().astype(int) - expected.astype(int)).max() <= 1


def test_strided_cuda_arrays_are_read_in_place(cupy, viewer):
    wide = cupy.random.randint(0, 256, size=(96, 192, 4), dtype=cupy.uint8)
    views = (wide[:64, ::2], cupy.swapaxes(wide, 0, 1)[:96, :64].transpose(1, 0, 2), wide[:64, :96, 2])
    for view in views:
        assert view.shape[:2] == (64, 96) and not view.flags.c_contiguous
        viewer.show(view)
        frame = viewer.read_frame()
        host = cupy.asnumpy(view)
        if host.ndim == 2:
            numpy.testing.assert_array_equal(frame[..., 0], host)
        else:
            numpy.testing.assert_array_equal(frame, host)


def _run_fresh(tmp_path, code):
    """Runs `code` in a new Python process in tmp_path (with this package on its path), as a user's script
    runs: whatever this test process did with CUDA and GL before does not reach it. Returns its stdout."""
    package = os.path.dirname(os.path.dirname(interop_lab.__file__))
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(filter(None, [package, os.environ.get("PYTHONPATH")])))
    done = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, env=env, capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 0, done.stderr
    return done.stdout


def _readme_lines():
    """The first Python block of the package's README, as written there."""
    readme = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "README.md")
    with open(readme, encoding="utf-8") as file:
        text = file.read()
    start = text.index("```python\n") + len("```python\n")
    return text[start:text.index("```", start)]


def test_the_readme_lines_work_as_written(tmp_path, cupy):
    pytest.importorskip("torch")
    lines = _readme_lines()
    assert "interop_lab.Viewer()" in lines and 'screenshot("x.png")' in lines
    # A new user runs them as a script of their own, in a window where there is a display: a fresh process.
    shown_path = _run_fresh(tmp_path, lines + 'import numpy\nnumpy.save("x.npy", x.cpu().numpy())\n'
                            'print(v.path, v.is_window)\n').split()
    x = numpy.load(tmp_path / "x.npy")
    shown = decode_png(tmp_path / "x.png")
    assert shown.shape == (720, 1280, 4)
    assert numpy.abs(shown[..., :3].astype(int) - expected_bytes(x)).max() <= 1
    assert shown_path[0] == "interop", shown_path  # on a GPU whose GL runs on the NVIDIA driver
    assert shown_path[1] == str(bool(os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY")))


def test_a_window_after_headless_interop_names_the_drivers_one_window_system_per_process(tmp_path, cupy):
    if not os.environ.get("DISPLAY"):
        pytest.skip("needs a display (an X server): a window's GLX context beside a headless EGL one")
    out = _run_fresh(tmp_path, """import interop_lab, warnings
warnings.simplefilter("ignore")
with interop_lab.Viewer(size=(64, 48), window=False) as headless:
    print(headless.path)
with interop_lab.Viewer(size=(64, 48), window=True) as window:
    print(window.is_window, window.path, window.path_reason)
""").splitlines()
    assert out[0] == "interop", out
    assert out[1].startswith("True "), out
    # The NVIDIA driver serves CUDA-GL interop through one of EGL and GLX per process (580.159 on an H200:
    # the window gets cudaErrorDeviceUninitialized); where a driver serves both, the window takes interop.
    if not out[1].startswith("True interop"):
        assert out[1].startswith("True staging") and "one of them per process" in out[1], out


def test_pytorch_on_its_own_stream_and_through_dlpack(cupy, viewer):
    torch = pytest.importorskip("torch")
    stream = torch.cuda.Stream()
    with torch.cuda.stream(stream):
        picture = (torch.arange(64 * 96 * 4, device="cuda") % 251).to(torch.uint8).reshape(64, 96, 4)
    viewer.show(picture, stream=stream)
    numpy.testing.assert_array_equal(viewer.read_frame(), picture.cpu().numpy())

    class OnlyDlpack:  # JAX and cuda.core hand arrays over this way
        def __init__(self, tensor):
            self.tensor = tensor

        def __dlpack__(self, stream=None):
            return self.tensor.__dlpack__(stream=stream)

        def __dlpack_device__(self):
            return self.tensor.__dlpack_device__()

    half = torch.rand(64, 96, device="cuda", dtype=torch.float16)
    viewer.show(OnlyDlpack(half))
    assert numpy.abs(viewer.read_frame()[..., 0].astype(int) -
                     expected_bytes(half.float().cpu().numpy())).max() <= 1


def test_frame_yields_the_pictures_own_device_memory(cupy):
    torch = pytest.importorskip("torch")
    with _viewer((96, 64)) as viewer:
        assert viewer.path == "interop"
        stream = cupy.cuda.Stream(non_blocking=True)
        with viewer.frame(stream=stream) as target:
            assert isinstance(target, interop_lab.FrameTarget) and target.shape == (64, 96, 4)
            array = cupy.asarray(target)
            assert array.data.ptr == target.pointer  # CuPy writes the picture's own memory: no copy into it
            assert torch.from_dlpack(target).data_ptr() == target.pointer  # and PyTorch
            with stream:
                array[...] = cupy.arange(96, dtype=cupy.uint8)[None, :, None]
            del array
        frame = viewer.read_frame()  # no show(): the loop drew what was written into the picture
        numpy.testing.assert_array_equal(frame, numpy.broadcast_to(numpy.arange(96, dtype=numpy.uint8)[None, :, None],
                                                                    (64, 96, 4)))
        with pytest.raises(InteropLabError, match="write inside the block"):
            target.pointer


def test_a_slow_kernel_in_frame_finishes_before_gl_draws(cupy):
    kernel = cupy.RawKernel(r"""
    extern "C" __global__ void slow_fill(unsigned char* pixels, int count, long long spin) {
      const long long start = clock64();
      while (clock64() - start < spin) {}
      const int i = blockIdx.x * blockDim.x + threadIdx.x;
      if (i < count) pixels[i] = 123;
    }""", "slow_fill")
    with _viewer((64, 32)) as viewer:
        stream = cupy.cuda.Stream(non_blocking=True)
        clock_rate = cupy.cuda.runtime.getDeviceProperties(viewer.cuda_device)["clockRate"] * 1000
        with viewer.frame(stream=stream) as target:
            count = 64 * 32 * 4
            kernel(((count + 255) // 256,), (256,), (cupy.uint64(target.pointer), cupy.int32(count), cupy.int64(clock_rate // 20)),
                   stream=stream)
        assert (viewer.read_frame() == 123).all()  # only the unmap on the same stream makes this right


def test_labs_and_viewers_on_the_gpu_side_by_side(cupy):
    lab_one = interop_lab.Lab("pattern", size=(32, 16), mode="interop")
    lab_two = interop_lab.Lab("pattern", size=(32, 16), mode="interop")
    view_one, view_two = _viewer((32, 16)), _viewer((32, 16))
    for value, lab in ((11, lab_one), (22, lab_two)):
        with lab.map() as frame:
            frame["pattern texture"].copy_from(cupy.full((16, 32, 4), value, dtype=cupy.uint8))
    view_one.show(cupy.full((16, 32, 4), 33, dtype=cupy.uint8))
    view_two.show(cupy.full((16, 32, 4), 44, dtype=cupy.uint8))
    assert (lab_one.read_frame() == 11).all() and (lab_two.read_frame() == 22).all()
    assert (view_one.read_frame() == 33).all() and (view_two.read_frame() == 44).all()
    lab_one.close()
    view_one.close()
    assert (lab_two.read_frame() == 22).all() and (view_two.read_frame() == 44).all()
    lab_two.close()
    view_two.close()


def _rss_bytes():
    with open("/proc/self/statm") as statm:
        return int(statm.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")


def test_a_thousand_updates_keep_device_memory_and_rss_flat(cupy):
    with _viewer((640, 360)) as viewer:
        stream = cupy.cuda.Stream(non_blocking=True)
        with stream:
            pictures = [cupy.random.random((360, 640, 3), dtype=cupy.float32) for _ in range(4)]
        gray = cupy.random.random((360, 640), dtype=cupy.float32)

        def updates(count):
            for i in range(count):
                viewer.show(pictures[i % 4], stream=stream)
                if i % 10 == 0:
                    viewer.show(gray, colormap="turbo", stream=stream)
                    with viewer.frame(stream=stream) as target, stream:
                        cupy.asarray(target).fill(i % 256)
            stream.synchronize()

        updates(50)  # warm: allocations and caches settle
        gc.collect()
        free_before, _ = cupy.cuda.runtime.memGetInfo()
        rss_before = _rss_bytes()
        updates(1000)
        gc.collect()
        free_after, _ = cupy.cuda.runtime.memGetInfo()
        rss_after = _rss_bytes()
        assert free_before - free_after < 8 << 20, f"device memory grew {(free_before - free_after) >> 20} MiB"
        assert rss_after - rss_before < 16 << 20, f"RSS grew {(rss_after - rss_before) >> 20} MiB"
        assert viewer.stats["frames"] > 1000


def test_gpu_misuse_names_the_fix(cupy):
    with _viewer((32, 16)) as viewer:
        with pytest.raises(TypeError, match="no CUDA stream"):
            viewer.show(cupy.zeros((16, 32, 4), cupy.uint8), stream=object())
        with pytest.raises(ValueError, match="5 channels"):  # (16, 32, 5) is a stack of 16 frames
            viewer.show(cupy.zeros((2, 16, 32, 5), cupy.uint8))
        with pytest.raises(TypeError, match="int64 is not shown"):
            viewer.show(cupy.zeros((16, 32), cupy.int64))
        with pytest.raises(TypeError, match="complex64 is not shown"):
            viewer.show(cupy.zeros((16, 32), cupy.complex64))
        with viewer.frame():
            with pytest.raises(InteropLabError, match="inside a `with viewer.frame\\(\\)` block"):
                viewer.show(cupy.zeros((16, 32, 4), cupy.uint8))
    if cupy.cuda.runtime.getDeviceCount() >= 2:
        with _viewer((32, 16)) as viewer:
            other = (viewer.cuda_device + 1) % cupy.cuda.runtime.getDeviceCount()
            with cupy.cuda.Device(other):
                elsewhere = cupy.zeros((16, 32, 4), cupy.uint8)
            with pytest.raises(InteropLabError, match=f"the array is on CUDA device {other}"):
                viewer.show(elsewhere)


def test_cuda_core_sees_the_frame_targets_mapped_pointer(cupy):
    try:
        from cuda.core.utils import StridedMemoryView
    except ImportError:
        try:
            from cuda.core.experimental.utils import StridedMemoryView
        except ImportError as error:
            needs_gpu(f"needs cuda.core: {error}")
    with _viewer((64, 32)) as viewer:
        stream = cupy.cuda.Stream(non_blocking=True)
        with viewer.frame(stream=stream) as target:
            strided = StridedMemoryView(target, stream_ptr=stream.ptr)
            assert strided.ptr == target.pointer and tuple(strided.shape) == (32, 64, 4)
            del strided


def test_a_jax_array_is_shown_through_dlpack(cupy):
    jax = pytest.importorskip("jax")
    if not any(device.platform == "gpu" for device in jax.devices()):
        pytest.skip("JAX has no GPU backend here")
    values = jax.numpy.linspace(0.0, 1.0, 32 * 64, dtype=jax.numpy.float32).reshape(32, 64)
    with _viewer((64, 32)) as viewer:
        viewer.show(values, colormap="gray")
        expected = expected_bytes(numpy.asarray(values))
        assert numpy.abs(viewer.read_frame()[..., 0].astype(int) - expected).max() <= 1


def test_a_tensor_that_needs_grad_says_to_detach(cupy):
    torch = pytest.importorskip("torch")
    with _viewer((16, 8)) as viewer:
        with pytest.raises(TypeError, match=r"x.detach\(\)"):
            viewer.show(torch.rand(8, 16, 3, device="cuda", requires_grad=True))


def test_frame_holds_the_picture_shown_so_a_partial_write_keeps_the_rest(cupy):
    with _viewer((32, 16)) as viewer:
        picture = cupy.random.randint(0, 256, size=(16, 32, 4), dtype=cupy.uint8)
        viewer.show(picture)
        with viewer.frame() as target:
            numpy.testing.assert_array_equal(cupy.asnumpy(cupy.asarray(target)), cupy.asnumpy(picture))
            cupy.asarray(target)[:8] = 0  # the top half only
        expected = cupy.asnumpy(picture)
        expected[:8] = 0
        numpy.testing.assert_array_equal(viewer.read_frame(), expected)


# Every dtype converts on the GPU to the bytes the NumPy path gives the same values (kernels/convert.hpp's rule
# is written twice, once per path): random values over and beyond the range, NaN and inf among the floats'.
GPU_DTYPES = ["uint8", "float16", "float32", "float64", "int8", "int16", "int32", "uint16", "uint32", "bool"]


def _random_values(dtype, shape, seed):
    rng = numpy.random.default_rng(seed)
    if dtype == "bool":
        return rng.random(shape) < 0.5
    if dtype.startswith("float"):
        values = (rng.random(shape) * 3.0 - 1.0).astype(dtype)
        flat = values.reshape(-1)
        for special, count in ((numpy.nan, 7), (numpy.inf, 5), (-numpy.inf, 3)):
            flat[rng.integers(0, flat.size, count)] = special
        return values
    info = numpy.iinfo(dtype)
    return rng.integers(info.min, info.max, size=shape, endpoint=True, dtype=dtype)


def _fixed_range(dtype):
    if dtype.startswith("float") or dtype == "bool":
        return (-0.5, 2.0)
    info = numpy.iinfo(dtype)
    return (info.min / 2 + 3, info.max / 2 - 1)


def _numpy_path(host, **show):
    """What the cpu path (NumPy) shows for `host` and the range it reports."""
    with interop_lab.Viewer(size=(96, 64), window=False, mode="cpu") as cpu:
        shown_range = cpu.show(host, **show)
        return cpu.read_frame(), shown_range


@pytest.mark.filterwarnings("ignore::interop_lab.PathNotice")
@pytest.mark.parametrize("dtype", GPU_DTYPES)
@pytest.mark.parametrize("range_", [None, "auto", "each", "fixed"])
def test_each_dtype_converts_on_the_gpu_to_the_numpy_paths_bytes(cupy, viewer, dtype, range_):
    value_range = _fixed_range(dtype) if range_ == "fixed" else range_
    for channels, seed in ((1, 1), (3, 2), (4, 3)):
        host = _random_values(dtype, (64, 192, channels), seed)
        device = cupy.asarray(host)[:, ::2]  # read in place through its strides
        if channels == 1:
            device = device[..., 0]
        colormap = "viridis" if channels == 1 else None
        expected, expected_range = _numpy_path(numpy.ascontiguousarray(cupy.asnumpy(device)), range=value_range,
                                               colormap=colormap)
        viewer._auto_range = None  # each array is the first of its "auto"
        assert viewer.show(device, range=value_range, colormap=colormap) == expected_range
        numpy.testing.assert_array_equal(viewer.read_frame(), expected, err_msg=f"{dtype}, {channels} channels")


class _HostBfloat16:
    """bfloat16 bits in host memory, offered through DLPack as kDLBfloat (what NumPy has no dtype for)."""

    def __init__(self, bits):
        self.bits = numpy.ascontiguousarray(bits)

    def __dlpack__(self, stream=None):
        strides = tuple(s // 2 for s in self.bits.strides)
        return interop_lab._dlpack.capsule(self.bits.ctypes.data, self.bits.shape, strides, "bfloat16",
                                           interop_lab._dlpack.kDLCPU, 0, owner=self)

    def __dlpack_device__(self):
        return (interop_lab._dlpack.kDLCPU, 0)


@pytest.mark.filterwarnings("ignore::interop_lab.PathNotice")
@pytest.mark.parametrize("range_", [(-0.5, 2.0), "auto"])
def test_a_torch_bfloat16_tensor_converts_on_the_gpu_to_the_numpy_paths_bytes(cupy, viewer, range_):
    torch = pytest.importorskip("torch")
    values = torch.rand(64, 96, 3, device="cuda") * 3 - 1
    values.view(-1)[[5, 50, 500]] = torch.tensor([float("nan"), float("inf"), float("-inf")], device="cuda")
    values = values.to(torch.bfloat16)  # no __cuda_array_interface__ for it: through DLPack (kDLBfloat)
    bits = values.view(torch.int16).cpu().numpy().view(numpy.uint16)
    expected, expected_range = _numpy_path(_HostBfloat16(bits), range=range_)
    assert viewer.show(values, range=range_) == expected_range
    numpy.testing.assert_array_equal(viewer.read_frame(), expected)
    assert tuple(viewer.read_frame()[0, 1]) == (255, 0, 255, 255)  # flat 5: the NaN in pixel (0, 1)


def test_auto_finds_the_bounds_on_the_gpu(cupy, viewer, monkeypatch):
    values = cupy.linspace(-3.0, 5.0, 64 * 96, dtype=cupy.float32).reshape(64, 96)
    values[0, :3] = cupy.array([cupy.nan, cupy.inf, -cupy.inf], dtype=cupy.float32)

    host = cupy.asnumpy(values)

    def no_host_copy(*_, **__):
        raise AssertionError("the array was copied to the host")

    monkeypatch.setattr(cupy, "asnumpy", no_host_copy)
    monkeypatch.setattr(cupy.ndarray, "get", no_host_copy)
    assert viewer.show(values, range="each") == (float(host[0, 3]), 5.0)
    assert viewer.show(values[:, 40:60], range="each") == (float(host[0, 40]), float(host[63, 59]))


def test_value_at_of_a_cuda_array_is_its_own_value_copied_one_pixel_alone(cupy, viewer, monkeypatch):
    values = cupy.random.default_rng(7).random((64, 96), dtype=cupy.float64)
    values[5, 9] = 0.12345678901234567
    viewer.show(values)
    monkeypatch.setattr(cupy, "asnumpy", None)  # no host copy of the array on the way
    assert viewer.value_at(9, 5) == 0.12345678901234567
    monkeypatch.undo()
    rgb = cupy.random.default_rng(8).random((64, 192, 3), dtype=cupy.float32)[:, ::2]  # strided
    viewer.show(rgb)
    assert viewer.value_at(3, 4) == tuple(cupy.asnumpy(rgb[4, 3]))


def test_a_cuda_stack_shows_the_frame_its_index_picks(cupy, viewer):
    stack = cupy.random.default_rng(9).random((4, 64, 96), dtype=cupy.float32)
    host = cupy.asnumpy(stack)
    assert viewer.show(stack, range="auto") == (float(host.min()), float(host.max()))  # every frame's
    assert viewer.frames == 4
    viewer.index = 2
    low, high = viewer.range
    assert numpy.abs(viewer.read_frame()[..., 0].astype(int) - expected_bytes(host[2], low, high)).max() <= 1
    assert viewer.value_at(10, 20) == host[2, 20, 10]


# Points --------------------------------------------------------------------------------------------------------


def test_points_frame_yields_the_memory_the_points_kernel_reads(cupy):
    """Zero copy: the positions and colours CuPy writes inside the block are the memory the loop's points kernel
    reads, drawn with no show() and no copy, as the cpu path's reference says."""
    from test_viewer_points_cpu import SIZE, clear_of_edges, reference

    with _viewer((200, 150)) as viewer:
        assert viewer.path == "interop"
        rng = numpy.random.default_rng(7)
        xyz = rng.uniform(-1.0, 1.0, size=(400, 3)).astype(numpy.float32)
        viewer.points(cupy.asarray(xyz), colors=cupy.full((400, 3), 255, cupy.uint8), size=SIZE)
        matrix = viewer.camera["matrix"]
        chosen = xyz[clear_of_edges(xyz, matrix, 200, 150)]
        colours = rng.integers(0, 256, size=(len(chosen), 4), dtype=numpy.uint8)
        colours[:, 3] = 255
        stream = cupy.cuda.Stream(non_blocking=True)
        with viewer.points_frame(len(chosen), stream=stream, size=SIZE) as (positions, rgba):
            assert isinstance(positions, interop_lab.FrameTarget) and positions.shape == (len(chosen), 3)
            written = cupy.asarray(positions)
            assert written.data.ptr == positions.pointer and written.dtype == cupy.float32  # the mapped buffer
            with stream:
                written[...] = cupy.asarray(chosen)
                cupy.asarray(rgba)[...] = cupy.asarray(colours)
            del written
        numpy.testing.assert_array_equal(viewer.read_frame(), reference(chosen, colours, matrix, 200, 150))
        with pytest.raises(InteropLabError, match="write inside the block"):
            positions.pointer


@pytest.mark.parametrize("mode", ["interop", "staging"])
def test_cuda_points_draw_as_their_cpu_reference_with_values_converted_on_the_gpu(cupy, mode):
    from test_viewer_points_cpu import SIZE, clear_of_edges, reference

    with _viewer((200, 150), mode) as viewer:
        rng = numpy.random.default_rng(11)
        xyz = rng.uniform(-1.0, 1.0, size=(300, 3)).astype(numpy.float32)
        viewer.points(cupy.asarray(xyz), size=SIZE)
        matrix = viewer.camera["matrix"]
        chosen = xyz[clear_of_edges(xyz, matrix, 200, 150)]
        values = rng.uniform(-5.0, 5.0, size=len(chosen))  # float64, converted on the GPU
        wide = cupy.zeros((len(chosen), 4), cupy.float32)  # xyz in an (N, 4) array: rows 16 bytes apart
        wide[:, :3] = cupy.asarray(chosen)
        assert viewer.points(wide[:, :3], values=cupy.asarray(values), colormap="turbo", size=SIZE) == (
            values.min(), values.max())
        table = interop_lab._colormaps.table("turbo")
        t = (values - values.min()) / (values.max() - values.min())
        expected = table[numpy.floor(t * 255 + 0.5).astype(int)]
        numpy.testing.assert_array_equal(viewer.read_frame(), reference(chosen, expected, matrix, 200, 150))
        with pytest.raises(TypeError, match="float32 positions"):
            viewer.points(cupy.asarray(xyz, cupy.float64))
