#!/usr/bin/python3
"""tests/web/test_desk_attach.py: the desk's page while interop-lab shows another process's frames (--attach), in a
real headless Chromium (Selenium).

Two publishers (interop_lab.Publisher with memory='host': memfd slots, no GPU), each a small Python process that
publishes a frame of its own size thirty times a second with a rising frame index; then
`interop-lab --api gl --attach desk-first --mode cpu --serve 127.0.0.1:PORT`. Checked against what the page
renders:
- the source row says "published desk-first" with the publisher's frame index, which rises;
- the scenes are greyed with the reason (the frames are the publisher's), the filter says why it has none;
- the publisher select lists both; picking the second shows its frames at its size, and the row names it;
- the picture's tools, as beside a Python viewer's frame: the value of the pixel under the page's cursor (the
  publisher's own bytes), a zoom and a fit that the app applies to the picture in its frame;
- a name nothing publishes, sent as the select would, comes back as the notice and changes nothing.

Run by CTest (tests/CMakeLists.txt): test_desk_attach.py --app PATH --python-path BUILD/python. Exits 77 (CTest's
skip) only where Chromium or its driver is missing, saying so.
"""
import os
import re
import shutil
import subprocess
import sys
import tempfile

sys.dont_write_bytecode = True  # no __pycache__ in the source tree for its helper
from desk_page import (App, chromium_and_selenium, desk_test_arguments, desk_test_result, free_port,  # noqa: E402
                       open_chromium, open_desk, wait_for)

FIRST, SECOND = ("desk-first", (48, 64)), ("desk-second", (40, 80))  # name, (height, width)

# One publisher: a picture of its own, its first row's first byte the frame index (mod 256), shown thirty times a
# second until its stdin closes; "published" once the first frame is out.
PUBLISHER = r"""
import sys, threading, time, numpy, interop_lab
name, height, width = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
y, x = numpy.mgrid[0:height, 0:width]
picture = numpy.stack([(x * 4) % 256, (y * 4) % 256, numpy.full_like(x, width), numpy.full_like(x, 255)], -1)
picture = picture.astype(numpy.uint8)
closed = threading.Event()
threading.Thread(target=lambda: (sys.stdin.read(), closed.set()), daemon=True).start()
with interop_lab.Publisher(name, picture.shape, "uint8", memory="host") as publisher:
    index = 0
    while not closed.is_set():
        picture[0, 0, 0] = index % 256
        publisher.show(picture)
        if index == 0:
            print("published", flush=True)
        index += 1
        time.sleep(1 / 30)
"""

# "published NAME: 64x48 uint8x4, host slots, ... frame 12 of pid 4242, 0 skipped" (what PublishedSource::status
# says between the slots and the frame may grow).
ROW = re.compile(r"^published (\S+): (\d+)x(\d+) uint8x4, host slots, .*?frame (\d+) of pid \d+, \d+ skipped$")


class Publisher:
    def __init__(self, name, shape, environment):
        self.process = subprocess.Popen([sys.executable, "-c", PUBLISHER, name, str(shape[0]), str(shape[1])],
                                        stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, env=environment)
        line = self.process.stdout.readline().strip()
        if line != "published":
            self.stop()
            raise AssertionError(f"the publisher {name} did not start (it said {line!r}, exit "
                                 f"{self.process.returncode})")

    def stop(self):
        if self.process.poll() is None:
            self.process.stdin.close()
            try:
                self.process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        return self.process.returncode


def source_row(driver, By):
    """The source row's text, parsed: (name, width, height, frame index), or None while it says otherwise."""
    found = ROW.match(driver.find_element(By.ID, "source").text)
    return (found.group(1), int(found.group(2)), int(found.group(3)), int(found.group(4))) if found else None


def check_first(driver, By):
    """The row names the first publisher and its frame index rises; the scenes are greyed with why."""
    wait_for("the source row naming desk-first", lambda: (source_row(driver, By) or ("",))[0] == FIRST[0])
    name, width, height, first_index = source_row(driver, By)
    assert (height, width) == FIRST[1], source_row(driver, By)
    wait_for("a later frame index of desk-first",
             lambda: (source_row(driver, By) or (0, 0, 0, -1))[3] > first_index + 3)
    assert driver.find_element(By.ID, "source-row").is_displayed()
    radios = driver.find_elements(By.CSS_SELECTOR, "#scenes input")
    assert radios and not any(radio.is_enabled() for radio in radios), "the scenes can be picked"
    reason = driver.find_element(By.ID, "scenes-why").text
    assert "the frames are published desk-first's (--attach)" in reason, reason
    assert reason in driver.find_element(By.CSS_SELECTOR, "#scenes label").get_attribute("title")
    filters = driver.find_element(By.CSS_SELECTOR, "#filters label").get_attribute("title")
    assert "published desk-first has no filter" in filters, filters


def check_switch(driver, By):
    """The select lists both publishers; picking the second shows its frames, at its size."""
    select = driver.find_element(By.ID, "source-select")
    wait_for("both publishers in the select", lambda: [option.get_attribute("value") for option in
                                                       select.find_elements(By.TAG_NAME, "option")]
             == [FIRST[0], SECOND[0]])
    assert select.is_enabled() and select.get_attribute("value") == FIRST[0]
    select.find_element(By.CSS_SELECTOR, f"option[value='{SECOND[0]}']").click()
    wait_for("the source row naming desk-second", lambda: (source_row(driver, By) or ("",))[0] == SECOND[0])
    _, width, height, index = source_row(driver, By)
    assert (height, width) == SECOND[1], source_row(driver, By)
    canvas = driver.find_element(By.ID, "frame")
    wait_for("the frame at desk-second's size", lambda: (canvas.get_attribute("width"), canvas.get_attribute(
        "height")) == (str(SECOND[1][1]), str(SECOND[1][0])))
    wait_for("a later frame index of desk-second", lambda: (source_row(driver, By) or (0, 0, 0, -1))[3] > index)
    assert select.get_attribute("value") == SECOND[0]
    assert driver.find_element(By.ID, "notice").text == ""


def check_tools(driver, By):
    """The page's cursor reads the publisher's pixel; a zoom about the frame's corner moves which pixel it is over,
    and the fit button puts the picture back."""
    assert driver.find_element(By.ID, "viewer-tools").is_displayed(), "no picture tools beside the frame"
    zoom_level = driver.find_element(By.ID, "zoom-level")
    wait_for("the stretched picture's scale", lambda: zoom_level.text == "stretch, 1x")
    readout = driver.find_element(By.ID, "readout")

    def says(line):  # the readout's text as the page has it (Selenium's .text folds its double spaces)
        return lambda: readout.get_attribute("textContent") == line

    def said():
        return (f"the readout says {readout.get_attribute('textContent')!r}, the notice "
                f"{driver.find_element(By.ID, 'notice').text!r}")

    width = SECOND[1][1]
    driver.execute_script("send({hover: [21.5, 7.5]});")  # as the page sends its cursor's frame point
    wait_for("the value under the cursor", says(f"x 21  y 7  (84, 28, {width}, 255)"), said=said)
    driver.execute_script("send({zoom: [0, 0, 2]});")
    wait_for("the zoom", lambda: zoom_level.text == "zoom 2x", said=said)
    wait_for("the value under the cursor, zoomed", says(f"x 10  y 3  (40, 12, {width}, 255)"), said=said)
    driver.find_element(By.ID, "zoom-fit").click()
    wait_for("the fit again", lambda: zoom_level.text == "stretch, 1x", said=said)
    wait_for("the value under the cursor, fitted", says(f"x 21  y 7  (84, 28, {width}, 255)"), said=said)
    driver.execute_script("send({hover: null});")
    wait_for("the cursor off the frame", says("(cursor off the picture)"), said=said)


def check_refusal(driver, By):
    """A name nothing publishes: the notice says so and the second publisher's frames go on."""
    driver.execute_script("send({source: 'desk-nobody'});")
    notice = driver.find_element(By.ID, "notice")
    wait_for("the refusal", lambda: "source desk-nobody: --attach desk-nobody: nothing is published by that name"
             in notice.text)
    _, _, _, index = source_row(driver, By)
    wait_for("desk-second's frames going on", lambda: (source_row(driver, By) or ("", 0, 0, -1))[3] > index)
    assert source_row(driver, By)[0] == SECOND[0]


def main():
    parser = desk_test_arguments()
    parser.add_argument("--python-path", required=True, help="the build's python folder (interop_lab)")
    args = parser.parse_args()

    webdriver, Service, By, chromium, driver_binary = chromium_and_selenium()

    # A runtime directory of the test's own (short: a Unix socket's path holds 107 bytes) for the publishers and
    # the app; the publishers' Python finds the build's interop_lab.
    runtime = tempfile.mkdtemp(prefix="ilab-")
    os.environ["XDG_RUNTIME_DIR"] = runtime
    publisher_environment = dict(os.environ, PYTHONPATH=args.python_path)
    publishers = []
    app = None
    driver = None
    try:
        publishers = [Publisher(name, shape, publisher_environment) for name, shape in (FIRST, SECOND)]
        app = App(args.app, ["--api", "gl", "--attach", FIRST[0], "--mode", "cpu"], free_port())
        url = app.url()
        driver = open_chromium(webdriver, Service, chromium, driver_binary, os.path.join(runtime, "profile"),
                               (1280, 900))
        open_desk(driver, By, url)
        check_first(driver, By)
        check_switch(driver, By)
        check_tools(driver, By)
        check_refusal(driver, By)
        print(f"ok: {driver.find_element(By.ID, 'source').text}")
    finally:
        if driver is not None:
            driver.quit()
        exit_code = app.stop() if app else None
        for publisher in publishers:
            publisher.stop()
        shutil.rmtree(runtime, ignore_errors=True)
    return desk_test_result(app, exit_code)


if __name__ == "__main__":
    sys.exit(main())
