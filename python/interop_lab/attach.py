"""Viewer.attach: watch the frames another process publishes (interop_lab.publish, interop::Publisher) with no
copy between the processes, on interop-lab's own frame loop: what `interop-lab --attach NAME` shows, in a
window with the panel or headless.

    import interop_lab
    with interop_lab.Viewer.attach("sim") as viewer:   # a window where there is a display, else headless
        viewer.run()                                     # until the window closes
        print(viewer.status)                             # "uint8x4, device slots, frame 1234 of pid 4242, ..."

    viewer = interop_lab.Viewer.attach("sim", window=False)
    viewer.render()                                      # one frame: the newest published one
    picture = viewer.read_frame()                        # (height, width, 4) uint8, top row first
"""

import ctypes

from ._native import NativeHandle, check, image_size, lib, protocol_command, protocol_state


def _has_display():
    import os

    return bool(os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY"))


class AttachedViewer(NativeHandle):
    """The frames published as `name`, shown by interop-lab's frame loop (GL). size: (width, height) to scale
    them to (default: the publisher's size); mode: a GL mode ("interop", "staging", "cpu", ...; default the
    best that works here); window: True / False, None to decide by DISPLAY / WAYLAND_DISPLAY; serve: a port
    (0: any free one) or "[HOST:]PORT" (True: 127.0.0.1:8080), as Viewer's serve= takes it: headless, each
    frame rendered goes to the browser desk at `url`, as `interop-lab --attach NAME --serve` does."""

    def __init__(self, name, size=None, mode=None, window=None, serve=None):
        from .viewer import _serve_address, _served

        self._handle = None
        self.url = None
        width, height = (0, 0) if size is None else image_size(size)
        address = _serve_address(serve)  # a bad one raises before anything opens
        if address is not None and window:
            raise ValueError("serve=: a served viewer renders headless, as interop-lab --serve does; drop window=True")
        want_window = address is None and (_has_display() if window is None else bool(window))
        handle = ctypes.c_void_p()
        check(lib.ilab_attach_open(str(name).encode(), (mode or "").encode(), width, height, int(not want_window),
                                   None if address is None else address.encode(), ctypes.byref(handle)))
        self._handle = handle
        self.name = str(name)
        self.is_window = want_window
        if address is not None:
            url = ctypes.create_string_buffer(512)
            check(lib.ilab_attach_url(handle, url, len(url)))
            self.url = url.value.decode()
            _served.add(self)  # closed at the interpreter's exit, so that its server stops cleanly

    def _live(self):
        if self._handle is None:
            raise ValueError(f"the viewer attached to '{self.name}' is closed")
        return self._handle

    def render(self):
        """Renders one frame, the newest the publisher announced; False once the window was closed."""
        is_open = ctypes.c_int()
        check(lib.ilab_attach_render(self._live(), ctypes.byref(is_open)))
        return bool(is_open.value)

    def run(self, frames=None):
        """Renders frames until the window closes, or `frames` of them."""
        count = 0
        while (frames is None or count < frames) and self.render():
            count += 1

    def read_frame(self):
        """The frame rendered last as a NumPy array (height, width, 4) of uint8, top row first."""
        import numpy

        width, height = ctypes.c_int(), ctypes.c_int()
        check(lib.ilab_attach_read_frame(self._live(), None, 0, ctypes.byref(width), ctypes.byref(height)))
        picture = numpy.empty((height.value, width.value, 4), dtype=numpy.uint8)
        check(lib.ilab_attach_read_frame(self._live(), picture.ctypes.data, picture.nbytes, ctypes.byref(width),
                                         ctypes.byref(height)))
        return picture

    def _status(self):
        status, mode = ctypes.create_string_buffer(512), ctypes.create_string_buffer(32)
        check(lib.ilab_attach_status(self._live(), status, len(status), mode, len(mode)))
        return status.value.decode("utf-8", "replace"), mode.value.decode()

    @property
    def status(self):
        """How the publisher is doing: its format and slots, the frame shown, or that it is gone."""
        return self._status()[0]

    @property
    def mode(self):
        """The GL mode the frames cross by ("interop", "staging", "cpu", ...)."""
        return self._status()[1]

    def command(self, message):
        """Sends the app one message of its page's protocol (docs/browser.md), a dict such as {"zoom": [x, y, 1.25]},
        {"hover": [x, y]}, {"fit": True}, {"mode": "staging"} or {"pause": True}: applied from the next frame on,
        as the page's and the panel's commands are. Returns "" or why the app refused it; raises ValueError for a
        message the protocol does not take."""
        return protocol_command(lib.ilab_attach_command, self._live(), message)

    @property
    def state(self):
        """What the page is sent about the frame rendered last, as a dict: the source and its status, the modes
        and why some do not run, the size, the notice, the settings of every control and, for the picture, its
        tools (the fit or free view and the value under the cursor {"hover": ...} asked for)."""
        return protocol_state(lib.ilab_attach_state, self._live())

    def close(self):
        if self._handle is not None:
            from .viewer import _served

            _served.discard(self)
            check(lib.ilab_attach_close(self._handle))
            self._handle = None

    def __repr__(self):
        state = "closed" if self._handle is None else self.status
        return f"<interop_lab attached viewer '{self.name}': {state}>"
