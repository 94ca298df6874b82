"""interop_lab in Jupyter: a served viewer shows itself inline, and interop_lab.show() in a notebook serves
one and displays it there instead of blocking.

    v = interop_lab.Viewer(serve=0)     # the cell's output (or display(v)) is the desk in an iframe
    interop_lab.show(x)                 # in a notebook: one served viewer, displayed in this cell; later
                                        # show() calls update that viewer (and show it in their own cell)
    interop_lab.notebook.close()        # stops its server; the next show() opens a new one

A notebook is an IPython kernel: IPython imported and get_ipython() a kernel's shell. Nothing here imports
IPython where it is not already loaded.

The iframe points at the desk as the notebook's kernel sees it (viewer.url: 127.0.0.1 and the desk's port).
Where the browser is elsewhere (a notebook server on a GPU server), forward that port (ssh -L), or set
INTEROP_LAB_NOTEBOOK_URL (or url_base=) to the http://HOST:PORT your browser reaches the desk at; "{port}"
in it stands for the desk's port. docs/python.md, "In a notebook", has the recipes.
"""

import html
import os
import sys
import urllib.parse
import uuid

from . import _arrays

__all__ = ["in_kernel", "show", "viewer", "close", "desk_url", "iframe_html"]

# The address the browser reaches the desk at, where that is not the kernel's view of it.
URL_VARIABLE = "INTEROP_LAB_NOTEBOOK_URL"

# The iframe's height: the desk's page beside a notebook's output (about 960 px wide) puts the frame in a pane
# 416 px narrower than the page (its 380 px panel and three 12 px gaps) and 64 px of status under it
# (assets/desk/desk.css).
_NOMINAL_WIDTH, _PANEL_WIDTH, _STATUS_HEIGHT = 960, 416, 64
_LOWEST, _HIGHEST = 240, 960


def in_kernel():
    """The IPython kernel's shell this code runs in (a Jupyter notebook, JupyterLab, VS Code's notebooks), else
    None (a script, a terminal IPython). Imports nothing: without IPython loaded there is no kernel."""
    ipython = sys.modules.get("IPython")
    get_ipython = getattr(ipython, "get_ipython", None)
    shell = get_ipython() if callable(get_ipython) else None
    if shell is None:
        return None
    if any(kind.__name__ == "ZMQInteractiveShell" for kind in type(shell).__mro__):
        return shell
    return shell if getattr(shell, "kernel", None) is not None else None


def desk_url(url, url_base=None):
    """`url` (a served viewer's, http://127.0.0.1:PORT/?token=...) as the browser should open it: with url_base
    (default $INTEROP_LAB_NOTEBOOK_URL; unset or "": url itself) in place of its scheme, host and port, "{port}"
    in it standing for the desk's port. url_base is http://HOST[:PORT] and nothing more: the desk's page is
    plain HTTP at the root of its address, so a path, a query or https would not reach it."""
    if url_base is None:
        url_base, where = os.environ.get(URL_VARIABLE, ""), URL_VARIABLE
    else:
        where = "url_base"
    if not url_base:
        return url
    desk = urllib.parse.urlsplit(url)
    base = urllib.parse.urlsplit(url_base.replace("{port}", str(desk.port)))
    try:
        base.port  # raises ValueError for a port that is none
    except ValueError as error:
        raise ValueError(f"{where}={url_base!r}: {error}: pass http://HOST[:PORT]") from None
    if (base.scheme != "http" or not base.hostname or "@" in base.netloc or base.path not in ("", "/")
            or base.query or base.fragment):
        raise ValueError(
            f"{where}={url_base!r}: pass http://HOST[:PORT], where your browser reaches the desk (e.g. "
            f"http://localhost:{desk.port} through ssh -L {desk.port}:127.0.0.1:{desk.port}); the desk's page is "
            "plain HTTP at the root of its address, so a path, a query or https does not reach it")
    return urllib.parse.urlunsplit(("http", base.netloc, desk.path or "/", desk.query, ""))


def iframe_height(size):
    """The iframe's height in CSS pixels for a frame of `size` (width, height): the frame's pane at the desk's
    wide layout in a notebook's output, and its status line; within 240..960."""
    width, height = size
    pane = _NOMINAL_WIDTH - _PANEL_WIDTH
    return int(min(max(round(pane * height / width) + _STATUS_HEIGHT, _LOWEST), _HIGHEST))


def iframe_html(url, size):
    """The HTML of the desk at `url` in an iframe as wide as the output and as high as `size` (the frame's width,
    height) asks (iframe_height), and a link that opens it in a tab of its own."""
    width, height = size
    src = html.escape(url, quote=True)
    pixels = iframe_height(size)
    return (f'<div class="interop-lab-viewer">'
            f'<iframe src="{src}" title="interop_lab viewer ({width}x{height})" width="100%" height="{pixels}" '
            f'style="width:100%;height:{pixels}px;border:0" allow="fullscreen"></iframe>'
            f'<div style="font-size:12px"><a href="{src}" target="_blank" rel="noopener noreferrer">'
            f'open the viewer in a tab</a></div></div>')


def viewer_html(viewer, url_base=None):
    """A served, open viewer's iframe_html (its url through desk_url); None for any other, so that IPython falls
    back to its text."""
    if not viewer.url or not viewer._handle:
        return None
    return iframe_html(desk_url(viewer.url, url_base), viewer.size)


class _Shown:
    """The viewer show() serves in this kernel and where it is displayed: the kernel's one, kept alive between
    cells so that each show() updates it."""

    viewer = None
    opened_with = None  # (mode, serve address) it was opened with: another opens another viewer
    display_id = None  # its display's id, updated when a later cell displays it instead
    cell = None  # the kernel's execution count of that display


def viewer():
    """The viewer show() serves in this notebook, or None before the first show() or after close()."""
    shown = _Shown.viewer
    return shown if shown is not None and not shown.closed else None


def close():
    """Closes the viewer show() serves in this notebook: its server stops and its port is free (the page in the
    iframe says the desk is gone). The next show() opens a new one. The kernel's exit closes it too."""
    if _Shown.viewer is not None:
        _Shown.viewer.close()
    _Shown.viewer = _Shown.opened_with = None


def _retire_display():
    """The display of the viewer in an earlier cell becomes a note, so that one page, the newest, connects."""
    if _Shown.display_id is not None:
        from IPython.display import update_display

        note = "interop_lab viewer: shown in a later cell"
        update_display({"text/plain": note, "text/html": f"<p><em>{note}</em></p>"}, raw=True,
                       display_id=_Shown.display_id)
    _Shown.display_id = _Shown.cell = None


def show(array, *, range=None, colormap=None, mode="auto", stream=None, serve=None, url_base=None, fit="contain"):
    """interop_lab.show() in a notebook: serves `array` (serve=: the address, default 0: a free loopback port)
    and displays the desk inline; returns None without blocking. Later calls show their array in the same
    viewer (resized to it; range "auto" is each array's own), displayed again in a later cell, where the earlier
    cell's iframe becomes a note. interop_lab.notebook.viewer() is that viewer; interop_lab.notebook.close()
    closes it. url_base (default $INTEROP_LAB_NOTEBOOK_URL): where the browser reaches the desk, see desk_url.
    fit= as Viewer's (a call with another fit than the viewer's sets it)."""
    from .viewer import Viewer, _check_fit, _serve_address

    _check_fit(fit)
    serve = 0 if serve is None else serve
    address = _serve_address(serve)  # a bad one raises before anything opens, as does a bad url_base:
    desk_url("http://127.0.0.1:1/", url_base)
    picture = _arrays.describe(array, "show")
    size = (picture.width, picture.height)
    picture.release()
    shell = in_kernel()
    current = viewer()
    if current is None or _Shown.opened_with != (mode, address):
        close()
        _retire_display()
        current = Viewer(size=size, mode=mode, serve=serve)
        _Shown.viewer, _Shown.opened_with = current, (mode, address)
    elif current.size != size:
        current.resize(*size)
    html_text = viewer_html(current, url_base)
    current._auto_range = None  # as a show() of its own: range "auto" is this array's
    if current.fit != fit:  # the same fit keeps the page's zoom and pan
        current.fit = fit
    current.show(array, stream=stream, range=range, colormap=colormap)
    cell = getattr(shell, "execution_count", None)
    if _Shown.display_id is None or _Shown.cell != cell:
        from IPython.display import display

        _retire_display()
        _Shown.display_id, _Shown.cell = f"interop-lab-{uuid.uuid4().hex}", cell
        display({"text/plain": repr(current), "text/html": html_text}, raw=True, display_id=_Shown.display_id)
    return None
