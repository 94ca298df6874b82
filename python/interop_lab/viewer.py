"""interop_lab.Viewer and interop_lab.show: your arrays on screen, or rendered headless.

    v = interop_lab.Viewer(size=(1280, 720))   # a GLFW window where there is a display, else headless EGL
    v.show(x, stream=s)                         # CuPy / PyTorch / JAX / Numba / Warp / cuda.core / NumPy
    v.screenshot("x.png")

    v = interop_lab.Viewer(serve=8080)          # headless, each frame shown served to a browser: open v.url

Shapes (H, W) and (H, W, 1|3|4); dtypes uint8/16/32, int8/16/32, float16, bfloat16, float32, float64 and
bool. Values map through `range`: (low, high), "auto" (min..max of the first array shown) or "each" (of
every array); default 0..255 for uint8, 0..1 for floats and bool, "auto" for the other integers; the range
used is `viewer.range`. One channel indexes a `colormap` ('gray', 'viridis', 'turbo' or a (256, 3|4) uint8
table). NaN shows magenta, +inf white, -inf black (docs/python.md has the table).

Paths (Viewer.path, and in the panel):
  interop  the picture is a GL buffer registered with CUDA, drawn straight from it: show() of a CUDA array
           is one kernel (or one copy) into it, queued on `stream`, and returns without waiting on the
           host; `with v.frame(stream=s) as target:` hands out that buffer itself (zero copy).
  staging  CUDA, but no CUDA-GL interop for this GL (Mesa, GL on another GPU, WSL): convert on the GPU,
           copy to pinned host memory, upload (the host waits for the copy).
  cpu      no CUDA: NumPy arrays, converted with NumPy and uploaded into a texture.
mode='auto' picks the first that works and says once why it is not interop; mode= forces one.

Served (serve=PORT or "[HOST:]PORT", as interop-lab --serve takes it; 0: any free port): the viewer renders
headless unless window=True and the browser desk (app/serve) serves every frame shown, loopback by default,
behind the random token of v.url; close(), the `with` block's end or the interpreter's exit stop it.

A viewer belongs to the thread that opened it; each call makes its GL context current and gives yours
back, so several viewers and labs live in one process next to your own GL.
"""

import atexit
import contextlib
import ctypes
import itertools
import os
import sys
import tempfile
import time
import warnings
import weakref

import numpy

from . import _arrays, _colormaps, _dlpack
from ._native import InteropLabError, NativeHandle, ViewerInfo, ViewerStats, check, image_size, lib

__all__ = ["Viewer", "show", "PathNotice"]


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
    """The (H, W, 4) uint8 memory the next frame is drawn from, valid inside its `with viewer.frame()`.
    On the interop path it IS the GL buffer GL draws (zero copy): CuPy, PyTorch (__cuda_array_interface__,
    __dlpack__) and cuda.core write the displayed pixels through it."""

    typestr = "|u1"

    def __init__(self, viewer, pointer, shape, stream):
        self._viewer = viewer
        self._pointer = pointer
        self.shape = shape
        self._stream = stream
        self._valid = True

    def _check(self):
        if not self._valid:
            raise InteropLabError("this frame target was shown when its `with viewer.frame()` block ended: write "
                                  "inside the block")

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
        height, width, _ = self.shape
        return _dlpack.capsule(pointer, self.shape, (width * 4, 4, 1), self.typestr, _dlpack.kDLCUDA,
                               self._viewer.cuda_device, owner=self)

    def __repr__(self):
        return f"<FrameTarget {self.shape} on the {self._viewer.path} path{'' if self._valid else ', shown'}>"


class Viewer(NativeHandle):
    """A window (GLFW, where there is a display) or a headless GL context (EGL) that shows your arrays.

    size: (width, height) of the window / offscreen frame. window: True / False to force one, None to
    decide by DISPLAY / WAYLAND_DISPLAY (no window when serving). mode: 'auto', 'interop', 'staging' or
    'cpu'. panel: the ImGui panel (path, timings, frame rate) in a window. serve: a port (8080; 0: any free
    one) or '[HOST:]PORT' (True: 127.0.0.1:8080) to serve each frame shown to a browser at `url`."""

    def __init__(self, size=(1280, 720), title="interop_lab", mode="auto", window=None, panel=True, serve=None):
        self._handle = None
        self.url = None
        width, height = image_size(size)
        address = _serve_address(serve)
        if window is None:
            want_window = _has_display() and address is None
        else:
            want_window = bool(window)
        handle = ctypes.c_void_p()
        status = lib.ilab_viewer_open(width, height, str(title).encode(), int(want_window), str(mode).encode(),
                                      int(bool(panel)), ctypes.byref(handle))
        if status != 0 and want_window and window is None:  # a display without a usable GL: headless instead
            reason = lib.ilab_last_error().decode("utf-8", "replace")
            _say_once(f"interop_lab.Viewer: no window ({reason}); rendering headless")
            want_window = False
            status = lib.ilab_viewer_open(width, height, str(title).encode(), 0, str(mode).encode(),
                                          int(bool(panel)), ctypes.byref(handle))
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
        if address is not None:
            url = ctypes.create_string_buffer(512)
            status = lib.ilab_viewer_serve(handle, address.encode(), url, len(url))
            if status != 0:
                reason = lib.ilab_last_error().decode("utf-8", "replace")
                self.close()
                raise InteropLabError(f"interop_lab.Viewer(serve={serve!r}): {reason}")
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

    # Showing ----------------------------------------------------------------------------------------------

    def show(self, array, stream=None, range=None, colormap=None):
        """Shows `array` ((H, W) or (H, W, 1|3|4); uint8/16/32, int8/16/32, float16, bfloat16, float32, float64
        or bool). A CUDA array is converted on `stream` (CuPy / PyTorch / cuda.core stream, raw handle; None:
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
        try:
            if picture.channels != 1 and colormap is not None:
                raise ValueError(f"show: a colormap is for one-channel arrays; this one has {picture.channels} "
                                 "channels: drop colormap=, or pass x[..., 0]")
            table = _colormaps.table(colormap) if picture.channels == 1 else None
            request = _arrays.range_request(picture, range)
            if picture.on_device and self.path == "cpu":
                why = self.path_reason or "mode='cpu'"
                raise InteropLabError(f"show: a CUDA array, and this viewer runs the cpu path ({why}): pass a NumPy "
                                      "copy (cupy.asnumpy(x), x.cpu().numpy()) or open the viewer with CUDA")
            if picture.on_device and picture.stream is not None and picture.stream != raw:
                check(lib.ilab_order_streams(picture.stream, raw))  # after the array's producer
            value_range = self._value_range(picture, request, raw)
            low, high = value_range.shown
            check(lib.ilab_viewer_set_range_text(handle, f"{low:.6g}..{high:.6g} ({value_range.how})".encode()))
            if not picture.on_device:
                rgba = _arrays.to_rgba8(picture.host, picture.type, value_range, table)
                check(lib.ilab_viewer_show_host(handle, rgba.ctypes.data, rgba.nbytes, picture.width, picture.height))
            else:
                desc = _arrays.convert_desc(picture, value_range)
                check(lib.ilab_viewer_show_device(handle, ctypes.byref(desc),
                                                  None if table is None else table.ctypes.data, raw))
            self.range = value_range.shown
            return self.range
        finally:
            picture.release()

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
            desc = _arrays.convert_desc(picture)
            low, high, finite = ctypes.c_double(), ctypes.c_double(), ctypes.c_longlong()
            check(lib.ilab_viewer_value_bounds(self._live(), ctypes.byref(desc), stream, ctypes.byref(low),
                                               ctypes.byref(high), ctypes.byref(finite)))
            bounds = (low.value, high.value, finite.value)
        else:
            bounds = _arrays.host_bounds(picture)
        self._auto_range = bounds if request == "auto" else None
        return _arrays.bounds_range(picture, *bounds, request)

    @contextlib.contextmanager
    def frame(self, stream=None, size=None):
        """Yields the memory the next frame is drawn from, (H, W, 4) uint8 (size: (width, height), default
        the last picture's or the viewer's): on the interop path the registered GL buffer itself, mapped on
        `stream`; staging: CUDA memory uploaded after the block; cpu: a NumPy array. Shown when the block
        ends (unmapped on the same stream, after your work there). On the interop path the target holds
        the picture shown now, so a partial write keeps the rest; elsewhere write every pixel."""
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
        """Keeps drawing until the window is closed (returns at once headless)."""
        while self.is_window and not self.closed:
            check(lib.ilab_viewer_render(self._live()))
            time.sleep(1.0 / fps)


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
         stream=None, serve=None):
    """Shows one array: in a window until you close it, or, without a display, renders it headless and
    writes a PNG (png=, default the next free interop_lab_show-NNNN.png in the temporary folder, so that no
    call overwrites another's picture), saying where; returns that
    path (None after a window). serve= (as Viewer's): serves it to a browser at the URL printed on stderr
    until Ctrl+C (or the window, if window=True, is closed), then returns that URL."""
    address = _serve_address(serve)  # a bad one raises before anything opens
    picture = _arrays.describe(array, "show")  # validates before a window opens
    height, width = picture.height, picture.width
    picture.release()
    with Viewer(size=(width, height), title=title, mode=mode, window=window, serve=serve) as viewer:
        if address is not None:
            try:  # Ctrl+C ends it, even while the first frame is still being shown (a page may have it already)
                viewer.show(array, stream=stream, range=range, colormap=colormap)
                while not viewer.closed:  # the desk's threads send the frame to each page that opens
                    if viewer.is_window:
                        check(lib.ilab_viewer_render(viewer._live()))
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
