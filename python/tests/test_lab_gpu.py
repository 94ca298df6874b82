"""interop_lab on a GPU: zero copy, stream order, lifetime and the errors at the boundary, with CuPy
(and PyTorch where installed). Skips without CUDA-GL interop, saying why; where INTEROP_LAB_REQUIRE_GPUS
is set (scripts/gpu-tests.sh on a GPU server) it fails instead."""

import os

import numpy
import pytest

import interop_lab
from gpu_required import cupy_with_a_device, needs_gpu
from interop_lab import InteropLabError


@pytest.fixture(scope="module")
def cupy():
    return cupy_with_a_device()


def _lab(scene, size):
    try:
        return interop_lab.Lab(scene, size=size, mode="interop")
    except InteropLabError as error:
        needs_gpu(f"needs a CUDA device whose GL interop works: {error}")


def test_a_buffer_is_the_mapped_memory_itself(cupy):
    with _lab("wave", (320, 180)) as lab:
        stream = cupy.cuda.Stream(non_blocking=True)
        with lab.map(stream=stream) as frame:
            view = frame["vertex buffer"]
            array = cupy.asarray(view)
            assert array.data.ptr == view.pointer  # zero copy through __cuda_array_interface__
            assert view.__cuda_array_interface__["stream"] == stream.ptr
            with stream:
                array.fill(0)
            del array
        flat = lab.read_frame()
        assert len(numpy.unique(flat.reshape(-1, 4), axis=0)) == 1  # every vertex at the origin: background only


def test_dlpack_to_pytorch_is_zero_copy(cupy):
    torch = pytest.importorskip("torch")
    with _lab("wave", (64, 64)) as lab:
        stream = torch.cuda.Stream()
        with lab.map(stream=stream) as frame:
            view = frame["vertex buffer"]
            tensor = torch.from_dlpack(view)
            assert tensor.data_ptr() == view.pointer and tensor.dtype == torch.float32
            del tensor


def test_a_texture_round_trips_and_is_the_frame(cupy):
    width, height = 257, 131  # awkward: rows are not a multiple of any alignment
    with _lab("pattern", (width, height)) as lab:
        stream = cupy.cuda.Stream(non_blocking=True)
        with stream:
            picture = cupy.random.randint(0, 256, size=(height, width, 4), dtype=cupy.uint8)
            picture[..., 3] = 255
            back = cupy.zeros_like(picture)
        with lab.map(stream=stream) as frame:
            texture = frame["pattern texture"]
            texture.copy_from(picture)
            texture.copy_to(back)
        stream.synchronize()
        assert bool((back == picture).all())
        numpy.testing.assert_array_equal(lab.read_frame(), cupy.asnumpy(picture)[::-1])


def test_a_long_kernel_on_the_users_stream_finishes_before_gl_reads(cupy):
    # Spins ~50 ms before writing the texture through its surface object: only the unmap being ordered
    # after it on the same stream makes the frame right.
    kernel = cupy.RawKernel(r"""
    extern "C" __global__ void slow_fill(unsigned long long surface, int width, int height, long long spin) {
      const long long start = clock64();
      while (clock64() - start < spin) {}
      const int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
      if (x < width && y < height) surf2Dwrite(make_uchar4(x & 255, y & 255, 77, 255), surface, x * 4, y);
    }""", "slow_fill")
    width, height = 320, 200
    with _lab("pattern", (width, height)) as lab:
        stream = cupy.cuda.Stream(non_blocking=True)
        clock_rate = cupy.cuda.runtime.getDeviceProperties(lab.cuda_device)["clockRate"] * 1000
        with lab.map(stream=stream) as frame:
            surface = frame["pattern texture"].surface
            with stream:
                kernel(((width + 15) // 16, (height + 15) // 16), (16, 16),
                       (cupy.uint64(surface), cupy.int32(width), cupy.int32(height), cupy.int64(clock_rate // 20)))
        shown = lab.read_frame()[::-1]  # back to the texture's row order
        ys, xs = numpy.mgrid[0:height, 0:width]
        assert (shown[..., 0] == (xs & 255)).all() and (shown[..., 1] == (ys & 255)).all()
        assert (shown[..., 2] == 77).all()


def test_views_refuse_use_after_the_block(cupy):
    with _lab("pattern", (64, 64)) as lab:
        with lab.map() as frame:
            texture = frame["pattern texture"]
        with pytest.raises(InteropLabError, match="unmapped"):
            texture.surface
        with pytest.raises(InteropLabError, match="unmapped"):
            texture.copy_from(cupy.zeros((64, 64, 4), dtype=cupy.uint8))


def test_bad_inputs_name_the_problem_and_the_fix(cupy):
    with _lab("pattern", (64, 32)) as lab:
        with lab.map() as frame:
            texture = frame["pattern texture"]
            cases = [
                (cupy.zeros((32, 64, 4), dtype=cupy.float32), TypeError, "dtype <f4 .* pass uint8"),
                (cupy.zeros((32, 63, 4), dtype=cupy.uint8), ValueError, r"shape \(32, 63, 4\) where the texture needs"),
                (cupy.zeros((32, 128, 4), dtype=cupy.uint8)[:, ::2], ValueError, "not row-major RGBA8 rows"),
                (cupy.zeros((0, 64, 4), dtype=cupy.uint8), ValueError, "empty"),
                (numpy.zeros((32, 64, 4), dtype=numpy.uint8), TypeError, "no CUDA array"),
            ]
            for array, error, message in cases:
                with pytest.raises(error, match=message):
                    texture.copy_from(array)
            with pytest.raises(InteropLabError, match="not linear memory"):
                cupy.asarray(texture)  # a cudaArray cannot be an ndarray
    with _lab("postprocess", (64, 32)) as lab:
        with lab.map() as frame:
            with pytest.raises(InteropLabError, match="copy_to, not copy_from"):
                frame["rendered scene"].copy_from(cupy.zeros((32, 64, 4), dtype=cupy.uint8))


def test_a_stream_of_another_device_is_refused(cupy):
    if cupy.cuda.runtime.getDeviceCount() < 2:
        if int(os.environ.get("INTEROP_LAB_REQUIRE_GPUS", "0") or 0) >= 2:
            pytest.fail("needs two CUDA devices (INTEROP_LAB_REQUIRE_GPUS=2: this machine must have them)")
        pytest.skip(f"needs two CUDA devices; this machine has {cupy.cuda.runtime.getDeviceCount()}")
    with _lab("pattern", (64, 64)) as lab:
        other = (lab.cuda_device + 1) % cupy.cuda.runtime.getDeviceCount()
        with cupy.cuda.Device(other):
            stream = cupy.cuda.Stream(non_blocking=True)
        with pytest.raises(InteropLabError, match=f"the stream is on CUDA device {other}"):
            with lab.map(stream=stream):
                pass
        with lab.map():  # and the lab still works
            pass


def test_cuda_core_sees_the_mapped_pointer(cupy):
    try:
        from cuda.core.utils import StridedMemoryView
    except ImportError:
        try:
            from cuda.core.experimental.utils import StridedMemoryView
        except ImportError as error:
            needs_gpu(f"needs cuda.core: {error}")
    with _lab("wave", (64, 64)) as lab:
        stream = cupy.cuda.Stream(non_blocking=True)
        with lab.map(stream=stream) as frame:
            view = frame["vertex buffer"]
            strided = StridedMemoryView(view, stream_ptr=stream.ptr)  # through DLPack or the array interface
            assert strided.ptr == view.pointer and tuple(strided.shape) == view.shape
            assert strided.is_device_accessible
            del strided


def test_a_command_switches_the_scene_and_the_mode_and_the_next_block_maps_the_new_objects(cupy):
    with _lab("pattern", (320, 180)) as lab:
        assert lab.command({"scene": "wave"}) == ""
        assert lab.scene == "wave" and lab.uses_cuda and lab.mode == "interop"
        stream = cupy.cuda.Stream(non_blocking=True)
        with lab.map(stream=stream) as frame:
            view = frame["vertex buffer"]
            array = cupy.asarray(view)
            assert array.data.ptr == view.pointer  # the new scene's buffer, mapped
            with stream:
                array.fill(0)
            del array
        flat = lab.read_frame()
        assert len(numpy.unique(flat.reshape(-1, 4), axis=0)) == 1
        # To host memory and back to CUDA, through the command path.
        assert lab.command({"mode": "cpu"}) == ""
        assert lab.mode == "cpu" and not lab.uses_cuda
        with lab.map() as frame:
            assert isinstance(numpy.asarray(frame["vertex buffer"]), numpy.ndarray)
        assert lab.command({"mode": "interop"}) == ""
        assert lab.mode == "interop" and lab.uses_cuda
        assert lab.state["mode"] == "interop"
