#!/usr/bin/python3
"""scripts/desk-screenshot.py: the README's picture of the desk (assets/screenshots/desk.png), remade.

Runs `interop-lab --headless --serve 127.0.0.1:PORT --mode cpu --size 640x360` (any machine: GL on Mesa's
llvmpipe where there is no GPU), opens the page with its token in headless Chromium 1280 pixels wide, waits
until the frame's timeline has its graphics lane placed, saves the page and shrinks the PNG with optipng.
Needs chromium, chromium-driver, python3-selenium and optipng (scripts/setup.sh installs them).

    scripts/desk-screenshot.py [--app build/release/app/interop-lab] [--out assets/screenshots/desk.png]
"""
import argparse
import os
import shutil
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.dont_write_bytecode = True  # no __pycache__ in the source tree for its helper
sys.path.insert(0, os.path.join(ROOT, "tests", "web"))
from desk_page import App, free_port, open_chromium, wait_for  # noqa: E402

WINDOW = (1280, 900)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--app", default=os.path.join(ROOT, "build", "release", "app", "interop-lab"))
    parser.add_argument("--out", default=os.path.join(ROOT, "assets", "screenshots", "desk.png"))
    args = parser.parse_args()
    missing = [name for name in ("chromium", "chromedriver", "optipng") if not shutil.which(name)]
    if missing or not os.access(args.app, os.X_OK):
        print("desk-screenshot: needs " + ", ".join(missing + ([args.app] if not os.access(args.app, os.X_OK) else []))
              + " (scripts/setup.sh installs the packages; scripts/build.sh builds the app)", file=sys.stderr)
        return 2
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    work = tempfile.mkdtemp(prefix="interop-lab-desk-shot-")
    app = App(args.app, ["--headless", "--mode", "cpu", "--size", "640x360"], free_port())
    driver = None
    try:
        driver = open_chromium(webdriver, Service, shutil.which("chromium"), shutil.which("chromedriver"),
                               os.path.join(work, "profile"), WINDOW)
        driver.get(app.url())
        wait_for("a frame", lambda: int(driver.execute_script(
            "return document.getElementById('frame').dataset.framesDrawn || 0")) >= 30, said=app.said)
        wait_for("the timeline's graphics lane", lambda: driver.execute_script(
            "return state && state.timeline.lanes.some((l) => l.lane === 'graphics' && l.placed);"), said=app.said)
        # The whole page, as tall as it is, at the window's width (the window is a little taller than the page
        # it shows: grown until the page fits).
        for _ in range(5):
            height = int(driver.execute_script("return document.documentElement.scrollHeight;"))
            inner = int(driver.execute_script("return window.innerHeight;"))
            if inner >= height:
                break
            driver.set_window_size(WINDOW[0], driver.get_window_size()["height"] + height - inner)
        shot = os.path.join(work, "desk.png")
        driver.save_screenshot(shot)
        subprocess.run(["optipng", "-quiet", "-o2", shot], check=True)
        os.makedirs(os.path.dirname(os.path.abspath(args.out)), exist_ok=True)
        shutil.copyfile(shot, args.out)
        print(f"desk-screenshot: wrote {args.out} ({os.path.getsize(args.out) // 1024} KiB)")
    finally:
        if driver is not None:
            driver.quit()
        app.stop()
        shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
