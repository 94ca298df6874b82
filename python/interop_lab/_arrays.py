"""What the viewer accepts, and the NumPy half of the conversion to RGBA8.

describe() turns an array into a Picture: NumPy (or anything NumPy can view: __array_interface__, the
buffer protocol, CPU DLPack) stays on the host; CUDA arrays come through __cuda_array_interface__ (CuPy,
PyTorch, Numba, Warp) or __dlpack__ (JAX, cuda.core, PyTorch) as a pointer with byte strides. Every
rejection names the fix. to_rgba8() is python/convert.cu's rule in NumPy (see python/convert.hpp)."""

import ctypes
import math
import warnings

import numpy

from . import _dlpack
from ._native import MAX_IMAGE_EDGE, SizeError

_TYPES = {"u1": 0, "f2": 1, "f4": 2}  # python/convert.hpp's ElementType
_NAMES = {"u1": "uint8", "f2": "float16", "f4": "float32"}


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
    """An array as the viewer sees it: (height, width, channels), its element type and where it lives."""

    def __init__(self, shape, typestr, host=None, pointer=None, strides=None, stream=None, release=None):
        self.height, self.width, self.channels = shape
        self.type = typestr[1:]
        self.host = host  # a NumPy array (host memory), or None for CUDA memory
        self.pointer = pointer
        self.strides = strides  # bytes, for (row, column, channel)
        self.stream = stream  # where a CUDA array's producer made it ready (None: nothing to order)
        self._release = release

    @property
    def on_device(self):
        return self.host is None

    def release(self):
        if self._release is not None:
            self._release()
            self._release = None


def _check_layout(shape, typestr, what):
    """(height, width, channels) of an accepted shape and dtype, or one error that names the fix."""
    shape = tuple(int(n) for n in shape)
    if len(shape) not in (2, 3):
        raise ValueError(f"{what}: shape {shape}: pass (H, W) or (H, W, C) with C 1, 3 or 4")
    if len(shape) == 3 and shape[2] not in (1, 3, 4):
        raise ValueError(
            f"{what}: shape {shape} has {shape[2]} channels: pass 1 (with a colormap), 3 (RGB) or 4 (RGBA), "
            "e.g. x[..., :3]"
        )
    if 0 in shape:
        raise ValueError(f"{what}: the array is empty (shape {shape}): pass at least one pixel")
    # Judged on the shape alone, before anything of that size is copied or converted.
    if shape[0] > MAX_IMAGE_EDGE or shape[1] > MAX_IMAGE_EDGE:
        raise SizeError(f"{what}: shape {shape} is an image of {shape[1]}x{shape[0]}: each edge from 1 to "
                        f"{MAX_IMAGE_EDGE}; pass a smaller one (e.g. x[::2, ::2])")
    kind = typestr[1:]
    if kind not in _TYPES:
        raise TypeError(
            f"{what}: dtype {numpy.dtype(typestr).name if typestr[1] in 'uif' else typestr} is not shown: pass "
            "uint8, float16 or float32 (e.g. x.astype(numpy.float32))"
        )
    return shape if len(shape) == 3 else shape + (1,)


def _contiguous_strides(shape, itemsize):
    strides, step = [], itemsize
    for n in reversed(shape):
        strides.append(step)
        step *= n
    return tuple(reversed(strides))


_said_copied = False


def _host_picture(array, what):
    global _said_copied
    layout = _check_layout(array.shape, array.dtype.str, what)
    if not array.flags.c_contiguous:
        if not _said_copied:
            warnings.warn(f"{what}: the array is not C-contiguous: it is copied first (numpy.ascontiguousarray); "
                          "pass a contiguous one to save the copy (said once)", RuntimeWarning, stacklevel=4)
            _said_copied = True
        array = numpy.ascontiguousarray(array)
    return Picture(layout, array.dtype.str, host=array.reshape(layout))


def _cuda_picture(interface, what):
    shape, typestr = tuple(interface["shape"]), interface["typestr"]
    layout = _check_layout(shape, typestr, what)
    itemsize = int(typestr[2:])
    strides = interface.get("strides") or _contiguous_strides(shape, itemsize)
    strides = tuple(int(s) for s in strides)
    if len(strides) == 2:
        strides += (itemsize,)
    stream = interface.get("stream")
    return Picture(layout, typestr, pointer=int(interface["data"][0]), strides=strides,
                   stream=None if stream is None else (0 if stream in (1, 2) else int(stream)))


def _dlpack_picture(array, what, consumer_stream):
    device_type, _ = array.__dlpack_device__()
    if device_type in (_dlpack.kDLCPU, _dlpack.kDLCUDAHost):
        return _host_picture(numpy.from_dlpack(array), what)
    if device_type not in (_dlpack.kDLCUDA, _dlpack.kDLCUDAManaged):
        raise TypeError(f"{what}: a DLPack device of type {device_type}: pass a CUDA or a host array")
    # The producer orders its work before our stream (DLPack: 1 names the legacy default stream).
    capsule = array.__dlpack__(stream=consumer_stream or 1)
    tensor, release = _dlpack.open_capsule(capsule)
    code_names = {(_dlpack._UINT, 8): "|u1", (_dlpack._FLOAT, 16): "<f2", (_dlpack._FLOAT, 32): "<f4"}
    dtype = tensor.dtype
    typestr = code_names.get((dtype.code, dtype.bits))
    shape = tuple(tensor.shape[i] for i in range(tensor.ndim))
    try:
        if typestr is None or dtype.lanes != 1:
            raise TypeError(f"{what}: a DLPack dtype of code {dtype.code}, {dtype.bits} bits: pass uint8, float16 "
                            "or float32")
        itemsize = dtype.bits // 8
        strides = (tuple(tensor.strides[i] * itemsize for i in range(tensor.ndim)) if tensor.strides
                   else _contiguous_strides(shape, itemsize))
        interface = {"shape": shape, "typestr": typestr, "strides": strides,
                     "data": ((tensor.data or 0) + tensor.byte_offset, False)}
        picture = _cuda_picture(interface, what)
    except BaseException:
        release()
        raise
    picture._release = release
    return picture


def describe(array, what="show", consumer_stream=0):
    """A Picture of `array`, or TypeError / ValueError naming the fix."""
    try:
        interface = getattr(array, "__cuda_array_interface__", None)
    except (RuntimeError, TypeError, ValueError) as error:  # PyTorch refuses it for a tensor that needs grad
        raise TypeError(f"{what}: {type(array).__name__} withholds its memory ({error}): pass a plain array "
                        "(e.g. x.detach())") from error
    if interface is not None:
        return _cuda_picture(interface, what)
    if hasattr(array, "__dlpack__") and hasattr(array, "__dlpack_device__") and not isinstance(array, numpy.ndarray):
        return _dlpack_picture(array, what, consumer_stream)
    try:
        host = numpy.asarray(array)
    except Exception as error:
        raise TypeError(f"{what}: {type(array).__name__} is no array: pass a NumPy or CUDA array") from error
    if host.dtype.kind in "OUSV":  # strings, objects, raw bytes: no picture
        raise TypeError(f"{what}: {type(array).__name__} is no array: pass a NumPy or CUDA array")
    return _host_picture(host, what)


# As Python floats: NumPy 2 compares a Python float with a float32 scalar in float32 (NEP 50), so a bound past
# float32 would overflow to inf, with a RuntimeWarning, inside the very check that refuses it.
_FLOAT32_MAX = float(numpy.finfo(numpy.float32).max)
_FLOAT32_TINY = float(numpy.finfo(numpy.float32).tiny)


def value_range(picture, value_range):
    """(low, range) as float32 values: value_range (low, high) or the dtype's default, uint8 0..255, float 0..1.
    The conversion computes in float32 (here and in python/convert.cu): a bound or a span (high - low) that
    float32 cannot hold would turn the picture black or overflow, so each raises ValueError."""
    if value_range is None:
        low, high = (0.0, 255.0) if picture.type == "u1" else (0.0, 1.0)
    else:
        try:
            low, high = (float(v) for v in value_range)
        except (TypeError, ValueError):
            raise TypeError(f"range: {value_range!r}: pass (low, high), two numbers") from None
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
    return numpy.float32(low), numpy.float32(numpy.float32(high) - numpy.float32(low))


def to_rgba8(host, low, scale, colormap_table):
    """python/convert.cu's rule in NumPy: a (H, W, C) array -> (H, W, 4) uint8, C-contiguous."""
    height, width, channels = host.shape
    if host.dtype == numpy.uint8 and low == 0 and scale == 255:
        bytes_ = host
    else:
        t = (host.astype(numpy.float32) - low) / scale
        t = numpy.nan_to_num(t, nan=0.0, posinf=1.0, neginf=0.0)
        bytes_ = numpy.floor(numpy.clip(t, 0.0, 1.0) * numpy.float32(255.0) + numpy.float32(0.5)).astype(numpy.uint8)
    if channels == 1:
        return numpy.ascontiguousarray(colormap_table[bytes_[..., 0]])
    if channels == 4:
        return numpy.ascontiguousarray(bytes_)
    rgba = numpy.empty((height, width, 4), dtype=numpy.uint8)
    rgba[..., :3] = bytes_
    rgba[..., 3] = 255
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
        ("low", ctypes.c_float),
        ("range", ctypes.c_float),
    ]


def convert_desc(picture, low, scale):
    return ConvertDesc(picture.pointer, picture.height, picture.width, picture.channels, _TYPES[picture.type],
                       picture.strides[0], picture.strides[1], picture.strides[2], float(low), float(scale))
