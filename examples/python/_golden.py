"""What the examples share: the golden a scene's frame is checked against (tests/golden/<scene>.json,
which says the size, the frame index and the tolerance for a renderer other than the golden's)."""

import json
import os
import sys

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))


def golden(scene):
    with open(os.path.join(ROOT, "tests", "golden", f"{scene}.json")) as file:
        meta = json.load(file)
    return meta, os.path.join(ROOT, "tests", "golden", meta["image"])


def check(lab, scene, out=None):
    """Compares the frame read last with the scene's golden; prints the verdict, returns the exit code."""
    meta, png = golden(scene)
    tolerance = meta["other_renderer_tolerance"]
    matches, report = lab.compare_png(png, tolerance["max_diff"], tolerance["max_fraction"])
    if out:
        lab.write_png(out)
    print(f"{scene}: {'matches' if matches else 'DIFFERS FROM'} {os.path.relpath(png, ROOT)} "
          f"(max_diff {tolerance['max_diff']}, max_fraction {tolerance['max_fraction']}): {report}")
    return 0 if matches else 1


def out_path():
    return sys.argv[1] if len(sys.argv) > 1 else None
