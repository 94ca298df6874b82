#!/usr/bin/env python3
"""scripts/bench_table.py — the README's table of every path, computed from `--bench --json` files.

  python3 scripts/bench_table.py BENCH.json [BENCH.json ...]

Prints one Markdown table: a row per graphics API and mode (the API's floor first: its kernels alone, what
no path can beat), a column per scene, each cell the mode's median ms per frame and in brackets its `x ref`
(the frame against floor + hand-off + graphics, each measured alone in the same run). A mode's graph form
and the bench's own reference loops are left to docs/performance.md. Only one size may be in the files.

scripts/check-docs.py keeps the README's copy equal to this output: a table between the lines
`<!-- bench-table: FILE ... -->` and `<!-- /bench-table -->` is recomputed from the files it names.
Exit 2 on a usage error (a file that is missing or is not a bench JSON, several sizes).
"""

import json
import sys

SCENES = ("wave", "pattern", "postprocess")
API_NAMES = {"gl": "OpenGL", "vulkan": "Vulkan", "d3d11": "Direct3D 11", "d3d12": "Direct3D 12"}


class UsageError(Exception):
    pass


def load_cases(paths):
    """The `cases` of every file, in order; UsageError for a file that is not a bench JSON."""
    cases = []
    for path in paths:
        try:
            with open(path, encoding="utf-8") as file:
                document = json.load(file)
        except (OSError, ValueError) as error:
            raise UsageError(f"{path}: {error}") from error
        if not isinstance(document, dict) or not isinstance(document.get("cases"), list):
            raise UsageError(f"{path}: no \"cases\" array: not the JSON of interop-lab --bench --json")
        cases += document["cases"]
    return cases


def shown(case):
    """Whether a case is a row of the table: the floor, or a mode in its plain form (no graph)."""
    if case.get("role") == "floor":
        return True
    return case.get("role", "mode") == "mode" and not case["path"].endswith(" graph")


def cell(case):
    median = case["median_ms"]
    text = f"{median:.3f}" if median < 10 else f"{median:.2f}"
    ratio = case.get("ratio_to_reference")
    return text if ratio is None or case.get("role") == "floor" else f"{text} ({ratio:.2f})"


def table(cases):
    sizes = {(case["width"], case["height"]) for case in cases}
    if len(sizes) != 1:
        raise UsageError(f"the files hold {len(sizes)} sizes ({sorted(sizes)}): give files of one size")
    rows = {}  # (api, path) -> {scene: case}, in the files' order
    for case in cases:
        if shown(case) and case.get("scene") in SCENES:
            rows.setdefault((case["api"], case["path"]), {})[case["scene"]] = case
    lines = ["| API | path | " + " | ".join(SCENES) + " |", "| --- | --- |" + " --- |" * len(SCENES)]
    for (api, path), by_scene in rows.items():
        name = "floor (kernels alone)" if path == "floor" else f"`{path}`"
        cells = [cell(by_scene[scene]) if scene in by_scene else "—" for scene in SCENES]
        lines.append(f"| {API_NAMES.get(api, api)} | {name} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def main(argv):
    if len(argv) < 2 or argv[1] in ("-h", "--help"):
        print(__doc__.strip(), file=sys.stderr if len(argv) < 2 else sys.stdout)
        return 2 if len(argv) < 2 else 0
    try:
        print(table(load_cases(argv[1:])))
    except UsageError as error:
        print(f"bench_table: {error}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
