"""interop_lab.publish / Publisher / Subscriber: a job's frames for a viewer in another process. Host slots
(NumPy) run everywhere; device slots (CuPy) where a GPU is, and fail instead of skipping where
INTEROP_LAB_REQUIRE_GPUS says one must be. Each test publishes in a runtime directory of its own
(XDG_RUNTIME_DIR), so no test meets another's names. Expected frames are the arrays the test made."""

import os
import re
import signal
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
def runtime_directory(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_RUNTIME_DIR", str(tmp_path))
    return tmp_path


def picture(shape, dtype, seed):
    generator = numpy.random.default_rng(seed)
    if numpy.dtype(dtype).kind == "f":
        return generator.standard_normal(shape).astype(dtype)
    info = numpy.iinfo(dtype)
    return generator.integers(info.min, info.max, size=shape, dtype=dtype, endpoint=True)


def wait_until(done, seconds=3.0):
    deadline = time.monotonic() + seconds
    while not done():
        if time.monotonic() > deadline:
            return False
        time.sleep(0.005)
    return True


def child(code):
    """A Python process running `code` with this package; its stdout lines readable one by one."""
    return subprocess.Popen([sys.executable, "-c", textwrap.dedent(code)], stdout=subprocess.PIPE, text=True,
                            env=dict(os.environ, PYTHONPATH=os.pathsep.join(sys.path)))


PUBLISH_UNTIL_KILLED = """
    import sys, time, numpy, interop_lab
    p = interop_lab.Publisher(sys.argv[1] if len(sys.argv) > 1 else "job", (24, 40, 3), "uint8", memory="host")
    print("ready", p.notice, flush=True)
    frame = 0
    while True:
        frame += 1
        p.show(numpy.full((24, 40, 3), frame % 256, numpy.uint8))
        time.sleep(0.005)
"""


@pytest.mark.parametrize("dtype", ["uint8", "uint16", "int32", "float16", "float32"])
@pytest.mark.parametrize("shape", [(24, 40), (24, 40, 1), (24, 40, 3), (24, 40, 4)])
def test_host_frames_cross_byte_exact_in_every_shape_and_dtype_the_wire_carries(shape, dtype):
    sent = picture(shape, dtype, seed=len(shape) * 7 + shape[-1])
    with interop_lab.publish("exact", like=sent) as publisher, interop_lab.Subscriber("exact") as subscriber:
        assert publisher.memory == "host"
        assert subscriber.shape == (24, 40, 1 if len(shape) == 2 else shape[2])
        assert subscriber.dtype == numpy.dtype(dtype)
        assert publisher.show(sent)
        received = subscriber.next(timeout=2)
        assert received is not None
        assert received.tobytes() == sent.tobytes(), "the slot holds the array's bytes as they are"


def test_a_strided_numpy_array_is_published_as_its_values():
    whole = picture((48, 80, 4), "uint8", seed=5)
    view = whole[::2, ::2]
    with interop_lab.Publisher("strided", view.shape, "uint8", memory="host") as publisher:
        with interop_lab.Subscriber("strided") as subscriber:
            publisher.show(view)
            numpy.testing.assert_array_equal(subscriber.next(timeout=2), view)


def test_a_host_dlpack_tensor_is_published_as_its_values():
    class HostTensor:  # a CPU tensor of a library that speaks DLPack alone
        def __init__(self, array):
            self._array = array

        def __dlpack__(self, stream=None, **_):
            return self._array.__dlpack__()

        def __dlpack_device__(self):
            return self._array.__dlpack_device__()

    sent = picture((12, 16, 4), "float32", seed=9)
    with interop_lab.publish("dlpack", like=HostTensor(sent)) as publisher:
        with interop_lab.Subscriber("dlpack") as subscriber:
            assert publisher.dtype == numpy.float32 and publisher.shape == (12, 16, 4)
            assert publisher.show(HostTensor(sent))
            assert subscriber.next(timeout=2).tobytes() == sent.tobytes()


def test_frames_reach_a_subscriber_in_another_process():
    publisher_process = child(PUBLISH_UNTIL_KILLED)
    try:
        assert publisher_process.stdout.readline().startswith("ready")
        with interop_lab.Subscriber("job") as subscriber:
            assert subscriber.publisher_pid == publisher_process.pid
            indexes = []
            for _ in range(5):
                frame = subscriber.next(timeout=2)
                assert frame is not None
                assert (frame == frame[0, 0, 0]).all(), "a frame is whole: one value throughout"
                indexes.append(subscriber.index)
            assert indexes == sorted(set(indexes)), "each frame newer than the one before"
    finally:
        publisher_process.kill()
        publisher_process.wait()


def test_the_newest_frame_wins_and_frames_taken_back_unread_count_as_dropped():
    with interop_lab.Publisher("newest", (8, 8), "uint8", memory="host", slots=3) as publisher:
        with interop_lab.Subscriber("newest") as subscriber:
            assert wait_until(lambda: publisher.viewers == 1)
            for frame in range(1, 11):  # the viewer reads nothing meanwhile
                assert publisher.show(numpy.full((8, 8), frame, numpy.uint8))
            # Frames 1 to 3 take the three free slots; each of 4 to 10 takes back the oldest unread frame.
            assert publisher.frames == 10
            assert publisher.dropped == 10 - 3
            newest = subscriber.next(timeout=2)
            assert (newest == 10).all(), "the viewer gets the newest frame"
            assert subscriber.skipped == 9, "frames 1 to 9 were announced and passed over"


def test_a_frame_block_writes_the_slot_in_place():
    with interop_lab.Publisher("in-place", (16, 20, 4), "float32", memory="host") as publisher:
        with interop_lab.Subscriber("in-place") as subscriber:
            with publisher.frame() as target:
                assert isinstance(target, numpy.ndarray) and target.shape == (16, 20, 4)
                target[...] = numpy.arange(16 * 20 * 4, dtype=numpy.float32).reshape(16, 20, 4)
            written = numpy.arange(16 * 20 * 4, dtype=numpy.float32).reshape(16, 20, 4)
            numpy.testing.assert_array_equal(subscriber.next(timeout=2), written)
            assert publisher.frames == 1


def test_a_frame_block_that_raises_is_not_shown_and_gives_its_slot_back():
    with interop_lab.Publisher("raises", (4, 4), "uint8", memory="host", slots=1) as publisher:
        with interop_lab.Subscriber("raises") as subscriber:
            with pytest.raises(KeyError):
                with publisher.frame() as target:
                    target[...] = 9
                    raise KeyError("the job failed halfway")
            assert subscriber.next(timeout=0.2) is None, "the half-written frame was never announced"
            assert publisher.frames == 0
            # The only slot came back: the next frame is shown.
            assert publisher.show(numpy.full((4, 4), 3, numpy.uint8))
            assert (subscriber.next(timeout=2) == 3).all()


def test_what_does_not_fit_the_publisher_is_refused_naming_the_fix():
    with interop_lab.Publisher("strict", (8, 10, 3), "uint8", memory="host") as publisher:
        with pytest.raises(ValueError, match=r"shape \(8, 10, 4\) where 'strict' publishes \(8, 10, 3\)"):
            publisher.show(numpy.zeros((8, 10, 4), numpy.uint8))
        with pytest.raises(TypeError, match=r"dtype float32 where 'strict' publishes uint8: pass x.astype"):
            publisher.show(numpy.zeros((8, 10, 3), numpy.float32))
        with pytest.raises(TypeError, match=r"dtype float64 does not travel to a viewer: a slot carries uint8, "
                                            r"uint16, int32, float16 or float32: pass x.astype\(numpy.float32\)"):
            publisher.show(numpy.zeros((8, 10, 3), numpy.float64))

        class CudaArray:  # what CuPy hands over; never read: the publisher refuses it for its host slots
            __cuda_array_interface__ = {"shape": (8, 10, 3), "typestr": "|u1", "data": (0x1000, False), "version": 3,
                                        "strides": None}

        with pytest.raises(TypeError, match="a CUDA array for 'strict', which publishes host slots"):
            publisher.show(CudaArray())
        with pytest.raises(InteropLabError, match="show\\(\\) inside a `with publisher.frame\\(\\)` block"):
            with publisher.frame():
                publisher.show(numpy.zeros((8, 10, 3), numpy.uint8))
        assert publisher.frames == 0, "the frame block raised: its slot went back unannounced"
    with pytest.raises(ValueError, match=r"shape \(8, 10, 2\): pass \(H, W\) or \(H, W, C\) with C 1, 3 or 4"):
        interop_lab.Publisher("two", (8, 10, 2), "uint8", memory="host")
    with pytest.raises(TypeError, match=r"dtype int64 does not travel"):
        interop_lab.publish("wide", like=numpy.zeros((4, 4), numpy.int64))
    with pytest.raises(InteropLabError, match="PublisherDesc.name"):
        interop_lab.Publisher("no/slash", (4, 4), "uint8", memory="host")


def test_device_slots_without_a_gpu_are_refused_naming_host_slots():
    try:
        publisher = interop_lab.Publisher("no-gpu", (8, 8), "uint8")
    except InteropLabError as error:
        assert re.search(r"memory='device' needs a CUDA device \(.*\): publish NumPy arrays with memory='host'",
                         str(error)), str(error)
    else:
        publisher.close()
        pytest.skip("this machine has a CUDA device: device slots are made")


def test_a_second_publisher_of_a_name_is_refused_with_the_first_ones_pid():
    first = child(PUBLISH_UNTIL_KILLED)
    try:
        assert first.stdout.readline().startswith("ready")
        with pytest.raises(InteropLabError, match=f"the name is published by pid {first.pid}"):
            interop_lab.Publisher("job", (24, 40, 3), "uint8", memory="host")
    finally:
        first.kill()
        first.wait()


def test_a_killed_publisher_is_seen_gone_and_its_successor_takes_over_the_socket_and_is_reattached():
    first = child(PUBLISH_UNTIL_KILLED)
    second = None
    try:
        assert first.stdout.readline().startswith("ready")
        with interop_lab.Subscriber("job") as subscriber:
            assert subscriber.next(timeout=2) is not None
            first.send_signal(signal.SIGKILL)
            first.wait()
            assert wait_until(lambda: subscriber.next(timeout=0.1) is None and not subscriber.attached)
            assert subscriber.gone_reason == "publisher 'job' is gone (its connection closed)"
            second = child(PUBLISH_UNTIL_KILLED)
            ready = second.stdout.readline()
            assert "took over the stale socket" in ready and f"(pid {first.pid})" in ready, ready
            subscriber.reconnect()
            assert subscriber.attached and subscriber.publisher_pid == second.pid
            assert subscriber.next(timeout=2) is not None
    finally:
        for process in (first, second):
            if process is not None and process.poll() is None:
                process.kill()
                process.wait()


def test_list_published_names_the_live_publishers():
    with interop_lab.Publisher("b-floats", (32, 64), "float32", memory="host") as floats, \
            interop_lab.Publisher("a-bytes", (8, 8, 4), "uint8", memory="host"), \
            interop_lab.Subscriber("b-floats"):
        assert wait_until(lambda: floats.viewers == 1)
        floats.show(numpy.zeros((32, 64), numpy.float32))
        published = interop_lab.list_published()
    assert [entry["name"] for entry in published] == ["a-bytes", "b-floats"]
    assert published[1]["shape"] == (32, 64, 1) and published[1]["dtype"] == "float32"
    assert published[1]["memory"] == "host" and published[1]["pid"] == os.getpid()
    assert published[1]["viewers"] == 1 and published[1]["frames"] == 1
    assert interop_lab.list_published() == [], "closed publishers are gone from the list"


def test_a_closed_publisher_refuses_and_its_viewer_sees_it_gone():
    publisher = interop_lab.Publisher("closing", (4, 4), "uint8", memory="host")
    subscriber = interop_lab.Subscriber("closing")
    publisher.close()
    with pytest.raises(InteropLabError, match="publisher 'closing' is closed"):
        publisher.show(numpy.zeros((4, 4), numpy.uint8))
    assert subscriber.next(timeout=0.5) is None
    assert not subscriber.attached
    subscriber.close()


# ---- device slots (CuPy) ----


@pytest.fixture
def cupy():
    return cupy_with_a_device()


@pytest.mark.parametrize("dtype", ["uint8", "uint16", "int32", "float16", "float32"])
def test_device_frames_cross_byte_exact_after_one_copy_on_the_callers_stream(cupy, dtype):
    sent = picture((48, 64, 4), dtype, seed=11)
    array = cupy.asarray(sent)
    stream = cupy.cuda.Stream(non_blocking=True)
    with interop_lab.publish("device", like=array) as publisher, interop_lab.Subscriber("device") as subscriber:
        assert publisher.memory == "device" and subscriber.memory == "device"
        assert publisher.show(array, stream=stream)
        received = subscriber.next(timeout=5)
        assert received is not None
        assert received.tobytes() == sent.tobytes()


def test_a_device_frame_block_hands_out_the_slot_for_the_callers_kernels(cupy):
    stream = cupy.cuda.Stream(non_blocking=True)
    with interop_lab.Publisher("device-frame", (32, 48, 4), "uint8") as publisher:
        with interop_lab.Subscriber("device-frame") as subscriber:
            with publisher.frame(stream=stream) as target:
                assert target.shown
                with stream:
                    view = cupy.asarray(target)
                    view[...] = cupy.arange(32 * 48 * 4, dtype=cupy.uint32).reshape(32, 48, 4).astype(cupy.uint8)
            with pytest.raises(InteropLabError, match=r"was published when its `with publisher.frame\(\)` block"):
                target.pointer
            received = subscriber.next(timeout=5)
            expected = (numpy.arange(32 * 48 * 4, dtype=numpy.uint32).reshape(32, 48, 4)).astype(numpy.uint8)
            numpy.testing.assert_array_equal(received, expected)


def test_a_device_publisher_refuses_numpy_arrays_naming_the_fix(cupy):
    with interop_lab.Publisher("device-only", (8, 8), "float32") as publisher:
        with pytest.raises(TypeError, match="a NumPy array for 'device-only', which publishes device slots"):
            publisher.show(numpy.zeros((8, 8), numpy.float32))
