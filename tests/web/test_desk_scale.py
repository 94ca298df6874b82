#!/usr/bin/python3
"""tests/web/test_desk_scale.py: the desk's scale step in the page, in a real headless Chromium (Selenium).

Starts `interop-lab --api gl --mode cpu --scene wave --size 640x360 --serve 127.0.0.1:PORT` and opens its page
through a relay that passes the app's bytes on at 300 kbit/s (the browser's to the app at once), as a slow
network would, with the page asking for 30 frames/s. Even quality 20 cannot carry that, so the desk must step
the scale down (app/serve/link.hpp) and say so:
- the page's link row shows the scale beside the quality ("quality 20 · ½ scale" or "¼ scale"), and its
  data-scale is 2 or 4;
- the frame messages the page received (desk_page.record_frame_messages) hold strips of scale 2 or 4, the first
  of them at quality 20 (the scale steps down only once the quality is at its lowest), and the canvas keeps the
  frame's size.
Then, the relay closed so that no message of the app comes between, a frame message made here (two strips: rows
64-127 at scale 2 in one colour, rows 320-359 at scale 4 in another) is handed to the page as the socket would:
each strip must cover its rows across the whole canvas, drawn at full size, and the rows between keep what they
held.

Run by CTest (tests/CMakeLists.txt): test_desk_scale.py --app PATH. Exits 77 (CTest's skip) only where Chromium
or its driver is missing, saying so.
"""
import base64
import io
import os
import shutil
import socket
import struct
import sys
import tempfile
import threading

sys.dont_write_bytecode = True  # no __pycache__ in the source tree for its helpers
from desk_page import (App, chromium_and_selenium, desk_test_arguments, free_port, open_chromium,  # noqa: E402
                       open_desk, pump, record_frame_messages, shut_down, wait_for)

SIZE = (640, 360)
LINK_BITS_PER_S = 300e3
FPS_CAP = 30


class SlowRelay:
    """Accepts connections on 127.0.0.1:port and relays each to the app's port: the app's bytes to the browser
    at `bits_per_s` per connection, the browser's to the app at once. close() ends every connection."""

    def __init__(self, app_port, bits_per_s):
        self.app_port = app_port
        self.bits_per_s = bits_per_s
        self.listener = socket.socket()
        self.listener.bind(("127.0.0.1", 0))
        self.listener.listen(16)
        self.port = self.listener.getsockname()[1]
        self.sockets = []
        self.closed = False
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self):
        while not self.closed:
            try:
                browser, _ = self.listener.accept()
            except OSError:
                return
            app = socket.socket()
            # A small receive buffer, so that the app's writes feel the link rather than a kernel buffer.
            app.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 32 * 1024)
            app.connect(("127.0.0.1", self.app_port))
            self.sockets += [browser, app]
            threading.Thread(target=pump, args=(browser, app, 0), daemon=True).start()
            threading.Thread(target=pump, args=(app, browser, self.bits_per_s), daemon=True).start()

    def close(self):
        self.closed = True
        self.listener.close()
        shut_down(*self.sockets)
        for each in self.sockets:
            each.close()


def jpeg_of(width, height, colour):
    from PIL import Image  # Debian's python3-pil

    encoded = io.BytesIO()
    Image.new("RGB", (width, height), colour).save(encoded, "JPEG", quality=95, subsampling=2)
    return encoded.getvalue()


def frame_message(index, width, height, strips):
    """app/serve/protocol.hpp's ILF2 message: strips are (y, rows, scale, jpeg)."""
    table = b"".join(struct.pack("<4I", y, rows, scale, len(jpeg)) for y, rows, scale, jpeg in strips)
    return (b"ILF2" + struct.pack("<4I", index, width, height, len(strips)) + table +
            b"".join(jpeg for *_, jpeg in strips))


# Hands a frame message (base64) to the page as its socket would, and returns once the page drew it.
DELIVER = """
const done = arguments[arguments.length - 1];
const before = framesDrawn;
const bytes = Uint8Array.from(atob(arguments[0]), (c) => c.charCodeAt(0));
receiveFrame(bytes.buffer);
const wait = () => (framesDrawn > before ? done(true) : setTimeout(wait, 20));
wait();
"""

# For rows [first, end) of the canvas: how many pixels are more than 12 from `colour` in a channel.
OFF_COLOUR = """
const [first, end, colour] = arguments;
const canvas = document.getElementById("frame");
const pixels = canvas.getContext("2d").getImageData(0, first, canvas.width, end - first).data;
let off = 0;
for (let i = 0; i < pixels.length; i += 4)
  if ([0, 1, 2].some((c) => Math.abs(pixels[i + c] - colour[c]) > 12)) ++off;
return off;
"""


def main():
    parser = desk_test_arguments()
    args = parser.parse_args()

    webdriver, Service, By, chromium, driver_binary = chromium_and_selenium()
    from served_frames import jpeg_quality

    work = tempfile.mkdtemp(prefix="interop-lab-desk-scale-")
    app_port = free_port()
    app = App(args.app, ["--api", "gl", "--mode", "cpu", "--scene", "wave", "--size", f"{SIZE[0]}x{SIZE[1]}"],
              app_port)
    relay = None
    driver = None
    try:
        try:
            url = app.url()
            relay = SlowRelay(app_port, LINK_BITS_PER_S)
            driver = open_chromium(webdriver, Service, chromium, driver_binary, os.path.join(work, "profile"),
                                   (1280, 900))
            driver.set_script_timeout(30)
            record_frame_messages(driver)
            canvas = open_desk(driver, By, url.replace(f":{app_port}/", f":{relay.port}/"), app.said)
            link = driver.find_element(By.ID, "link")
            driver.execute_script("send({fps: arguments[0]});", FPS_CAP)
            wait_for("the link row at a smaller scale", lambda: link.get_attribute("data-scale") in ("2", "4"),
                     60, lambda: f"the link row says {link.text!r}; {app.said()}")
            shown, scale = link.text, link.get_attribute("data-scale")
            # The state that says the new scale may come before the first frame message at it.
            wait_for("a frame message at the smaller scale", lambda: driver.execute_script(
                "return window.deskFrameMessages.some(m => (m.strips || []).some(s => s.scale > 1));"), 30,
                lambda: f"the link row says {link.text!r}")
            messages = driver.execute_script("return window.deskFrameMessages;")
            relay.close()
            wait_for("the page to see its socket close", lambda: "disconnected" in
                     driver.find_element(By.ID, "connection").text, 30)

            assert {"2": "½ scale", "4": "¼ scale"}[scale] in shown, f"data-scale {scale}, the row says {shown!r}"
            assert shown.startswith("quality "), shown
            scaled = [(message, strip) for message in messages for strip in message.get("strips", [])
                      if strip["scale"] > 1]
            assert scaled, "no frame message held a strip of scale 2 or 4"
            assert all(strip["scale"] in (2, 4) for _, strip in scaled), scaled[:3]
            first_message, first_strip = scaled[0]
            assert jpeg_quality(first_strip["table"]) == 20, (
                f"frame {first_message['index']}'s first scaled strip came at quality "
                f"{jpeg_quality(first_strip['table'])}, not the lowest (20)")
            assert (first_message["width"], first_message["height"]) == SIZE, first_message
            assert (int(canvas.get_attribute("width")), int(canvas.get_attribute("height"))) == SIZE

            # The page draws a scaled strip at full size, wherever its rows are and however they end.
            before = driver.execute_script(OFF_COLOUR, 192, 256, [0, 0, 0])
            orange, teal = (230, 120, 20), (20, 160, 150)
            message = frame_message(7, SIZE[0], SIZE[1], [
                (64, 64, 2, jpeg_of(SIZE[0] // 2, 32, orange)),
                (320, 40, 4, jpeg_of(SIZE[0] // 4, 10, teal)),
            ])
            driver.execute_async_script(DELIVER, base64.b64encode(message).decode())
            assert driver.execute_script(OFF_COLOUR, 64, 128, list(orange)) == 0, "rows 64-127 not all the strip's"
            assert driver.execute_script(OFF_COLOUR, 320, 360, list(teal)) == 0, "rows 320-359 not all the strip's"
            assert driver.execute_script(OFF_COLOUR, 128, 130, list(orange)) == 2 * SIZE[0], (
                "the scale-2 strip passed its rows")
            assert driver.execute_script(OFF_COLOUR, 192, 256, [0, 0, 0]) == before, "rows no strip covers changed"
        finally:
            if relay is not None:
                relay.close()
            if driver is not None:
                driver.quit()
            status = app.stop()
        assert status == 130, f"interop-lab --serve exited {status}, not 130 for SIGINT; {app.said()}"
    finally:
        shutil.rmtree(work, ignore_errors=True)
    print(f"ok: over {LINK_BITS_PER_S / 1e3:.0f} kbit/s the link row said {shown!r}; {len(scaled)} scaled "
          "strip(s), the first at quality 20; a made message's scale-2 and scale-4 strips drawn at full size")
    return 0


if __name__ == "__main__":
    sys.exit(main())
