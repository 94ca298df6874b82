"""interop_lab in Jupyter (interop_lab/notebook.py), on the cpu path without Jupyter: a served viewer's
_repr_html_ (the desk in an iframe, its URL escaped, its height from the frame's aspect, a link to a tab);
INTEROP_LAB_NOTEBOOK_URL / url_base= rewriting where the iframe points, and refusing what cannot reach the desk;
the kernel found only where IPython is loaded and its shell is a kernel's (IPython never imported for it); and
interop_lab.show() in a kernel (a stand-in IPython here, recording what is displayed): it serves the array and
displays it without blocking, later calls update the same viewer (displayed again in a later cell, the earlier
display retired), notebook.close() stops it. tests/web/test_notebook.py runs a real notebook with nbclient and
opens its iframe in Chromium."""

import subprocess
import sys
import textwrap
import types
import warnings

import numpy
import pytest

import interop_lab
from interop_lab import notebook

pytest.importorskip("PIL.Image", reason="needs Pillow to decode the desk's JPEGs: install python3-pil")
from desk_client import DeskClient
from html_elements import Elements
from test_viewer_serve_cpu import URL, port_is_free, read_until_shown, served_viewer, smooth_picture


@pytest.fixture(autouse=True)
def no_url_variable(monkeypatch):
    monkeypatch.delenv(notebook.URL_VARIABLE, raising=False)


# The HTML ---------------------------------------------------------------------------------------------------------

def test_the_iframe_and_its_link_hold_the_url_escaped():
    url = 'http://127.0.0.1:8080/?token=ab&x="><script>alert(1)</script>'
    text = notebook.iframe_html(url, (1280, 720))
    assert "<script>" not in text and "&quot;&gt;&lt;script&gt;" in text
    elements = Elements(text)
    assert [iframe["src"] for iframe in elements.iframes] == [url]
    assert [link["href"] for link in elements.links] == [url]
    assert elements.links[0]["target"] == "_blank"
    assert elements.iframes[0]["width"] == "100%"
    assert "1280x720" in elements.iframes[0]["title"]


@pytest.mark.parametrize("size, height", [((1280, 720), 370), ((200, 120), 390), ((1920, 480), 240),
                                          ((100, 1000), 960), ((512, 512), 608)])
def test_the_iframe_is_as_high_as_the_frames_aspect_asks(size, height):
    # The frame's pane beside the desk's panel in a 960 px output is 544 px wide; 64 px of status under it;
    # within 240..960.
    assert notebook.iframe_height(size) == height
    assert Elements(notebook.iframe_html("http://127.0.0.1:1/?token=0", size)).iframes[0]["height"] == str(height)


def test_a_served_viewer_shows_itself_as_the_desk_and_others_as_text():
    with served_viewer(size=(200, 120)) as viewer:
        elements = Elements(viewer._repr_html_())
        assert [iframe["src"] for iframe in elements.iframes] == [viewer.url]
        assert [link["href"] for link in elements.links] == [viewer.url]
        assert elements.iframes[0]["height"] == str(notebook.iframe_height((200, 120)))
    assert viewer._repr_html_() is None  # closed: the text repr says so
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", interop_lab.PathNotice)
        with interop_lab.Viewer(size=(64, 48), mode="cpu", window=False) as plain:
            assert plain._repr_html_() is None


# Where the iframe points --------------------------------------------------------------------------------------

DESK = "http://127.0.0.1:43210/?token=0123456789abcdef0123456789abcdef"


@pytest.mark.parametrize("base, expected", [
    (None, DESK),
    ("", DESK),
    ("http://localhost:8890", "http://localhost:8890/?token=0123456789abcdef0123456789abcdef"),
    ("http://gpu-server:8890/", "http://gpu-server:8890/?token=0123456789abcdef0123456789abcdef"),
    ("http://localhost:{port}", "http://localhost:43210/?token=0123456789abcdef0123456789abcdef"),
    ("http://[::1]:9000", "http://[::1]:9000/?token=0123456789abcdef0123456789abcdef"),
])
def test_url_base_puts_the_browsers_address_in_place_of_the_kernels(base, expected):
    assert notebook.desk_url(DESK, base) == expected


def test_the_variable_is_the_default_url_base(monkeypatch):
    monkeypatch.setenv(notebook.URL_VARIABLE, "http://localhost:{port}")
    assert notebook.desk_url(DESK) == DESK.replace("127.0.0.1", "localhost")
    assert notebook.desk_url(DESK, "http://other:1") == DESK.replace("127.0.0.1:43210", "other:1")
    with served_viewer() as viewer:
        assert Elements(viewer._repr_html_()).iframes[0]["src"] == viewer.url.replace("127.0.0.1", "localhost")


@pytest.mark.parametrize("base", ["https://hub.example.com", "http://hub.example.com/user/me/proxy/{port}/",
                                  "localhost:8890", "http://localhost:8890/?x=1", "http://me@localhost:8890",
                                  "http://localhost:99999", "http://"])
def test_a_url_base_that_cannot_reach_the_desk_is_refused_with_the_fix(base, monkeypatch):
    with pytest.raises(ValueError, match=r"url_base=.*pass http://HOST\[:PORT\]"):
        notebook.desk_url(DESK, base)
    monkeypatch.setenv(notebook.URL_VARIABLE, base)
    with pytest.raises(ValueError, match=notebook.URL_VARIABLE):
        notebook.desk_url(DESK)


# The kernel -----------------------------------------------------------------------------------------------------

def test_outside_ipython_there_is_no_kernel_and_ipython_stays_unimported():
    code = textwrap.dedent("""
        import sys, interop_lab
        print(interop_lab.notebook.in_kernel(), "IPython" in sys.modules)
    """)
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    assert result.stdout.split() == ["None", "False"]


class ZMQInteractiveShell:
    """What ipykernel's shell is called (the kernel's test in notebook.in_kernel)."""

    execution_count = 1


class TerminalInteractiveShell:
    """A terminal IPython: no kernel."""


class Recorded:
    """What a stand-in IPython.display was asked to show."""

    def __init__(self):
        self.displays, self.updates = [], []


@pytest.fixture
def ipython(monkeypatch):
    """Stand-in IPython and IPython.display modules; yields (set_shell, Recorded). The viewer the tests open
    through show() is closed afterwards."""
    recorded = Recorded()
    shell = {"value": None}
    package = types.ModuleType("IPython")
    package.get_ipython = lambda: shell["value"]
    display = types.ModuleType("IPython.display")
    display.display = lambda *objects, **options: recorded.displays.append((objects, options))
    display.update_display = lambda obj, **options: recorded.updates.append((obj, options))
    package.display = display
    monkeypatch.setitem(sys.modules, "IPython", package)
    monkeypatch.setitem(sys.modules, "IPython.display", display)

    def set_shell(value):
        shell["value"] = value
        return value

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", interop_lab.PathNotice)
        try:
            yield set_shell, recorded
        finally:
            notebook.close()
            notebook._Shown.display_id = notebook._Shown.cell = None


def test_a_kernel_is_an_ipython_shell_of_a_kernel(ipython):
    set_shell, _ = ipython
    assert notebook.in_kernel() is None  # IPython loaded, no shell
    set_shell(TerminalInteractiveShell())
    assert notebook.in_kernel() is None
    kernel_shell = set_shell(type("ColabShell", (ZMQInteractiveShell,), {})())  # a kernel's shell, subclassed
    assert notebook.in_kernel() is kernel_shell
    other = set_shell(types.SimpleNamespace(kernel=object()))  # another kernel's shell
    assert notebook.in_kernel() is other


def the_display(recorded):
    """The iframe's src of the newest display, checking it is a raw HTML + text bundle with a display id."""
    (bundle,), options = recorded.displays[-1]
    assert options["raw"] is True and options["display_id"].startswith("interop-lab-")
    assert bundle["text/plain"].startswith("<interop_lab.Viewer")
    return Elements(bundle["text/html"]).iframes[0]["src"], options["display_id"]


def test_show_in_a_kernel_serves_and_displays_without_blocking(ipython):
    set_shell, recorded = ipython
    shell = set_shell(ZMQInteractiveShell())
    first = smooth_picture(96, 160)
    assert interop_lab.show(first[..., :3].copy()) is None
    viewer = notebook.viewer()
    assert viewer is not None and URL.fullmatch(viewer.url) and viewer.size == (160, 96)
    assert len(recorded.displays) == 1 and not recorded.updates
    src, first_id = the_display(recorded)
    assert src == viewer.url
    with DeskClient(viewer.url) as page:
        read_until_shown(page, first)

        # The same cell: the same viewer, resized to the next array, and no second display.
        second = smooth_picture(64, 128, phase=1.0)
        interop_lab.show(second[..., :3].copy())
        assert notebook.viewer() is viewer and viewer.size == (128, 64)
        assert len(recorded.displays) == 1
        _, received = read_until_shown(page, second)
        assert received.shape == (64, 128, 4)

        # A later cell: displayed there, and the earlier display becomes a note.
        shell.execution_count = 2
        third = smooth_picture(64, 128, phase=2.0)
        interop_lab.show(third[..., :3].copy())
        assert notebook.viewer() is viewer
        assert len(recorded.displays) == 2
        src, second_id = the_display(recorded)
        assert src == viewer.url and second_id != first_id
        (note, options), = recorded.updates
        assert options == {"raw": True, "display_id": first_id}
        assert "later cell" in note["text/plain"] and "<iframe" not in note["text/html"]
        read_until_shown(page, third)

    port = int(URL.fullmatch(viewer.url).group(1))
    notebook.close()
    assert viewer.closed and notebook.viewer() is None and port_is_free(port)
    interop_lab.show(third[..., :3].copy())  # after close(): a new viewer, displayed anew
    assert notebook.viewer() is not viewer and notebook.viewer().url != viewer.url
    assert len(recorded.displays) == 3


def test_show_in_a_kernel_takes_its_range_per_call_and_serve_mode_and_url_base(ipython):
    set_shell, recorded = ipython
    shell = set_shell(ZMQInteractiveShell())
    ramp = numpy.arange(12, dtype=numpy.int32).reshape(3, 4)
    interop_lab.show(ramp)  # int32: range "auto", of this array
    viewer = notebook.viewer()
    assert viewer.range == (0, 11)
    interop_lab.show(ramp * 10)
    assert viewer.range == (0, 110)  # not the first array's, as a viewer's own "auto" would keep
    shell.execution_count = 2  # displayed anew: in a later cell
    notebook.show(ramp, range=(0, 50), url_base="http://localhost:{port}")
    assert viewer.range == (0, 50)
    assert the_display(recorded)[0] == viewer.url.replace("127.0.0.1", "localhost")
    # Another mode or address: another viewer, the first one closed.
    interop_lab.show(ramp, serve="127.0.0.1:0", mode="cpu")
    assert viewer.closed and notebook.viewer() is not None
    src, _ = the_display(recorded)
    assert src == notebook.viewer().url
    with pytest.raises(ValueError, match="serve="):
        interop_lab.show(ramp, serve="nowhere:x")
    with pytest.raises(ValueError, match="url_base="):
        notebook.show(ramp, url_base="https://hub")


def test_window_or_png_keep_show_as_it_is_outside_a_kernel(ipython, tmp_path):
    set_shell, recorded = ipython
    set_shell(ZMQInteractiveShell())
    path = tmp_path / "shown.png"
    picture = smooth_picture(24, 32)
    assert interop_lab.show(picture, png=path, mode="cpu") == str(path)
    assert path.stat().st_size > 0
    assert interop_lab.show(picture, window=False, mode="cpu").endswith(".png")
    assert not recorded.displays and notebook.viewer() is None
