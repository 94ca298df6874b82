"""What the viewer accepts, and the NumPy half of the conversion to RGBA8.

describe() turns an array into a Picture: NumPy (or anything NumPy can view: __array_interface__, the
buffer protocol, CPU DLPack) stays on the host; CUDA arrays come through __cuda_array_interface__ (CuPy,
PyTorch, Numba, Warp) or __dlpack__ (JAX, cuda.core, PyTorch) as a pointer with byte strides. Every
rejection names the fix. choose_range() turns range= into the (low, range) the conversion uses, and
to_rgba8() is kernels/convert.cu's rule in NumPy, byte for byte (see kernels/convert.hpp)."""

import ctypes
import math
import warnings

import numpy

from . import _dlpack
from ._native import MAX_IMAGE_EDGE, SizeError

# kernels/convert.hpp's ElementType, by NumPy's name of the dtype.
_TYPES = {"uint8": 0, "float16": 1, "float32": 2, "float64": 3, "bfloat16": 4, "int8": 5, "int16": 6, "int32": 7,
          "uint16": 8, "uint32": 9, "bool": 10}
_FLOATS = ("float16", "bfloat16", "float32", "float64")
# Computed in float64 (convert.hpp's `wide`): float32 cannot hold every value of these.
_WIDE = ("float64", "int32", "uint32")
_SHOWN = "uint8, uint16, uint32, int8, int16, int32, float16, bfloat16, float32, float64 or bool"

# The colours of the values no range places (docs/python.md), as kernels/convert.hpp's kNanColour and its kin.
NAN_COLOUR = (255, 0, 255, 255)  # magenta
POSINF_COLOUR = (255, 255, 255, 255)  # white
NEGINF_COLOUR = (0, 0, 0, 255)  # black

_DLPACK_NAMES = {_dlpack._INT: "int", _dlpack._UINT: "uint", _dlpack._FLOAT: "float", _dlpack._BFLOAT: "bfloat",
                 _dlpack._COMPLEX: "complex", _dlpack._BOOL: "bool"}


def stream_handle(stream):
    """A raw cudaStream_t from None, an int, or a CuPy / PyTorch / cuda.core stream."""
    if stream is None:
        return 0
    if isinstance(stream, bool):
        raise TypeError("stream: a bool is no CUDA stream: pass a CuPy, PyTorch or cuda.core stream, a raw "
                        "cudaStream_t as an int, or None for the default stream")
    if isinstance(stream, int):
        return stream
    if hasattr(stream, "__cuda_stream__"):  # cuda.core and the CUDA stream protocol
        return int(stream.__cuda_stream__()[1])
    for attribute in ("ptr", "cuda_stream", "handle"):  # CuPy, PyTorch, others
        if hasattr(stream, attribute):
            return int(getattr(stream, attribute))
    raise TypeError(
        f"stream: {type(stream).__name__} is no CUDA stream: pass a CuPy, PyTorch or cuda.core stream, a raw "
        "cudaStream_t as an int, or None for the default stream"
    )


class Picture:
    """An array as the viewer sees it: `frames` pictures of (height, width, channels) (a stack, or one), its
    element type and where it lives. frame(i) is one of them, the picture show() converts."""

    def __init__(self, shape, type_name, host=None, pointer=None, strides=None, stream=None, release=None,
                 frame_stride=0):
        self.frames, self.height, self.width, self.channels = shape
        self.type = type_name  # a key of _TYPES
        # A NumPy array (host memory; bfloat16 as its uint16 bits), (frames, H, W, C) of a stack and (H, W, C)
        # of one frame; or None for CUDA memory.
        self.host = host
        self.pointer = pointer
        self.strides = strides  # bytes, for (row, column, channel)
        self.frame_stride = frame_stride  # bytes from one frame of a stack to the next
        self.stream = stream  # where a CUDA array's producer made it ready (None: nothing to order)
        self._release = release

    @property
    def on_device(self):
        return self.host is None

    def frame(self, index):
        """Frame `index` of the stack as a picture of its own (it owns nothing: release() stays with this one)."""
        shape = (1, self.height, self.width, self.channels)
        if self.on_device:
            return Picture(shape, self.type, pointer=self.pointer + index * self.frame_stride, strides=self.strides,
                           stream=self.stream)
        return Picture(shape, self.type, host=self.host[index])

    def release(self):
        if self._release is not None:
            self._release()
            self._release = None


def element_type(name, what):
    """`name` (NumPy's name of a dtype: "float64", "int64", "complex64", ...) if the viewer shows it, or the
    TypeError that names the fix."""
    if name in _TYPES:
        return name
    if name in ("int64", "uint64"):
        raise TypeError(f"{what}: dtype {name} is not shown: 64-bit integers are not converted; pass "
                        "x.astype(numpy.float64), or x.astype(numpy.int32) where the values fit")
    if name.startswith("complex"):
        raise TypeError(f"{what}: dtype {name} is not shown: pick a real part to look at, e.g. numpy.abs(x), "
                        "x.real or numpy.angle(x)")
    raise TypeError(f"{what}: dtype {name} is not shown: pass {_SHOWN} (e.g. x.astype(numpy.float32))")


def _type_name(typestr):
    try:
        return numpy.dtype(typestr).name
    except TypeError:
        return typestr


def is_stack(shape):
    """Whether an array of `shape` is a stack of frames: (N, H, W, C), or (N, H, W) where the last edge is more
    than 4 (a last edge of 1 to 4 is (H, W, C): its channels)."""
    return len(shape) == 4 or (len(shape) == 3 and int(shape[2]) > 4)


def _check_points_layout(shape, type_name, what):
    """(1, 1, N, channels) of a points array (Viewer.points' values (N,) or colours (N, 1|3|4)), or the error."""
    if len(shape) not in (1, 2):
        raise ValueError(f"{what}: shape {shape}: pass one value a point, (N,), or one colour a point, (N, 3) RGB "
                         "or (N, 4) RGBA")
    channels = shape[1] if len(shape) == 2 else 1
    if channels not in (1, 3, 4):
        raise ValueError(f"{what}: shape {shape} has {channels} channels: pass (N,) values, or (N, 3) RGB / (N, 4) "
                         "RGBA colours, e.g. c[:, :3]")
    if shape[0] == 0:
        raise ValueError(f"{what}: the array is empty (shape {shape}): pass at least one point")
    element_type(type_name, what)
    return 1, 1, shape[0], channels


def _check_layout(shape, type_name, what, points=False):
    """(frames, height, width, channels) of an accepted shape and dtype, or one error that names the fix. points:
    an array of one value or colour a point, seen as one row of N pixels."""
    shape = tuple(int(n) for n in shape)
    if points:
        return _check_points_layout(shape, type_name, what)
    if len(shape) not in (2, 3, 4):
        raise ValueError(f"{what}: shape {shape}: pass (H, W), (H, W, C), (N, H, W) or (N, H, W, C) with C 1, 3 or 4")
    stack = is_stack(shape)
    channels = shape[-1] if len(shape) == 4 or (len(shape) == 3 and not stack) else 1
    if channels not in (1, 3, 4):
        raise ValueError(
            f"{what}: shape {shape} has {channels} channels: pass 1 (with a colormap), 3 (RGB) or 4 (RGBA), "
            "e.g. x[..., :3]"
        )
    if 0 in shape:
        raise ValueError(f"{what}: the array is empty (shape {shape}): pass at least one pixel")
    frames, height, width = shape[:3] if stack else (1,) + shape[:2]
    # Judged on the shape alone, before anything of that size is copied or converted.
    if height > MAX_IMAGE_EDGE or width > MAX_IMAGE_EDGE:
        raise SizeError(f"{what}: shape {shape} is an image of {width}x{height}: each edge from 1 to "
                        f"{MAX_IMAGE_EDGE}; pass a smaller one (e.g. x[..., ::2, ::2])")
    element_type(type_name, what)
    return frames, height, width, channels


def _contiguous_strides(shape, itemsize):
    strides, step = [], itemsize
    for n in reversed(shape):
        strides.append(step)
        step *= n
    return tuple(reversed(strides))


_said_copied = False


def _host_picture(array, what, points=False):
    global _said_copied
    type_name = array.dtype.name  # ml_dtypes' bfloat16 is "bfloat16"
    layout = _check_layout(array.shape, type_name, what, points)
    if not array.flags.c_contiguous:
        if not _said_copied:
            warnings.warn(f"{what}: the array is not C-contiguous: it is copied first (numpy.ascontiguousarray); "
                          "pass a contiguous one to save the copy (said once)", RuntimeWarning, stacklevel=4)
            _said_copied = True
        array = numpy.ascontiguousarray(array)
    if type_name == "bfloat16":
        array = array.view(numpy.uint16)  # its bits: the conversion widens them as kernels/convert.cu does
    return Picture(layout, type_name, host=array.reshape(layout))


def _split_strides(shape, strides, itemsize, points=False):
    """(frame stride, (row, column, channel) strides) in bytes of an accepted shape (points: (N,) or (N, C), one
    row of N pixels)."""
    strides = tuple(int(s) for s in strides)
    if points:
        return 0, (0,) + strides + ((itemsize,) if len(strides) == 1 else ())
    if not is_stack(shape):
        return 0, strides + ((itemsize,) if len(strides) == 2 else ())
    return strides[0], strides[1:] + ((itemsize,) if len(strides) == 3 else ())


def _cuda_picture(interface, what, type_name=None, points=False):
    shape, typestr = tuple(interface["shape"]), interface["typestr"]
    type_name = type_name or _type_name(typestr)
    layout = _check_layout(shape, type_name, what, points)
    itemsize = int(typestr[2:])
    frame_stride, strides = _split_strides(shape, interface.get("strides") or _contiguous_strides(shape, itemsize),
                                           itemsize, points)
    stream = interface.get("stream")
    return Picture(layout, type_name, pointer=int(interface["data"][0]), strides=strides, frame_stride=frame_stride,
                   stream=None if stream is None else (0 if stream in (1, 2) else int(stream)))


def _dlpack_type_name(dtype, what):
    """NumPy's name of a DLPack dtype ("bfloat16" for kDLBfloat), judged by element_type."""
    kind = _DLPACK_NAMES.get(dtype.code)
    if kind is None or dtype.lanes != 1:
        raise TypeError(f"{what}: a DLPack dtype of code {dtype.code}, {dtype.bits} bits, {dtype.lanes} lanes: pass "
                        f"{_SHOWN}")
    if kind == "bool":
        return element_type("bool" if dtype.bits == 8 else f"bool{dtype.bits}", what)
    return element_type(f"{kind}{dtype.bits}", what)  # "bfloat16" for kDLBfloat too


def _host_dlpack_picture(array, what, points=False):
    """A host array through DLPack: NumPy's view of it, but for bfloat16, which NumPy has no dtype for: a copy
    of its bits, read through the capsule (looked at first, so that NumPy never meets a dtype it refuses)."""
    tensor, release = _dlpack.open_capsule(array.__dlpack__())
    try:
        type_name = _dlpack_type_name(tensor.dtype, what)
        if type_name == "bfloat16":
            shape = tuple(tensor.shape[i] for i in range(tensor.ndim))
            layout = _check_layout(shape, type_name, what, points)
            strides = (tuple(tensor.strides[i] * 2 for i in range(tensor.ndim)) if tensor.strides
                       else _contiguous_strides(shape, 2))
            span = sum((n - 1) * s for n, s in zip(shape, strides)) + 2
            memory = (ctypes.c_uint8 * span).from_address((tensor.data or 0) + tensor.byte_offset)
            bits = numpy.lib.stride_tricks.as_strided(numpy.frombuffer(memory, dtype=numpy.uint16), shape, strides)
            return Picture(layout, type_name, host=numpy.ascontiguousarray(bits).reshape(layout))
    finally:
        release()
    return _host_picture(numpy.from_dlpack(array), what, points)


def _dlpack_picture(array, what, consumer_stream, points=False):
    device_type, _ = array.__dlpack_device__()
    if device_type in (_dlpack.kDLCPU, _dlpack.kDLCUDAHost):
        return _host_dlpack_picture(array, what, points)
    if device_type not in (_dlpack.kDLCUDA, _dlpack.kDLCUDAManaged):
        raise TypeError(f"{what}: a DLPack device of type {device_type}: pass a CUDA or a host array")
    # The producer orders its work before our stream (DLPack: 1 names the legacy default stream).
    capsule = array.__dlpack__(stream=consumer_stream or 1)
    tensor, release = _dlpack.open_capsule(capsule)
    dtype = tensor.dtype
    shape = tuple(tensor.shape[i] for i in range(tensor.ndim))
    try:
        type_name = _dlpack_type_name(dtype, what)
        itemsize = dtype.bits // 8
        typestr = f"|V{itemsize}"  # the element's size is all _cuda_picture reads of it
        strides = (tuple(tensor.strides[i] * itemsize for i in range(tensor.ndim)) if tensor.strides
                   else _contiguous_strides(shape, itemsize))
        interface = {"shape": shape, "typestr": typestr, "strides": strides,
                     "data": ((tensor.data or 0) + tensor.byte_offset, False)}
        picture = _cuda_picture(interface, what, type_name, points)
    except BaseException:
        release()
        raise
    picture._release = release
    return picture


def describe(array, what="show", consumer_stream=0, points=False):
    """A Picture of `array`, or TypeError / ValueError naming the fix. points: Viewer.points' values (N,) or
    colours (N, C), seen as one row of N pixels (any N)."""
    try:
        interface = getattr(array, "__cuda_array_interface__", None)
    except (RuntimeError, TypeError, ValueError) as error:
        # PyTorch refuses it for a tensor that needs grad, and for a dtype the interface cannot name (bfloat16),
        # which DLPack can.
        withheld = TypeError(f"{what}: {type(array).__name__} withholds its memory ({error}): pass a plain array "
                             "(e.g. x.detach())")
        if not (hasattr(array, "__dlpack__") and hasattr(array, "__dlpack_device__")):
            raise withheld from error
        try:
            return _dlpack_picture(array, what, consumer_stream, points)
        except (RuntimeError, BufferError) as dlpack_error:
            raise withheld from dlpack_error
    if interface is not None and interface["typestr"][1] == "V" and hasattr(array, "__dlpack__"):
        interface = None  # raw bytes (PyTorch's bfloat16): DLPack names the dtype
    if interface is not None:
        return _cuda_picture(interface, what, points=points)
    if hasattr(array, "__dlpack__") and hasattr(array, "__dlpack_device__") and not isinstance(array, numpy.ndarray):
        return _dlpack_picture(array, what, consumer_stream, points)
    try:
        host = numpy.asarray(array)
    except Exception as error:
        raise TypeError(f"{what}: {type(array).__name__} is no array: pass a NumPy or CUDA array") from error
    if host.dtype.kind in "OUSV" and host.dtype.name != "bfloat16":  # strings, objects, raw bytes: no picture
        raise TypeError(f"{what}: {type(array).__name__} is no array: pass a NumPy or CUDA array")
    return _host_picture(host, what, points)


# As Python floats: NumPy 2 compares a Python float with a float32 scalar in float32 (NEP 50), so a bound past
# float32 would overflow to inf, with a RuntimeWarning, inside the very check that refuses it.
_FLOAT32_MAX = float(numpy.finfo(numpy.float32).max)
_FLOAT32_TINY = float(numpy.finfo(numpy.float32).tiny)


class ValueRange:
    """What a picture's values map through (kernels/convert.hpp's rule): `low` and `scale` (high - low) as
    float32 numbers, or as float64 where `wide`; `shown` is (low, high) as Python floats, what Viewer.range
    reports; `how` is "fixed", "auto" or "each"."""

    def __init__(self, low, scale, wide, shown, how):
        self.low, self.scale, self.wide, self.shown, self.how = low, scale, wide, shown, how


def default_range(type_name):
    """range=None: uint8 0..255 (the bytes as they are), floats 0..1 and bool 0..1 (False 0, True 255), the other
    integers "auto" (their own min..max)."""
    if type_name == "uint8":
        return (0.0, 255.0)
    if type_name in _FLOATS or type_name == "bool":
        return (0.0, 1.0)
    return "auto"


def range_request(picture, requested):
    """"auto", "each" or (low, high) as Python floats, for range= (None: default_range); or the error that
    names the fix."""
    if requested is None:
        requested = default_range(picture.type)
    if isinstance(requested, str):
        if requested in ("auto", "each"):
            return requested
        raise ValueError(f"range: {requested!r}: pass (low, high), 'auto' (min..max of the first array shown) or "
                         "'each' (min..max of every array)")
    try:
        low, high = (float(v) for v in requested)
    except (TypeError, ValueError):
        raise TypeError(f"range: {requested!r}: pass (low, high), two numbers, or 'auto' or 'each'") from None
    return low, high


def fixed_range(picture, low, high):
    """The ValueRange of range=(low, high). Computed in float32 (here and in kernels/convert.cu) unless the dtype
    is computed in float64: a bound or a span (high - low) that the computation cannot hold would turn the
    picture black or overflow, so each raises ValueError."""
    if picture.type in _WIDE:
        if not (math.isfinite(low) and math.isfinite(high)):
            raise ValueError(f"range: ({low}, {high}): pass finite bounds")
        if not high > low:
            raise ValueError(f"range: ({low}, {high}): high must be above low")
        if not math.isfinite(high - low):
            raise ValueError(f"range: ({low}, {high}): high - low overflows float64: pass a narrower range")
        return ValueRange(low, high - low, True, (low, high), "fixed")
    for bound in (low, high):
        if not (math.isfinite(bound) and abs(bound) <= _FLOAT32_MAX):
            raise ValueError(f"range: ({low}, {high}): {bound} is no float32 number: pass finite bounds within "
                             f"+-{_FLOAT32_MAX:.4g}")
    if not numpy.float32(high) > numpy.float32(low):
        raise ValueError(f"range: ({low}, {high}): high must be above low (as float32 numbers)")
    span = float(numpy.float32(high)) - float(numpy.float32(low))
    if not _FLOAT32_TINY <= span <= _FLOAT32_MAX:
        raise ValueError(f"range: ({low}, {high}): high - low is {span:.4g}, out of float32's normal numbers: "
                         f"pass a span from {_FLOAT32_TINY:.4g} to {_FLOAT32_MAX:.4g}")
    low32 = numpy.float32(low)
    return ValueRange(low32, numpy.float32(numpy.float32(high) - low32), False,
                      (float(low32), float(numpy.float32(high))), "fixed")


def bounds_range(picture, low, high, finite, how):
    """The ValueRange of range="auto" / "each" from the finite values' bounds (low, high; finite: how many
    values are finite). No finite value: 0..1 (every pixel is NaN's or inf's colour anyway); one value
    throughout: low..low + 1, so it shows as the bottom of the range. Computed as a fixed range of that dtype
    is, and in float64 where float32 cannot hold the span (a float32 array from -3e38 to 3e38)."""
    if finite == 0:
        low, high = 0.0, 1.0
    low, high = low + 0.0, high + 0.0  # -0.0 is 0.0: either reduction may meet one first
    constant = not high > low
    if constant:
        high = low + 1.0
    wide = picture.type in _WIDE
    if not wide:
        low32 = numpy.float32(low)  # exact: the values of every type computed in float32 are float32 numbers
        with numpy.errstate(over="ignore"):  # a span past float32 is inf: computed in float64 below
            scale32 = numpy.float32(1.0) if constant else numpy.float32(numpy.float32(high) - low32)
        if _FLOAT32_TINY <= float(scale32) <= _FLOAT32_MAX:
            return ValueRange(low32, scale32, False, (low, high), how)
    return ValueRange(low, 1.0 if constant else high - low, True, (low, high), how)


def host_bounds(picture):
    """(low, high, finite) of a host picture's finite values (every frame's), as kernels/convert.cu's bounds kernel
    finds them."""
    values = _values(picture.host, picture.type, numpy.float64)
    if picture.type in _FLOATS:
        values = values[numpy.isfinite(values)]
    if values.size == 0:
        return 0.0, 0.0, 0
    return float(values.min()), float(values.max()), int(values.size)


def host_values(picture, real=numpy.float32):
    """A host picture's values as `real`, as the kernels read them (bfloat16 from its bits)."""
    return _values(picture.host, picture.type, real)


def _values(host, type_name, real):
    """A host picture's values as `real` (numpy.float32 or numpy.float64): exact, as kernels/convert.cu loads them."""
    if type_name == "bfloat16":  # its bits are a float32's upper half
        return (host.astype(numpy.uint32) << 16).view(numpy.float32).astype(real)
    return host.astype(real)


def to_rgba8(host, type_name, value_range, colormap_table):
    """kernels/convert.cu's rule in NumPy, byte for byte: a (H, W, C) array -> (H, W, 4) uint8, C-contiguous."""
    height, width, channels = host.shape
    specials = None
    if type_name == "uint8" and not value_range.wide and value_range.low == 0 and value_range.scale == 255:
        bytes_ = host
    else:
        real = numpy.float64 if value_range.wide else numpy.float32
        values = _values(host, type_name, real)
        with numpy.errstate(all="ignore"):  # NaN and inf are coloured below, without a word
            t = (values - real(value_range.low)) / real(value_range.scale)
            t = numpy.nan_to_num(t, nan=0.0, posinf=1.0, neginf=0.0)
            bytes_ = numpy.floor(numpy.clip(t, 0.0, 1.0) * real(255.0) + real(0.5)).astype(numpy.uint8)
        if type_name in _FLOATS:
            nan = numpy.isnan(values).any(axis=2)
            positive = numpy.isposinf(values).any(axis=2) & ~nan
            negative = numpy.isneginf(values).any(axis=2) & ~nan & ~positive
            specials = ((nan, NAN_COLOUR), (positive, POSINF_COLOUR), (negative, NEGINF_COLOUR))
    if channels == 1:
        rgba = numpy.ascontiguousarray(colormap_table[bytes_[..., 0]])
    elif channels == 4:
        rgba = numpy.ascontiguousarray(bytes_)
    else:
        rgba = numpy.empty((height, width, 4), dtype=numpy.uint8)
        rgba[..., :3] = bytes_
        rgba[..., 3] = 255
    for where, colour in specials or ():
        if where.any():
            if rgba is host:
                rgba = rgba.copy()
            rgba[where] = colour
    return rgba


class ConvertDesc(ctypes.Structure):
    """viewer.cpp's ilab_convert."""

    _fields_ = [
        ("data", ctypes.c_size_t),
        ("height", ctypes.c_int),
        ("width", ctypes.c_int),
        ("channels", ctypes.c_int),
        ("type", ctypes.c_int),
        ("row_stride", ctypes.c_longlong),
        ("column_stride", ctypes.c_longlong),
        ("channel_stride", ctypes.c_longlong),
        ("low", ctypes.c_double),
        ("range", ctypes.c_double),
        ("wide", ctypes.c_int),
    ]


def convert_desc(picture, value_range=None):
    """What ilab_viewer_show_device converts (and ilab_viewer_value_bounds reads: value_range None)."""
    low, scale, wide = (0.0, 1.0, False) if value_range is None else (value_range.low, value_range.scale,
                                                                      value_range.wide)
    return ConvertDesc(picture.pointer, picture.height, picture.width, picture.channels, _TYPES[picture.type],
                       picture.strides[0], picture.strides[1], picture.strides[2], float(low), float(scale),
                       int(bool(wide)))
