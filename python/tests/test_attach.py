"""Viewer.attach: another process's published frames shown by interop-lab's own frame loop. Host slots (NumPy)
run anywhere, in cpu mode; device slots (CuPy) need a GPU and cross the processes as FDs, shown through
interop. Each test publishes in a runtime directory of its own (XDG_RUNTIME_DIR). Expected frames are the
arrays the test made."""

import contextlib
import os
import re
import subprocess
import sys
import textwrap
import time

import numpy
import pytest

import interop_lab
from gpu_required import cupy_with_a_device
from pictures import decode_png
from interop_lab import InteropLabError


@pytest.fixture(autouse=True)
def runtime_directory(tmp_path_factory, monkeypatch):
    # Short: a Unix socket's path holds 107 bytes.
    directory = tmp_path_factory.mktemp("rt", numbered=True)
    monkeypatch.setenv("XDG_RUNTIME_DIR", str(directory))
    return directory


def picture(height, width, seed):
    y, x = numpy.mgrid[0:height, 0:width]
    rgba = numpy.stack([(x * 3 + seed) % 256, (y * 5 + seed) % 256, (x ^ y) % 256, numpy.full_like(x, 255)], -1)
    return rgba.astype(numpy.uint8)


def shown(viewer, expected, seconds=3.0):
    """Frames rendered until the one read back is `expected` (the announcement crosses a socket)."""
    end = time.monotonic() + seconds
    while True:
        viewer.render()
        frame = viewer.read_frame()
        if frame.shape == expected.shape and numpy.array_equal(frame, expected) or time.monotonic() > end:
            return frame


def test_host_frames_are_shown_pixel_exact_at_their_own_size():
    expected = picture(61, 97, 3)
    with interop_lab.Publisher("py-host", expected.shape, "uint8", memory="host") as publisher:
        publisher.show(expected)
        with interop_lab.Viewer.attach("py-host", mode="cpu", window=False) as viewer:
            frame = shown(viewer, expected)
            assert frame.shape == (61, 97, 4), "the frame takes the publisher's size"
            numpy.testing.assert_array_equal(frame, expected)
            assert "frame " in viewer.status and "host slots" in viewer.status, viewer.status
            assert viewer.mode == "cpu"
            later = picture(61, 97, 200)
            publisher.show(later)
            numpy.testing.assert_array_equal(shown(viewer, later), later)


def test_python_sends_the_pages_commands_and_reads_the_pages_state():
    expected = picture(40, 60, 7)
    with interop_lab.Publisher("py-tools", expected.shape, "uint8", memory="host") as publisher:
        publisher.show(expected)
        with interop_lab.Viewer.attach("py-tools", mode="cpu", window=False) as viewer:
            numpy.testing.assert_array_equal(shown(viewer, expected), expected)
            state = viewer.state
            assert (state["source"], state["source_name"], state["mode"]) == ("published", "py-tools", "cpu"), state
            assert state["size"] == [60, 40] and state["viewer"]["fit"] == "stretch", state
            assert state["viewer"]["readout"] == "(cursor off the picture)"
            assert state["viewer"]["colorbar"] is None, "RGBA: no colorbar"

            # The cursor reads the publisher's own pixel; a zoom about the corner shows each pixel 2x2.
            assert viewer.command({"hover": [21.5, 7.5]}) == ""
            viewer.render()
            r, g, b, a = (int(v) for v in expected[7, 21])
            assert viewer.state["viewer"]["readout"] == f"x 21  y 7  ({r}, {g}, {b}, {a})"
            assert viewer.command({"zoom": [0, 0, 2]}) == ""
            viewer.render()
            zoomed = viewer.read_frame()
            for y, x in ((0, 0), (7, 21), (39, 59), (13, 40)):
                numpy.testing.assert_array_equal(zoomed[y, x], expected[y // 2, x // 2], f"pixel {x}, {y}")
            tools = viewer.state["viewer"]
            assert tools["free"] is True and tools["scale"] == [2.0, 2.0], tools
            assert tools["cursor"] == [10, 3], tools
            assert viewer.command({"fit": True}) == ""
            numpy.testing.assert_array_equal(shown(viewer, expected), expected)

            # A message the protocol does not take raises; one the app refuses says why.
            with pytest.raises(ValueError, match="zoom"):
                viewer.command({"zoom": "near"})
            assert viewer.command({"index": 2}).startswith("index refused"), "an attached app shows no stack"
            assert viewer.command({"pause": True}) == ""
            viewer.render()
            assert viewer.state["settings"]["switches"]["pause"]["on"] is True


def test_attaching_to_nothing_names_it():
    with pytest.raises(InteropLabError, match="--attach py-nobody: nothing is published by that name"):
        interop_lab.Viewer.attach("py-nobody", mode="cpu", window=False)


def test_a_size_scales_the_frames():
    small = picture(20, 30, 9)
    with interop_lab.Publisher("py-size", small.shape, "uint8", memory="host") as publisher:
        publisher.show(small)
        with interop_lab.Viewer.attach("py-size", size=(60, 40), mode="cpu", window=False) as viewer:
            expected = small.repeat(2, axis=0).repeat(2, axis=1)
            numpy.testing.assert_array_equal(shown(viewer, expected), expected)


@contextlib.contextmanager
def cupy_job_publishing(name, seed, runtime_directory):
    """Another Python process that publishes picture(2160, 3840, seed) from CuPy as `name` and holds it until
    the block ends; yields the environment that reaches it (its XDG_RUNTIME_DIR). Checks the job exits 0."""
    job = textwrap.dedent(
        f"""
        import sys, numpy, cupy, interop_lab
        y, x = numpy.mgrid[0:2160, 0:3840]
        rgba = numpy.stack([(x * 3 + {seed}) % 256, (y * 5 + {seed}) % 256, (x ^ y) % 256,
                            numpy.full_like(x, 255)], -1)
        frame = cupy.asarray(rgba.astype(numpy.uint8))
        with interop_lab.publish("{name}", like=frame) as publisher:
            publisher.show(frame)
            print("published", flush=True)
            sys.stdin.readline()
        """
    )
    environment = dict(os.environ, XDG_RUNTIME_DIR=str(runtime_directory))
    with subprocess.Popen([sys.executable, "-c", job], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True,
                          env=environment) as process:
        try:
            assert process.stdout.readline().strip() == "published"
            yield environment
        finally:
            process.stdin.write("\n")
            process.stdin.flush()
    assert process.returncode == 0


def test_device_frames_from_another_process_are_shown_through_interop_pixel_exact(runtime_directory):
    cupy = cupy_with_a_device()
    expected = picture(2160, 3840, 7)
    with cupy_job_publishing("py-gpu", 7, runtime_directory):
        with interop_lab.Viewer.attach("py-gpu", window=False) as viewer:
            frame = shown(viewer, expected, seconds=10.0)
            assert viewer.mode == "interop", viewer.mode
            assert "device slots" in viewer.status, viewer.status
            numpy.testing.assert_array_equal(frame, expected)
    del cupy


def test_an_attached_viewer_serves_each_frame_it_renders_to_a_page():
    pytest.importorskip("PIL.Image", reason="needs Pillow to decode the desk's JPEGs: install python3-pil")
    from desk_client import DeskClient

    y, x = numpy.mgrid[0:48, 0:80]
    smooth = numpy.stack([x * 3, y * 5, numpy.full_like(x, 90), numpy.full_like(x, 255)], -1).astype(numpy.uint8)
    with interop_lab.Publisher("py-served", smooth.shape, "uint8", memory="host") as publisher:
        publisher.show(smooth)
        with pytest.raises(ValueError, match="renders headless"):
            interop_lab.Viewer.attach("py-served", window=True, serve=0)
        with interop_lab.Viewer.attach("py-served", mode="cpu", serve=0) as viewer:
            assert not viewer.is_window
            assert re.fullmatch(r"http://127\.0\.0\.1:[1-9]\d*/\?token=[0-9a-f]{32}", viewer.url), viewer.url
            with DeskClient(viewer.url) as page:
                for _ in range(6):  # the desk takes frames read back a frame late
                    viewer.render()
                state, (_, received) = page.read_state_and_frame()
            assert (state["source"], state["source_name"], state["size"]) == ("published", "py-served", [80, 48])
            # What JPEG keeps of a smooth picture: the desk's tolerance (tests/unit/test_serve.cpp).
            difference = numpy.abs(received.astype(int) - smooth.astype(int))[..., :3]
            assert difference.max() <= 16 and difference.mean() < 2.0, (difference.max(), difference.mean())
    with pytest.raises(OSError):  # closed: its server stopped
        DeskClient(viewer.url, timeout=2.0)


def app_beside_the_package():
    """interop-lab of the build this package comes from (BUILD/python/interop_lab -> BUILD/app/interop-lab)."""
    app = os.path.join(os.path.dirname(os.path.abspath(interop_lab.__file__)), "..", "..", "app", "interop-lab")
    return os.path.normpath(app) if os.access(app, os.X_OK) else None


def test_device_frames_from_a_python_job_are_shown_by_interop_lab_attach_pixel_exact(runtime_directory, tmp_path):
    # The same CuPy job, watched by the app's command line, headless: its screenshot is the array.
    cupy = cupy_with_a_device()
    app = app_beside_the_package()
    if app is None:
        pytest.skip("run against a build folder (PYTHONPATH=BUILD/python), whose app/ holds interop-lab")
    expected = picture(2160, 3840, 11)
    screenshot = tmp_path / "attached.png"
    with cupy_job_publishing("py-app", 11, runtime_directory) as environment:
        run = subprocess.run([app, "--attach", "py-app", "--mode", "interop", "--headless", "--frames", "60",
                              "--screenshot", str(screenshot)], env=environment, capture_output=True, text=True,
                             timeout=60)
        assert run.returncode == 0, run.stderr
    numpy.testing.assert_array_equal(decode_png(str(screenshot)), expected)
    del cupy


# Every dtype a publisher publishes is shown by the viewer's own rule (docs/python.md's dtype table): the frame
# of a host publisher attached in cpu mode (the C++ CPU reference, kernels/convert_cpu.cpp) must be the NumPy
# twin's bytes (_arrays.to_rgba8) at the range --attach uses: floats 0..1, uint16 and int32 the first frame's
# smallest and largest finite value; one channel through gray. In interop mode (a GPU) the CUDA kernel does it.
def numpy_twin(array, value_range):
    from interop_lab import _arrays, _colormaps

    host = array if array.ndim == 3 else array[..., None]
    picture = _arrays.Picture((1,) + host.shape, array.dtype.name, host=host[None])
    if value_range == "auto":
        chosen = _arrays.bounds_range(picture, *_arrays.host_bounds(picture), "auto")
    else:
        chosen = _arrays.fixed_range(picture, *value_range)
    return _arrays.to_rgba8(host, array.dtype.name, chosen, _colormaps.table("gray")), chosen.shown


def every_published_dtype():
    y, x = numpy.mgrid[0:37, 0:53]
    ramp = (x * 53 + y) / (53.0 * 37.0)  # 0..1
    float32 = (ramp * 1.2 - 0.1).astype(numpy.float32)  # past both ends
    float32[3, 4], float32[5, 6], float32[7, 8] = numpy.nan, numpy.inf, -numpy.inf
    float16 = numpy.stack([ramp, 1 - ramp, ramp * ramp, 0.5 + 0 * ramp], -1).astype(numpy.float16)
    float16[1, 2, 1], float16[2, 3, 3], float16[4, 5, 0] = numpy.nan, numpy.inf, -numpy.inf
    uint16 = (x * 997 + y * 31 + 200).astype(numpy.uint16)
    int32 = numpy.stack([x * 40000000 - y * 3, -x * y, x - 2**31 + 5], -1).astype(numpy.int32)
    return [("float32", float32, (0.0, 1.0)), ("float16", float16, (0.0, 1.0)), ("uint16", uint16, "auto"),
            ("int32", int32, "auto")]


@pytest.mark.parametrize("mode", ["cpu", "interop"])
def test_every_published_dtype_is_shown_as_the_numpy_twin_converts_it(mode):
    if mode == "interop":
        cupy_with_a_device()
    for name, array, value_range in every_published_dtype():
        expected, shown_range = numpy_twin(array, value_range)
        with interop_lab.Publisher(f"py-{name}", array.shape, name, memory="host") as publisher:
            publisher.show(array)
            with interop_lab.Viewer.attach(f"py-{name}", mode=mode, window=False) as viewer:
                frame = shown(viewer, expected)
                numpy.testing.assert_array_equal(frame, expected, err_msg=f"{name} in {mode} mode")
                channels = array.shape[2] if array.ndim == 3 else 1
                assert f"{name}x{channels}, host slots, range " in viewer.status, viewer.status
                if value_range == "auto":
                    assert "(auto: the first frame's)" in viewer.status, viewer.status
                    # The range is kept: a frame of other values maps through the first one's.
                    later = array // 2
                    expected_later = numpy_twin(later, shown_range)[0]
                    publisher.show(later)
                    numpy.testing.assert_array_equal(shown(viewer, expected_later), expected_later,
                                                      err_msg=f"{name}'s second frame in {mode} mode")
                else:
                    assert "range 0..1," in viewer.status, viewer.status
