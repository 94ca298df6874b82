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

No browser needed: on a GPU server (scripts/gpu-tests.sh) it checks every mode that CUDA drives, on Mesa
(CTest) the cpu mode. Usage: served_frames.py --app PATH --api gl|vulkan --mode MODE [--size WxH]
[--scenes a,b]. Exit 0 when every scene passed, 1 when one did not, 2 on a usage error.
"""
import argparse
import os
import subprocess
import sys
import tempfile

import numpy

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "python", "tests"))
from desk_client import DeskClient  # noqa: E402
from desk_page import App, free_port  # noqa: E402

SCENES = ("wave", "pattern", "postprocess")
DESK_QUALITY = 85  # app/serve/jpeg.hpp's StripEncoder default, 4:2:0 chroma
PSNR_MARGIN_DB = 1.0


def psnr(a, b):
    """Peak signal-to-noise ratio of two pictures over their RGB channels, in dB (inf when equal)."""
    mse = float(((a[..., :3].astype(float) - b[..., :3].astype(float)) ** 2).mean())
    return float("inf") if mse == 0 else 10 * numpy.log10(255.0 ** 2 / mse)


def jpeg_round_trip(picture):
    """The picture through Pillow's JPEG at the desk's quality and subsampling, decoded."""
    import io

    from PIL import Image

    encoded = io.BytesIO()
    Image.fromarray(picture[..., :3]).save(encoded, "JPEG", quality=DESK_QUALITY, subsampling=2)
    return numpy.asarray(Image.open(io.BytesIO(encoded.getvalue())).convert("RGBA"))


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


def screenshot(app_path, api, mode, scene, size, index, folder):
    from PIL import Image  # Debian's python3-pil

    path = os.path.join(folder, f"{scene}.png")
    done = subprocess.run([app_path, "--headless", "--api", api, "--mode", mode, "--scene", scene, "--size",
                           f"{size[0]}x{size[1]}", "--frames", str(index + 1), "--screenshot", path],
                          capture_output=True, text=True, timeout=300)
    if done.returncode != 0:
        raise AssertionError(f"--screenshot exited {done.returncode}: {done.stderr}")
    return numpy.asarray(Image.open(path).convert("RGBA"))


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--app", required=True)
    parser.add_argument("--api", required=True, choices=("gl", "vulkan"))
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
    print(f"served_frames: {len(scenes) - failed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
