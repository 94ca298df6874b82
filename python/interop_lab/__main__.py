"""python -m interop_lab FILE.npy|FILE.png: shows a file in a window (or, without a display, renders it
headless and writes a PNG, saying where); with --serve [HOST:]PORT serves it to a browser until Ctrl+C.
Exit codes: 0 shown, 2 bad usage, 1 a runtime failure."""

import argparse
import ctypes
import os
import sys

import numpy

from .viewer import FITS


def _load(path):
    from ._native import check, lib

    if path.lower().endswith(".npy"):
        return numpy.load(path, allow_pickle=False)
    if path.lower().endswith(".png"):
        width, height = ctypes.c_int(), ctypes.c_int()
        check(lib.ilab_read_rgba_png(path.encode(), None, 0, ctypes.byref(width), ctypes.byref(height)))
        image = numpy.empty((height.value, width.value, 4), dtype=numpy.uint8)
        check(lib.ilab_read_rgba_png(path.encode(), image.ctypes.data, image.nbytes, ctypes.byref(width),
                                     ctypes.byref(height)))
        return image
    raise ValueError(f"{path}: a .npy or .png file, please")


def _parse_range(parser, words):
    if words is None:
        return None
    if words in (["auto"], ["each"]):
        return "auto"  # one array: its own min..max either way
    try:
        low, high = (float(word) for word in words)
    except ValueError:
        parser.exit(2, f"python -m interop_lab: --range {' '.join(words)}: pass two numbers (--range 0 1000) or "
                    "auto\n")
    return low, high


def main(argv=None):
    parser = argparse.ArgumentParser(prog="python -m interop_lab", description="Shows a .npy or .png file.")
    parser.add_argument("file", help="a .npy array ((H, W) or (H, W, 1|3|4); uint8/16/32, int8/16/32, float16, "
                        "float32, float64, bool) or a .png")
    parser.add_argument("--range", nargs="+", metavar="LOW HIGH | auto",
                        help="the values shown from the bottom to the top of the colormap: LOW HIGH, or auto "
                        "(min..max); default 0..255 for uint8, 0..1 for floats and bool, auto for other integers")
    parser.add_argument("--colormap", help="for one channel: gray, viridis, turbo")
    parser.add_argument("--mode", default="auto", choices=["auto", "interop", "staging", "cpu"])
    parser.add_argument("--fit", default="contain", choices=list(FITS),
                        help="how the picture lies in the frame: contain (default: its aspect kept, letterboxed), "
                        "stretch (fills it), cover (fills it, cropped), actual (1:1, centred)")
    parser.add_argument("--headless", action="store_true", help="render without a window and write a PNG")
    parser.add_argument("--png", help="where the headless render goes (default: the temporary folder)")
    parser.add_argument("--serve", metavar="[HOST:]PORT",
                        help="serve it to a browser (as interop-lab --serve; 0: any free port) until Ctrl+C")
    arguments = parser.parse_args(argv)
    value_range = _parse_range(parser, arguments.range)
    if not os.path.exists(arguments.file):
        parser.exit(2, f"python -m interop_lab: {arguments.file}: no such file; pass a .npy or .png file\n")
    from . import InteropLabError, show

    try:
        array = _load(arguments.file)
        show(array, range=value_range, colormap=arguments.colormap, mode=arguments.mode,
             window=False if arguments.headless else None, png=arguments.png, title=os.path.basename(arguments.file),
             serve=arguments.serve, fit=arguments.fit)
    except (TypeError, ValueError) as error:
        parser.exit(2, f"python -m interop_lab: {error}\n")
    except InteropLabError as error:
        parser.exit(1, f"python -m interop_lab: {error}\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
