"""A served interop_lab.Viewer's page in a real headless Chromium (Selenium, as tests/web/test_desk.py drives the
app's): the page draws the viewer's frame (its canvas pixels are what was shown, within the desk's JPEG
tolerance), shows the path, hides the app's scene, mode, size and frame-rate controls, and fills the viewer's
timings. Skips where Chromium, its driver or Selenium is missing (scripts/setup.sh installs them), saying so."""

import os
import re
import shutil
import warnings

import numpy
import pytest

import interop_lab
from desk_client import wait_for
from test_viewer_serve_cpu import assert_within_jpeg_tolerance, smooth_picture


@pytest.fixture
def browser(tmp_path):
    chromium, driver_binary = shutil.which("chromium"), shutil.which("chromedriver")
    if not chromium or not driver_binary:
        pytest.skip("needs chromium and chromedriver: scripts/setup.sh installs chromium and chromium-driver")
    try:
        from selenium import webdriver
        from selenium.webdriver.chrome.service import Service
    except ImportError as error:
        pytest.skip(f"needs Selenium ({error}): scripts/setup.sh installs python3-selenium")
    options = webdriver.ChromeOptions()
    options.binary_location = chromium
    for flag in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--disable-gpu",
                 f"--user-data-dir={os.path.join(tmp_path, 'profile')}"):
        options.add_argument(flag)
    driver = webdriver.Chrome(service=Service(driver_binary), options=options)
    try:
        yield driver
    finally:
        driver.quit()


def canvas_pixels(driver):
    """The page's frame canvas as a (height, width, 4) uint8 array."""
    width, height, data = driver.execute_script(
        "const c = document.getElementById('frame');"
        "return [c.width, c.height, Array.from(c.getContext('2d').getImageData(0, 0, c.width, c.height).data)];")
    return numpy.array(data, dtype=numpy.uint8).reshape(height, width, 4)


def test_the_page_shows_the_viewer_and_only_what_applies_to_it(browser):
    from selenium.webdriver.common.by import By

    picture = smooth_picture(120, 200)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", interop_lab.PathNotice)
        viewer = interop_lab.Viewer(size=(200, 120), mode="cpu", serve=0)
    with viewer:
        viewer.show(picture)
        browser.get(viewer.url)
        canvas = browser.find_element(By.ID, "frame")
        wait_for("the viewer's frame", lambda: int(canvas.get_attribute("data-frames-drawn") or 0) >= 1)
        assert (canvas.get_attribute("width"), canvas.get_attribute("height")) == ("200", "120")
        assert_within_jpeg_tolerance(canvas_pixels(browser), picture)
        # The app's own loop makes the viewer's frames: its page, but for the scenes, which the caller's pictures
        # replace.
        wait_for("the loop's modes", lambda: browser.find_element(By.ID, "modes").is_displayed())
        assert not browser.find_element(By.ID, "scenes").is_displayed(), "scenes shown for a viewer"
        assert browser.find_element(By.ID, "screenshot").is_displayed()
        wait_for("the loop's timings", lambda: "kernel" in browser.find_element(By.ID, "timings").text)
        # A viewer has one path, no modes to compare: no empty "modes compared" table.
        assert not browser.find_element(By.ID, "compared-title").is_displayed()
        assert not browser.find_element(By.ID, "compared").is_displayed()
        # Its timeline is in ms from the frame's start: the axis a frame long, not the host clock's.
        axis = wait_for("the timeline's axis", lambda: browser.execute_script(
            "return state && state.timeline.spans.length ? state.timeline : null;"))
        assert 0 < axis["frame_ms"] < 10_000, axis

        # The next picture shown is drawn next.
        moved = smooth_picture(120, 200, phase=2.0)
        drawn = int(canvas.get_attribute("data-frames-drawn"))
        viewer.show(moved)
        wait_for("the next frame", lambda: int(canvas.get_attribute("data-frames-drawn")) > drawn)
        assert_within_jpeg_tolerance(canvas_pixels(browser), moved)


def frame_offset(driver, x, y):
    """Selenium's offset from the frame canvas's centre (CSS pixels) of frame pixel (x, y)'s centre."""
    width, height, css_width, css_height = driver.execute_script(
        "const c = document.getElementById('frame'); const r = c.getBoundingClientRect();"
        "return [c.width, c.height, r.width, r.height];")
    return (round((x + 0.5) * css_width / width - css_width / 2),
            round((y + 0.5) * css_height / height - css_height / 2)), css_width / width


def test_the_pages_cursor_wheel_drag_colorbar_and_slider_reach_the_viewer(browser):
    from selenium.webdriver.common.action_chains import ActionChains
    from selenium.webdriver.common.actions.wheel_input import ScrollOrigin
    from selenium.webdriver.common.by import By

    field = numpy.linspace(-2.0, 6.0, 60 * 100, dtype=numpy.float32).reshape(60, 100) / 3.0
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", interop_lab.PathNotice)
        viewer = interop_lab.Viewer(size=(200, 120), mode="cpu", serve=0)  # 100x60 contained: 2 pixels each
    with viewer:
        gain = viewer.slider("gain", 0.0, 4.0, value=1.0)
        low, high = viewer.show(field, range="auto", colormap="viridis")
        browser.get(viewer.url)
        canvas = browser.find_element(By.ID, "frame")
        wait_for("the viewer's frame", lambda: int(canvas.get_attribute("data-frames-drawn") or 0) >= 1)

        def pump(what, condition, said=lambda: ""):  # the caller's loop: poll() applies what the page sent
            return wait_for(what, lambda: (viewer.poll(fps=1000), condition())[1], timeout=30, said=said)

        # The colorbar: its range, and the colormap's ends drawn.
        pump("the colorbar", lambda: browser.find_element(By.ID, "colorbar-box").is_displayed())
        assert float(browser.find_element(By.ID, "colorbar-low").text) == pytest.approx(low, rel=1e-5)
        assert float(browser.find_element(By.ID, "colorbar-high").text) == pytest.approx(high, rel=1e-5)
        ends = browser.execute_script(
            "const c = document.getElementById('colorbar').getContext('2d');"
            "return [Array.from(c.getImageData(0, 7, 1, 1).data), Array.from(c.getImageData(255, 7, 1, 1).data)];")
        table = interop_lab._colormaps.table("viridis")
        assert [end[:3] for end in ends] == [[int(c) for c in table[0][:3]], [int(c) for c in table[255][:3]]]

        # The cursor over frame pixel (41, 61), about image pixel (20, 30) (the mouse lands on a whole CSS pixel):
        # the readout names the pixel and says the array's own float32 there, not the byte it became.
        (dx, dy), css_per_pixel = frame_offset(browser, 41, 61)
        ActionChains(browser).move_to_element_with_offset(canvas, dx, dy).perform()
        readout = browser.find_element(By.ID, "readout")
        text = pump("the readout", lambda: re.fullmatch(r"x (\d+)  y (\d+)  (\S+)", readout.get_attribute("textContent")),
                    said=lambda: f"the page says {readout.get_attribute('textContent')!r}")
        x, y = int(text.group(1)), int(text.group(2))
        assert abs(x - 20) <= 2 and abs(y - 30) <= 2, text.group(0)
        assert float(text.group(3)) == pytest.approx(float(field[y, x]), rel=1e-6)
        assert float(text.group(3)) == pytest.approx(float(viewer.value_at(x, y)), rel=1e-6)
        # Off the frame: the window's text.
        ActionChains(browser).move_to_element_with_offset(browser.find_element(By.ID, "panel"), 0, 0).perform()
        pump("the readout off the frame", lambda: readout.get_attribute("textContent") == "(cursor off the picture)")

        # The wheel over the frame zooms there: the viewer's view, and the frame the page draws.
        before = canvas_pixels(browser)
        drawn = int(canvas.get_attribute("data-frames-drawn"))
        ActionChains(browser).scroll_from_origin(ScrollOrigin.from_element(canvas, dx, dy), 0, -120).perform()
        pump("the page's zoom", lambda: viewer.view["free"])
        assert viewer.view["scale"][0] == pytest.approx(2.5)  # 2 x 1.25: one notch
        wait_for("the zoomed frame", lambda: int(canvas.get_attribute("data-frames-drawn")) > drawn)
        assert numpy.abs(canvas_pixels(browser).astype(int) - before.astype(int)).max() > 16
        assert browser.find_element(By.ID, "zoom-level").text.startswith("zoom 2.5")

        # A drag of 30 CSS pixels to the right pans by that many frame pixels.
        origin = viewer.view["origin"]
        ActionChains(browser).move_to_element_with_offset(canvas, dx, dy).click_and_hold().move_by_offset(
            30, 0).release().perform()
        pump("the page's drag", lambda: viewer.view["origin"][0] != origin[0])
        assert viewer.view["origin"][0] - origin[0] == pytest.approx(30 / css_per_pixel, abs=1.0)
        assert viewer.view["origin"][1] == pytest.approx(origin[1], abs=1.0)
        # F fits again.
        ActionChains(browser).send_keys("f").perform()
        pump("the page's fit", lambda: not viewer.view["free"])

        # The caller's slider on the page: a change reaches gain.value at poll().
        slider = browser.find_element(By.CSS_SELECTOR, '#viewer-controls [data-name="gain"] input')
        browser.execute_script("arguments[0].value = '3'; arguments[0].dispatchEvent(new Event('input'));", slider)
        pump("the page's slider", lambda: gain.value == 3.0)
        gain.value = 0.5  # and Python's change reaches the page
        wait_for("Python's value on the page", lambda: slider.get_attribute("value") == "0.5")
