"""A simulation's frames in a browser from a machine without a display: a travelling wave computed each step
(with CuPy on the GPU where it is installed, else NumPy) and shown in an interop_lab.Viewer that serves every
frame to the desk's page. Open the URL it prints (through `ssh -L PORT:127.0.0.1:PORT server` from another
machine); Ctrl+C stops, or --frames N after N frames, printing what the desk's phases cost.

    python3 examples/python/viewer_serve.py [--serve PORT|HOST:PORT] [--size WxH] [--frames N]
"""

import argparse
import time

try:
    import cupy as xp  # the picture stays on the GPU: show() converts it there
except ImportError:
    import numpy as xp

import interop_lab


def wave(height, width, step):
    """A float32 (H, W, 3) picture in 0..1: two waves crossing, moving with `step`."""
    y, x = xp.mgrid[0:height, 0:width].astype(xp.float32)
    t = step / 60.0
    red = 0.5 + 0.5 * xp.sin(x / 37.0 + 3.0 * t)
    green = 0.5 + 0.5 * xp.cos(y / 23.0 - 2.0 * t)
    blue = 0.5 + 0.5 * xp.sin((x + y) / 51.0 + t)
    return xp.stack([red, green, blue], axis=-1)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--serve", default="8080", help="PORT or HOST:PORT, as interop-lab --serve (0: any free)")
    parser.add_argument("--size", default="1280x720", help="WxH")
    parser.add_argument("--frames", type=int, default=0, help="stop after N frames (0: at Ctrl+C)")
    args = parser.parse_args()
    width, height = (int(edge) for edge in args.size.lower().split("x"))
    serve = int(args.serve) if args.serve.isdigit() else args.serve
    with interop_lab.Viewer(size=(width, height), serve=serve) as viewer:
        print(f"open {viewer.url}  (path {viewer.path}, arrays from {xp.__name__})", flush=True)
        step = 0
        try:
            while args.frames == 0 or step < args.frames:
                viewer.show(wave(height, width, step))
                step += 1
                time.sleep(1.0 / 60.0)  # the simulation's own pace; the desk sends what it can
        except KeyboardInterrupt:
            pass
        print(f"{step} frames shown; last update {viewer.stats['update_ms']:.3f} ms, "
              f"draw and read-back {viewer.stats['draw_ms']:.3f} ms")


if __name__ == "__main__":
    main()
