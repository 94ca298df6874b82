#!/usr/bin/python3
"""tests/web/served_frames.py: what the desk serves is the frame, for every scene of one API and mode.

For each scene: starts `interop-lab --api API --mode MODE --scene SCENE --serve 127.0.0.1:PORT` (headless),
reads one frame through a WebSocket client of its own (python/tests/desk_client.py: the handshake and the
frame message on Python's standard library, the JPEG strips decoded by Pillow, not by the project's code),
then renders the same frame index with `--headless --frames N --screenshot` and compares the two. Frames
are a function of their index, so they may differ by the JPEG encoding alone (the desk's quality 85, 4:2:0
chroma). How much that loses depends on the picture (sharp coloured edges lose most), so the tolerance is
measured on the screenshot itself: Pillow encodes it at the same quality and subsampling, and the served
frame's PSNR (RGB) must be within 1 dB of what that copy keeps. The frame before or after (the wave moves)
or a wrong scene falls far below it.

Then the same for a client that acks, as the page does: a second app, whose frame messages the client
composites the way assets/desk/desk.js does (each strip's rows drawn over the picture it holds, the other rows
kept) and acks each ({"ack": index}), so that from its first ack on the desk sends only the stripes that
changed and paints still ones over (app/serve/stripes.hpp; the client caps the app at 15 frames/s so that its
link keeps up and the quality stays the desk's). After 1.5 s of such messages the picture it holds must be
`--screenshot`'s frame of its last message's index, within 1 dB of what Pillow's JPEG copy of the screenshot
keeps at the lowest quality among the strips it holds, and so must each stripe (64 rows) at the quality it was
drawn at (50 dB at most asked: a flat stripe's copy is near exact), so that one stripe left from an older frame
fails. In the wave scene, whose clear colour fills the top and bottom stripes at heights from 256 rows, some
messages must leave stripes out and the picture must hold stripes painted over (at quality 90): the mode's
stripe hashes (the GPU's, where its read-back makes them) tell still stripes apart.

No browser needed: on a GPU server (scripts/gpu-tests.sh) it checks every mode that CUDA drives, both runs in
each, on Mesa (CTest) the cpu mode. Usage: served_frames.py --app PATH --api gl|vulkan --mode MODE [--size WxH]
[--scenes a,b]. Exit 0 when every scene passed, 1 when one did not, 2 on a usage error.
"""
import argparse
import io
import os
import struct
import subprocess
import sys
import tempfile
import time

import numpy

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "python", "tests"))
from desk_client import DeskClient  # noqa: E402
from desk_page import App, free_port  # noqa: E402

SCENES = ("wave", "pattern", "postprocess")
DESK_QUALITY = 85  # app/serve/jpeg.hpp's StripEncoder default, 4:2:0 chroma
PAINT_OVER_QUALITY = 90  # app/serve/stripes.hpp's PaintOver
PSNR_MARGIN_DB = 1.0
ACKED_FPS_CAP = 15
ACKED_WATCH_S = 1.5  # past the paint-over's 600 ms
STRIPE_ROWS = 64  # kernels/stripe_hash.hpp's kStripeRows


def psnr(a, b):
    """Peak signal-to-noise ratio of two pictures over their RGB channels, in dB (inf when equal)."""
    mse = float(((a[..., :3].astype(float) - b[..., :3].astype(float)) ** 2).mean())
    return float("inf") if mse == 0 else 10 * numpy.log10(255.0 ** 2 / mse)


def jpeg_round_trip(picture, quality=DESK_QUALITY):
    """The picture through Pillow's JPEG at `quality` (the desk's by default) and its 4:2:0 chroma, decoded."""
    from PIL import Image

    encoded = io.BytesIO()
    Image.fromarray(picture[..., :3]).save(encoded, "JPEG", quality=quality, subsampling=2)
    return numpy.asarray(Image.open(io.BytesIO(encoded.getvalue())).convert("RGBA"))


# libjpeg's luminance quantisation table at quality 50 (its jcparam.c, natural order), which TurboJPEG scales
# for the desk's quality.
IJG_LUMINANCE = (16, 11, 10, 16, 24, 40, 51, 61, 12, 12, 14, 19, 26, 58, 60, 55, 14, 13, 16, 24, 40, 57, 69, 56,
                 14, 17, 22, 29, 51, 87, 80, 62, 18, 22, 37, 56, 68, 109, 103, 77, 24, 35, 55, 64, 81, 104, 113, 92,
                 49, 64, 78, 87, 103, 121, 120, 101, 72, 92, 95, 98, 112, 100, 103, 99)


def jpeg_quality(luminance_table):
    """The libjpeg quality (1..100) whose scaled luminance table is `luminance_table` (64 values in either
    zigzag or natural order), or None for a table no quality makes."""
    wanted = sorted(luminance_table)
    for quality in range(1, 101):
        scale = 5000 // quality if quality < 50 else 200 - 2 * quality
        if sorted(min(255, max(1, (entry * scale + 50) // 100)) for entry in IJG_LUMINANCE) == wanted:
            return quality
    return None


STRIPE_PSNR_ASKED_AT_MOST_DB = 50.0  # a flat stripe's own JPEG copy keeps about 53 dB, an exact one inf


def stripe_verdicts(held, reference, qualities):
    """A picture held by a client against the frame, stripe by stripe (STRIPE_ROWS rows): per stripe (stripe,
    PSNR, bar), the bar what Pillow's JPEG copy of the frame's stripe keeps at `qualities[stripe]` (the
    quality that stripe was drawn at), STRIPE_PSNR_ASKED_AT_MOST_DB at most, less PSNR_MARGIN_DB. A stripe
    left from another frame falls below it where the wave moves even a little."""
    verdicts = []
    for stripe, quality in enumerate(qualities):
        rows = slice(stripe * STRIPE_ROWS, (stripe + 1) * STRIPE_ROWS)
        own = psnr(jpeg_round_trip(reference[rows], quality), reference[rows])
        verdicts.append((stripe, psnr(held[rows], reference[rows]),
                         min(own, STRIPE_PSNR_ASKED_AT_MOST_DB) - PSNR_MARGIN_DB))
    return verdicts


def served_frame(app_path, api, mode, scene, size):
    """The index and picture of the second frame a client of a fresh desk receives."""
    app = App(app_path, ["--api", api, "--mode", mode, "--scene", scene, "--size", f"{size[0]}x{size[1]}"],
              free_port())
    try:
        with DeskClient(app.url(), timeout=60) as client:
            client.read_state_and_frame()  # the first one may be the frame before the client was counted
            _, (index, picture) = client.read_state_and_frame()
    finally:
        status = app.stop()
    if status != 130:  # stopped by SIGINT, as the command-line contract says
        raise AssertionError(f"interop-lab --serve exited {status}, not 130 for SIGINT:\n" + "\n".join(app.lines))
    return index, picture


def frame_strips(message):
    """A frame message's (index, width, height, strips), each strip (y, rows, scale, JPEG bytes): the layout
    of app/serve/protocol.hpp, version 1 (ILF1: no scale, 1) or 2 (ILF2: a scale per strip)."""
    entry = {b"ILF1": 12, b"ILF2": 16}.get(message[:4])
    assert entry, f"not a frame message: {message[:4]!r}"
    index, width, height, count = struct.unpack("<4I", message[4:20])
    strips = []
    offset = 20 + entry * count
    for strip in range(count):
        fields = struct.unpack(f"<{entry // 4}I", message[20 + entry * strip:20 + entry * (strip + 1)])
        y, rows, size = fields[0], fields[1], fields[-1]
        strips.append((y, rows, fields[2] if entry == 16 else 1, message[offset:offset + size]))
        offset += size
    assert offset == len(message), f"the strips end at byte {offset} of {len(message)}"
    return index, width, height, strips


def acked_frame(app_path, api, mode, scene, size):
    """What a client that acks holds: (index, picture, qualities, messages, partial). The picture is the frame
    messages' strips composited as desk.js draws them; `qualities` the JPEG quality each of its rows was last
    drawn at; `messages` how many it drew, `partial` how many of them left stripes out."""
    from PIL import Image  # Debian's python3-pil

    app = App(app_path, ["--api", api, "--mode", mode, "--scene", scene, "--size", f"{size[0]}x{size[1]}"],
              free_port())
    picture, qualities, messages, partial, first_ack = None, None, 0, 0, None
    try:
        with DeskClient(app.url(), timeout=60) as client:
            client.send_json({"fps": ACKED_FPS_CAP})
            while first_ack is None or time.monotonic() - first_ack < ACKED_WATCH_S or messages < 5:
                is_text, message = client.read_message()
                if is_text:
                    continue  # the state: for a client that acks, now and then, not before every frame
                index, width, height, strips = frame_strips(message)
                if picture is None or picture.shape[:2] != (height, width):
                    picture = numpy.zeros((height, width, 4), numpy.uint8)
                    qualities = numpy.zeros(height, int)
                for y, rows, scale, jpeg in strips:
                    decoded = Image.open(io.BytesIO(jpeg))
                    quality = jpeg_quality(decoded.quantization[0])
                    decoded = numpy.asarray(decoded.convert("RGBA"))
                    want = (-(-rows // scale), -(-width // scale), 4)
                    assert decoded.shape == want, f"frame {index}'s strip at row {y}: {decoded.shape}, want {want}"
                    # A downscaled strip drawn `scale` times as large, as the page draws it, clipped at the edge.
                    picture[y:y + rows] = decoded.repeat(scale, 0).repeat(scale, 1)[:rows, :width]
                    qualities[y:y + rows] = quality if scale == 1 else -scale
                messages += 1
                partial += sum(rows for _, rows, _, _ in strips) < height
                client.send_json({"ack": index})
                first_ack = first_ack or time.monotonic()
    finally:
        status = app.stop()
    if status != 130:
        raise AssertionError(f"interop-lab --serve exited {status}, not 130 for SIGINT:\n" + "\n".join(app.lines))
    return index, picture, qualities, messages, partial


def check_acked(app_path, api, mode, scene, size, folder, label):
    """The acking client's picture against --screenshot of its last message's frame; True when it passed."""
    index, held, qualities, messages, partial = acked_frame(app_path, api, mode, scene, size)
    if (qualities < 0).any():
        raise AssertionError(f"rows {numpy.flatnonzero(qualities < 0)[[0, -1]]} are held downscaled (by "
                             f"{-qualities.min()}): the link fell behind at {ACKED_FPS_CAP} frames/s")
    shown = screenshot(app_path, api, mode, scene, size, index, folder)
    if held.shape != shown.shape:
        raise AssertionError(f"held {held.shape}, screenshot {shown.shape}")
    lowest = int(qualities.min())
    held_db, jpeg_db = psnr(held, shown), psnr(jpeg_round_trip(shown, lowest), shown)
    painted = int((qualities == PAINT_OVER_QUALITY).sum())
    # Each stripe too: one left from an older frame hardly moves the whole picture's PSNR.
    below = [(stripe, served_db, bar) for stripe, served_db, bar in
             stripe_verdicts(held, shown, [int(qualities[y:y + STRIPE_ROWS].min())
                                           for y in range(0, len(qualities), STRIPE_ROWS)]) if served_db < bar]
    verdict = held_db >= jpeg_db - PSNR_MARGIN_DB and not below
    print(f"served_frames: {label} acked: frame {index} composited from {messages} messages ({partial} of "
          f"them partial, {painted} rows painted over): PSNR {held_db:.1f} dB against the screenshot (its own "
          f"JPEG copy at quality {lowest}: {jpeg_db:.1f}), stripes below their own copy's: "
          f"{', '.join(f'{stripe} ({db:.1f} < {bar:.1f})' for stripe, db, bar in below) or 'none'}: "
          f"{'passed' if verdict else 'FAILED'}", flush=True)
    if scene == "wave" and size[1] >= 4 * STRIPE_ROWS and not (partial and painted):
        print(f"served_frames: {label} acked: FAILED: the wave's still stripes were sent again in every message "
              f"({partial} of {messages} partial) or never painted over ({painted} rows at quality "
              f"{PAINT_OVER_QUALITY})", flush=True)
        return False
    return verdict


def screenshot(app_path, api, mode, scene, size, index, folder):
    from PIL import Image  # Debian's python3-pil

    path = os.path.join(folder, f"{scene}-{index}.png")
    done = subprocess.run([app_path, "--headless", "--api", api, "--mode", mode, "--scene", scene, "--size",
                           f"{size[0]}x{size[1]}", "--frames", str(index + 1), "--screenshot", path],
                          capture_output=True, text=True, timeout=300)
    if done.returncode != 0:
        raise AssertionError(f"--screenshot exited {done.returncode}: {done.stderr}")
    return numpy.asarray(Image.open(path).convert("RGBA"))


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--app", required=True)
    parser.add_argument("--api", required=True, choices=("gl", "vulkan", "none"))
    parser.add_argument("--mode", required=True)
    parser.add_argument("--size", default="640x360")
    parser.add_argument("--scenes", default=",".join(SCENES))
    arguments = parser.parse_args()
    try:
        size = tuple(int(part) for part in arguments.size.split("x"))
        assert len(size) == 2 and min(size) > 0
    except (ValueError, AssertionError):
        parser.error(f"--size {arguments.size}: give WIDTHxHEIGHT, e.g. 640x360")
    scenes = arguments.scenes.split(",")
    for scene in scenes:
        if scene not in SCENES:
            parser.error(f"--scenes: {scene} is none of {', '.join(SCENES)}")

    failed = 0
    with tempfile.TemporaryDirectory(prefix="served-frames.") as folder:
        for scene in scenes:
            label = f"{arguments.api} {arguments.mode} {scene} {size[0]}x{size[1]}"
            try:
                index, served = served_frame(arguments.app, arguments.api, arguments.mode, scene, size)
                shown = screenshot(arguments.app, arguments.api, arguments.mode, scene, size, index, folder)
                if served.shape != shown.shape:
                    raise AssertionError(f"served {served.shape}, screenshot {shown.shape}")
                served_db, jpeg_db = psnr(served, shown), psnr(jpeg_round_trip(shown), shown)
                verdict = served_db >= jpeg_db - PSNR_MARGIN_DB
                print(f"served_frames: {label}: frame {index}: PSNR {served_db:.1f} dB against the screenshot "
                      f"(its own JPEG copy: {jpeg_db:.1f}): {'passed' if verdict else 'FAILED'}", flush=True)
            except AssertionError as error:
                verdict = False
                print(f"served_frames: {label}: FAILED: {error}", flush=True)
            failed += not verdict
            try:
                verdict = check_acked(arguments.app, arguments.api, arguments.mode, scene, size, folder, label)
            except AssertionError as error:
                verdict = False
                print(f"served_frames: {label} acked: FAILED: {error}", flush=True)
            failed += not verdict
    print(f"served_frames: {2 * len(scenes) - failed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
