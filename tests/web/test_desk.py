#!/usr/bin/python3
"""tests/web/test_desk.py: the browser desk end to end in a real headless Chromium (Selenium).

Starts `interop-lab --api API --mode cpu --serve 127.0.0.1:PORT` (on Mesa here: Vulkan on lavapipe, GL on
EGL surfaceless), reads the URL with its token from the app's output, loads the page, waits for a frame,
switches the scene by clicking, sees the state and a new frame follow, resizes from the page, downloads the
screenshot through the page's button and compares it with the app's own `--headless --screenshot` of the same
frame (frames are a function of their index, so they must match), drops the socket and sees the page
reconnect, sets GL's map and register flags (a refusal in the notice; Vulkan, and GL in a mode that registers
nothing, grey them with the reason), asks for a
CUDA device that is not there, changes the postprocess filter and opens the doctor's report, sees the
frame's timeline (the graphics lane placed by its timestamps, inside the frame, drawn on the canvas; the desk's
read-back placed; lanes off the frame's clock saying why), sees a page on another port of 127.0.0.1 (the same
site: Chromium sends it the desk's cookie) refused the desk's WebSocket, then stops the app with SIGINT.

Run by CTest (tests/CMakeLists.txt): test_desk.py --app PATH --api vulkan|gl [--mode MODE]. Exits 77 (CTest's skip)
only where Chromium or its driver is missing, saying so.
"""
import functools
import glob
import http.server
import os
import re
import shutil
import subprocess
import sys
import tempfile
import threading

sys.dont_write_bytecode = True  # no __pycache__ in the source tree for its helper
from desk_page import (App, chromium_and_selenium, desk_test_arguments, desk_test_result, frames_drawn,  # noqa: E402
                       free_port, open_chromium, open_desk, wait_for)

SIZE = (320, 240)


def check_controls(driver, api, By):
    """The panel's flags, CUDA device, filter and doctor on the page: each clicked (or, where the app cannot
    take it, greyed with the reason), and the state follows; a refusal comes back in the notice."""
    from selenium.webdriver.support.ui import Select
    notice = driver.find_element(By.ID, "notice")
    map_flags = driver.find_element(By.ID, "map-flags")
    register_flags = driver.find_element(By.ID, "register-flags")
    if api == "gl":
        # In a mode that registers nothing (cpu) the selects are greyed with why; the app takes the flags all the
        # same (for the modes that register), sent as the page sends them.
        def pick(select, key, value):
            if select.is_enabled():
                Select(select).select_by_value(value)
            else:
                assert "registers nothing with CUDA" in select.get_attribute("title"), select.get_attribute("title")
                driver.execute_script(f"send({{{key}: '{value}'}});")
        # The pattern scene's one resource is written by CUDA: write-discard suits it, read-only does not.
        pick(map_flags, "map_flags", "write-discard")
        wait_for("map flags write-discard", lambda: map_flags.get_attribute("data-current") == "write-discard")
        pick(register_flags, "register_flags", "none")
        wait_for("register flags none", lambda: register_flags.get_attribute("data-current") == "none")
        pick(map_flags, "map_flags", "read-only")
        wait_for("the read-only refusal", lambda: "map flags read-only refused" in notice.text)
        wait_for("the flags to stay", lambda: map_flags.get_attribute("data-current") == "write-discard")
    else:
        for select in (map_flags, register_flags):
            assert not select.is_enabled(), "Vulkan's flags are not greyed"
            assert "registers nothing" in select.get_attribute("title"), select.get_attribute("title")

    # The CUDA device: greyed without one (here, Mesa) with the reason; a device that is not there is refused.
    device = driver.find_element(By.ID, "device")
    if not device.is_enabled():
        assert device.get_attribute("title"), "a greyed device list without its reason"
    driver.execute_script("send({device: 63});")
    wait_for("the device refusal", lambda: "CUDA device 63" in notice.text)

    # The filter: greyed outside the postprocess scene; there a click changes it.
    blur = driver.find_element(By.ID, "filter-blur")
    assert not blur.is_enabled(), "the filter is offered in a scene without one"
    driver.find_element(By.ID, "scene-postprocess").click()
    filters = driver.find_element(By.ID, "filters")
    wait_for("the postprocess filter", lambda: filters.get_attribute("data-current") == "sobel")
    wait_for("the filter to be offered", lambda: driver.find_element(By.ID, "filter-blur").is_enabled())
    driver.find_element(By.ID, "filter-blur").click()
    wait_for("the blur filter", lambda: filters.get_attribute("data-current") == "blur")

    # The doctor's report, in either API's app: every source of this build (main's API table: GL's, on the
    # app's context or, in Vulkan's app, on one of the doctor's own beside it; Vulkan's with its handle
    # types; the environment's with its MPS line).
    driver.find_element(By.CSS_SELECTOR, "#doctor-section summary").click()
    doctor = driver.find_element(By.ID, "doctor")
    expected = ["GL context", "handle types here", "MPS"]
    # The text the page put there (textContent: .text is empty while a state message re-lays the page out).
    wait_for("the doctor's report",
             lambda: all(part in (doctor.get_attribute("textContent") or "") for part in expected))
    assert driver.find_element(By.ID, "doctor-section").get_attribute("open") is not None, "the section opened"


def check_another_origin(driver, desk_url, work):
    """A page on another port of 127.0.0.1 opens the desk's WebSocket: Chromium counts it the same site and
    sends the desk's cookie, so only the Origin check keeps it out. Its page title says what happened."""
    desk = re.match(r"http://(127\.0\.0\.1:\d+)/", desk_url).group(1)
    other = os.path.join(work, "other-site")
    os.makedirs(other)
    with open(os.path.join(other, "index.html"), "w") as page:
        page.write(f"""<!doctype html><title>connecting</title><script>
const socket = new WebSocket("ws://{desk}/");
socket.onopen = () => {{ document.title = "open"; socket.close(); }};
socket.onclose = () => {{ if (document.title !== "open") document.title = "refused"; }};
</script>""")
    handler = functools.partial(http.server.SimpleHTTPRequestHandler, directory=other)
    handler.log_message = lambda *args: None
    server = http.server.ThreadingHTTPServer(("127.0.0.1", free_port()), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        driver.get(f"http://127.0.0.1:{server.server_address[1]}/index.html")
        wait_for("the other page's socket to open or be refused", lambda: driver.title in ("open", "refused"))
        assert driver.title == "refused", "a page of another origin opened the desk's WebSocket"
    finally:
        server.shutdown()
        server.server_close()


def main():
    parser = desk_test_arguments()
    parser.add_argument("--api", required=True, choices=["vulkan", "gl"])
    # cpu runs anywhere; on a GPU machine staging (Vulkan) or interop (GL) puts CUDA in the loop.
    parser.add_argument("--mode", default="cpu")
    args = parser.parse_args()

    webdriver, Service, By, chromium, driver_binary = chromium_and_selenium()

    work = tempfile.mkdtemp(prefix="interop-lab-desk-")
    downloads = os.path.join(work, "downloads")
    os.makedirs(downloads)
    app = App(args.app, ["--api", args.api, "--mode", args.mode, "--scene", "wave", "--size", f"{SIZE[0]}x{SIZE[1]}"],
              free_port())
    driver = None
    try:
        url = app.url()
        driver = open_chromium(webdriver, Service, chromium, driver_binary, os.path.join(work, "profile"))
        driver.execute_cdp_cmd("Page.setDownloadBehavior", {"behavior": "allow", "downloadPath": downloads})

        # Without the token the page is refused.
        driver.get(url.split("?")[0])
        assert "403" in driver.find_element(By.TAG_NAME, "body").text, driver.page_source

        canvas = open_desk(driver, By, url)
        drawn = lambda: frames_drawn(canvas)
        scenes = driver.find_element(By.ID, "scenes")
        wait_for("the state's scene", lambda: scenes.get_attribute("data-current") == "wave")
        assert (canvas.get_attribute("width"), canvas.get_attribute("height")) == tuple(map(str, SIZE))
        # The size fields say the frame's size (not the page's default) until one types another.
        wait_for("the size fields at the frame's size", lambda: (
            driver.find_element(By.ID, "width").get_attribute("value"),
            driver.find_element(By.ID, "height").get_attribute("value")) == tuple(map(str, SIZE)))
        api_text = driver.find_element(By.ID, "api").text
        assert ("Vulkan" if args.api == "vulkan" else "OpenGL") in api_text, api_text

        # Unavailable modes are greyed with their reason; the running one is checked.
        modes = driver.find_element(By.ID, "modes")
        wait_for("the mode list", lambda: modes.get_attribute("data-current") == args.mode)
        for label in modes.find_elements(By.CSS_SELECTOR, "label.unavailable"):
            assert label.get_attribute("title"), "an unavailable mode without its reason"
            assert label.find_element(By.TAG_NAME, "input").get_attribute("disabled")
        assert driver.find_element(By.ID, f"mode-{args.mode}").is_selected()

        # The timings table fills from the state.
        wait_for("the timings", lambda: "frame" in driver.find_element(By.ID, "timings").text)
        # The rows add up to the frame: the remainder no timer saw is a row of its own; a phase whose GPU
        # timer saw no work (llvmpipe's draw) says so in one cell across the three numbers' columns.
        rows = wait_for("the other (not timed) row", lambda: (lambda got: got if any(
            cells and cells[0] == "other (not timed)" for cells, _ in got) else None)(driver.execute_script(
                "return [...document.querySelectorAll('#timings tbody tr')].map((tr) =>"
                "  [[...tr.cells].map((td) => td.textContent), [...tr.cells].map((td) => td.colSpan)]);")))
        for cells, spans in rows:
            if "not measured here" in cells:
                assert cells[1] in ("gl", "vulkan") and spans == [1, 1, 3], (cells, spans)

        # The frame's timeline: the desk's read-back placed on the host clock; lanes off it say why.
        # Read in one script: every state message replaces the list's items.
        read_lanes = lambda: driver.execute_script(
            "return [...document.querySelectorAll('#timeline-lanes li')]"
            ".map((li) => [li.dataset.lane, li.dataset.placed, li.textContent]);")
        lanes = wait_for("the timeline's desk lane",
                         lambda: (lambda got: got if any(lane == "desk" and placed == "true" for lane, placed, _ in got)
                                  else None)(read_lanes()))
        for lane, placed, text in lanes:
            if lane == "desk":
                assert "read-back" in text, text
            elif placed == "false":
                assert "not on the frame's clock" in text, text

        # The loop's own lanes placed by their timestamps (GL's GL_TIMESTAMP counters or Vulkan's, host times
        # for the cpu mode's kernel): the state message carries the spans, inside the frame, and the canvas
        # draws the graphics lane's bars in its colour.
        timeline = wait_for("a timeline with its graphics lane placed", lambda: driver.execute_script(
            "const t = state && state.timeline;"
            "return t && t.lanes.some((l) => l.lane === 'graphics' && l.placed) ? t : null;"))
        graphics = [span for span in timeline["spans"] if span["lane"] == "graphics"]
        assert graphics, timeline
        assert any(span["lane"] == "desk" and span["name"].startswith("read-back") for span in timeline["spans"]), timeline
        tolerance = 0.5  # ms: the calibrations' uncertainty, generously
        for span in graphics:
            assert -tolerance <= span["start_ms"] <= span["end_ms"] <= timeline["frame_ms"] + tolerance, timeline
        painted = wait_for("the graphics lane's bars on the canvas", lambda: driver.execute_script(
            "const c = document.getElementById('timeline');"
            "const d = c.getContext('2d').getImageData(0, 0, c.width, c.height).data;"
            "let n = 0; for (let i = 0; i < d.length; i += 4)"
            "  if (d[i] === 0x66 && d[i + 1] === 0xcc && d[i + 2] === 0xff && d[i + 3] === 255) ++n;"
            "return n;"))
        assert int(driver.find_element(By.ID, "timeline").get_attribute("data-spans")) > 0
        print(f"timeline of frame {timeline['frame']}: {len(timeline['spans'])} spans, {painted} graphics pixels")

        # Switching the scene by clicking: the state follows, and frames keep coming.
        before = drawn()
        driver.find_element(By.ID, "scene-pattern").click()
        wait_for("the pattern scene", lambda: scenes.get_attribute("data-current") == "pattern")
        switched_at = int(canvas.get_attribute("data-frame"))
        wait_for("a frame after the switch", lambda: drawn() > before + 1 and
                 int(canvas.get_attribute("data-frame")) > switched_at)

        # The screenshot button downloads the exact last frame.
        driver.find_element(By.ID, "screenshot").click()
        shot = wait_for("the screenshot download",
                        lambda: [path for path in glob.glob(os.path.join(downloads, "interop-lab-frame-*.png"))])[0]
        wait_for("the download to finish", lambda: not glob.glob(os.path.join(downloads, "*.crdownload")))
        frame = int(re.search(r"interop-lab-frame-(\d+)\.png$", shot).group(1))
        # The app rendering that frame of the pattern scene on its own: the same pixels.
        reference = os.path.join(work, "reference.png")
        subprocess.run([args.app, "--api", args.api, "--mode", args.mode, "--scene", "pattern", "--size",
                        f"{SIZE[0]}x{SIZE[1]}", "--headless", "--frames", str(frame + 1), "--screenshot", reference],
                       check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, timeout=300)
        diff = subprocess.run([args.app, "diff", shot, reference], capture_output=True, text=True)
        assert diff.returncode == 0, f"the downloaded frame {frame} differs from --screenshot's: {diff.stdout}{diff.stderr}"

        # A dropped connection: the page reconnects and frames come again.
        before = drawn()
        driver.execute_script("socket.close();")
        status = driver.find_element(By.ID, "connection")
        wait_for("the page to see the drop", lambda: "disconnected" in status.text)
        wait_for("the page to reconnect", lambda: status.text == "connected")
        wait_for("frames after reconnecting", lambda: drawn() > before + 1)

        # Resizing from the page: the frames come at the new size.
        for field, value in (("width", "256"), ("height", "128")):
            box = driver.find_element(By.ID, field)
            box.clear()
            box.send_keys(value)
        driver.find_element(By.ID, "apply-size").click()
        wait_for("a frame at 256x128", lambda: (canvas.get_attribute("width"), canvas.get_attribute("height")) ==
                 ("256", "128"))
        check_controls(driver, args.api, By)
        check_another_origin(driver, url, work)
        print(f"ok: {args.api}: frames drawn, scene switched, screenshot of frame {frame} matches, reconnected, "
              "resized, flags, device, filter and doctor shown, another origin's socket refused")
    finally:
        if driver is not None:
            driver.quit()
        exit_code = app.stop()
        shutil.rmtree(work, ignore_errors=True)
    return desk_test_result(app, exit_code)


if __name__ == "__main__":
    sys.exit(main())
