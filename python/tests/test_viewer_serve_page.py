"""A served interop_lab.Viewer's page in a real headless Chromium (Selenium, as tests/web/test_desk.py drives the
app's): the page draws the viewer's frame (its canvas pixels are what was shown, within the desk's JPEG
tolerance), shows the path, hides the app's scene, mode, size and frame-rate controls, and fills the viewer's
timings. Skips where Chromium, its driver or Selenium is missing (scripts/setup.sh installs them), saying so."""

import os
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
        wait_for("the path", lambda: browser.find_element(By.ID, "path").text.startswith("cpu"))
        assert browser.find_element(By.ID, "path-row").is_displayed()
        for control in ("scenes", "modes", "apply-size", "apply-fps"):
            assert not browser.find_element(By.ID, control).is_displayed(), f"{control} shown for a viewer"
        assert browser.find_element(By.ID, "screenshot").is_displayed()
        wait_for("the viewer's timings", lambda: "upload" in browser.find_element(By.ID, "timings").text)
        assert "draw" in browser.find_element(By.ID, "timings").text
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
