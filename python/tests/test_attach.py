"""Viewer.attach: another process's published frames shown by interop-lab's own frame loop. Host slots (NumPy)
run anywhere, in cpu mode; device slots (CuPy) need a GPU and cross the processes as FDs, shown through
interop. Each test publishes in a runtime directory of its own (XDG_RUNTIME_DIR). Expected frames are the
arrays the test made."""

import os
import subprocess
import sys
import textwrap
import time

import numpy
import pytest

import interop_lab
from gpu_required import cupy_with_a_device
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


def test_device_frames_from_another_process_are_shown_through_interop_pixel_exact(runtime_directory):
    cupy = cupy_with_a_device()
    expected = picture(2160, 3840, 7)
    job = textwrap.dedent(
        """
        import sys, time, numpy, cupy, interop_lab
        y, x = numpy.mgrid[0:2160, 0:3840]
        rgba = numpy.stack([(x * 3 + 7) % 256, (y * 5 + 7) % 256, (x ^ y) % 256, numpy.full_like(x, 255)], -1)
        frame = cupy.asarray(rgba.astype(numpy.uint8))
        with interop_lab.publish("py-gpu", like=frame) as publisher:
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
            with interop_lab.Viewer.attach("py-gpu", window=False) as viewer:
                frame = shown(viewer, expected, seconds=10.0)
                assert viewer.mode == "interop", viewer.mode
                assert "device slots" in viewer.status, viewer.status
                numpy.testing.assert_array_equal(frame, expected)
        finally:
            process.stdin.write("\n")
            process.stdin.flush()
    assert process.returncode == 0
    del cupy
