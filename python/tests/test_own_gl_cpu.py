"""The caller's own GL next to interop_lab without CUDA: each lab and viewer call gives the caller's
context back, and registering GL objects says what it needs. The CUDA side is test_own_gl_gpu.py."""

import numpy
import pytest

import interop_lab
from interop_lab import InteropLabError
from own_gl import OwnContext


@pytest.fixture
def own():
    try:
        context = OwnContext()
    except (OSError, RuntimeError) as error:
        pytest.skip(f"needs an EGL device with OpenGL 4.5: {error}")
    yield context
    context.close()


def test_the_callers_context_stays_current_through_labs_and_viewers(own):
    own.make_current()
    name = own.buffer(16, bytes(range(16)))
    with interop_lab.Viewer(size=(16, 8), window=False, mode="cpu") as viewer:
        assert own.is_current()  # opening gave it back
        viewer.show(numpy.full((8, 16, 4), 9, numpy.uint8))
        assert own.is_current()
        assert (viewer.read_frame() == 9).all() and own.is_current()
        with interop_lab.Lab("pattern", size=(16, 8), mode="cpu") as lab:
            with lab.map() as frame:
                numpy.asarray(frame["pattern texture"])[...] = 4
            assert (lab.read_frame() == 4).all() and own.is_current()
    assert own.is_current()  # closing too
    # And its objects are untouched: the viewer's and the lab's GL work ran in their own contexts.
    assert own.read_buffer(name, 16) == bytes(range(16))


def test_registering_without_a_current_context_says_so():
    with pytest.raises(InteropLabError, match="no GL context is current on this thread"):
        interop_lab.GLBuffer(1)


def test_registering_without_cuda_says_what_it_needs(own):
    own.make_current()
    name = own.buffer(64)
    try:
        registration = interop_lab.GLBuffer(name)
    except InteropLabError as error:
        assert "needs a CUDA device" in str(error) or "cannot share this GL context" in str(error)
    else:
        registration.close()
        pytest.skip("CUDA-GL interop works here: test_own_gl_gpu.py covers it")


def test_map_gl_refuses_what_is_not_a_registration():
    with pytest.raises(ValueError, match="at least one GLBuffer or GLTexture"):
        with interop_lab.map_gl():
            pass
    with pytest.raises(TypeError, match="argument 0 is a int: pass GLBuffer / GLTexture"):
        with interop_lab.map_gl(5):
            pass
    with pytest.raises(TypeError, match="pass the GL object's name, a positive int"):
        interop_lab.GLTexture("texture")
