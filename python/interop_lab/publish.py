"""interop_lab.publish and interop_lab.Publisher: a job's frames for a viewer in another process.

    p = interop_lab.publish("train", like=x)         # x: a CUDA array (device slots) or NumPy (host slots)
    for step in ...:
        p.show(x, stream=s)                          # one device-to-device copy, queued on s; never waits
        with p.frame(stream=s) as target:            # or: a free slot itself, for your kernels (no copy)
            kernel(..., target)
    print(p.frames, p.dropped, p.viewers)

A viewer (interop-lab --attach train) attaches through a Unix socket in $XDG_RUNTIME_DIR/interop-lab and
imports the slots once: device slots are CUDA memory shared as file descriptors (cuMemCreate), host slots
memfd pages. The newest frame wins: with no slot free, the oldest frame no viewer has begun to read is taken
back (counted in `dropped`); the job never waits on a viewer.

What travels: the array's bytes as they are, rows packed, with its shape and dtype in the publisher's hello
(interop/publish_protocol.hpp, "What a slot holds"): shapes (H, W) and (H, W, 1|3|4), dtypes uint8, uint16,
int32, float16 and float32; the viewer maps values to colours as it does for its own arrays.

Subscriber(name) copies frames out as NumPy arrays (scripts and tests); list_published() says what is
published now.
"""

import contextlib
import ctypes

import numpy

from . import _arrays, _dlpack
from ._native import InteropLabError, NativeHandle, check, lib

__all__ = ["publish", "Publisher", "Subscriber", "PublishTarget", "list_published"]

# interop::DType, by NumPy's name: what a slot can carry.
_DTYPES = {"uint8": 0, "uint16": 1, "int32": 2, "float16": 3, "float32": 4}
_DTYPE_NAMES = {number: name for name, number in _DTYPES.items()}
_CARRIED = "uint8, uint16, int32, float16 or float32"
# What to pass instead of a dtype the wire does not carry.
_INSTEAD = {"float64": "x.astype(numpy.float32)", "bfloat16": "x.astype(numpy.float32) (torch: x.float())",
            "bool": "x.astype(numpy.uint8)", "int8": "x.astype(numpy.int32)", "int16": "x.astype(numpy.int32)",
            "uint32": "x.astype(numpy.float32), or x.astype(numpy.int32) where the values fit",
            "int64": "x.astype(numpy.int32) where the values fit, else x.astype(numpy.float32)",
            "uint64": "x.astype(numpy.float32)"}
_MEMORY = {"host": 0, "device": 1}


class PublishInfo(ctypes.Structure):
    """publish.cpp's ilab_publish_info."""

    _fields_ = [("width", ctypes.c_int), ("height", ctypes.c_int), ("channels", ctypes.c_int), ("dtype", ctypes.c_int),
                ("memory", ctypes.c_int), ("device", ctypes.c_int), ("slot_count", ctypes.c_int),
                ("publisher_pid", ctypes.c_int), ("pitch", ctypes.c_uint64), ("slot_size", ctypes.c_uint64),
                ("socket_path", ctypes.c_char * 256), ("notice", ctypes.c_char * 512)]


class PublishStats(ctypes.Structure):
    _fields_ = [("frames", ctypes.c_uint64), ("dropped", ctypes.c_uint64), ("viewers", ctypes.c_int),
                ("frames_per_second", ctypes.c_double)]


class PublishedEntry(ctypes.Structure):
    _fields_ = [("name", ctypes.c_char * 65), ("width", ctypes.c_int), ("height", ctypes.c_int),
                ("channels", ctypes.c_int), ("dtype", ctypes.c_int), ("memory", ctypes.c_int),
                ("publisher_pid", ctypes.c_int), ("viewers", ctypes.c_int), ("frames", ctypes.c_uint64),
                ("dropped", ctypes.c_uint64), ("frames_per_second", ctypes.c_double)]


def _bind():
    handle, u64, uptr, integer = ctypes.c_void_p, ctypes.c_uint64, ctypes.c_size_t, ctypes.c_int
    signatures = {
        "ilab_publish_open": ([ctypes.c_char_p, integer, integer, integer, integer, integer, integer, integer,
                               ctypes.POINTER(handle)], integer),
        "ilab_publish_close": ([handle], integer),
        "ilab_publish_describe": ([handle, ctypes.POINTER(PublishInfo)], integer),
        "ilab_publish_stats": ([handle, ctypes.POINTER(PublishStats)], integer),
        "ilab_publish_show_host": ([handle, ctypes.c_void_p, u64, ctypes.POINTER(integer)], integer),
        "ilab_publish_show_device": ([handle, uptr, u64, uptr, ctypes.POINTER(integer)], integer),
        "ilab_publish_frame_begin": ([handle, ctypes.POINTER(uptr), ctypes.POINTER(integer)], integer),
        "ilab_publish_frame_end": ([handle, integer, uptr], integer),
        "ilab_subscribe_open": ([ctypes.c_char_p, ctypes.POINTER(handle)], integer),
        "ilab_subscribe_close": ([handle], integer),
        "ilab_subscribe_reconnect": ([handle], integer),
        "ilab_subscribe_describe": ([handle, ctypes.POINTER(PublishInfo)], integer),
        "ilab_subscribe_next": ([handle, integer, ctypes.c_void_p, u64, ctypes.POINTER(u64)], integer),
        "ilab_subscribe_status": ([handle, ctypes.POINTER(integer), ctypes.c_char_p, u64], integer),
        "ilab_subscribe_skipped": ([handle, ctypes.POINTER(u64)], integer),
        "ilab_list_published": ([ctypes.POINTER(PublishedEntry), integer, ctypes.POINTER(integer)], integer),
    }
    for name, (arguments, result) in signatures.items():
        function = getattr(lib, name)
        function.argtypes = arguments
        function.restype = result


_bind()


def _dtype_number(name, what):
    if name in _DTYPES:
        return _DTYPES[name]
    instead = _INSTEAD.get(name)
    hint = f": pass {instead}" if instead else ""
    raise TypeError(f"{what}: dtype {name} does not travel to a viewer: a slot carries {_CARRIED}{hint}")


def _layout(shape, what):
    """(height, width, channels) of a publishable shape, or the ValueError that names the fix."""
    try:
        shape = tuple(int(n) for n in shape)
    except TypeError:
        raise TypeError(f"{what}: shape {shape!r}: pass (H, W) or (H, W, C)") from None
    if len(shape) not in (2, 3) or (len(shape) == 3 and shape[2] not in (1, 3, 4)):
        raise ValueError(f"{what}: shape {shape}: pass (H, W) or (H, W, C) with C 1, 3 or 4")
    if 0 in shape:
        raise ValueError(f"{what}: shape {shape} is empty: pass at least one pixel")
    return shape if len(shape) == 3 else shape + (1,)


def _host_array(array):
    """A NumPy view of a host array: NumPy's own, anything NumPy reads (__array__, __array_interface__, the
    buffer protocol), or a CPU DLPack tensor (numpy.asarray would make an object array of it)."""
    if isinstance(array, numpy.ndarray):
        return array
    if hasattr(array, "__dlpack__") and not (hasattr(array, "__array__") or hasattr(array, "__array_interface__")):
        return numpy.from_dlpack(array)
    return numpy.asarray(array)


def _is_host(array):
    return getattr(array, "__cuda_array_interface__", None) is None and not (
        hasattr(array, "__dlpack_device__") and not isinstance(array, numpy.ndarray)
        and array.__dlpack_device__()[0] not in (_dlpack.kDLCPU, _dlpack.kDLCUDAHost))


class PublishTarget:
    """A device slot to write inside `with publisher.frame()`: (H, W, C) of the publisher's dtype, rows packed,
    through __cuda_array_interface__ (version 3, with the block's stream) and __dlpack__. Valid inside the
    block only: the slot is announced when the block ends. `shown` is False when every slot was being read:
    the target is then scratch memory and the frame is not shown (counted as dropped)."""

    def __init__(self, publisher, pointer, shown, stream):
        self._publisher = publisher
        self._pointer = pointer
        self.shown = shown
        self._stream = stream
        self._valid = True
        self.shape = publisher.shape
        self.dtype = publisher.dtype
        self.typestr = numpy.dtype(publisher.dtype).str

    @property
    def pointer(self):
        if not self._valid:
            raise InteropLabError("this frame target was published when its `with publisher.frame()` block ended: "
                                  "write inside the block")
        return self._pointer

    @property
    def __cuda_array_interface__(self):
        return {"shape": self.shape, "typestr": self.typestr, "strides": None, "data": (self.pointer, False),
                "version": 3, "stream": self._stream or 1}

    def __dlpack_device__(self):
        return (_dlpack.kDLCUDA, self._publisher.device)

    def __dlpack__(self, stream=None, **_):
        pointer = self.pointer
        if stream != -1:  # the consumer's stream must come after the work queued on the block's
            consumer = 0 if stream in (None, 1, 2) else int(stream)
            check(lib.ilab_order_streams(self._stream, consumer))
        height, width, channels = self.shape
        return _dlpack.capsule(pointer, self.shape, (width * channels, channels, 1), self.typestr, _dlpack.kDLCUDA,
                               self._publisher.device, owner=self)

    def __repr__(self):
        state = "open" if self._valid else "published"
        return f"<PublishTarget {self.shape} {self.dtype} of {self._publisher.name!r}, {state}>"


class Publisher(NativeHandle):
    """Frames of `shape` ((H, W) or (H, W, 1|3|4)) and `dtype` published as `name` (letters, digits, '-', '_',
    '.'; at most 64) for viewers in other processes of this user.

    memory: 'device' (CUDA memory on `device`, default the current one; show() takes CUDA arrays) or 'host'
    (memfd pages; show() takes NumPy arrays). slots: 1 to 16 frames in flight (default 3). Raises
    InteropLabError when a live publisher holds the name (naming its pid); a socket left by one that crashed
    is taken over, and `notice` says so."""

    def __init__(self, name, shape, dtype="uint8", memory="device", slots=3, device=None):
        self._handle = None
        self._in_frame = False
        height, width, channels = _layout(shape, "Publisher")
        dtype_name = numpy.dtype(dtype).name if not isinstance(dtype, str) or dtype != "bfloat16" else dtype
        number = _dtype_number(dtype_name, "Publisher")
        if memory not in _MEMORY:
            raise ValueError(f"Publisher: memory={memory!r}: pass 'device' (CUDA arrays) or 'host' (NumPy arrays)")
        if not isinstance(slots, int) or isinstance(slots, bool) or not 1 <= slots <= 16:
            raise ValueError(f"Publisher: slots={slots!r}: pass a whole number from 1 to 16")
        handle = ctypes.c_void_p()
        check(lib.ilab_publish_open(str(name).encode(), width, height, channels, number, _MEMORY[memory],
                                    -1 if device is None else int(device), slots, ctypes.byref(handle)))
        self._handle = handle
        info = PublishInfo()
        check(lib.ilab_publish_describe(handle, ctypes.byref(info)))
        self.name = str(name)
        self.shape = (height, width, channels)
        self.dtype = numpy.dtype(dtype_name)
        self.memory = memory
        self.device = info.device  # the CUDA device of device slots; -1 for host slots
        self.socket_path = info.socket_path.decode()
        self.notice = info.notice.decode()
        self._row_bytes = width * channels * self.dtype.itemsize

    def close(self):
        """Stops publishing: the viewers see the publisher gone; the name is free again."""
        if self._handle:
            check(lib.ilab_publish_close(self._handle))
            self._handle = None

    def _open(self):
        if not self._handle:
            raise InteropLabError(f"publisher {getattr(self, 'name', '')!r} is closed")
        return self._handle

    def _stats(self):
        stats = PublishStats()
        check(lib.ilab_publish_stats(self._open(), ctypes.byref(stats)))
        return stats

    @property
    def frames(self):
        """Frames announced to the viewers so far."""
        return int(self._stats().frames)

    @property
    def dropped(self):
        """Frames not shown: taken back unread because no slot was free, or never written because every slot was
        being read."""
        return int(self._stats().dropped)

    @property
    def viewers(self):
        """Viewers attached now."""
        return int(self._stats().viewers)

    @property
    def frames_per_second(self):
        return float(self._stats().frames_per_second)

    def _check_array(self, shape, dtype_name, what):
        layout = _layout(shape, what)
        if layout != self.shape:
            raise ValueError(f"{what}: shape {tuple(shape)} where {self.name!r} publishes {self.shape} (or "
                             f"{self.shape[:2]} for one channel): pass an array of that shape, or a new Publisher")
        _dtype_number(dtype_name, what)
        if dtype_name != self.dtype.name:
            raise TypeError(f"{what}: dtype {dtype_name} where {self.name!r} publishes {self.dtype.name}: pass "
                            f"x.astype(numpy.{self.dtype.name})")

    def show(self, array, stream=None):
        """Publishes `array` (the publisher's shape and dtype): one copy into a free slot, queued on `stream`
        for a CUDA array (a CuPy / PyTorch / cuda.core stream or a raw cudaStream_t; default the legacy default
        stream), announced once the stream reaches it; the call never waits on the GPU or a viewer. Returns
        False when every slot was being read (the frame is counted in `dropped`)."""
        handle = self._open()
        if self._in_frame:
            raise InteropLabError("show() inside a `with publisher.frame()` block: call it after the block")
        shown = ctypes.c_int()
        if _is_host(array):
            host = _host_array(array)
            self._check_array(host.shape, host.dtype.name, "show")
            if self.memory != "host":
                raise TypeError(f"show: a NumPy array for {self.name!r}, which publishes device slots: pass a CUDA "
                                "array, or publish with memory='host'")
            host = numpy.ascontiguousarray(host)
            check(lib.ilab_publish_show_host(handle, host.ctypes.data, self._row_bytes, ctypes.byref(shown)))
            return bool(shown.value)
        ours = _arrays.stream_handle(stream)
        picture = _arrays.describe(array, "show", ours)
        try:
            shape = (picture.height, picture.width, picture.channels)
            self._check_array(shape, picture.type, "show")
            if self.memory != "device":
                raise TypeError(f"show: a CUDA array for {self.name!r}, which publishes host slots: pass a NumPy "
                                "array, or publish with memory='device'")
            item = self.dtype.itemsize
            if picture.strides[1:] != (self.shape[2] * item, item) or picture.strides[0] < self._row_bytes:
                raise ValueError(f"show: strides {picture.strides} are not rows of packed pixels (want (pitch >= "
                                 f"{self._row_bytes}, {self.shape[2] * item}, {item})): pass a C-contiguous array "
                                 "(cupy.ascontiguousarray / tensor.contiguous())")
            where = ctypes.c_int()
            check(lib.ilab_pointer_device(picture.pointer, ctypes.byref(where)))
            if where.value != self.device:
                place = "the host" if where.value < 0 else f"CUDA device {where.value}"
                raise ValueError(f"show: the array is on {place}, {self.name!r}'s slots on CUDA device {self.device}: "
                                 f"allocate it there, or publish with device={where.value}")
            if picture.stream is not None and picture.stream != ours:
                check(lib.ilab_order_streams(picture.stream, ours))  # after the array's producer
            check(lib.ilab_publish_show_device(handle, picture.pointer, picture.strides[0], ours, ctypes.byref(shown)))
        finally:
            picture.release()
        return bool(shown.value)

    @contextlib.contextmanager
    def frame(self, stream=None):
        """A free slot to write in place (no copy), announced when the block ends, after the work queued on
        `stream` by then. Device slots: a PublishTarget (__cuda_array_interface__ v3, __dlpack__); host slots: a
        NumPy array of the slot. Either is valid inside the block only. If the block raises, the slot is given
        back unannounced."""
        handle = self._open()
        if self._in_frame:
            raise InteropLabError("frame() inside a `with publisher.frame()` block: one frame at a time")
        raw = _arrays.stream_handle(stream)
        pointer, real = ctypes.c_size_t(), ctypes.c_int()
        check(lib.ilab_publish_frame_begin(handle, ctypes.byref(pointer), ctypes.byref(real)))
        self._in_frame = True
        if self.memory == "host":
            memory = (ctypes.c_uint8 * (self._row_bytes * self.shape[0])).from_address(pointer.value)
            target = numpy.frombuffer(memory, dtype=self.dtype).reshape(self.shape)
        else:
            target = PublishTarget(self, pointer.value, bool(real.value), raw)
        completed = False
        try:
            yield target
            completed = True
        finally:
            self._in_frame = False
            if isinstance(target, PublishTarget):
                target._valid = False
            check(lib.ilab_publish_frame_end(handle, int(completed), raw))

    def __repr__(self):
        state = "open" if self._handle else "closed"
        return f"<Publisher {self.name!r} {self.shape} {self.dtype} {self.memory} slots, {state}>"


def publish(name, like, slots=3):
    """A Publisher of `like`'s shape and dtype: device slots on its GPU for a CUDA array (CuPy, PyTorch, JAX,
    Numba, cuda.core), host slots for a NumPy array."""
    if _is_host(like):
        host = _host_array(like)
        return Publisher(name, host.shape, host.dtype, memory="host", slots=slots)
    picture = _arrays.describe(like, "publish")
    try:
        where = ctypes.c_int()
        check(lib.ilab_pointer_device(picture.pointer, ctypes.byref(where)))
        shape = (picture.height, picture.width, picture.channels)
        return Publisher(name, shape, picture.type, memory="device", slots=slots, device=where.value)
    finally:
        picture.release()


class Subscriber(NativeHandle):
    """Attaches to the publisher `name` and copies its newest frames out as NumPy arrays (device slots are
    imported into this process's CUDA first): for scripts and tests. `attached` turns False when the publisher
    is gone (`gone_reason` says why); reconnect() attaches to a new publisher of the name."""

    def __init__(self, name):
        self._handle = None
        handle = ctypes.c_void_p()
        check(lib.ilab_subscribe_open(str(name).encode(), ctypes.byref(handle)))
        self._handle = handle
        self.name = str(name)
        self._describe()

    def _describe(self):
        info = PublishInfo()
        check(lib.ilab_subscribe_describe(self._handle, ctypes.byref(info)))
        self.shape = (info.height, info.width, info.channels)
        self.dtype = numpy.dtype(_DTYPE_NAMES[info.dtype])
        self.memory = "device" if info.memory == 1 else "host"
        self.publisher_pid = info.publisher_pid

    def close(self):
        if self._handle:
            check(lib.ilab_subscribe_close(self._handle))
            self._handle = None

    def next(self, timeout=1.0):
        """The newest frame as an (H, W, C) NumPy array (a copy), waiting up to `timeout` seconds; None when none
        came in time or the publisher is gone."""
        if not self._handle:
            raise InteropLabError(f"subscriber of {self.name!r} is closed")
        out = numpy.empty(self.shape, dtype=self.dtype)
        index = ctypes.c_uint64()
        check(lib.ilab_subscribe_next(self._handle, int(timeout * 1000), out.ctypes.data, out.nbytes,
                                      ctypes.byref(index)))
        if index.value == 0:
            return None
        self.index = int(index.value)
        return out

    @property
    def attached(self):
        attached, reason = ctypes.c_int(), ctypes.create_string_buffer(512)
        check(lib.ilab_subscribe_status(self._handle, ctypes.byref(attached), reason, len(reason)))
        return bool(attached.value)

    @property
    def gone_reason(self):
        attached, reason = ctypes.c_int(), ctypes.create_string_buffer(512)
        check(lib.ilab_subscribe_status(self._handle, ctypes.byref(attached), reason, len(reason)))
        return reason.value.decode("utf-8", "replace")

    @property
    def skipped(self):
        """Frames announced to this subscriber that it passed over for a newer one."""
        skipped = ctypes.c_uint64()
        check(lib.ilab_subscribe_skipped(self._handle, ctypes.byref(skipped)))
        return int(skipped.value)

    def reconnect(self):
        check(lib.ilab_subscribe_reconnect(self._handle))
        self._describe()


def list_published():
    """The live publishers of this user: a dict per name with shape, dtype, memory, pid, viewers, frames,
    dropped and frames_per_second."""
    count = ctypes.c_int()
    check(lib.ilab_list_published(None, 0, ctypes.byref(count)))
    entries = (PublishedEntry * max(count.value, 1))()
    check(lib.ilab_list_published(entries, len(entries), ctypes.byref(count)))
    published = []
    for entry in entries[:min(count.value, len(entries))]:
        shape = (entry.height, entry.width, entry.channels)
        published.append({"name": entry.name.decode(), "shape": shape, "dtype": _DTYPE_NAMES.get(entry.dtype),
                          "memory": "device" if entry.memory == 1 else "host", "pid": entry.publisher_pid,
                          "viewers": entry.viewers, "frames": entry.frames, "dropped": entry.dropped,
                          "frames_per_second": entry.frames_per_second})
    return published
