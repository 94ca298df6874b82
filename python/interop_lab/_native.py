"""ctypes bindings of libinterop_lab_bridge.so (python/bridge.cpp), found beside this file or at
$INTEROP_LAB_BRIDGE. Every call returns 0 or -1; -1 raises with the library's reason."""

import ctypes
import json
import operator
import os

_HERE = os.path.dirname(os.path.abspath(__file__))


class ViewerInfo(ctypes.Structure):
    _fields_ = [
        ("path", ctypes.c_char * 16),
        ("reason", ctypes.c_char * 512),
        ("description", ctypes.c_char * 256),
        ("cuda_device", ctypes.c_int),
        ("window", ctypes.c_int),
    ]


class ViewerStats(ctypes.Structure):
    _fields_ = [("update_ms", ctypes.c_double), ("draw_ms", ctypes.c_double), ("fps", ctypes.c_double),
                ("frames", ctypes.c_longlong)]


class ResourceInfo(ctypes.Structure):
    _fields_ = [
        ("label", ctypes.c_char * 64),
        ("kind", ctypes.c_int),
        ("role", ctypes.c_int),
        ("bytes", ctypes.c_uint64),
        ("width", ctypes.c_int),
        ("height", ctypes.c_int),
    ]


def _load():
    path = os.environ.get("INTEROP_LAB_BRIDGE") or os.path.join(_HERE, "libinterop_lab_bridge.so")
    if not os.path.exists(path):
        raise ImportError(
            f"interop_lab: the native library {path} is missing: install the package with "
            "`pip install --no-build-isolation ./python` (it builds the library), or build the project "
            "(scripts/build.sh) and put <build>/python on PYTHONPATH, or point INTEROP_LAB_BRIDGE at the library"
        )
    lib = ctypes.CDLL(path)
    handle, u64, uptr = ctypes.c_void_p, ctypes.c_uint64, ctypes.c_size_t
    signatures = {
        "ilab_last_error": ([], ctypes.c_char_p),
        "ilab_version": ([], ctypes.c_char_p),
        "ilab_max_image_edge": ([], ctypes.c_int),
        "ilab_open": ([ctypes.c_char_p, ctypes.c_char_p, ctypes.c_int, ctypes.c_int, ctypes.c_longlong,
                       ctypes.POINTER(handle)], ctypes.c_int),
        "ilab_close": ([handle], ctypes.c_int),
        "ilab_uses_cuda": ([handle], ctypes.c_int),
        "ilab_cuda_device": ([handle], ctypes.c_int),
        "ilab_resource_count": ([handle], ctypes.c_int),
        "ilab_resource_info": ([handle, ctypes.c_int, ctypes.POINTER(ResourceInfo)], ctypes.c_int),
        "ilab_map": ([handle, ctypes.c_longlong, uptr], ctypes.c_int),
        "ilab_unmap": ([handle], ctypes.c_int),
        "ilab_pointer": ([handle, ctypes.c_int, ctypes.POINTER(uptr), ctypes.POINTER(u64)], ctypes.c_int),
        "ilab_surface": ([handle, ctypes.c_int, ctypes.POINTER(ctypes.c_ulonglong)], ctypes.c_int),
        "ilab_copy_texture": ([handle, ctypes.c_int, uptr, u64, ctypes.c_int, uptr], ctypes.c_int),
        "ilab_order_streams": ([uptr, uptr], ctypes.c_int),
        "ilab_time_texture_frames": ([handle, ctypes.c_int, uptr, u64, uptr, ctypes.c_int,
                                      ctypes.POINTER(ctypes.c_double), ctypes.POINTER(ctypes.c_double)], ctypes.c_int),
        "ilab_pointer_device": ([uptr, ctypes.POINTER(ctypes.c_int)], ctypes.c_int),
        "ilab_compare_png": ([handle, ctypes.c_char_p, ctypes.c_int, ctypes.c_double, ctypes.POINTER(ctypes.c_int),
                              ctypes.c_char_p, u64], ctypes.c_int),
        "ilab_write_png": ([handle, ctypes.c_char_p], ctypes.c_int),
        "ilab_read_frame": ([handle, ctypes.c_void_p, u64, ctypes.POINTER(ctypes.c_int),
                             ctypes.POINTER(ctypes.c_int)], ctypes.c_int),
        "ilab_command": ([handle, ctypes.c_char_p, ctypes.c_char_p, u64], ctypes.c_int),
        "ilab_state": ([handle, ctypes.c_char_p, u64, ctypes.POINTER(u64)], ctypes.c_int),
        "ilab_attach_open": ([ctypes.c_char_p, ctypes.c_char_p, ctypes.c_int, ctypes.c_int, ctypes.c_int,
                              ctypes.c_char_p, ctypes.POINTER(handle)], ctypes.c_int),
        "ilab_attach_url": ([handle, ctypes.c_char_p, u64], ctypes.c_int),
        "ilab_attach_render": ([handle, ctypes.POINTER(ctypes.c_int)], ctypes.c_int),
        "ilab_attach_read_frame": ([handle, ctypes.c_void_p, u64, ctypes.POINTER(ctypes.c_int),
                                    ctypes.POINTER(ctypes.c_int)], ctypes.c_int),
        "ilab_attach_status": ([handle, ctypes.c_char_p, u64, ctypes.c_char_p, u64], ctypes.c_int),
        "ilab_attach_command": ([handle, ctypes.c_char_p, ctypes.c_char_p, u64], ctypes.c_int),
        "ilab_attach_state": ([handle, ctypes.c_char_p, u64, ctypes.POINTER(u64)], ctypes.c_int),
        "ilab_attach_close": ([handle], ctypes.c_int),
        "ilab_viewer_open": ([ctypes.c_int, ctypes.c_int, ctypes.c_char_p, ctypes.c_int, ctypes.c_char_p,
                              ctypes.c_int, ctypes.c_char_p, ctypes.POINTER(handle)], ctypes.c_int),
        "ilab_viewer_url": ([handle, ctypes.c_char_p, u64], ctypes.c_int),
        "ilab_viewer_describe": ([handle, ctypes.POINTER(ViewerInfo)], ctypes.c_int),
        "ilab_viewer_close": ([handle], ctypes.c_int),
        "ilab_viewer_poll": ([handle, ctypes.POINTER(ctypes.c_int)], ctypes.c_int),
        "ilab_viewer_render": ([handle], ctypes.c_int),
        "ilab_viewer_show_host": ([handle, ctypes.c_void_p, u64, ctypes.c_int, ctypes.c_int], ctypes.c_int),
        "ilab_viewer_show_device": ([handle, ctypes.c_void_p, ctypes.c_void_p, uptr], ctypes.c_int),
        "ilab_viewer_set_range_text": ([handle, ctypes.c_char_p], ctypes.c_int),
        "ilab_viewer_value_bounds": ([handle, ctypes.c_void_p, uptr, ctypes.POINTER(ctypes.c_double),
                                     ctypes.POINTER(ctypes.c_double), ctypes.POINTER(ctypes.c_longlong)], ctypes.c_int),
        "ilab_viewer_frame_begin": ([handle, ctypes.c_int, ctypes.c_int, uptr, ctypes.POINTER(uptr),
                                     ctypes.POINTER(u64), ctypes.POINTER(ctypes.c_int)], ctypes.c_int),
        "ilab_viewer_frame_end": ([handle], ctypes.c_int),
        "ilab_viewer_read_frame": ([handle, ctypes.c_void_p, u64, ctypes.POINTER(ctypes.c_int),
                                    ctypes.POINTER(ctypes.c_int)], ctypes.c_int),
        "ilab_viewer_resize": ([handle, ctypes.c_int, ctypes.c_int], ctypes.c_int),
        "ilab_viewer_get_stats": ([handle, ctypes.POINTER(ViewerStats)], ctypes.c_int),
        "ilab_check_serve_address": ([ctypes.c_char_p, ctypes.c_char_p, u64], ctypes.c_int),
        "ilab_write_rgba_png": ([ctypes.c_char_p, ctypes.c_void_p, u64, ctypes.c_int, ctypes.c_int], ctypes.c_int),
        "ilab_read_rgba_png": ([ctypes.c_char_p, ctypes.c_void_p, u64, ctypes.POINTER(ctypes.c_int),
                                ctypes.POINTER(ctypes.c_int)], ctypes.c_int),
    }
    for name, (arguments, result) in signatures.items():
        function = getattr(lib, name)
        function.argtypes = arguments
        function.restype = result
    return lib


lib = _load()


class InteropLabError(RuntimeError):
    """A failure inside interop-lab's native library (CUDA, GL or a refused request), with its reason."""


class SizeError(InteropLabError, ValueError):
    """A size or count the library does not take: a ValueError, and an InteropLabError as the library's own
    refusal of it has always been (it is judged in Python now, before anything of that size is made)."""


# The largest edge of a picture, window or frame the library takes (app/image/image_io.hpp).
MAX_IMAGE_EDGE = lib.ilab_max_image_edge()
# The C ABI's int: ctypes wraps a larger Python int silently (2**32 + 4 arrives as 4).
_C_INT_MAX = 2**31 - 1


def whole_number(value, what, low=0, high=_C_INT_MAX):
    """`value` as an int from `low` to `high` (None: unbounded), checked before it crosses the C ABI: TypeError
    for what is no whole number (1.5 is not truncated to 1), SizeError (a ValueError) out of range."""
    if isinstance(value, bool):
        raise TypeError(f"{what}: {value!r} is a bool: pass a whole number")
    try:
        number = operator.index(value)
    except TypeError:
        hint = f" (e.g. round({value!r}))" if isinstance(value, float) else ""
        raise TypeError(f"{what}: {value!r} is no whole number: pass an int{hint}") from None
    if (low is not None and number < low) or (high is not None and number > high):
        raise SizeError(f"{what} {number}: from {low} to {high}")
    return number


def image_size(size, what="size", low=1):
    """(width, height) of `size`, each a whole number from `low` to MAX_IMAGE_EDGE, or the error that names
    the fix (in the library's words: "size 20000x10: each edge from 1 to 16384")."""
    try:
        width, height = size
    except (TypeError, ValueError):
        raise TypeError(f"{what}: {size!r}: pass (width, height)") from None
    width = whole_number(width, f"{what}: width", None, None)
    height = whole_number(height, f"{what}: height", None, None)
    if not (low <= width <= MAX_IMAGE_EDGE and low <= height <= MAX_IMAGE_EDGE):
        raise SizeError(f"{what} {width}x{height}: each edge from {low} to {MAX_IMAGE_EDGE}")
    return width, height


def check(status):
    if status != 0:
        raise InteropLabError(lib.ilab_last_error().decode("utf-8", "replace"))


def protocol_command(function, handle, message):
    """Sends `message`, a dict of the page's protocol (docs/browser.md), through `function` (the object's C
    command): "" or why the last refused command was refused; ValueError for a message the protocol does not
    take."""
    refused = ctypes.create_string_buffer(1024)
    status = function(handle, json.dumps(message).encode(), refused, len(refused))
    if status == 1:
        raise ValueError(lib.ilab_last_error().decode("utf-8", "replace"))
    check(status)
    return refused.value.decode("utf-8", "replace")


def protocol_state(function, handle):
    """The state the page is sent, as a dict, through `function` (the object's C state)."""
    size = ctypes.c_uint64()
    check(function(handle, None, 0, ctypes.byref(size)))
    text = ctypes.create_string_buffer(size.value)
    check(function(handle, text, len(text), ctypes.byref(size)))
    return json.loads(text.value.decode("utf-8", "replace"))


class NativeHandle:
    """What Lab, Viewer and a registered GL object share: close() ends the native object; a `with` block
    closes it, and so does the collector where it may (from another thread the object refuses, and stays
    to the thread that owns it)."""

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def __del__(self):
        try:
            self.close()
        except Exception:  # another thread's collector, or still mapped: nothing a collector can do
            pass
