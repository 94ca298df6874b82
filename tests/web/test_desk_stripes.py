#!/usr/bin/python3
"""tests/web/test_desk_stripes.py: the desk sends a page that acks only the stripes that changed, and the page's
picture is still the frame, in a real headless Chromium (Selenium).

Starts `interop-lab --api gl --mode cpu --scene wave --size 320x512 --serve 127.0.0.1:PORT`. At that size the
wave's top and bottom stripes (64 rows each, kernels/stripe_hash.hpp) are the clear colour in every frame and
the six between them change; the test finds which are which on the app's own `--headless --screenshot`
frames rather than assuming it, and fails if the scene no longer has both kinds. Before the page loads, a
script given to Chromium (desk_page.FRAME_RECORDER) records each frame message's header as it arrives: its
frame index, its strips' rows and the quality each strip's JPEG was encoded at. desk.js draws and acks every
message as it always does. The page caps the app at 10 frames/s (so that the link keeps up and the quality
stays the desk's 85); after 3 s and 15 messages drawn the test reads, in one go, the canvas's pixels
(getImageData), the frame index the page shows and the messages it drew, and checks:
- the page's first messages are whole frames (every stripe at one quality); after them come at least 5 more,
  and a still stripe is in one of those and only one: its paint-over, at quality 90, at least 0.3 s after the
  last whole frame (the desk waits 600 ms from its plan; the page sees arrivals, the first one late). A desk
  that resent every stripe, or still ones with the changed ones, or painted over twice, too soon or at the
  quality of the changed stripes, fails;
- the stripes that changed from the page's previous frame to the one it shows came with the one it shows;
- the canvas equals `--screenshot` of the frame it shows, stripe by stripe, within what JPEG loses of that
  stripe at the quality it was drawn at (Pillow's own JPEG copy of the screenshot's stripe: the page's PSNR
  within 1 dB of that copy's, 50 dB at most asked; served_frames.stripe_verdicts). A stripe left from an older
  frame or drawn at the wrong rows fails; so does, as the test checks, the same canvas held against the frame
  three before the one it shows.

Run by CTest (tests/CMakeLists.txt): test_desk_stripes.py --app PATH [--api gl|vulkan] [--mode MODE]. Exits 77
(CTest's skip) only where Chromium or its driver is missing, saying so.
"""
import base64
import os
import shutil
import subprocess
import sys
import tempfile
import time

sys.dont_write_bytecode = True  # no __pycache__ in the source tree for its helpers
from desk_page import (App, chromium_and_selenium, desk_test_arguments, frames_drawn, free_port,  # noqa: E402
                       open_chromium, open_desk, record_frame_messages, wait_for)

SIZE = (320, 512)
STRIPE_ROWS = 64  # kernels/stripe_hash.hpp's kStripeRows (served_frames.py's, imported once Chromium is found)
FPS_CAP = 10
WATCH_S = 3.0
WATCH_MESSAGES = 15
PAINT_OVER_QUALITY = 90  # app/serve/stripes.hpp's PaintOver
# PaintOver::after is 600 ms from the desk's plan of the last whole frame; the page sees messages arrive, the
# first one late while the page sets itself up.
PAINT_OVER_AFTER_S = 0.3
CONTROL_FRAMES_BACK = 3

# The canvas's pixels, the frame it shows and the messages it drew, read in one turn of the page's event loop:
# desk.js draws a message's strips and counts it in one turn too, so the three agree.
CAPTURE = """
const canvas = document.getElementById("frame");
const pixels = canvas.getContext("2d").getImageData(0, 0, canvas.width, canvas.height).data;
let text = "";
for (let at = 0; at < pixels.length; at += 0x8000)
  text += String.fromCharCode.apply(null, pixels.subarray(at, at + 0x8000));
return { frame: Number(canvas.dataset.frame), drawn: Number(canvas.dataset.framesDrawn), width: canvas.width,
         height: canvas.height, pixels: btoa(text), messages: window.deskFrameMessages };
"""


def stripes_of(strip, height):
    """The stripe indices a strip's rows cover."""
    return range(strip["y"] // STRIPE_ROWS, min(-(-(strip["y"] + strip["rows"]) // STRIPE_ROWS),
                                                 -(-height // STRIPE_ROWS)))


def check_messages(messages, height, still, changed, quality_of):
    """(a): whole frames first, then the changed stripes only and each still stripe painted over once."""
    count = -(-height // STRIPE_ROWS)
    covered = [{stripe for strip in message["strips"] for stripe in stripes_of(strip, height)}
               for message in messages]
    qualities = [{stripe: quality_of(message, stripe) for stripe in sorted(stripes)}
                 for message, stripes in zip(messages, covered)]
    # A whole frame: every stripe, at one quality below the paint-over's. A paint-over sent with the changed
    # stripes covers them all too, the still ones at the paint-over's quality; and where the app stalled for
    # longer than the paint-over's wait, the paint-over is of every stripe.
    whole = 0
    while (whole < len(messages) and len(covered[whole]) == count and
           len(set(qualities[whole].values())) == 1 and qualities[whole][0] < PAINT_OVER_QUALITY):
        whole += 1
    sent = "; ".join(f"frame {message['index']} at {message['at'] / 1000:.3f} s: {quality}"
                     for message, quality in zip(messages, qualities))
    assert whole >= 1, f"the page's first message covers stripes {sorted(covered[0])}, not the whole frame"
    paced = messages[whole:]
    assert len(paced) >= 5, (f"{len(paced)} messages after the {whole} whole ones of {len(messages)}: the desk "
                             "did not send the page changed stripes alone")
    last_whole_at = messages[whole - 1]["at"]
    for stripe in still:
        again = [number for number in range(whole, len(messages)) if stripe in covered[number]]
        assert len(again) == 1, (
            f"still stripe {stripe} was sent in {len(again)} of the {len(paced)} messages after the {whole} whole "
            f"frames (messages {again}), not once (its paint-over); the messages' stripes and qualities: {sent}")
        message = messages[again[0]]
        quality = quality_of(message, stripe)
        assert quality == PAINT_OVER_QUALITY, (f"still stripe {stripe}'s paint-over came at quality {quality}, "
                                               f"not {PAINT_OVER_QUALITY}")
        waited = (message["at"] - last_whole_at) / 1000
        assert waited >= PAINT_OVER_AFTER_S, (f"still stripe {stripe} was painted over {waited:.3f} s after the "
                                              f"last whole frame, before it had been still {PAINT_OVER_AFTER_S} s")
    # The stripes that changed from the page's frame before to the one it shows came with the one it shows.
    last_index = messages[-1]["index"]
    for stripe in changed:
        last = max(number for number in range(len(messages)) if stripe in covered[number])
        assert messages[last]["index"] == last_index, (
            f"stripe {stripe} changed in frame {last_index}, the frame the page shows, and was last sent with "
            f"frame {messages[last]['index']}")
    return whole, len(paced)


def main():
    parser = desk_test_arguments()
    parser.add_argument("--api", default="gl", choices=["gl", "vulkan"])
    parser.add_argument("--mode", default="cpu")
    args = parser.parse_args()

    webdriver, Service, By, chromium, driver_binary = chromium_and_selenium()
    import numpy
    from PIL import Image  # Debian's python3-pil

    from served_frames import STRIPE_ROWS as SERVED_STRIPE_ROWS, jpeg_quality, stripe_verdicts
    assert SERVED_STRIPE_ROWS == STRIPE_ROWS

    work = tempfile.mkdtemp(prefix="interop-lab-desk-stripes-")
    size_text = f"{SIZE[0]}x{SIZE[1]}"
    app = App(args.app, ["--api", args.api, "--mode", args.mode, "--scene", "wave", "--size", size_text],
              free_port())
    driver = None
    started = time.monotonic()
    try:
        try:
            url = app.url()
            driver = open_chromium(webdriver, Service, chromium, driver_binary, os.path.join(work, "profile"),
                                   (1280, 900))
            record_frame_messages(driver)
            canvas = open_desk(driver, By, url, app.said)
            drawn = lambda: frames_drawn(canvas)  # noqa: E731
            driver.execute_script("send({fps: arguments[0]});", FPS_CAP)
            wait_for(f"the cap of {FPS_CAP} frames/s",
                     lambda: driver.execute_script("return state && state.desk.fps_cap;") == FPS_CAP)
            # WATCH_S at least, and enough messages however slowly the app renders (Mesa on a busy machine).
            watched = time.monotonic()
            wait_for(f"{WATCH_MESSAGES} frame messages drawn",
                     lambda: time.monotonic() - watched >= WATCH_S and drawn() >= WATCH_MESSAGES, 120, app.said)
            captured = driver.execute_script(CAPTURE)
        finally:
            if driver is not None:
                driver.quit()
            status = app.stop()
        assert status == 130, f"interop-lab --serve exited {status}, not 130 for SIGINT; {app.said()}"
        width, height, shown, drawn = captured["width"], captured["height"], captured["frame"], captured["drawn"]
        assert (width, height) == SIZE, f"the canvas is {width}x{height}, the frame {size_text}"
        messages = captured["messages"][:drawn]
        assert len(messages) == drawn and all("strips" in message for message in messages), (
            f"the page drew {drawn} messages; recorded: {[message.get('magic') for message in captured['messages']]}")
        assert messages[-1]["index"] == shown, f"the page shows frame {shown}, its last message was of " \
            f"{messages[-1]['index']}"
        canvas_pixels = numpy.frombuffer(base64.b64decode(captured["pixels"]), numpy.uint8).reshape(height, width, 4)

        def screenshot(index):
            path = os.path.join(work, f"frame-{index}.png")
            done = subprocess.run([args.app, "--headless", "--api", args.api, "--mode", args.mode, "--scene", "wave",
                                   "--size", size_text, "--frames", str(index + 1), "--screenshot", path],
                                  capture_output=True, text=True, timeout=300)
            assert done.returncode == 0, f"--screenshot exited {done.returncode}: {done.stderr}"
            return numpy.asarray(Image.open(path).convert("RGBA"))

        # Which stripes are still: the same in the frame the page started from, the frame before the one it
        # shows (of its messages) and that one; the wave's clear colour above and below it, here. Which changed
        # from that frame before to the one it shows.
        before = max((message["index"] for message in messages if message["index"] < shown), default=None)
        assert before is not None, f"every message the page drew was of frame {shown}: the app did not move on"
        frame, previous = screenshot(shown), screenshot(before)
        first = screenshot(messages[0]["index"]) if messages[0]["index"] != before else previous
        count = -(-height // STRIPE_ROWS)
        rows = [slice(stripe * STRIPE_ROWS, min(height, (stripe + 1) * STRIPE_ROWS)) for stripe in range(count)]
        same = [[numpy.array_equal(frame[rows[stripe]], other[rows[stripe]]) for stripe in range(count)]
                for other in (previous, first)]
        still = [stripe for stripe in range(count) if same[0][stripe] and same[1][stripe]]
        changed = [stripe for stripe in range(count) if not same[0][stripe]]
        assert still and changed, (f"the wave at {size_text} has still stripes {still} and ones that changed "
                                   f"from frame {before} to {shown} {changed}: the test needs both; pick a size "
                                   "where the clear colour fills a stripe")

        def quality_of(message, stripe):
            strip = next(strip for strip in message["strips"] if stripe in stripes_of(strip, height))
            assert strip["scale"] == 1, f"frame {message['index']}'s stripe {stripe} came at scale {strip['scale']}"
            return jpeg_quality(strip["table"])

        whole, paced = check_messages(messages, height, still, changed, quality_of)

        # (b): the canvas against the frame it shows, stripe by stripe at the quality each was last drawn at.
        last_sent = [max(number for number, message in enumerate(messages)
                         if any(stripe in stripes_of(strip, height) for strip in message["strips"]))
                     for stripe in range(count)]
        qualities = [quality_of(messages[last], stripe) for stripe, last in enumerate(last_sent)]
        verdicts = stripe_verdicts(canvas_pixels, frame, qualities)
        for stripe, served_db, bar in verdicts:
            print(f"stripe {stripe} ({'still' if stripe in still else 'changing'}): drawn from frame "
                  f"{messages[last_sent[stripe]]['index']} at quality {qualities[stripe]}: PSNR {served_db:.1f} dB "
                  f"against frame {shown}'s screenshot (at least {bar:.1f})")
        failed = [stripe for stripe, served_db, bar in verdicts if served_db < bar]
        assert not failed, f"the canvas differs from frame {shown} in stripes {failed}"
        control = [stripe for stripe, served_db, bar in
                   stripe_verdicts(canvas_pixels, screenshot(shown - CONTROL_FRAMES_BACK), qualities)
                   if served_db < bar]
        assert control, (f"the canvas also passes against frame {shown - CONTROL_FRAMES_BACK}: the comparison "
                         "cannot tell frames apart")
        print(f"ok: {args.api} {args.mode}: {whole} whole message(s), then {paced} with changed stripes only; "
              f"still stripes {still} painted over once at {PAINT_OVER_QUALITY}; the canvas is frame {shown} "
              f"in every stripe (frame {shown - CONTROL_FRAMES_BACK} fails in {len(control)} of {count}); "
              f"{time.monotonic() - started:.1f} s")
        return 0
    except AssertionError as error:
        print(f"FAIL: {error}")
        return 1
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
