"""interop_lab.Viewer(serve=...) with CUDA arrays: a CuPy array shown on the interop and the staging path reaches
a loopback WebSocket client within the desk's JPEG tolerance, the state names the loop's mode and its kernel,
and a frame() block written with CuPy is served too. Skips without CuPy or a CUDA device whose GL interop
works, saying why; fails instead where INTEROP_LAB_REQUIRE_GPUS is set (scripts/gpu-tests.sh on a GPU
server). Expected pixels are the array itself, computed here with NumPy."""

import warnings

import numpy
import pytest

import interop_lab

from desk_client import DeskClient
from gpu_required import cupy_with_a_device, needs_gpu
from interop_lab import InteropLabError
from test_viewer_serve_cpu import assert_within_jpeg_tolerance, read_until_shown, smooth_picture


@pytest.fixture(scope="module")
def cupy():
    try:  # desk_client.py decodes the frames' JPEGs with Pillow: a GPU run without it must not pass by skipping
        import PIL.Image  # noqa: F401
    except ImportError as error:
        needs_gpu(f"needs Pillow to decode the desk's JPEGs (python3-pil, or pip install pillow): {error}")
    return cupy_with_a_device()


@pytest.fixture(params=["interop", "staging"])
def served(request, cupy):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", interop_lab.PathNotice)
        try:
            viewer = interop_lab.Viewer(size=(320, 200), window=False, mode=request.param, serve=0)
        except InteropLabError as error:
            needs_gpu(f"needs a CUDA device whose GL interop works ({request.param}): {error}")
    with viewer:
        yield viewer


def test_a_cupy_array_served_reaches_the_page(served, cupy):
    picture = smooth_picture(200, 320)
    stream = cupy.cuda.Stream(non_blocking=True)
    served.show(cupy.asarray(picture), stream=stream)
    with DeskClient(served.url) as page:
        state, (_, received) = page.read_state_and_frame()
    assert_within_jpeg_tolerance(received, picture)
    assert state["source"] == "array"
    assert state["mode"] == served.path
    assert state["cuda_device"] == served.cuda_device
    assert "kernel" in {line["phase"] for line in state["phases"]}  # the blit into the frame, CUDA-timed


def test_a_float_array_on_the_gpu_is_served_through_its_conversion(served, cupy):
    values = smooth_picture(200, 320)[..., :3].astype(numpy.float32) / 255.0
    served.show(cupy.asarray(values))
    with DeskClient(served.url) as page:
        _, (_, received) = page.read_state_and_frame()
    assert_within_jpeg_tolerance(received[..., :3], numpy.floor(values * 255 + 0.5).astype(numpy.uint8))


def test_a_frame_block_written_with_cupy_is_served(served, cupy):
    picture = smooth_picture(200, 320, phase=0.7)
    stream = cupy.cuda.Stream(non_blocking=True)
    with DeskClient(served.url) as page:
        page.read_state_and_frame()  # the black frame of the open
        with served.frame(stream=stream, size=(320, 200)) as target:
            with stream:
                cupy.asarray(target)[...] = cupy.asarray(picture)
        _, received = read_until_shown(page, picture)
    assert_within_jpeg_tolerance(received, picture)
    numpy.testing.assert_array_equal(served.read_frame(), picture)
