"""The caller's own GL buffer and texture, registered from the caller's context and mapped together on
a CuPy stream: the buffer's pointer is device memory CuPy writes, the texture takes a kernel's surface
writes, and GL reads back what CUDA wrote. Skips without CUDA-GL interop (fails where
INTEROP_LAB_REQUIRE_GPUS is set)."""


import numpy
import pytest

import interop_lab
from gpu_required import cupy_with_a_device, needs_gpu
from interop_lab import InteropLabError
from own_gl import OwnContext


@pytest.fixture
def cupy():
    return cupy_with_a_device()


@pytest.fixture
def own(cupy):
    try:
        context = OwnContext()
    except (OSError, RuntimeError) as error:
        needs_gpu(f"needs an EGL device with OpenGL 4.5: {error}")
    yield context
    context.close()


def _register(kind, *arguments, **keywords):
    try:
        return kind(*arguments, **keywords)
    except InteropLabError as error:
        needs_gpu(f"needs CUDA-GL interop for the test's own EGL context: {error}")


def test_a_buffer_and_a_texture_mapped_in_one_call(cupy, own):
    width, height, nbytes = 48, 20, 4096
    own.make_current()
    buffer_name, texture_name = own.buffer(nbytes), own.texture(width, height)
    buffer = _register(interop_lab.GLBuffer, buffer_name)
    texture = _register(interop_lab.GLTexture, texture_name, surface=True)
    assert texture.internal_format == 0x8058  # GL_RGBA8, as queried at registration
    kernel = cupy.RawKernel(r"""
    extern "C" __global__ void paint(unsigned long long surface, int width, int height) {
      const int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
      if (x < width && y < height) surf2Dwrite(make_uchar4(x, y, 200, 255), surface, x * 4, y);
    }""", "paint")
    stream = cupy.cuda.Stream(non_blocking=True)
    with interop_lab.map_gl(buffer, texture, stream=stream) as (mapped_buffer, mapped_texture):
        array = cupy.asarray(mapped_buffer)
        assert array.data.ptr == mapped_buffer.pointer and array.nbytes == nbytes  # the mapped memory itself
        assert mapped_texture.array != 0
        with stream:
            array[...] = cupy.arange(nbytes, dtype=cupy.uint32).astype(cupy.uint8)
            kernel(((width + 15) // 16, (height + 15) // 16), (16, 16),
                   (cupy.uint64(mapped_texture.surface), cupy.int32(width), cupy.int32(height)))
        del array
    with pytest.raises(InteropLabError, match="block has ended"):
        mapped_buffer.pointer
    own.make_current()
    own.glFinish()
    assert own.read_buffer(buffer_name, nbytes) == bytes(numpy.arange(nbytes, dtype=numpy.uint32).astype(numpy.uint8))
    texels = numpy.frombuffer(own.read_texture(texture_name, width, height), numpy.uint8).reshape(height, width, 4)
    ys, xs = numpy.mgrid[0:height, 0:width]
    assert (texels[..., 0] == xs).all() and (texels[..., 1] == ys).all() and (texels[..., 2] == 200).all()


def test_unregistering_makes_the_registering_context_current(cupy, own):
    own.make_current()
    buffer = _register(interop_lab.GLBuffer, own.buffer(256))
    with interop_lab.Viewer(size=(16, 16), window=False) as viewer:  # a context of interop_lab's in between
        viewer.show(cupy.zeros((16, 16, 4), cupy.uint8))
        own.release()
        buffer.close()  # no context current: the registration's is made current for the unregister
        assert not own.is_current()
    with pytest.raises(InteropLabError, match="is closed"):
        with interop_lab.map_gl(buffer):
            pass


def test_an_object_mapped_twice_or_closed_while_mapped_is_refused(cupy, own):
    own.make_current()
    buffer = _register(interop_lab.GLBuffer, own.buffer(256))
    with interop_lab.map_gl(buffer):
        with pytest.raises(InteropLabError, match="mapped already"):
            with interop_lab.map_gl(buffer):
                pass
        with pytest.raises(InteropLabError, match="still mapped"):
            buffer.close()
    buffer.close()
