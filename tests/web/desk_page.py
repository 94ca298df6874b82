"""tests/web/desk_page.py: what drives the desk's page from Python: interop-lab serving it, the URL with its
token read from the app's output, headless Chromium through Selenium, and one wait_for for every condition.

Used by the tests in tests/web (each starts with desk_test_arguments() and chromium_and_selenium()) and
scripts/desk-screenshot.py (the README's picture); tests/web/test_desk_stripes.py also records the frame messages
the page receives (record_frame_messages); the relays of test_desk_scale.py and test_notebook.py pass bytes with
pump().
"""
import argparse
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import threading
import time

# One wait_for for every condition, the desk client's (python/tests/desk_client.py), which the Python
# package's served-page tests use too.
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "python", "tests"))
from desk_client import wait_for  # noqa: E402,F401  (re-exported: test_desk.py takes it from here)


def desk_test_arguments():
    """A desk test's command line so far: --app, interop-lab's binary; the test adds its own options."""
    parser = argparse.ArgumentParser()
    parser.add_argument("--app", required=True)
    return parser


def pump(source, sink, bits_per_s=0):
    """Passes what `source` receives on to `sink` until either closes, at most `bits_per_s` (0: as fast as they
    go), then shuts both down: one direction of a relay between the browser and the desk."""
    start, passed = time.monotonic(), 0
    try:
        while chunk := source.recv(4096):
            sink.sendall(chunk)
            passed += len(chunk)
            if bits_per_s:
                time.sleep(max(0.0, start + passed * 8 / bits_per_s - time.monotonic()))
    except OSError:
        pass
    finally:
        shut_down(source, sink)


def shut_down(*sockets):
    """Shuts each socket down both ways, passing over those already closed."""
    for each in sockets:
        try:
            each.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass


def free_port():
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


class App:
    """interop-lab serving the desk on 127.0.0.1:PORT with `args`; its stderr is collected on a thread."""

    def __init__(self, binary, args, port):
        self.lines = []
        self.process = subprocess.Popen([binary, *args, "--serve", f"127.0.0.1:{port}"],
                                        stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        self.reader = threading.Thread(target=self._read, daemon=True)
        self.reader.start()

    def _read(self):
        for line in self.process.stderr:
            self.lines.append(line.rstrip("\n"))

    def said(self):
        return "interop-lab said:\n" + "\n".join(self.lines)

    def url(self, timeout=60):
        def announced():
            for line in self.lines:
                found = re.search(r"(http://127\.0\.0\.1:\d+/\?token=[0-9a-f]{32})", line)
                if found:
                    return found.group(1)
            if self.process.poll() is not None:
                raise AssertionError("interop-lab exited before it served the desk; " + self.said())
            return None

        return wait_for("the desk URL from interop-lab", announced, timeout, self.said)

    def stop(self):
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGINT)
            try:
                self.process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
                raise AssertionError("interop-lab did not stop on SIGINT within 30 s")
        self.reader.join(timeout=5)
        return self.process.returncode


def frames_drawn(canvas):
    """How many frames the page has drawn on its canvas (desk.js counts them in data-frames-drawn)."""
    return int(canvas.get_attribute("data-frames-drawn") or 0)


def open_desk(driver, by, url, said=lambda: ""):
    """Opens the desk's page at `url` and waits for its first frame drawn; returns the canvas. `said`: what a
    timeout adds (e.g. the app's output)."""
    driver.get(url)
    canvas = driver.find_element(by.ID, "frame")
    wait_for("the first frame", lambda: frames_drawn(canvas) >= 1, 60, said)
    return canvas


def desk_test_result(app, app_exit_code, what="interop-lab"):
    """A desk test's exit code once `app` has stopped with `app_exit_code`: 0 for 130 (128 + SIGINT: it tore down
    in order), otherwise 1, having printed the code and what the app said."""
    if app_exit_code == 130:
        return 0
    print(f"FAIL: {what} exited with", app_exit_code, "\n" + app.said())
    return 1


SKIP = 77  # the exit code CTest counts as skipped (SKIP_RETURN_CODE)


def chromium_and_selenium():
    """(webdriver, Service, By, chromium, chromedriver); without them the test exits (SystemExit) with SKIP
    where Chromium or its driver is not installed, 1 where Selenium is not (a dependency, not hardware)."""
    chromium = shutil.which("chromium")
    driver_binary = shutil.which("chromedriver")
    if not chromium or not driver_binary:
        missing = " and ".join(name for name, found in (("chromium", chromium), ("chromedriver", driver_binary))
                               if not found)
        print(f"SKIP: {missing} not found; scripts/setup.sh installs chromium and chromium-driver")
        raise SystemExit(SKIP)
    try:
        from selenium import webdriver
        from selenium.webdriver.chrome.service import Service
        from selenium.webdriver.common.by import By
    except ImportError as error:
        print(f"FAIL: {error}; scripts/setup.sh installs python3-selenium (run this with /usr/bin/python3)")
        raise SystemExit(1)
    return webdriver, Service, By, chromium, driver_binary


def open_chromium(webdriver, service, chromium, driver_binary, profile, window=None):
    """Headless Chromium with its own profile folder; `window`: (width, height) of its window."""
    options = webdriver.ChromeOptions()
    options.binary_location = chromium
    flags = ["--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--disable-gpu",
             f"--user-data-dir={profile}"]
    if window:
        flags.append(f"--window-size={window[0]},{window[1]}")
    for flag in flags:
        options.add_argument(flag)
    return webdriver.Chrome(service=service(driver_binary), options=options)


# What each frame message carried, recorded in the page as it arrives, before desk.js draws it: a script that
# Chromium runs in every document before the page's own (record_frame_messages). It wraps the page's WebSocket
# so that each binary message's header (app/serve/protocol.hpp's frame message, layout 1 or 2) is kept in
# window.deskFrameMessages: its arrival time, frame index, size and strips, each with its rows, scale, bytes
# and its JPEG's luminance quantisation table (from which served_frames.jpeg_quality reads the quality it was
# encoded at). desk.js is left as it is: it draws and acks every message as it would.
FRAME_RECORDER = r"""
(() => {
  const messages = [];
  Object.defineProperty(window, "deskFrameMessages", { value: messages });
  // The first 8-bit quantisation table of id 0 (luminance) in a JPEG's DQT segments, or null.
  function luminanceTable(jpeg) {
    for (let at = 2; at + 4 <= jpeg.length && jpeg[at] === 0xff;) {
      const marker = jpeg[at + 1], length = (jpeg[at + 2] << 8) | jpeg[at + 3];
      if (marker === 0xda) return null;  // the scan: no table before it
      for (let table = at + 4; marker === 0xdb && table < at + 2 + length;) {
        const wide = jpeg[table] >> 4, id = jpeg[table] & 15;
        if (id === 0 && !wide) return Array.from(jpeg.subarray(table + 1, table + 65));
        table += 1 + (wide ? 128 : 64);
      }
      at += 2 + length;
    }
    return null;
  }
  function record(buffer) {
    const view = new DataView(buffer);
    const u32 = (at) => view.getUint32(at, true);
    const magic = String.fromCharCode(...new Uint8Array(buffer, 0, 4));
    const entry = { ILF1: 12, ILF2: 16 }[magic];
    if (!entry) {
      messages.push({ magic, at: performance.now() });
      return;
    }
    const strips = [];
    let offset = 20 + entry * u32(16);
    for (let i = 0; i < u32(16); ++i) {
      const at = 20 + entry * i, bytes = u32(at + entry - 4);
      strips.push({ y: u32(at), rows: u32(at + 4), scale: entry === 16 ? u32(at + 8) : 1, bytes,
                    table: luminanceTable(new Uint8Array(buffer, offset, bytes)) });
      offset += bytes;
    }
    messages.push({ magic, at: performance.now(), index: u32(4), width: u32(8), height: u32(12), strips });
  }
  const PageWebSocket = window.WebSocket;
  window.WebSocket = class extends PageWebSocket {
    constructor(...args) {
      super(...args);
      this.addEventListener("message", (event) => {
        if (event.data instanceof ArrayBuffer) record(event.data);
      });
    }
  };
})();
"""


def record_frame_messages(driver):
    """From the next page `driver` loads on: window.deskFrameMessages, FRAME_RECORDER's record of every frame
    message that page receives (Chromium's DevTools protocol runs the script before the page's own)."""
    driver.execute_cdp_cmd("Page.addScriptToEvaluateOnNewDocument", {"source": FRAME_RECORDER})
