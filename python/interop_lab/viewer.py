"""interop_lab.Viewer and interop_lab.show: your arrays on screen, or rendered headless.

    v = interop_lab.Viewer(size=(1280, 720))   # a GLFW window where there is a display, else headless EGL
    v.show(x, stream=s)                         # CuPy / PyTorch / JAX / Numba / Warp / cuda.core / NumPy
    v.screenshot("x.png")

    v = interop_lab.Viewer(serve=8080)          # headless, each frame shown served to a browser: open v.url

Shapes (H, W) and (H, W, 1|3|4), and stacks of them, (N, H, W[, 1|3|4]), one frame shown (viewer.index); dtypes uint8/16/32, int8/16/32, float16, bfloat16, float32, float64 and
bool. Values map through `range`: (low, high), "auto" (min..max of the first array shown) or "each" (of
every array); default 0..255 for uint8, 0..1 for floats and bool, "auto" for the other integers; the range
used is `viewer.range`. One channel indexes a `colormap` ('gray', 'viridis', 'turbo' or a (256, 3|4) uint8
table). NaN shows magenta, +inf white, -inf black (docs/python.md has the table).

The frames come from interop-lab's own frame loop, with your pictures in place of its scenes (python/viewer.cpp):
the same modes, timings, panel, keys and browser desk as the app's. Paths (Viewer.path: the loop's mode):
  interop  the frame is a GL texture registered with CUDA: show() of a CUDA array converts it once, on
           `stream`, into the viewer's own device memory, and each frame copies that into the texture on the
           GPU; nothing waits on the host. `with v.frame(stream=s) as target:` hands out that memory itself.
  staging  CUDA, but no CUDA-GL interop for this GL (Mesa, GL on another GPU, WSL): the frame is made on
           the GPU, copied to pinned host memory and uploaded (the host waits for the copy).
  cpu      no CUDA: NumPy arrays, converted with NumPy, the frame made by the CPU reference.
mode='auto' picks the first that works and says once why it is not interop; mode= forces one.

Served (serve=PORT or "[HOST:]PORT", as interop-lab --serve takes it; 0: any free port): the viewer renders
headless unless window=True and the browser desk (app/serve) serves every frame shown, loopback by default,
behind the random token of v.url; close(), the `with` block's end or the interpreter's exit stop it.

Looking closely (docs/python.md): the picture keeps its aspect (fit=), the wheel zooms at the cursor, a drag
pans, 1 shows it 1:1, F fits it again; viewer.value_at(x, y) and the panel's readout say the array's own value;
Space pauses and period steps (viewer.paused, viewer.poll()); viewer.slider/checkbox/button/choice add your own
controls to the panel.

A viewer belongs to the thread that opened it; each call makes its GL context current and gives yours
back, so several viewers and labs live in one process next to your own GL.
"""

import atexit
import builtins
import contextlib
import ctypes
import itertools
import math
import os
import sys
import tempfile
import time
import warnings
import weakref

import numpy

from . import _arrays, _colormaps, _dlpack
from ._native import (InteropLabError, NativeHandle, ViewerInfo, ViewerStats, check, image_size, lib, protocol_command,
                      protocol_state)

__all__ = ["Viewer", "show", "PathNotice", "Slider", "Checkbox", "Button", "Choice"]


class _ViewerView(ctypes.Structure):
    _fields_ = [("fit", ctypes.c_char * 16), ("free", ctypes.c_int), ("origin_x", ctypes.c_double),
                ("origin_y", ctypes.c_double), ("scale_x", ctypes.c_double), ("scale_y", ctypes.c_double)]


class _Source(ctypes.Structure):
    _fields_ = [("data", ctypes.c_size_t), ("on_device", ctypes.c_int), ("type", ctypes.c_int),
                ("height", ctypes.c_int), ("width", ctypes.c_int), ("channels", ctypes.c_int),
                ("row_stride", ctypes.c_longlong), ("column_stride", ctypes.c_longlong),
                ("channel_stride", ctypes.c_longlong), ("frame_index", ctypes.c_int), ("frame_count", ctypes.c_int)]


class _Camera(ctypes.Structure):
    _fields_ = [("target", ctypes.c_double * 3), ("yaw", ctypes.c_double), ("pitch", ctypes.c_double),
                ("distance", ctypes.c_double), ("radius", ctypes.c_double), ("fov_y", ctypes.c_double)]


class _State(ctypes.Structure):
    _fields_ = [("paused", ctypes.c_int), ("steps", ctypes.c_int), ("frame_index", ctypes.c_int),
                ("frame_count", ctypes.c_int), ("has_cursor", ctypes.c_int), ("cursor_x", ctypes.c_int),
                ("cursor_y", ctypes.c_int), ("readout", ctypes.c_char * 256)]


def _declare():
    """The C ABI of the viewer's view, readout, time and controls (python/viewer.cpp)."""
    handle, u64, uptr, c_int, c_double = ctypes.c_void_p, ctypes.c_uint64, ctypes.c_size_t, ctypes.c_int, ctypes.c_double
    signatures = {
        "ilab_viewer_set_fit": [handle, ctypes.c_char_p],
        "ilab_viewer_get_view": [handle, ctypes.POINTER(_ViewerView)],
        "ilab_viewer_move_view": [handle, c_double, c_double, c_double, c_double, c_double],
        "ilab_viewer_set_source": [handle, ctypes.POINTER(_Source)],
        "ilab_viewer_value_at": [handle, c_int, c_int, ctypes.POINTER(c_double), ctypes.POINTER(c_int)],
        "ilab_viewer_set_colorbar": [handle, ctypes.c_void_p, c_double, c_double],
        "ilab_viewer_get_state": [handle, ctypes.POINTER(_State)],
        "ilab_viewer_time": [handle, c_int, c_int, c_int, ctypes.POINTER(c_int)],
        "ilab_viewer_inject": [handle, c_int, c_double, c_double],
        "ilab_viewer_read_window": [handle, ctypes.c_void_p, u64, ctypes.POINTER(c_int), ctypes.POINTER(c_int)],
        "ilab_viewer_control_add": [handle, c_int, ctypes.c_char_p, c_double, c_double, c_double, ctypes.c_char_p,
                                    ctypes.POINTER(c_int)],
        "ilab_viewer_control_get": [handle, c_int, ctypes.POINTER(c_double), ctypes.POINTER(ctypes.c_longlong)],
        "ilab_viewer_control_set": [handle, c_int, c_double, c_int],
        "ilab_viewer_control_rect": [handle, c_int, ctypes.POINTER(ctypes.c_float)],
        "ilab_viewer_take_page_commands": [handle, ctypes.POINTER(c_int)],
        "ilab_viewer_command": [handle, ctypes.c_char_p, ctypes.c_char_p, u64],
        "ilab_viewer_page_state": [handle, ctypes.c_char_p, u64, ctypes.POINTER(u64)],
        "ilab_viewer_points_begin": [handle, ctypes.c_longlong, uptr, ctypes.POINTER(uptr), ctypes.POINTER(uptr),
                                     ctypes.POINTER(c_int)],
        "ilab_viewer_points_xyz": [handle, uptr, c_int, ctypes.c_longlong],
        "ilab_viewer_points_colours": [handle, ctypes.c_void_p, ctypes.c_void_p, ctypes.c_void_p],
        "ilab_viewer_points_bounds": [handle, ctypes.POINTER(c_double), ctypes.POINTER(c_double),
                                      ctypes.POINTER(c_int)],
        "ilab_viewer_points_end": [handle, c_int, c_double],
        "ilab_viewer_points_camera": [handle, ctypes.POINTER(_Camera), c_int, c_int, ctypes.POINTER(ctypes.c_float)],
    }
    for name, arguments in signatures.items():
        function = getattr(lib, name)
        function.argtypes = arguments
        function.restype = ctypes.c_int


_declare()

FITS = ("contain", "stretch", "cover", "actual")

# GLFW's key codes of the viewer's keys (python/viewer.cpp's apply_input), for Viewer._inject.
KEYS = {"space": 32, "period": 46, "1": 49, "f": 70, "right": 262, "left": 263}


class PathNotice(UserWarning):
    """Which path a viewer runs and why it is not interop (said once per reason)."""


_said = set()
_PACKAGE = os.path.dirname(os.path.abspath(__file__)) + os.sep


def _caller_stacklevel():
    """The stacklevel of the first frame outside this package, for warnings.warn called from the frame that
    calls this: a warning names the caller's line however deep in the package it was raised (Viewer(),
    show(), python -m interop_lab)."""
    level, frame = 1, sys._getframe(1)
    while frame is not None and os.path.abspath(frame.f_code.co_filename).startswith(_PACKAGE):
        level += 1
        frame = frame.f_back
    return level


def _say_once(message):
    if message not in _said:
        _said.add(message)
        warnings.warn(message, PathNotice, stacklevel=_caller_stacklevel())


def _has_display():
    return bool(os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY"))


def _serve_address(serve):
    """The address text of serve= ("" for the default 127.0.0.1:8080), None when not serving; a bad one raises
    ValueError with the command line's own reason (app/core/serve_address.cpp judges both)."""
    if serve is None or serve is False:
        return None
    if serve is True:
        return ""
    if isinstance(serve, int):
        text = str(serve)
    elif isinstance(serve, str):
        text = serve
    else:
        raise ValueError(f"serve={serve!r}: pass a port (8080; 0 for any free one) or '[HOST:]PORT' such as "
                         "'127.0.0.1:8080'")
    authority = ctypes.create_string_buffer(128)
    if lib.ilab_check_serve_address(text.encode(), authority, len(authority)) != 0:
        raise ValueError(f"serve={serve!r}: {lib.ilab_last_error().decode('utf-8', 'replace')}")
    return text


# Served viewers still open when the interpreter exits are closed then, so their servers stop cleanly.
_served = weakref.WeakSet()


@atexit.register
def _close_served():
    for viewer in list(_served):
        try:
            viewer.close()
        except Exception:  # another thread's viewer: the process ends it
            pass


class FrameTarget:
    """The (H, W, 4) uint8 memory the next frame is drawn from, valid inside its `with viewer.frame()`; or
    the (N, 3) float32 positions and (N, 4) uint8 colours of `with viewer.points_frame(n)`.
    On the interop path it IS the GL buffer GL draws (zero copy): CuPy, PyTorch (__cuda_array_interface__,
    __dlpack__) and cuda.core write the displayed pixels, or points, through it."""

    def __init__(self, viewer, pointer, shape, stream, typestr="|u1", block="viewer.frame()"):
        self._viewer = viewer
        self._pointer = pointer
        self.shape = shape
        self.typestr = typestr
        self._stream = stream
        self._block = block
        self._valid = True

    def _check(self):
        if not self._valid:
            raise InteropLabError(f"this target was shown when its `with {self._block}` block ended: write inside "
                                  "the block")

    @property
    def pointer(self):
        self._check()
        return self._pointer

    @property
    def __cuda_array_interface__(self):
        return {"shape": self.shape, "typestr": self.typestr, "strides": None, "data": (self.pointer, False),
                "version": 3, "stream": self._stream or 1}

    def __dlpack_device__(self):
        return (_dlpack.kDLCUDA, self._viewer.cuda_device)

    def __dlpack__(self, stream=None, **_):
        pointer = self.pointer
        if stream != -1:  # the consumer's stream must see the map queued on ours
            consumer = 0 if stream in (None, 1, 2) else int(stream)
            check(lib.ilab_order_streams(self._stream, consumer))
        strides = [1]
        for edge in reversed(self.shape[1:]):
            strides.insert(0, strides[0] * edge)
        return _dlpack.capsule(pointer, self.shape, tuple(strides), self.typestr, _dlpack.kDLCUDA,
                               self._viewer.cuda_device, owner=self)

    def __repr__(self):
        return f"<FrameTarget {self.shape} on the {self._viewer.path} path{'' if self._valid else ', shown'}>"


class Viewer(NativeHandle):
    """A window (GLFW, where there is a display) or a headless GL context (EGL) that shows your arrays.

    size: (width, height) of the window / offscreen frame. window: True / False to force one, None to
    decide by DISPLAY / WAYLAND_DISPLAY (no window when serving). mode: 'auto', 'interop', 'staging' or
    'cpu'. panel: the app's panel (mode, timings, frame rate, readout, colorbar, your controls) in a window;
    False starts it hidden (F1 shows it; the wheel and a drag still move the picture).
    serve: a port (8080; 0: any free one) or '[HOST:]PORT' (True: 127.0.0.1:8080) to serve each frame shown to
    a browser at `url`. fit: "contain" (aspect kept, letterboxed), "stretch", "cover" or "actual" (1:1)."""

    @staticmethod
    def attach(name, size=None, mode=None, window=None, serve=None):
        """The frames another process publishes as `name` (interop_lab.publish), shown by interop-lab's own
        frame loop with no copy between the processes: an AttachedViewer (attach.py) with render(), run(),
        read_frame() and status; served to a browser at its `url` with serve= (headless)."""
        from .attach import AttachedViewer

        return AttachedViewer(name, size=size, mode=mode, window=window, serve=serve)

    def __init__(self, size=(1280, 720), title="interop_lab", mode="auto", window=None, panel=True, serve=None,
                 fit="contain"):
        self._handle = None
        self.url = None
        self._controls = []
        self._shown = None  # what show() showed last: (array, stream, range, colormap), shown again for a frame
        self._kept = None  # the host frame or CUDA array the readout reads, alive until the next show
        self._kept_index = 0  # the frame of a stack it is
        width, height = image_size(size)
        _check_fit(fit)
        address = _serve_address(serve)
        if window is None:
            want_window = _has_display() and address is None
        else:
            want_window = bool(window)
        handle = ctypes.c_void_p()
        served = None if address is None else address.encode()
        status = lib.ilab_viewer_open(width, height, str(title).encode(), int(want_window), str(mode).encode(),
                                      int(bool(panel)), served, ctypes.byref(handle))
        if status != 0 and want_window and window is None:  # a display without a usable GL: headless instead
            reason = lib.ilab_last_error().decode("utf-8", "replace")
            _say_once(f"interop_lab.Viewer: no window ({reason}); rendering headless")
            want_window = False
            status = lib.ilab_viewer_open(width, height, str(title).encode(), 0, str(mode).encode(),
                                          int(bool(panel)), served, ctypes.byref(handle))
        if status != 0 and address is not None:
            reason = lib.ilab_last_error().decode("utf-8", "replace")
            raise InteropLabError(f"interop_lab.Viewer(serve={serve!r}): {reason}")
        check(status)
        self._handle = handle
        info = ViewerInfo()
        check(lib.ilab_viewer_describe(handle, ctypes.byref(info)))
        self.path = info.path.decode()
        self.path_reason = info.reason.decode("utf-8", "replace")
        self.description = info.description.decode("utf-8", "replace")
        self.cuda_device = info.cuda_device
        self.is_window = bool(info.window)
        self.size = (width, height)
        self._in_frame = False
        self.range = None  # (low, high) the last show() mapped values through
        self._auto_range = None  # range="auto": the first array's, kept for the arrays after it
        if self.path_reason:
            _say_once(f"interop_lab.Viewer: path {self.path}: {self.path_reason}")
        if fit != "contain":
            check(lib.ilab_viewer_set_fit(handle, fit.encode()))
        if address is not None:
            url = ctypes.create_string_buffer(512)
            check(lib.ilab_viewer_url(handle, url, len(url)))
            self.url = url.value.decode()
            _served.add(self)

    # Lifetime ---------------------------------------------------------------------------------------------

    def _live(self):
        if not self._handle:
            raise InteropLabError("the viewer is closed: open a new interop_lab.Viewer()")
        return self._handle

    @property
    def closed(self):
        """True once close() ran or the user closed the window."""
        if not self._handle:
            return True
        closed = ctypes.c_int()
        check(lib.ilab_viewer_poll(self._handle, ctypes.byref(closed)))
        return bool(closed.value)

    def close(self):
        """Closes the window or context; a served viewer's server stops and its port is free again."""
        if self._handle:
            check(lib.ilab_viewer_close(self._handle))
            self._handle = None
            _served.discard(self)


    def __repr__(self):
        state = "closed" if not self._handle else ("window" if self.is_window else "headless")
        served = f", serving {self.url}" if self.url and self._handle else ""
        return f"<interop_lab.Viewer {self.size[0]}x{self.size[1]} {state}, path {self.path}{served}>"

    def _repr_html_(self):
        """Jupyter's view of a served viewer: the desk in an iframe, with a link to open it in a tab (notebook.py;
        $INTEROP_LAB_NOTEBOOK_URL rewrites where it points). None, the text repr, for any other viewer."""
        from .notebook import viewer_html

        return viewer_html(self)

    # Showing ----------------------------------------------------------------------------------------------

    def show(self, array, stream=None, range=None, colormap=None):
        """Shows `array` ((H, W) or (H, W, 1|3|4); uint8/16/32, int8/16/32, float16, bfloat16, float32, float64
        or bool). A stack, (N, H, W) or (N, H, W, 1|3|4), shows one frame, `viewer.index` (the panel's frame
        slider); a 3-D array whose last edge is 1, 3 or 4 is (H, W, C). A CUDA array is converted on `stream` (CuPy / PyTorch / cuda.core stream, raw handle; None:
        the stream its __cuda_array_interface__ names, else the default stream), after its producer's stream,
        and nothing waits on the host on the interop path unless range is "auto" (its first array) or "each":
        then the host waits for the bounds a reduction kernel finds, never for a copy of the array.

        range: (low, high); "auto": min..max of the finite values of the first array shown with "auto", kept
        for the arrays after it (an animation's colours hold still) until a show with another range; "each":
        min..max of every array. None: 0..255 for uint8, 0..1 for floats and bool, "auto" for the other
        integers. Returns the (low, high) used, also kept as `viewer.range`."""
        handle = self._live()
        if self.closed:
            raise InteropLabError("the viewer's window was closed: open a new interop_lab.Viewer()")
        raw = _arrays.stream_handle(stream)
        picture = _arrays.describe(array, "show", consumer_stream=raw)
        if stream is None and picture.stream is not None:
            raw = picture.stream  # no stream given: the update goes on the array's own (its interface names it)
        self._last_size = (picture.width, picture.height)
        index = min(self._state().frame_index, picture.frames - 1)
        shown = picture.frame(index)
        try:
            if picture.channels != 1 and colormap is not None:
                raise ValueError(f"show: a colormap is for one-channel arrays; this one has {picture.channels} "
                                 "channels: drop colormap=, or pass x[..., 0]")
            table = _colormaps.table(colormap) if picture.channels == 1 else None
            request = _arrays.range_request(picture, range)
            self._take_on(picture, raw, "show")
            value_range = self._value_range(picture, request, raw)
            low, high = value_range.shown
            check(lib.ilab_viewer_set_range_text(handle, f"{low:.6g}..{high:.6g} ({value_range.how})".encode()))
            check(lib.ilab_viewer_set_colorbar(handle, None if table is None else table.ctypes.data, low, high))
            self._set_source(shown, index, picture.frames, array)
            if not shown.on_device:
                rgba = _arrays.to_rgba8(shown.host, shown.type, value_range, table)
                check(lib.ilab_viewer_show_host(handle, rgba.ctypes.data, rgba.nbytes, shown.width, shown.height))
            else:
                desc = _arrays.convert_desc(shown, value_range)
                check(lib.ilab_viewer_show_device(handle, ctypes.byref(desc),
                                                  None if table is None else table.ctypes.data, raw))
            self.range = value_range.shown
            self._shown = (array, stream, range, colormap) if picture.frames > 1 else None
            return self.range
        finally:
            picture.release()

    def _take_on(self, picture, stream, what):
        """Refuses a CUDA array on the cpu path; orders `stream` after the array's producer."""
        if picture.on_device and self.path == "cpu":
            why = self.path_reason or "mode='cpu'"
            raise InteropLabError(f"{what}: a CUDA array, and this viewer runs the cpu path ({why}): pass a NumPy "
                                  "copy (cupy.asnumpy(x), x.cpu().numpy()) or open the viewer with CUDA")
        if picture.on_device and picture.stream is not None and picture.stream != stream:
            check(lib.ilab_order_streams(picture.stream, stream))  # after the array's producer

    def _value_range(self, picture, request, stream):
        """The ValueRange of range= for `picture`: fixed, the kept "auto" one, or found from its values (on the
        GPU for a CUDA array, on `stream`)."""
        if not isinstance(request, str):
            fixed = _arrays.fixed_range(picture, *request)
            self._auto_range = None
            return fixed
        kept = self._auto_range
        if request == "auto" and kept is not None:
            return _arrays.bounds_range(picture, *kept, "auto")
        if picture.on_device:
            bounds = (math.inf, -math.inf, 0)
            for index in builtins.range(picture.frames):  # a stack's range is every frame's
                desc = _arrays.convert_desc(picture.frame(index))
                low, high, finite = ctypes.c_double(), ctypes.c_double(), ctypes.c_longlong()
                check(lib.ilab_viewer_value_bounds(self._live(), ctypes.byref(desc), stream, ctypes.byref(low),
                                                   ctypes.byref(high), ctypes.byref(finite)))
                if finite.value:
                    bounds = (min(bounds[0], low.value), max(bounds[1], high.value), bounds[2] + finite.value)
            if not bounds[2]:
                bounds = (0.0, 0.0, 0)
        else:
            bounds = _arrays.host_bounds(picture)
        self._auto_range = bounds if request == "auto" else None
        return _arrays.bounds_range(picture, *bounds, request)

    @contextlib.contextmanager
    def frame(self, stream=None, size=None):
        """Yields the memory the next frame is drawn from, (H, W, 4) uint8 (size: (width, height), default
        the last picture's or the viewer's): the viewer's own picture, CUDA memory written on `stream` where
        the viewer has CUDA (interop, staging), else a NumPy array. Shown when the block ends (the loop's
        frame queued after your work on `stream`). The target holds the picture shown now, so a partial write
        keeps the rest."""
        handle = self._live()
        if self._in_frame:
            raise InteropLabError("frame(): a frame block is open already: finish it first")
        width, height = image_size(size if size is not None else getattr(self, "_last_size", self.size), "frame: size")
        raw = _arrays.stream_handle(stream)
        pointer, pitch, on_device = ctypes.c_size_t(), ctypes.c_uint64(), ctypes.c_int()
        check(lib.ilab_viewer_frame_begin(handle, width, height, raw, ctypes.byref(pointer), ctypes.byref(pitch),
                                          ctypes.byref(on_device)))
        self._in_frame = True
        self._last_size = (width, height)
        self.range = None  # the frame's pixels are written as they are shown: no range maps them
        check(lib.ilab_viewer_set_range_text(handle, b""))
        check(lib.ilab_viewer_set_colorbar(handle, None, 0.0, 0.0))
        self._shown = None
        self._kept = None
        check(lib.ilab_viewer_set_source(handle, ctypes.byref(_Source(frame_index=0, frame_count=1))))
        shape = (height, width, 4)
        if on_device.value:
            target = FrameTarget(self, pointer.value, shape, raw)
        else:
            memory = (ctypes.c_uint8 * (shape[0] * shape[1] * 4)).from_address(pointer.value)
            target = numpy.frombuffer(memory, dtype=numpy.uint8).reshape(shape)
        try:
            yield target
        finally:
            if isinstance(target, FrameTarget):
                target._valid = False
            self._in_frame = False
            check(lib.ilab_viewer_frame_end(handle))

    # Points in 3D -----------------------------------------------------------------------------------------

    def points(self, xyz, colors=None, values=None, colormap=None, size=3.0, range=None, stream=None):
        """Shows N points in 3D, in place of the picture, through an orbit camera (a drag turns it, the wheel
        zooms, F frames the points again; viewer.camera). xyz: (N, 3) positions, float32 CUDA memory (any row
        stride, x, y, z packed) or any real NumPy array (cast to float32). A colour a point: colors= (N, 3) RGB or
        (N, 4) RGBA, mapped through range= as show() maps a picture (default 0..255 for uint8, 0..1 for floats),
        or values= (N,) through `colormap` (default 'viridis') and range= (default "auto": this set's min..max);
        neither: z through 'viridis', min..max. size: each point's edge in frame pixels, 1 to 64.

        A CUDA array is copied (positions) or converted (colours) on `stream` into the registered GL buffers the
        points are drawn from, after its producer's stream; on the interop path nothing waits on the host (but
        an "auto" range's bounds, and the camera's first framing of the points' bounds). To write those
        buffers with no copy at all, use `with viewer.points_frame(n) as (xyz, rgba):`. Returns the (low, high)
        range the colours or values were mapped through, kept as viewer.range."""
        handle = self._live()
        if self.closed:
            raise InteropLabError("the viewer's window was closed: open a new interop_lab.Viewer()")
        if colors is not None and values is not None:
            raise ValueError("points: pass colors= (a colour a point) or values= (a value a point), not both")
        if colors is not None and colormap is not None:
            raise ValueError("points: a colormap is for values=: drop colormap=, or pass values= instead of colors=")
        size = _point_size(size)
        raw = _arrays.stream_handle(stream)
        positions = _positions(xyz, raw)
        shown = colors if colors is not None else values
        colours = None
        try:
            if shown is not None:
                colours = _arrays.describe(shown, "points: colors" if colors is not None else "points: values",
                                           consumer_stream=raw, points=True)
                if colours.width != positions.width:
                    raise ValueError(f"points: {colours.width} colours for {positions.width} points: pass one a point")
                if values is not None and colours.channels != 1:
                    raise ValueError(f"points: values= has {colours.channels} channels: pass (N,) values, or the "
                                     "colours as colors=")
            else:
                colours = positions.z()
            for array in (positions, colours):
                self._take_on(array, raw, "points")
            table = _colormaps.table(colormap or "viridis") if colours.channels == 1 else None
            request = _arrays.range_request(colours, range if range is not None or colors is not None else "auto")
            value_range = self._points_range(colours, request, raw)
            self._points_begin(handle, positions.width, raw)
            try:
                if positions.on_device:
                    check(lib.ilab_viewer_points_xyz(handle, positions.pointer, 1, positions.strides[1]))
                else:
                    check(lib.ilab_viewer_points_xyz(handle, positions.host.ctypes.data, 0, 12))
                if colours.on_device:
                    desc = _arrays.convert_desc(colours, value_range)
                    check(lib.ilab_viewer_points_colours(handle, ctypes.byref(desc),
                                                         None if table is None else table.ctypes.data, None))
                else:
                    rgba = _arrays.to_rgba8(colours.host[0], colours.type, value_range, table)
                    check(lib.ilab_viewer_points_colours(handle, None, None, rgba.ctypes.data))
            except BaseException:
                lib.ilab_viewer_points_end(handle, 0, size)
                raise
            low, high = value_range.shown
            check(lib.ilab_viewer_set_range_text(handle, f"{low:.6g}..{high:.6g} ({value_range.how})".encode()))
            check(lib.ilab_viewer_set_colorbar(handle, None if table is None else table.ctypes.data, low, high))
            self._points_shown()
            check(lib.ilab_viewer_points_end(handle, 1, size))
            self.range = value_range.shown
            return self.range
        finally:
            positions.release()
            if colours is not None and colours is not positions:
                colours.release()

    def _points_range(self, picture, request, stream):
        """The ValueRange of a points array's colours: fixed, or this set's bounds (on the GPU for CUDA memory)."""
        if not isinstance(request, str):
            return _arrays.fixed_range(picture, *request)
        if picture.on_device:
            desc = _arrays.convert_desc(picture)
            low, high, finite = ctypes.c_double(), ctypes.c_double(), ctypes.c_longlong()
            check(lib.ilab_viewer_value_bounds(self._live(), ctypes.byref(desc), stream, ctypes.byref(low),
                                               ctypes.byref(high), ctypes.byref(finite)))
            bounds = (low.value, high.value, finite.value)
        else:
            bounds = _arrays.host_bounds(picture)
        return _arrays.bounds_range(picture, *bounds, request)

    def _points_begin(self, handle, n, stream):
        if self._in_frame:
            raise InteropLabError("points: a frame block is open: finish it first")
        xyz, rgba, on_device = ctypes.c_size_t(), ctypes.c_size_t(), ctypes.c_int()
        check(lib.ilab_viewer_points_begin(handle, n, stream, ctypes.byref(xyz), ctypes.byref(rgba),
                                           ctypes.byref(on_device)))
        return xyz.value, rgba.value, bool(on_device.value)

    def _points_shown(self):
        """What a picture left behind goes: the points have no stack, no array under the cursor."""
        self._shown = None
        self._kept = None
        check(lib.ilab_viewer_set_source(self._live(), ctypes.byref(_Source(frame_index=0, frame_count=1))))

    @contextlib.contextmanager
    def points_frame(self, n, stream=None, size=3.0):
        """Yields (xyz, rgba), where the next n points go: (n, 3) float32 positions and (n, 4) uint8 colours. On
        the interop path they ARE the registered GL buffers the points are drawn from, mapped on `stream`: your kernels write
        the points shown, with no copy (CuPy, PyTorch: __cuda_array_interface__, __dlpack__). Staging: CUDA
        memory; cpu: NumPy arrays. Shown as squares of `size` frame pixels when the
        block ends (unmapped on the same stream, after your work there). An exception in the block draws no
        points until the next set: half a set is never shown. The buffers keep the last set of the same n, so
        a partial write keeps the rest."""
        handle = self._live()
        if not isinstance(n, int) or isinstance(n, bool):
            raise TypeError(f"points_frame: n {n!r}: pass the number of points, an int")
        size = _point_size(size)
        raw = _arrays.stream_handle(stream)
        xyz_pointer, rgba_pointer, on_device = self._points_begin(handle, n, raw)
        self._in_frame = True
        targets = []
        if on_device:
            targets = [FrameTarget(self, xyz_pointer, (n, 3), raw, "<f4", "viewer.points_frame()"),
                       FrameTarget(self, rgba_pointer, (n, 4), raw, "|u1", "viewer.points_frame()")]
            xyz, rgba = targets
        else:
            xyz = numpy.frombuffer((ctypes.c_float * (n * 3)).from_address(xyz_pointer), numpy.float32).reshape(n, 3)
            rgba = numpy.frombuffer((ctypes.c_uint8 * (n * 4)).from_address(rgba_pointer), numpy.uint8).reshape(n, 4)
        shown = False
        try:
            yield xyz, rgba
            shown = True
        finally:
            for target in targets:
                target._valid = False
            self._in_frame = False
            if shown:
                self.range = None
                check(lib.ilab_viewer_set_range_text(handle, b""))
                check(lib.ilab_viewer_set_colorbar(handle, None, 0.0, 0.0))
                self._points_shown()
            check(lib.ilab_viewer_points_end(handle, 1 if shown else 0, size))

    @property
    def camera(self):
        """The points' orbit camera: a dict of target (x, y, z), yaw and pitch (radians), distance, radius (of
        the bounds framed: the near and far planes) and fov_y (radians), and matrix, its 4x4 view-projection
        for the frame now (NumPy, row-major: clip = matrix @ (x, y, z, 1)). Set it with a dict of the same keys
        (matrix aside), e.g. v.camera = dict(v.camera, yaw=0.0)."""
        camera, matrix = _Camera(), (ctypes.c_float * 16)()
        check(lib.ilab_viewer_points_camera(self._live(), ctypes.byref(camera), 0, 0, matrix))
        return _camera_dict(camera, matrix)

    @camera.setter
    def camera(self, value):
        keys = ("target", "yaw", "pitch", "distance", "radius", "fov_y")
        unknown = set(value) - set(keys) - {"matrix"}
        if unknown:
            raise ValueError(f"camera: unknown keys {sorted(unknown)}: pass {', '.join(keys)}")
        camera = _Camera()
        check(lib.ilab_viewer_points_camera(self._live(), ctypes.byref(camera), 0, 0, None))
        for key in keys:
            if key in value:
                if key == "target":
                    target = tuple(float(t) for t in value[key])
                    if len(target) != 3:
                        raise ValueError(f"camera: target {value[key]!r}: pass (x, y, z)")
                    camera.target[:] = target
                else:
                    setattr(camera, key, float(value[key]))
        check(lib.ilab_viewer_points_camera(self._live(), ctypes.byref(camera), 1, 0, None))
        check(lib.ilab_viewer_render(self._live()))

    def reset_camera(self):
        """Frames the points' bounds again, from the first view's yaw and pitch (the F key, the fit buttons)."""
        camera = _Camera()
        check(lib.ilab_viewer_points_camera(self._live(), ctypes.byref(camera), 0, 1, None))
        check(lib.ilab_viewer_render(self._live()))

    # Reading back -----------------------------------------------------------------------------------------

    def read_frame(self):
        """The frame as drawn (without the panel): a (height, width, 4) uint8 NumPy array, top row first."""
        handle = self._live()
        width, height = ctypes.c_int(), ctypes.c_int()
        check(lib.ilab_viewer_read_frame(handle, None, 0, ctypes.byref(width), ctypes.byref(height)))
        frame = numpy.empty((height.value, width.value, 4), dtype=numpy.uint8)
        check(lib.ilab_viewer_read_frame(handle, frame.ctypes.data, frame.nbytes, ctypes.byref(width),
                                         ctypes.byref(height)))
        return frame

    def screenshot(self, path):
        """Writes the frame (read_frame) as a PNG; returns the path."""
        frame = self.read_frame()
        check(lib.ilab_write_rgba_png(os.fspath(path).encode(), frame.ctypes.data, frame.nbytes, frame.shape[1],
                                      frame.shape[0]))
        return os.fspath(path)

    # The window -------------------------------------------------------------------------------------------

    def resize(self, width, height):
        """A new frame size (a window asks the window manager; 0x0 minimises it)."""
        width, height = image_size((width, height), low=0)
        check(lib.ilab_viewer_resize(self._live(), width, height))
        self.size = (width, height)

    @property
    def stats(self):
        """Host timings of the last update and draw (ms), the frame rate and the frames presented."""
        stats = ViewerStats()
        check(lib.ilab_viewer_get_stats(self._live(), ctypes.byref(stats)))
        return {"update_ms": stats.update_ms, "draw_ms": stats.draw_ms, "fps": stats.fps, "frames": stats.frames}

    def run(self, fps=60.0):
        """Keeps drawing until the window is closed (returns at once headless); the panel's frame slider and
        your controls' callbacks work meanwhile, as at poll()."""
        while self.is_window and not self.closed:
            check(lib.ilab_viewer_render(self._live()))
            self._apply_panel()
            time.sleep(1.0 / fps)

    # Frames of a stack, the value under the cursor ---------------------------------------------------------

    def _state(self):
        state = _State()
        check(lib.ilab_viewer_get_state(self._live(), ctypes.byref(state)))
        return state

    def _set_source(self, picture, index, frames, array):
        """Tells the readout where the frame shown lives (one element of it is read under the cursor), and keeps
        that memory alive until the next show."""
        if picture.on_device:
            data, strides, on_device = picture.pointer, picture.strides, 1
        else:
            data, strides, on_device = picture.host.ctypes.data, picture.host.strides, 0
        self._kept = (array, picture)
        self._kept_index = index
        source = _Source(data, on_device, _arrays._TYPES[picture.type], picture.height, picture.width,
                         picture.channels, strides[0], strides[1], strides[2], index, frames)
        check(lib.ilab_viewer_set_source(self._live(), ctypes.byref(source)))

    @property
    def frames(self):
        """How many frames the array shown holds: N of an (N, H, W[, C]) stack, else 1."""
        return self._state().frame_count

    @property
    def index(self):
        """The frame of a stack shown (the panel's frame slider, the arrow keys); set it to show another."""
        return self._state().frame_index

    @index.setter
    def index(self, value):
        from ._native import whole_number
        frames = self.frames
        value = whole_number(value, "index", 0, frames - 1)
        if self._shown is None:
            return  # one frame: index 0 is all there is
        array, stream, value_range, colormap = self._shown
        check(lib.ilab_viewer_set_source(self._live(), ctypes.byref(_Source(frame_index=value, frame_count=frames))))
        self.show(array, stream=stream, range=value_range, colormap=colormap)

    def value_at(self, x, y):
        """The value of pixel (x, y) (column, row from the top) of the picture shown, as the array holds it (not
        the byte it became): a scalar of its dtype for one channel, a tuple for 3 or 4. NumPy arrays are indexed;
        of a CUDA array one pixel's elements are copied, never the array."""
        from ._native import whole_number
        if self._kept is None:
            raise InteropLabError("value_at: nothing shown from an array (a frame() block's pixels, or nothing yet): "
                                  "show() one first")
        _, picture = self._kept
        x = whole_number(x, "value_at: x", 0, picture.width - 1)
        y = whole_number(y, "value_at: y", 0, picture.height - 1)
        if not picture.on_device:
            pixel = picture.host[y, x]
            if picture.type == "bfloat16":  # its bits: the float32 with the same upper half
                pixel = [float(numpy.uint32(int(bits) << 16).view(numpy.float32)) for bits in pixel]
            values = tuple(pixel)
        else:
            doubles, channels = (ctypes.c_double * 4)(), ctypes.c_int()
            check(lib.ilab_viewer_value_at(self._live(), x, y, doubles, ctypes.byref(channels)))
            kind = float if picture.type == "bfloat16" else numpy.dtype(picture.type).type
            values = tuple(kind(doubles[c]) for c in builtins.range(channels.value))
        return values[0] if len(values) == 1 else values

    @property
    def cursor(self):
        """The image pixel (x, y) under a window's cursor, or None (off the picture, on the panel, headless)."""
        state = self._state()
        return (state.cursor_x, state.cursor_y) if state.has_cursor else None

    @property
    def readout(self):
        """The panel's line for the pixel under the cursor ("x 12  y 40  0.25"), "" off the picture."""
        return self._state().readout.decode("utf-8", "replace")

    # Looking closely -------------------------------------------------------------------------------------

    @property
    def fit(self):
        """How the picture fits the frame: "contain" (the default: aspect kept, letterboxed in black), "stretch"
        (fills the frame), "cover" (fills it, aspect kept, cropped) or "actual" (1:1, centred). Setting it
        leaves a zoom or pan (as the F key and the panel's fit button do)."""
        view = _ViewerView()
        check(lib.ilab_viewer_get_view(self._live(), ctypes.byref(view)))
        return view.fit.decode()

    @fit.setter
    def fit(self, value):
        _check_fit(value)
        check(lib.ilab_viewer_set_fit(self._live(), value.encode()))

    @property
    def view(self):
        """Where the picture lies: {"fit", "free" (zoomed or panned), "origin" (the framebuffer point of the image's
        top-left corner), "scale" (framebuffer pixels per image pixel, x and y)}."""
        view = _ViewerView()
        check(lib.ilab_viewer_get_view(self._live(), ctypes.byref(view)))
        return {"fit": view.fit.decode(), "free": bool(view.free), "origin": (view.origin_x, view.origin_y),
                "scale": (view.scale_x, view.scale_y)}

    def zoom(self, factor, at=None):
        """Zooms by `factor` about framebuffer point `at` (x, y; default the centre), as the wheel does at the
        cursor: the image point there stays there."""
        x, y = self._point(at)
        factor = float(factor)
        if not (math.isfinite(factor) and factor > 0):
            raise ValueError(f"zoom: factor {factor}: pass a finite number above 0")
        check(lib.ilab_viewer_move_view(self._live(), x, y, factor, 0.0, 0.0))

    def pan(self, dx, dy):
        """Moves the picture by (dx, dy) framebuffer pixels, as a drag does."""
        check(lib.ilab_viewer_move_view(self._live(), 0.0, 0.0, 1.0, float(dx), float(dy)))

    def actual_size(self, at=None):
        """One image pixel per framebuffer pixel, keeping the image point at `at` (default the centre) there: the
        1 key (at the cursor) and the panel's 1:1 button."""
        x, y = self._point(at)
        check(lib.ilab_viewer_move_view(self._live(), x, y, 0.0, 0.0, 0.0))

    def _point(self, at):
        if at is None:
            width, height = self._frame_size()
            return width / 2.0, height / 2.0
        x, y = (float(v) for v in at)
        return x, y

    def _frame_size(self):
        width, height = ctypes.c_int(), ctypes.c_int()
        check(lib.ilab_viewer_read_frame(self._live(), None, 0, ctypes.byref(width), ctypes.byref(height)))
        return width.value, height.value

    # Time ------------------------------------------------------------------------------------------------

    @property
    def paused(self):
        """True while paused (Space in the window, the panel's checkbox, or set here): poll() returns False then,
        but once for each step (period, the panel's step button, step())."""
        return bool(self._state().paused)

    @paused.setter
    def paused(self, value):
        taken = ctypes.c_int()
        check(lib.ilab_viewer_time(self._live(), int(bool(value)), 0, 0, ctypes.byref(taken)))

    def step(self):
        """One step of time: pauses, and the next poll() returns True once."""
        taken = ctypes.c_int()
        check(lib.ilab_viewer_time(self._live(), -1, 1, 0, ctypes.byref(taken)))

    def poll(self, fps=60.0):
        """The point of your loop where the viewer acts: draws a window's frame again (its input, the panel),
        shows the frame of a stack the panel's slider picked, runs your controls' callbacks on this thread, and
        says whether your loop should advance one frame: True while running, False while paused (after
        waiting 1 / fps seconds, so a paused loop does not spin), True once for each step.

            while not viewer.closed:
                if viewer.poll():
                    state = simulate(state)
                viewer.show(state)
        """
        handle = self._live()
        if self.is_window and not self.closed:
            check(lib.ilab_viewer_render(handle))  # a served window takes its page's commands here too
        else:
            self._take_page_commands()
        self._apply_panel()
        taken = ctypes.c_int()
        check(lib.ilab_viewer_time(handle, -1, 0, 1, ctypes.byref(taken)))
        if taken.value or not self.paused:
            return True
        time.sleep(1.0 / fps)
        return False

    def command(self, message):
        """Sends the viewer one message of its page's protocol (docs/browser.md), a dict such as
        {"zoom": [x, y, 1.25]}, {"pan": [dx, dy]}, {"fit": True}, {"picture_fit": "cover"}, {"hover": [x, y]},
        {"index": 2}, {"control": {"name": "gain", "value": 0.5}} or {"pause": True}: applied as a served page's
        are (the panel and the keys take the same way), and the frame drawn again. Returns "" or why the viewer
        refused it (a scene or a mode: its frames are yours); raises ValueError for a message the protocol does
        not take. A stack's frame and your controls' callbacks take effect at the next poll(), as the panel's."""
        return protocol_command(lib.ilab_viewer_command, self._live(), message)

    @property
    def state(self):
        """What a served page is sent about the frame shown now, as a dict (the same keys as
        Viewer.attach(...).state and the app's page): the path, the phases, the pause, and the picture's tools
        under "viewer" (the fit or free view, the value under the cursor a {"hover": ...} command put there, the
        colorbar, the stack's frame and your controls)."""
        return protocol_state(lib.ilab_viewer_page_state, self._live())

    def _take_page_commands(self):
        """A served viewer's page commands since the last frame (zoom, pan, the cursor's pixel, a stack's frame,
        your controls): applied, and the frame served again, when any came. True when any did."""
        taken = ctypes.c_int()
        check(lib.ilab_viewer_take_page_commands(self._live(), ctypes.byref(taken)))
        return bool(taken.value)

    def _apply_panel(self):
        """What the panel and the keys asked for since the last call: another frame of a stack, and your controls'
        callbacks."""
        state = self._state()
        if self._shown is not None and self._kept is not None and state.frame_index != self._kept_index:
            array, stream, value_range, colormap = self._shown
            self.show(array, stream=stream, range=value_range, colormap=colormap)
        for control in list(self._controls):
            control._run_callback()

    # Your own controls -----------------------------------------------------------------------------------

    def slider(self, name, low, high, value=None, callback=None):
        """A slider in the panel from `low` to `high` (value: default low). Returns a Slider: read `.value` in
        your loop, or pass callback(value), run at poll() after each change."""
        low, high = float(low), float(high)
        return self._add_control(Slider, 0, name, low, high, low if value is None else float(value), callback)

    def checkbox(self, name, value=False, callback=None):
        """A checkbox in the panel; `.value` is True or False; callback(value) at poll() after each change."""
        return self._add_control(Checkbox, 1, name, 0.0, 1.0, float(bool(value)), callback)

    def button(self, name, callback=None):
        """A button in the panel; `.value` counts its presses, `.clicked` is True once per press; callback() at
        poll() once per press."""
        return self._add_control(Button, 2, name, 0.0, 1.0, 0.0, callback)

    def choice(self, name, options, value=None, callback=None):
        """A drop-down of `options` (strings) in the panel; `.value` is the option chosen (default the first);
        callback(value) at poll() after each change."""
        options = [str(option) for option in options]
        if any("\n" in option for option in options):
            raise ValueError(f"choice '{name}': an option holds a line break: pass one-line options")
        if value is None:
            index = 0
        elif str(value) in options:
            index = options.index(str(value))
        else:
            raise ValueError(f"choice '{name}': value {value!r} is none of its options {options}")
        return self._add_control(Choice, 3, name, 0.0, 1.0, float(index), callback, options)

    def _add_control(self, kind, code, name, low, high, value, callback, options=()):
        if callback is not None and not callable(callback):
            raise TypeError(f"control '{name}': callback {callback!r} is not callable: pass a function or None")
        control_id = ctypes.c_int()
        status = lib.ilab_viewer_control_add(self._live(), code, str(name).encode(), low, high, value,
                                             "\n".join(options).encode(), ctypes.byref(control_id))
        if status != 0:
            raise ValueError(lib.ilab_last_error().decode("utf-8", "replace"))
        control = kind(self, control_id.value, str(name), callback, list(options))
        self._controls.append(control)
        return control

    # Testing hooks ---------------------------------------------------------------------------------------

    def _inject(self, kind, x=0.0, y=0.0):
        """Input as GLFW hands it to a window, taken at the next frame: "move" to window point (x, y), "press" and
        "release" the left button, "wheel" by y notches, "key" x (a name of KEYS, or a GLFW key code)."""
        codes = {"move": 0, "press": 1, "release": 2, "wheel": 3, "key": 4}
        if kind == "key" and isinstance(x, str):
            x = KEYS[x]
        check(lib.ilab_viewer_inject(self._live(), codes[kind], float(x), float(y)))

    def read_window(self):
        """What a window shows now, panel, colorbar and all: (height, width, 4) uint8, top row first. read_frame()
        is the picture alone."""
        handle = self._live()
        width, height = ctypes.c_int(), ctypes.c_int()
        check(lib.ilab_viewer_read_window(handle, None, 0, ctypes.byref(width), ctypes.byref(height)))
        frame = numpy.empty((height.value, width.value, 4), dtype=numpy.uint8)
        check(lib.ilab_viewer_read_window(handle, frame.ctypes.data, frame.nbytes, ctypes.byref(width),
                                          ctypes.byref(height)))
        return frame


POINT_SIZES = (1.0, 64.0)  # a point's edge, frame pixels (python/viewer_points.hpp)


def _point_size(size):
    try:
        size = float(size)
    except (TypeError, ValueError):
        raise TypeError(f"points: size {size!r}: pass a number of frame pixels, 1 to 64") from None
    if not POINT_SIZES[0] <= size <= POINT_SIZES[1]:
        raise ValueError(f"points: size {size}: a point's edge from 1 to 64 frame pixels")
    return size


class _Positions:
    """Viewer.points' xyz: N positions, float32 CUDA memory (x, y, z packed, any row stride) or a float32 NumPy
    copy, packed."""

    def __init__(self, picture):
        self._picture = picture
        self.width, self.on_device, self.stream = picture.width, picture.on_device, picture.stream
        self.pointer, self.strides, self.channels = picture.pointer, picture.strides, 3
        self.host = None
        if not picture.on_device:
            self.host = numpy.ascontiguousarray(_arrays.host_values(picture).reshape(self.width, 3), numpy.float32)

    def z(self):
        """The positions' z as one value a point (the default colouring)."""
        if self.on_device:
            return _arrays.Picture((1, 1, self.width, 1), "float32", pointer=self.pointer + 2 * self.strides[2],
                                   strides=(0, self.strides[1], 4), stream=self.stream)
        return _arrays.Picture((1, 1, self.width, 1), "float32", host=self.host[:, 2].reshape(1, 1, self.width, 1))

    def release(self):
        self._picture.release()


def _positions(xyz, stream):
    """The _Positions of Viewer.points' xyz, or the error that names the fix."""
    shape = getattr(xyz, "shape", None)
    if shape is None:
        try:
            shape = numpy.shape(xyz)
        except Exception:
            shape = None
    shape = tuple(int(n) for n in shape) if shape is not None else None
    if shape is None or len(shape) != 2 or shape[1] != 3:
        hint = (" (add a z column, e.g. numpy.column_stack((xy, numpy.zeros(len(xy)))))"
                if shape is not None and len(shape) == 2 and shape[1] == 2 else "")
        raise ValueError(f"points: xyz has shape {shape}: pass (N, 3) positions, x, y, z a point{hint}")
    picture = _arrays.describe(xyz, "points: xyz", consumer_stream=stream, points=True)
    try:
        if picture.width > MAX_POINTS:
            raise ValueError(f"points: {picture.width} points: at most {MAX_POINTS} a set")
        if picture.on_device and (picture.type != "float32" or picture.strides[2] != 4):
            raise TypeError(f"points: xyz is CUDA {picture.type} with its x, y, z {picture.strides[2]} bytes apart: "
                            "pass float32 positions, x, y, z packed (e.g. xyz.astype(cupy.float32) or "
                            "cupy.ascontiguousarray(xyz))")
        if picture.on_device and picture.strides[1] < 12:
            raise ValueError(f"points: xyz rows {picture.strides[1]} bytes apart: pass positions a row apart")
        return _Positions(picture)
    except BaseException:
        picture.release()
        raise


MAX_POINTS = 1 << 28  # python/viewer_points.hpp's kMaxPoints


def _camera_dict(camera, matrix):
    return {"target": tuple(camera.target), "yaw": camera.yaw, "pitch": camera.pitch, "distance": camera.distance,
            "radius": camera.radius, "fov_y": camera.fov_y,
            "matrix": numpy.array(list(matrix), dtype=numpy.float32).reshape(4, 4).T.copy()}


def _check_fit(fit):
    if fit not in FITS:
        raise ValueError(f"fit={fit!r}: pass one of {', '.join(FITS)}")


class _Control:
    """One of your controls in the viewer's panel (Viewer.slider, .checkbox, .button, .choice)."""

    def __init__(self, viewer, control_id, name, callback, options):
        self._viewer = weakref.ref(viewer)
        self._id = control_id
        self.name = name
        self.callback = callback
        self._options = options
        self._seen = 0  # the user's changes the callback has run for

    def _raw(self):
        viewer = self._viewer()
        if viewer is None:
            raise InteropLabError(f"control '{self.name}': its viewer is gone")
        value, changes = ctypes.c_double(), ctypes.c_longlong()
        check(lib.ilab_viewer_control_get(viewer._live(), self._id, ctypes.byref(value), ctypes.byref(changes)))
        return value.value, changes.value

    def _set_raw(self, value, user=False):
        viewer = self._viewer()
        status = lib.ilab_viewer_control_set(viewer._live(), self._id, float(value), int(user))
        if status != 0:
            raise ValueError(lib.ilab_last_error().decode("utf-8", "replace"))

    def _decode(self, raw):
        return raw

    @property
    def value(self):
        return self._decode(self._raw()[0])

    def _run_callback(self):
        raw, changes = self._raw()
        if changes <= self._seen:
            return
        runs = changes - self._seen
        self._seen = changes
        if self.callback is None:
            return
        for _ in builtins.range(runs if isinstance(self, Button) else 1):
            self.callback(*(() if isinstance(self, Button) else (self._decode(raw),)))

    def __repr__(self):
        return f"<{type(self).__name__} {self.name!r} = {self.value!r}>"


class Slider(_Control):
    """A slider: `.value` a float within its range; settable."""

    @_Control.value.setter
    def value(self, value):
        self._set_raw(value)


class Checkbox(_Control):
    """A checkbox: `.value` True or False; settable."""

    def _decode(self, raw):
        return raw != 0.0

    @_Control.value.setter
    def value(self, value):
        self._set_raw(float(bool(value)))


class Button(_Control):
    """A button: `.value` its presses so far; `.clicked` True once per press since the last look."""

    def __init__(self, *arguments):
        super().__init__(*arguments)
        self._looked = 0

    def _decode(self, raw):
        return int(raw)

    @property
    def clicked(self):
        presses = int(self._raw()[0])
        if presses > self._looked:
            self._looked += 1
            return True
        return False


class Choice(_Control):
    """A drop-down: `.value` the option chosen; settable to one of `.options`."""

    @property
    def options(self):
        return list(self._options)

    def _decode(self, raw):
        return self._options[int(raw)]

    @_Control.value.setter
    def value(self, value):
        if str(value) not in self._options:
            raise ValueError(f"choice '{self.name}': value {value!r} is none of its options {self._options}")
        self._set_raw(self._options.index(str(value)))


def _new_show_png(folder):
    """The next free interop_lab_show-NNNN.png in `folder`, created empty so that no other call (another
    process's too) takes the same name; the screenshot then replaces it."""
    for number in itertools.count(1):
        path = os.path.join(folder, f"interop_lab_show-{number:04d}.png")
        try:
            os.close(os.open(path, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o644))
        except FileExistsError:
            continue
        return path


def show(array, *, title="interop_lab", range=None, colormap=None, mode="auto", window=None, png=None,
         stream=None, serve=None, fit="contain"):
    """Shows one array: in a window until you close it, or, without a display, renders it headless and
    writes a PNG (png=, default the next free interop_lab_show-NNNN.png in the temporary folder, so that no
    call overwrites another's picture; png= given writes it headless even with a display), saying where;
    returns that
    path (None after a window). serve= (as Viewer's): serves it to a browser at the URL printed on stderr
    until Ctrl+C (or the window, if window=True, is closed), then returns that URL. fit= (as Viewer's: contain,
    stretch, cover, actual) places the picture in the frame.

    In a Jupyter notebook (an IPython kernel), unless window= or png= is given, it serves the array (serve=,
    default any free loopback port) and displays the desk inline instead, returning None at once; later calls
    update that viewer. interop_lab.notebook.close() closes it (notebook.show has the details)."""
    if window is None and png is None:
        from . import notebook

        if notebook.in_kernel() is not None:
            return notebook.show(array, range=range, colormap=colormap, mode=mode, stream=stream, serve=serve,
                                 fit=fit)
    if png is not None and window is None:
        window = False  # a PNG asked for is written headless, with a display or without
    _check_fit(fit)
    address = _serve_address(serve)  # a bad one raises before anything opens
    picture = _arrays.describe(array, "show")  # validates before a window opens
    height, width = picture.height, picture.width
    picture.release()
    with Viewer(size=(width, height), title=title, mode=mode, window=window, serve=serve, fit=fit) as viewer:
        if address is not None:
            try:  # Ctrl+C ends it, even while the first frame is still being shown (a page may have it already)
                viewer.show(array, stream=stream, range=range, colormap=colormap)
                while not viewer.closed:  # the desk's threads send the frame to each page that opens
                    viewer.poll(fps=30)  # the page's zoom, pan, readout and stack's frame; a window's input
                    time.sleep(1.0 / 30)
            except KeyboardInterrupt:
                pass
            return viewer.url
        viewer.show(array, stream=stream, range=range, colormap=colormap)
        if viewer.is_window:
            viewer.run()
            return None
        if png is not None:
            path = os.fspath(png)
            viewer.screenshot(path)
        else:
            path = _new_show_png(tempfile.gettempdir())
            try:
                viewer.screenshot(path)
            except BaseException:
                os.remove(path)  # the name it held for this picture, empty
                raise
        low, high = viewer.range
        print(f"interop_lab.show: no display: wrote {path} ({width}x{height}, path {viewer.path}, range {low:.6g}.."
              f"{high:.6g})", file=sys.stderr)
        return path
