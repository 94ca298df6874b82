"""interop_lab.Viewer(serve=...) and show(serve=...) on the cpu path (NumPy arrays, headless EGL on Mesa): a
loopback WebSocket client (desk_client.py, standard library + Pillow's JPEG decoder) receives what was shown,
within the desk's JPEG tolerance (tests/unit/test_serve.cpp: largest difference 16, mean under 2); the
screenshot is the exact frame; a wrong token is refused; the page's commands are refused with the reason; bad
serve arguments raise ValueError with the command line's reasons; close(), the `with` block, Ctrl+C and the
interpreter's exit stop the server (the port is free again). The CUDA path is test_viewer_serve_gpu.py."""

import os
import re
import signal
import socket
import subprocess
import sys
import textwrap
import urllib.error
import urllib.request
import warnings

import numpy
import pytest

import interop_lab

# desk_client.py decodes the frames' JPEGs with Pillow (scripts/setup.sh installs python3-pil).
pytest.importorskip("PIL.Image", reason="needs Pillow to decode the desk's JPEGs: install python3-pil")
from desk_client import DeskClient, Refused, wait_for
from interop_lab import InteropLabError
from pictures import decode_png

URL = re.compile(r"http://127\.0\.0\.1:(\d+)/\?token=([0-9a-f]{32})")
# The desk's JPEG tolerance (tests/unit/test_serve.cpp) for a smooth picture.
LARGEST_DIFFERENCE, MEAN_DIFFERENCE = 16, 2.0


def smooth_picture(height, width, phase=0.0):
    """Gradients and a wave (what JPEG keeps within a few levels), opaque."""
    y, x = numpy.mgrid[0:height, 0:width].astype(numpy.float64)
    picture = numpy.empty((height, width, 4), dtype=numpy.uint8)
    picture[..., 0] = 255 * x / (width - 1)
    picture[..., 1] = 255 * y / (height - 1)
    picture[..., 2] = 128 + 100 * numpy.sin(x / 23.0 + phase) * numpy.cos(y / 31.0)
    picture[..., 3] = 255
    return picture


def assert_within_jpeg_tolerance(received, shown):
    assert received.shape == shown.shape
    difference = numpy.abs(received.astype(int) - shown.astype(int))[..., :3]
    assert difference.max() <= LARGEST_DIFFERENCE, f"largest difference {difference.max()}"
    assert difference.mean() < MEAN_DIFFERENCE, f"mean difference {difference.mean():.3f}"


def read_until_shown(page, picture):
    """The frames a page receives until one is `picture` (JPEG aside): a page that connects while the picture is
    being shown gets the frame before it first. Returns that state and picture; the page's timeout fails it."""
    while True:
        state, (_, received) = page.read_state_and_frame()
        if numpy.abs(received.astype(int) - picture.astype(int)).mean() < MEAN_DIFFERENCE:
            return state, received


def port_is_free(port):
    with socket.socket() as probe:
        try:
            probe.bind(("127.0.0.1", port))
            return True
        except OSError:
            return False


def served_viewer(size=(160, 96), serve=0, **options):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", interop_lab.PathNotice)
        return interop_lab.Viewer(size=size, mode="cpu", serve=serve, **options)


@pytest.fixture
def served():
    with served_viewer() as viewer:
        yield viewer


def test_the_url_has_the_port_picked_and_a_token(served):
    found = URL.fullmatch(served.url)
    assert found, served.url
    assert int(found.group(1)) != 0  # port 0: the one the bind picked
    assert not served.is_window
    assert served.url in repr(served)


def test_a_page_receives_what_was_shown(served):
    picture = smooth_picture(96, 160)
    served.show(picture)
    with DeskClient(served.url) as page:
        state, (index, received) = page.read_state_and_frame()
        assert_within_jpeg_tolerance(received, picture)
        # The app's own loop makes the frames, with the caller's pictures as its source: its controls but the
        # scene's, its phases, its timeline.
        assert state["source"] == "array" and state["source_status"].startswith("uint8x4 160x96")
        assert {"mode", "screenshot", "pause", "step", "picture_fit", "timing"} <= set(state["controls"])
        assert "scene" not in state["controls"]
        assert state["mode"] == served.path == "cpu"
        assert state["size"] == [160, 96]
        assert state["frame"] == index
        assert state["api"] == "gl"
        assert state["desk"]["fps_cap"] == 0  # every frame shown is served: the caller paces them
        phases = {line["phase"] for line in state["phases"]} | {line["phase"] for line in state["desk"]["phases"]}
        assert {"kernel", "read-back", "encode", "send"} <= phases, phases
        # The next picture shown follows, as the next frame.
        moved = smooth_picture(96, 160, phase=1.5)
        served.show(moved)
        next_state, (next_index, next_received) = page.read_state_and_frame()
        assert next_index > index
        assert_within_jpeg_tolerance(next_received, moved)
        assert numpy.abs(next_received.astype(int) - received.astype(int)).max() > LARGEST_DIFFERENCE


def test_the_timeline_is_a_frames_on_its_own_clock(served):
    """The served state's timeline is in ms from the frame's start, as the app's is: frame_ms is one frame's
    duration and the spans start near 0, not the host clock's milliseconds since boot; the frame's own phase
    is there for the page's frame-time plot."""
    for phase in (0.0, 1.0, 2.0):
        served.show(smooth_picture(96, 160, phase=phase))
    with DeskClient(served.url) as page:
        state, _ = page.read_state_and_frame()
    timeline = state["timeline"]
    assert 0 < timeline["frame_ms"] < 10_000, timeline
    read_back = [span for span in timeline["spans"] if span["lane"] == "desk" and span["name"].startswith("read-back")]
    assert read_back, timeline
    for span in timeline["spans"]:
        assert -1 < span["start_ms"] <= span["end_ms"] < 10_000, timeline
    assert read_back[0]["end_ms"] <= timeline["frame_ms"] + 1, timeline
    frame = [line for line in state["phases"] if line["phase"] == "frame"]
    assert frame and 0 < frame[0]["last_ms"] < 10_000, state["phases"]


def test_the_screenshot_is_the_exact_frame(served, tmp_path):
    picture = numpy.random.default_rng(4).integers(0, 256, size=(96, 160, 4), dtype=numpy.uint8)
    served.show(picture)
    token = URL.fullmatch(served.url).group(2)
    port = URL.fullmatch(served.url).group(1)
    with urllib.request.urlopen(f"http://127.0.0.1:{port}/screenshot.png?token={token}", timeout=30) as answer:
        (tmp_path / "served.png").write_bytes(answer.read())
    numpy.testing.assert_array_equal(decode_png(tmp_path / "served.png"), served.read_frame())
    numpy.testing.assert_array_equal(decode_png(tmp_path / "served.png"), picture)


def test_a_wrong_token_is_refused(served):
    with pytest.raises(Refused) as refused:
        DeskClient(served.url, token="0" * 32)
    assert refused.value.status == 403
    port = URL.fullmatch(served.url).group(1)
    with pytest.raises(urllib.error.HTTPError) as page:
        urllib.request.urlopen(f"http://127.0.0.1:{port}/", timeout=30)
    assert page.value.code == 403


def test_a_scene_asked_for_by_the_page_is_refused_and_the_notice_says_why(served):
    served.show(smooth_picture(96, 160))
    with DeskClient(served.url) as page:
        page.read_state_and_frame()
        page.send_json({"scene": "postprocess"})
        wait_for("the page's command", served._take_page_commands, timeout=10)
        while True:  # the states of the frames before it, then the one made after it
            state, _ = page.read_state_and_frame()
            if state.get("notice"):
                break
        assert state["notice"] == ("scene postprocess refused: the frames are the caller's (array), which feeds "
                                   "this loop; no scene or other source replaces them")
        assert state["source"] == "array", "the caller's pictures are still the frames"


def test_the_page_pauses_and_steps_the_callers_loop(served):
    """The page's pause and step reach viewer.paused and poll() as Space and period do, at the next show()."""
    picture = smooth_picture(96, 160)
    served.show(picture)

    def shown_then(condition):  # the page's commands are applied as a frame is shown
        served.show(picture)
        return condition()

    with DeskClient(served.url) as page:
        state, _ = page.read_state_and_frame()
        assert {"pause", "step"} <= set(state["controls"]), state["controls"]
        page.send_json({"pause": True})
        wait_for("the page's pause", lambda: shown_then(lambda: served.paused), timeout=10)
        assert served.poll(fps=1000) is False
        page.send_json({"step": True})
        wait_for("the page's step", lambda: shown_then(lambda: served.poll(fps=1000)), timeout=10)
        assert served.paused and served.poll(fps=1000) is False, "one step is one frame, paused after"
        page.send_json({"pause": False})
        wait_for("the page's resume", lambda: shown_then(lambda: not served.paused), timeout=10)
        assert served.poll(fps=1000) is True


@pytest.mark.parametrize("serve, reason", [
    ("http", "is not a port"),
    (65536, "from 0 to 65535 (0: any free port)"),
    (-1, "is not a port"),
    ("example.com:8080", "not a numeric IPv4 address"),
    ("::1:8080", "write an IPv6 address in brackets"),
    ("[::1:8080", "closing ']'"),
    (8080.5, "pass a port"),
    ([8080], "pass a port"),
])
def test_a_bad_serve_argument_raises_with_the_fix(serve, reason):
    with pytest.raises(ValueError, match=re.escape(reason)):
        interop_lab.Viewer(size=(16, 16), mode="cpu", serve=serve)
    with pytest.raises(ValueError, match=re.escape(reason)):
        interop_lab.show(numpy.zeros((4, 4, 4), dtype=numpy.uint8), serve=serve)


def test_a_port_in_use_is_a_runtime_error_and_leaves_nothing_open():
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        with pytest.raises(InteropLabError, match="pick another port"):
            served_viewer(serve=port)


def test_close_and_the_with_block_stop_the_server():
    viewer = served_viewer()
    port = int(URL.fullmatch(viewer.url).group(1))
    assert not port_is_free(port)
    with DeskClient(viewer.url) as page:
        viewer.show(smooth_picture(96, 160))
        page.read_state_and_frame()
        viewer.close()
        with pytest.raises((ConnectionError, OSError)):
            while True:
                page.read_message()  # the server closes the socket
    assert port_is_free(port)
    with served_viewer() as inside:
        port = int(URL.fullmatch(inside.url).group(1))
    assert port_is_free(port)


def test_serving_is_headless_even_with_a_display(monkeypatch):
    monkeypatch.setenv("DISPLAY", ":65000")  # none there: a window would fail to open
    with served_viewer() as viewer:
        assert not viewer.is_window


def test_a_non_loopback_address_warns_loudly(capfd):
    with served_viewer(serve="0.0.0.0:0") as viewer:
        # The URL names this machine (its host name, else an address), not 0.0.0.0, which opens nowhere.
        assert not viewer.url.startswith("http://0.0.0.0:"), viewer.url
        assert re.fullmatch(r"http://[^/:]+:[1-9]\d*/\?token=[0-9a-f]{32}", viewer.url), viewer.url
    said = capfd.readouterr().err
    assert "serving the desk at " + viewer.url in said
    assert "warning: 0.0.0.0 is not a loopback address" in said


def _python(code):
    return subprocess.Popen([sys.executable, "-c", textwrap.dedent(code)], stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def _url_from(stream):
    for line in stream:
        found = URL.search(line)
        if found:
            return found.group(0)
    raise AssertionError("no desk URL printed")


def test_the_interpreter_exit_stops_a_viewer_left_open():
    process = _python("""
        import sys, warnings, interop_lab
        warnings.simplefilter("ignore")
        viewer = interop_lab.Viewer(size=(32, 16), mode="cpu", serve=0)
        print(viewer.url, flush=True)
        sys.stdin.readline()  # then exits with the viewer open
    """)
    url = _url_from(process.stdout)
    port = int(URL.fullmatch(url).group(1))
    assert not port_is_free(port)
    _, err = process.communicate("\n", timeout=60)
    assert process.returncode == 0, err
    assert port_is_free(port)


def test_show_serves_the_array_until_ctrl_c():
    process = _python("""
        import sys, warnings, numpy, interop_lab
        sys.path.insert(0, %r)
        from test_viewer_serve_cpu import smooth_picture
        warnings.simplefilter("ignore")
        url = interop_lab.show(smooth_picture(48, 64), mode="cpu", serve=0)
        print("returned", url, flush=True)
    """ % (str(__import__("pathlib").Path(__file__).parent),))
    url = _url_from(process.stderr)
    with DeskClient(url) as page:
        _, received = read_until_shown(page, smooth_picture(48, 64))
        assert_within_jpeg_tolerance(received, smooth_picture(48, 64))
    process.send_signal(signal.SIGINT)
    out, err = process.communicate(timeout=60)
    assert process.returncode == 0, err
    assert out.strip() == f"returned {url}"
    assert port_is_free(int(URL.fullmatch(url).group(1)))


def test_a_window_asked_for_is_served_too_without_its_panel():
    if not os.environ.get("DISPLAY"):
        pytest.skip("needs an X display (run under xvfb-run)")
    picture = smooth_picture(96, 160)
    with served_viewer(window=True, panel=True) as viewer:
        assert viewer.is_window
        viewer.show(picture)
        with DeskClient(viewer.url) as page:
            _, received = read_until_shown(page, picture)
        assert_within_jpeg_tolerance(received, picture)  # the panel drawn over the window is not in it


def test_python_m_interop_lab_serves_a_file_and_refuses_a_bad_address(tmp_path):
    picture = smooth_picture(40, 56)
    numpy.save(tmp_path / "picture.npy", picture)
    command = [sys.executable, "-m", "interop_lab", str(tmp_path / "picture.npy"), "--mode", "cpu"]
    refused = subprocess.run([*command, "--serve", "99999"], capture_output=True, text=True)
    assert refused.returncode == 2
    assert "'99999' is not a port" in refused.stderr
    process = subprocess.Popen([*command, "--serve", "0"], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                               text=True)
    url = _url_from(process.stderr)
    with DeskClient(url) as page:
        _, received = read_until_shown(page, picture)
    assert_within_jpeg_tolerance(received, picture)
    process.send_signal(signal.SIGINT)
    _, err = process.communicate(timeout=60)
    assert process.returncode == 0, err
    assert port_is_free(int(URL.fullmatch(url).group(1)))


# The page's tools: what it sends is applied at the viewer's next poll() (or show()), which serves the frame
# again with a state saying what changed.

def from_page(served, page, command, applied, what=None):
    """Sends `command` as the page does, then polls the viewer until `applied()` holds."""
    page.send_json(command)
    wait_for(what or f"the page's {command}", lambda: (served.poll(fps=1000), applied())[1], timeout=10)


def state_where(page, holds):
    """The page's next state (its frame read past) for which holds(state) is true."""
    while True:
        state, _ = page.read_state_and_frame()
        if holds(state):
            return state


def test_the_pages_zoom_pan_1_1_and_fit_move_the_view_python_sees(served):
    served.show(smooth_picture(48, 80))  # in a 160x96 frame: contain, scale 2
    with DeskClient(served.url) as page:
        state, _ = page.read_state_and_frame()
        assert "picture_fit" in state["controls"]  # the picture's tools: the state's "viewer" says where it lies
        assert state["viewer"]["fit"] == "contain" and state["viewer"]["scale"] == [2.0, 2.0]
        assert state["viewer"]["image"] == [80, 48]
        before = served.view
        # The wheel at frame pixel (40, 30): the image point under it stays there.
        from_page(served, page, {"zoom": [40, 30, 2.0]}, lambda: served.view["free"])
        zoomed = served.view
        assert zoomed["scale"] == (4.0, 4.0)
        for axis, at in ((0, 40), (1, 30)):
            image_point = (at - before["origin"][axis]) / before["scale"][axis]
            assert zoomed["origin"][axis] + image_point * 4.0 == pytest.approx(at)
        shown = state_where(page, lambda s: s["viewer"]["free"])
        assert shown["viewer"]["scale"] == [4.0, 4.0]
        assert shown["viewer"]["origin"] == list(zoomed["origin"])
        # A drag of (7, -3) frame pixels.
        from_page(served, page, {"pan": [7, -3]}, lambda: served.view["origin"] != zoomed["origin"])
        assert served.view["origin"] == pytest.approx((zoomed["origin"][0] + 7, zoomed["origin"][1] - 3))
        # 1:1 at (50, 50), then back to the fit.
        from_page(served, page, {"actual_size": [50, 50]}, lambda: served.view["scale"] == (1.0, 1.0))
        from_page(served, page, {"fit": True}, lambda: not served.view["free"])
        assert served.view == before
        assert not state_where(page, lambda s: not s["viewer"]["free"])["viewer"]["free"]


def test_the_pages_view_changes_the_frame_it_gets(served):
    picture = smooth_picture(96, 160)
    served.show(picture)
    with DeskClient(served.url) as page:
        read_until_shown(page, picture)
        from_page(served, page, {"zoom": [0, 0, 4.0]}, lambda: served.view["free"])
        # The top-left 40x24 pixels, each a 4x4 square now: the frame read back, and what the page gets once
        # the frames made before the zoom have reached it.
        expected = numpy.repeat(numpy.repeat(picture[:24, :40], 4, axis=0), 4, axis=1)
        assert numpy.array_equal(served.read_frame(), expected)
        _, received = read_until_shown(page, expected)
        assert_within_jpeg_tolerance(received, expected)


def test_the_pages_cursor_gets_the_arrays_own_value_and_off_the_picture_the_windows_text(served):
    field = numpy.linspace(-3.0, 5.0, 48 * 80, dtype=numpy.float32).reshape(48, 80) / 7.0
    served.show(field, range="auto")  # 80x48 in 160x96: two frame pixels an image pixel
    with DeskClient(served.url) as page:
        page.read_state_and_frame()
        page.send_json({"hover": [21.5, 41.0]})  # image pixel (10, 20)
        wait_for("the page's cursor", lambda: served._take_page_commands(), timeout=10)
        state = state_where(page, lambda s: s["viewer"]["cursor"] is not None)
        assert state["viewer"]["cursor"] == [10, 20]
        readout = state["viewer"]["readout"]
        assert readout.startswith("x 10  y 20  "), readout
        value = float(readout.split()[-1])
        assert value == pytest.approx(float(field[20, 10]), rel=1e-6)  # the float32, not the byte it became
        assert value != pytest.approx(round(float((field[20, 10] - field.min()) / numpy.ptp(field) * 255)) / 255)
        page.send_json({"hover": None})
        wait_for("the page's cursor gone", lambda: served._take_page_commands(), timeout=10)
        off = state_where(page, lambda s: s["viewer"]["cursor"] is None)
        assert off["viewer"]["readout"] == "(cursor off the picture)"


def test_the_colorbar_goes_to_the_page_with_its_range_and_colours(served):
    field = numpy.linspace(2.0, 9.0, 96 * 160, dtype=numpy.float32).reshape(96, 160)
    low, high = served.show(field, range="auto", colormap="viridis")
    with DeskClient(served.url) as page:
        state = state_where(page, lambda s: "settings" in s)
        assert state["viewer"]["colorbar"] == {"low": pytest.approx(low), "high": pytest.approx(high)}
        table = interop_lab._colormaps.table("viridis")
        colours = state["settings"]["colormap"]
        assert len(colours) == 256 * 6
        assert [colours[i * 6:i * 6 + 6] for i in (0, 128, 255)] == [
            "%02x%02x%02x" % tuple(int(c) for c in table[i][:3]) for i in (0, 128, 255)]
        served.show(smooth_picture(96, 160))  # four channels: no colorbar
        state = state_where(page, lambda s: s["viewer"]["colorbar"] is None)
        assert state.get("settings", {"colormap": ""})["colormap"] == ""


def test_the_pages_controls_reach_python_and_pythons_values_reach_the_page(served):
    heard = []
    gain = served.slider("gain", 0.0, 4.0, value=1.0, callback=heard.append)
    on = served.checkbox("on")
    reset = served.button("reset")
    cmap = served.choice("cmap", ["gray", "viridis", "turbo"])
    served.show(smooth_picture(96, 160))
    with DeskClient(served.url) as page:
        state, _ = page.read_state_and_frame()
        assert [(c["name"], c["kind"], c["value"]) for c in state["viewer"]["controls"]] == [
            ("gain", "slider", 1.0), ("on", "checkbox", False), ("reset", "button", 0), ("cmap", "choice", "gray")]
        assert state["viewer"]["controls"][0]["low"] == 0.0 and state["viewer"]["controls"][0]["high"] == 4.0
        assert state["viewer"]["controls"][3]["options"] == ["gray", "viridis", "turbo"]
        from_page(served, page, {"control": {"name": "gain", "value": 2.5}}, lambda: gain.value == 2.5)
        assert heard == [2.5]  # the callback ran at that poll(), as a panel change's does
        from_page(served, page, {"control": {"name": "on", "value": True}}, lambda: on.value is True)
        from_page(served, page, {"control": {"name": "reset", "value": True}}, lambda: reset.value == 1)
        assert reset.clicked
        from_page(served, page, {"control": {"name": "cmap", "value": "turbo"}}, lambda: cmap.value == "turbo")
        # Python's own change shows on the page at once, not at the next picture.
        gain.value = 0.5
        state = state_where(page, lambda s: s["viewer"]["controls"][0]["value"] == 0.5)
        assert state["viewer"]["controls"][3]["value"] == "turbo"
        assert heard == [2.5]  # a program's change runs no callback


@pytest.mark.parametrize("command, reason", [
    ({"control": {"name": "gain", "value": 7}}, "slider 'gain': value 7 is outside 0..4: pass one within the range"),
    ({"control": {"name": "gain", "value": True}}, "slider 'gain': pass a number from its range, not true, false or text"),
    ({"control": {"name": "on", "value": 1}}, "checkbox 'on': pass true or false"),
    ({"control": {"name": "cmap", "value": "jet"}}, "choice 'cmap': pass one of its options: gray, turbo"),
    ({"control": {"name": "volume", "value": 1}}, "control 'volume': no such control; the array source has gain, on, cmap"),
    ({"index": 3}, "index 3: the array shown has 1 frame: pass one from 0 to 0"),
])
def test_a_bad_value_from_the_page_is_refused_with_why_and_changes_nothing(served, command, reason):
    gain = served.slider("gain", 0.0, 4.0, value=1.0)
    on = served.checkbox("on")
    cmap = served.choice("cmap", ["gray", "turbo"])
    served.show(smooth_picture(96, 160))
    with DeskClient(served.url) as page:
        page.read_state_and_frame()
        page.send_json(command)
        wait_for("the page's command", lambda: served._take_page_commands(), timeout=10)
        state = state_where(page, lambda s: s.get("notice"))
        assert state["notice"] == reason
        assert (gain.value, on.value, cmap.value, served.index) == (1.0, False, "gray", 0)


def test_a_malformed_view_command_is_refused_as_it_comes(served):
    served.show(smooth_picture(96, 160))
    with DeskClient(served.url) as page:
        page.read_state_and_frame()
        page.send_json({"zoom": [10, 20]})
        while True:
            is_text, message = page.read_message()
            if is_text and b'"error"' in message:
                break
        assert "zoom: [10,20] is not [x, y, factor]" in message.decode()


def test_the_pages_stack_slider_picks_the_frame_python_shows(served):
    stack = numpy.stack([numpy.full((96, 160), value, numpy.float32) for value in (0.0, 0.5, 1.0)])
    served.show(stack)
    with DeskClient(served.url) as page:
        state, _ = page.read_state_and_frame()
        assert (state["viewer"]["index"], state["viewer"]["frames"]) == (0, 3)
        from_page(served, page, {"index": 2}, lambda: served.index == 2)
        assert served.read_frame()[50, 80, 0] == 255  # frame 2, all ones, shown at that poll()
        state = state_where(page, lambda s: s["viewer"]["index"] == 2)
        assert state["viewer"]["frames"] == 3
