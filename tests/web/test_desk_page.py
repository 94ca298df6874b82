#!/usr/bin/python3
"""tests/web/test_desk_page.py: the desk's page as a new user meets it, in a real headless Chromium (Selenium).

Starts `interop-lab --api gl --mode cpu --serve 127.0.0.1:PORT` and checks, each against what the page renders:
- the layout: at 1280 px the panel beside the frame, at 700 px under it with the frame nearly the window's width;
- the frame's scale: 1:1 is the frame's own size, fit the pane's width, a wheel zoom in draws square pixels;
- controls that do not apply are greyed with the reason as their tooltip (GL's map and register flags in the
  cpu mode, which registers nothing), the API row has no parentheses in parentheses, a radio stays with its
  name;
- a refused command's notice (a size past the desk's limit) clears when the next command (a frame-rate cap)
  succeeds, and the cap applies;
- every control of the control table (GET controls.json) that the page shows is on it, enabled or greyed with
  why as its tooltip, and the ones it does not show say why not;
- pause stops the animation clock while the frames go on (two frames the app serves while paused are the same
  picture), step moves it one frame (1/60 s) on, and it runs again when unpaused;
- the app stopped and started again on the same port (a new token): the page says its token was refused and
  that the new URL is needed, instead of reconnecting for ever.

Run by CTest (tests/CMakeLists.txt): test_desk_page.py --app PATH. Exits 77 (CTest's skip) only where Chromium
or its driver is missing, saying so.
"""
import os
import shutil
import sys
import tempfile
import urllib.request

sys.dont_write_bytecode = True  # no __pycache__ in the source tree for its helper
from desk_page import (App, chromium_and_selenium, desk_test_arguments, desk_test_result, frames_drawn,  # noqa: E402
                       free_port, open_chromium, open_desk, wait_for)

SIZE = (320, 240)
TOKEN_REFUSED = "this page's token was refused: open the new URL interop-lab printed"


def rect(driver, element_id):
    return driver.execute_script(
        "const r = document.getElementById(arguments[0]).getBoundingClientRect();"
        "return {left: r.left, top: r.top, right: r.right, bottom: r.bottom, width: r.width, height: r.height};",
        element_id)


def check_layout(driver):
    """Wide: the panel beside the frame. Narrow: under it, the frame keeping the window's width."""
    driver.set_window_size(1280, 900)
    wait_for("the panel beside the frame", lambda: rect(driver, "panel")["left"] >= rect(driver, "view")["right"])
    assert abs(rect(driver, "panel")["top"] - rect(driver, "view")["top"]) < 2, (rect(driver, "panel"),
                                                                                 rect(driver, "view"))
    driver.set_window_size(700, 900)
    wait_for("the panel under the frame", lambda: rect(driver, "panel")["top"] >= rect(driver, "frame")["bottom"])
    width = rect(driver, "frame")["width"]
    assert width >= 600, f"at 700 px wide the frame is {width} px wide"
    driver.set_window_size(1280, 900)
    wait_for("the panel beside the frame again",
             lambda: rect(driver, "panel")["left"] >= rect(driver, "view")["right"])


def check_zoom(driver, By):
    """1:1 is the frame's size in pixels, fit the pane's width; zoomed in by the wheel, pixels are squares."""
    canvas = driver.find_element(By.ID, "frame")
    natural = (int(canvas.get_attribute("width")), int(canvas.get_attribute("height")))
    ratio = driver.execute_script("return devicePixelRatio;")
    driver.find_element(By.ID, "zoom-1").click()
    box = rect(driver, "frame")
    assert abs(box["width"] * ratio - natural[0]) < 1 and abs(box["height"] * ratio - natural[1]) < 1, (box, natural)
    driver.find_element(By.ID, "zoom-fit").click()
    pane = driver.execute_script("return document.getElementById('frame-box').clientWidth;")
    box = rect(driver, "frame")
    assert abs(box["width"] - pane) < 1, (box, pane)
    assert abs(box["height"] - pane * natural[1] / natural[0]) < 1, (box, pane, natural)
    # The wheel over the frame zooms in from where it is, each frame pixel drawn as a square.
    driver.find_element(By.ID, "zoom-1").click()
    driver.execute_script("document.getElementById('frame-box').dispatchEvent("
                          "new WheelEvent('wheel', {deltaY: -100, bubbles: true, cancelable: true}));")
    zoomed = rect(driver, "frame")["width"] * ratio
    assert abs(zoomed - natural[0] * 1.25) < 1, (zoomed, natural)
    assert driver.execute_script("return getComputedStyle(document.getElementById('frame')).imageRendering;") \
        == "pixelated"
    driver.find_element(By.ID, "zoom-fit").click()


def check_controls(driver, By):
    """What does not apply is greyed with why; the API row reads without nested parentheses."""
    map_flags = driver.find_element(By.ID, "map-flags")
    wait_for("the flags greyed in the cpu mode", lambda: not map_flags.is_enabled())
    assert "the cpu mode registers nothing with CUDA" in map_flags.get_attribute("title"), \
        map_flags.get_attribute("title")
    assert not driver.find_element(By.ID, "register-flags").is_enabled()
    api = driver.find_element(By.ID, "api").text
    depth = deepest = 0
    for letter in api:
        depth += {"(": 1, ")": -1}.get(letter, 0)
        deepest = max(deepest, depth)
    assert deepest <= 1, f"the API row nests parentheses: {api}"
    # Each mode's radio on the same line as its name, however the panel wraps the list. Read once the list
    # holds still: a state message may rebuild it between reading a radio's place and its label's.
    from selenium.common.exceptions import StaleElementReferenceException

    def misplaced():
        try:
            for label in driver.find_elements(By.CSS_SELECTOR, "#modes label"):
                radio = label.find_element(By.TAG_NAME, "input")
                if label.value_of_css_property("white-space") != "nowrap":
                    return label.text + " wraps"
                if abs(radio.rect["y"] + radio.rect["height"] / 2 - (label.rect["y"] + label.rect["height"] / 2)) >= 4:
                    return label.text + " off its radio's line"
        except StaleElementReferenceException:
            return "the list was rebuilt while read"
        return None

    wait_for("each mode's radio on its name's line", lambda: misplaced() is None, said=misplaced)


def check_notice_clears(driver, By):
    """A refused size says why; the frame-rate cap set next applies, and the notice goes."""
    notice = driver.find_element(By.ID, "notice")
    width = driver.find_element(By.ID, "width")
    width.clear()
    width.send_keys("99999")
    driver.find_element(By.ID, "apply-size").click()
    wait_for("the size refusal", lambda: "99999" in notice.text)
    fps = driver.find_element(By.ID, "fps")
    fps.clear()
    fps.send_keys("5")
    driver.find_element(By.ID, "apply-fps").click()
    wait_for("the cap of 5 frames/s", lambda: driver.execute_script("return state && state.desk.fps_cap;") == 5)
    wait_for("the notice to clear", lambda: notice.text == "")
    # And it stays clear: no later state brings the old notice back.
    canvas = driver.find_element(By.ID, "frame")
    shown = frames_drawn(canvas)
    wait_for("two more frames", lambda: frames_drawn(canvas) >= shown + 2)
    assert notice.text == "", notice.text


# The controls the page holds but shows only where they apply in every state (with why elsewhere).
SHOWN_ONLY_WHERE_THEY_APPLY = {"source": "only while another process's frames are shown (web.desk_attach_gl)",
                               "hover": "a Python viewer's (python/tests/test_viewer_serve_page.py)",
                               "index": "a Python viewer's (python/tests/test_viewer_serve_page.py)",
                               "control": "a Python viewer's (python/tests/test_viewer_serve_page.py)"}


def check_every_control(driver, By):
    """The control table's controls on the page: each the page shows is there once, visible, and enabled or
    greyed with why; each it does not show names why not."""
    wait_for("the control table", lambda: driver.execute_script("return controlTable !== null;"))
    table = driver.execute_script("return controlTable.controls;")
    keys = [control["key"] for control in table]
    assert {"scene", "mode", "size", "fps", "pause", "step", "graph", "timing"} <= set(keys), keys
    wait_for("the settings", lambda: driver.execute_script("return settings !== null;"))
    for control in table:
        elements = driver.find_elements(By.CSS_SELECTOR, f'[data-control="{control["key"]}"]')
        if control["not_on_page"]:
            assert not elements, f"{control['key']}: on the page, though the table says: {control['not_on_page']}"
            continue
        assert len(elements) == 1, f"{control['key']}: {len(elements)} elements on the page"
        element = elements[0]
        if control["key"] in SHOWN_ONLY_WHERE_THEY_APPLY:
            continue
        assert element.is_displayed(), f"{control['key']}: not shown"
        # A group of radios (scene, mode, filter) is greyed by its radios, each label with its reason.
        for each in element.find_elements(By.TAG_NAME, "label") or [element]:
            field = each.find_element(By.TAG_NAME, "input") if each.tag_name == "label" else each
            if not field.is_enabled():
                assert each.get_attribute("title"), f"{control['key']}: greyed without why"


def frame_png(url):
    """The app's frame as GET screenshot.png serves it: the frame index it holds and the PNG's bytes."""
    with urllib.request.urlopen(url.replace("/?", "/screenshot.png?"), timeout=30) as reply:
        return int(reply.headers["X-Interop-Lab-Frame"]), reply.read()


def check_pause_and_step(driver, By, url):
    """Paused, the frames go on and stay the same picture; a step is one frame (1/60 s) on; unpaused, on."""
    pause = driver.find_element(By.ID, "pause")
    pause.click()
    wait_for("the app paused", lambda: driver.execute_script("return paused();") is True)
    stopped = driver.execute_script("return settings.clock_s;")
    first_frame, first = frame_png(url)
    wait_for("two frames more", lambda: frame_png(url)[0] >= first_frame + 2)
    later_frame, later = frame_png(url)
    assert later_frame > first_frame, (first_frame, later_frame)
    assert later == first, f"frames {first_frame} and {later_frame} differ while paused"
    driver.find_element(By.ID, "step").click()
    wait_for("one step on", lambda: abs(driver.execute_script("return settings.clock_s;") - (stopped + 1 / 60))
             < 1e-3)
    stepped_frame, stepped = frame_png(url)
    assert stepped != first, f"frame {stepped_frame} after a step is frame {first_frame}'s picture"
    pause.click()
    wait_for("the app running again", lambda: driver.execute_script("return paused();") is False)
    wait_for("the picture moving again", lambda: frame_png(url)[1] != stepped)


def main():
    parser = desk_test_arguments()
    args = parser.parse_args()

    webdriver, Service, By, chromium, driver_binary = chromium_and_selenium()

    work = tempfile.mkdtemp(prefix="interop-lab-desk-page-")
    port = free_port()
    app_args = ["--api", "gl", "--mode", "cpu", "--scene", "pattern", "--size", f"{SIZE[0]}x{SIZE[1]}"]
    app = App(args.app, app_args, port)
    restarted = None
    driver = None
    try:
        url = app.url()
        driver = open_chromium(webdriver, Service, chromium, driver_binary, os.path.join(work, "profile"),
                               (1280, 900))
        canvas = open_desk(driver, By, url)
        wait_for("the frame at its size", lambda: canvas.get_attribute("width") == str(SIZE[0]))
        check_layout(driver)
        check_zoom(driver, By)
        check_controls(driver, By)
        check_notice_clears(driver, By)
        check_every_control(driver, By)
        check_pause_and_step(driver, By, url)

        # The app restarted on the same port: a new token, which the page's is not.
        status = driver.find_element(By.ID, "connection")
        assert app.stop() == 130, app.said()
        wait_for("the page to see the app gone", lambda: "disconnected" in status.text)
        restarted = App(args.app, app_args, port)
        new_url = restarted.url()
        assert new_url != url, "the restarted app kept its token"
        wait_for("the refused token's message", lambda: status.text == TOKEN_REFUSED, timeout=60)
        print(f"ok: layout, zoom, greyed flags, notice cleared, every control, pause and step, restart said: "
              f"{status.text}")
    finally:
        if driver is not None:
            driver.quit()
        app.stop()
        exit_code = restarted.stop() if restarted else 130
        shutil.rmtree(work, ignore_errors=True)
    return desk_test_result(restarted, exit_code, "the restarted interop-lab")


if __name__ == "__main__":
    sys.exit(main())
