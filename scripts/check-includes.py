#!/usr/bin/env python3
"""scripts/check-includes.py — the include graph of the folders against the layer table (CTest: includes.*)

  python3 scripts/check-includes.py [--root DIR] [--layers FILE] [--baseline FILE]
                                    [--report | --write-baseline]

Reads every project include (`#include "..."`, and `#include <app/...>`, `<interop/...>`, `<kernels/...>`,
`<python/...>`) of the C++ and CUDA files in app/, interop/, kernels/ and python/, and resolves it to a file
of the tree as the compiler does with the include roots of the CMake files: a quoted name first beside the
including file, then under the repository root (PROJECT_SOURCE_DIR, every target's include root) and the
generated include folder (interop/config.hpp, made from interop/config.hpp.in). An include that is no file
of the tree (a system header, a generated SPIR-V array) is not the project's and is left out.

Each file belongs to its folder (app/core, app/gl, interop, app for app/main.cpp, ...); an include from one
folder into another is an edge of the folder graph. An edge is a violation when
  - it lies in a folder cycle (a strongly connected component of more than one folder), or
  - the layer table forbids it: the table in docs/ARCHITECTURE.md ("## The layers") gives each folder a
    floor; a folder may include its own floor and the floors below, and a folder on floor 0 (the ground)
    includes nothing of the project but itself.
A folder of the tree that the table does not list is an error too: every folder has a floor.

The ratchet: tests/includes/known-violations.txt lists the violating edges the tree has today, one
`app/core -> app/serve` a line (`#` starts a comment). The check fails (exit 1) on a violating edge that
the list does not hold (a new cycle or a new forbidden include) and on a line of the list that is no
violation any more (so the list only shrinks); otherwise it passes (exit 0).
  --report          the whole picture (floors, cycles, every violating edge with an include that makes it,
                    counts); exit 0 whatever it finds
  --write-baseline  writes the list from the tree as it is; exit 0
Exit 2: a usage error (no layer table, a floor that is not a number, a folder listed twice).
"""

import argparse
import os
import re
import sys

SOURCE_FOLDERS = ("app", "interop", "kernels", "python")
SOURCE_SUFFIXES = (".cpp", ".hpp", ".h", ".cu", ".cuh", ".inl", ".hpp.in", ".h.in")
SKIPPED_FOLDERS = {"build", "__pycache__", "node_modules"}
INCLUDE = re.compile(r'^\s*#\s*include\s*(?:"([^"]+)"|<((?:app|interop|kernels|python)/[^>]+)>)')
EDGE = re.compile(r"^\s*(\S+)\s*->\s*(\S+)\s*$")
LAYERS_HEADING = re.compile(r"^#+\s+(The )?layers\b", re.IGNORECASE)
SCRIPT = "scripts/check-includes.py"


class UsageError(Exception):
    pass


def source_files(root):
    """Every C++/CUDA source and header under the source folders, as paths relative to root."""
    found = []
    for top in SOURCE_FOLDERS:
        for folder, subfolders, files in os.walk(os.path.join(root, top)):
            subfolders[:] = sorted(
                name for name in subfolders
                if name not in SKIPPED_FOLDERS and not name.startswith(".")
                and not name.endswith(".egg-info"))
            for name in sorted(files):
                if name.endswith(SOURCE_SUFFIXES):
                    found.append(os.path.relpath(os.path.join(folder, name), root).replace(os.sep, "/"))
    return found


def resolve(root, including, name, quoted):
    """The tree's file that `#include name` in `including` reaches, or None when it is not the project's."""
    bases = [os.path.dirname(including)] if quoted else []
    bases.append("")  # the repository root: PROJECT_SOURCE_DIR, and the generated include folder's layout
    for base in bases:
        candidate = os.path.normpath(os.path.join(base, name)).replace(os.sep, "/")
        if candidate.startswith("../"):
            continue
        if os.path.isfile(os.path.join(root, candidate)):
            return candidate
        if os.path.isfile(os.path.join(root, candidate + ".in")):  # configure_file's template
            return candidate + ".in"
    return None


def folder_of(path):
    return os.path.dirname(path) or "."


def read_includes(root, files):
    """{(from folder, to folder): [(file, line), ...]} for includes across folders, and the count of all."""
    edges = {}
    count = 0
    for path in files:
        with open(os.path.join(root, path), encoding="utf-8", errors="replace") as file:
            for number, line in enumerate(file, 1):
                match = INCLUDE.match(line)
                if not match:
                    continue
                target = resolve(root, path, match.group(1) or match.group(2), match.group(1) is not None)
                if target is None:
                    continue
                count += 1
                source, destination = folder_of(path), folder_of(target)
                if source != destination:
                    edges.setdefault((source, destination), []).append((path, number))
    return edges, count


def read_layers(path):
    """{folder: floor} from the first Markdown table with a `floor` and a `folders` column in the section
    whose heading names the layers (or anywhere in a file without such a heading: the fixtures' tables)."""
    try:
        with open(path, encoding="utf-8") as file:
            lines = file.read().split("\n")
    except OSError as error:
        raise UsageError(f"cannot read the layer table: {error}")
    start = next((i for i, line in enumerate(lines) if LAYERS_HEADING.match(line)), None)
    if start is not None:
        end = next((i for i in range(start + 1, len(lines)) if re.match(r"^##?\s", lines[i])), len(lines))
        lines = lines[start:end]
    floors = {}
    header = None
    for line in lines:
        if not line.lstrip().startswith("|"):
            if header is not None and floors:
                break
            header = None
            continue
        cells = [cell.strip() for cell in line.strip().strip("|").split("|")]
        if header is None:
            names = [cell.lower() for cell in cells]
            if "floor" in names and "folders" in names:
                header = (names.index("floor"), names.index("folders"))
            continue
        if all(re.fullmatch(r":?-+:?", cell) for cell in cells):
            continue
        floor_text, folders_text = cells[header[0]], cells[header[1]]
        if not re.fullmatch(r"\d+", floor_text):
            raise UsageError(f"{path}: the layer table's floor '{floor_text}' is not a number")
        for folder in re.findall(r"`([^`]+)`", folders_text):
            folder = folder.rstrip("/")
            if folder in floors:
                raise UsageError(f"{path}: the layer table lists {folder} twice")
            floors[folder] = int(floor_text)
    if not floors:
        raise UsageError(f"{path}: no layer table (a Markdown table with the columns floor and folders)")
    return floors


def strongly_connected(nodes, edges):
    """Tarjan's algorithm: the components of more than one folder, each sorted, in a stable order."""
    successors = {node: sorted({b for (a, b) in edges if a == node}) for node in nodes}
    index, low, on_stack, stack, components = {}, {}, set(), [], []

    def visit(node):
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for successor in successors[node]:
            if successor not in index:
                visit(successor)
                low[node] = min(low[node], low[successor])
            elif successor in on_stack:
                low[node] = min(low[node], index[successor])
        if low[node] == index[node]:
            component = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                component.append(member)
                if member == node:
                    break
            if len(component) > 1:
                components.append(sorted(component))

    sys.setrecursionlimit(max(1000, 4 * len(nodes)))
    for node in sorted(nodes):
        if node not in index:
            visit(node)
    return sorted(components)


def path_back(edges, start, goal):
    """A shortest folder path start -> ... -> goal (breadth first), to name the cycle an edge closes."""
    previous = {start: None}
    queue = [start]
    for node in queue:
        if node == goal:
            break
        for (a, b) in sorted(edges):
            if a == node and b not in previous:
                previous[b] = node
                queue.append(b)
    path, node = [], goal
    while node is not None:
        path.append(node)
        node = previous[node]
    return list(reversed(path))


class Analysis:
    def __init__(self, root, layers_path):
        self.files = source_files(root)
        self.edges, self.include_count = read_includes(root, self.files)
        self.floors = read_layers(layers_path)
        self.layers_path = layers_path
        self.folders = sorted({folder_of(path) for path in self.files} | {b for (_, b) in self.edges})
        self.unplaced = [folder for folder in self.folders if folder not in self.floors]
        self.cycles = strongly_connected(self.folders, self.edges)
        component_of = {folder: i for i, component in enumerate(self.cycles) for folder in component}
        self.reasons = {}  # edge -> [why it is a violation]
        for (a, b) in sorted(self.edges):
            why = []
            if a in component_of and component_of.get(b) == component_of[a]:
                why.append("folder cycle " + " -> ".join([a] + path_back(self.edges, b, a)))
            floor_a, floor_b = self.floors.get(a), self.floors.get(b)
            if floor_a is not None and floor_b is not None:
                if floor_a == 0:
                    why.append(f"{a} is on the ground floor (0), which includes nothing of the project")
                elif floor_b > floor_a:
                    why.append(f"upwards: {a} is on floor {floor_a}, {b} on floor {floor_b}")
            if why:
                self.reasons[(a, b)] = why

    def example(self, edge):
        path, line = self.edges[edge][0]
        more = len(self.edges[edge]) - 1
        return f"{path}:{line}" + (f" (and {more} more)" if more else "")


def read_baseline(path):
    edges = set()
    if not os.path.exists(path):
        return edges
    with open(path, encoding="utf-8") as file:
        for number, line in enumerate(file, 1):
            text = line.split("#", 1)[0]
            if not text.strip():
                continue
            match = EDGE.match(text)
            if not match:
                raise UsageError(f"{path}:{number}: not a folder edge `from -> to`: {line.strip()}")
            edges.add((match.group(1), match.group(2)))
    return edges


def write_baseline(path, analysis):
    with open(path, "w", encoding="utf-8") as file:
        file.write(f"# Folder edges that make a cycle or break the layer table today; {SCRIPT} fails on any\n"
                   f"# other and on a line here that is no violation any more.\n"
                   f"# Made by {SCRIPT} --write-baseline.\n")
        for a, b in sorted(analysis.reasons):
            file.write(f"{a} -> {b}\n")


def print_report(analysis):
    print(f"{len(analysis.files)} files, {analysis.include_count} project includes, "
          f"{len(analysis.folders)} folders, {len(analysis.edges)} folder edges")
    print(f"floors ({analysis.layers_path}):")
    for floor in sorted(set(analysis.floors.values())):
        print(f"  {floor}: " + ", ".join(sorted(f for f, n in analysis.floors.items() if n == floor)))
    for folder in analysis.unplaced:
        print(f"  not in the layer table: {folder}")
    print(f"folder cycles: {len(analysis.cycles)}")
    for component in analysis.cycles:
        print(f"  cycle of {len(component)} folders: " + ", ".join(component))
        for (a, b) in sorted(analysis.edges):
            if a in component and b in component:
                print(f"    {a} -> {b}  {analysis.example((a, b))}")
    in_cycle = sum(1 for why in analysis.reasons.values() if why[0].startswith("folder cycle"))
    against_floors = sum(1 for why in analysis.reasons.values() if not why[-1].startswith("folder cycle"))
    print(f"violating folder edges: {len(analysis.reasons)} "
          f"(in a cycle: {in_cycle}, against the floors: {against_floors})")
    for edge, why in sorted(analysis.reasons.items()):
        print(f"  {edge[0]} -> {edge[1]}  {analysis.example(edge)}: " + "; ".join(why))


def main():
    here = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    parser = argparse.ArgumentParser(
        description="Checks the folders' includes for cycles and against the layer table.")
    parser.add_argument("--root", default=here, help="the tree to check (default: this repository)")
    parser.add_argument("--layers", help="the file with the layer table (default: ROOT/docs/ARCHITECTURE.md)")
    parser.add_argument("--baseline", help="the known violations "
                        "(default: ROOT/tests/includes/known-violations.txt; none there: an empty list)")
    mode = parser.add_mutually_exclusive_group()
    mode.add_argument("--report", action="store_true", help="print the whole picture; never fail")
    mode.add_argument("--write-baseline", action="store_true", help="write the known violations as they are")
    args = parser.parse_args()
    root = os.path.abspath(args.root)
    layers = args.layers or os.path.join(root, "docs", "ARCHITECTURE.md")
    baseline_path = args.baseline or os.path.join(root, "tests", "includes", "known-violations.txt")

    def shown(path):  # a path of the tree as the tree names it
        relative = os.path.relpath(os.path.abspath(path), root)
        return path if relative.startswith("..") else relative.replace(os.sep, "/")

    try:
        if not os.path.isdir(root):
            raise UsageError(f"--root {args.root}: no such folder")
        analysis = Analysis(root, layers)
        if args.report:
            analysis.layers_path = shown(layers)
            print_report(analysis)
            return 0
        if args.write_baseline:
            write_baseline(baseline_path, analysis)
            print(f"check-includes: wrote {len(analysis.reasons)} folder edges to {shown(baseline_path)}")
            return 0
        if args.baseline and not os.path.isfile(args.baseline):
            raise UsageError(f"--baseline {args.baseline}: no such file")
        known = read_baseline(baseline_path)
    except UsageError as error:
        print(f"check-includes: {error}", file=sys.stderr)
        return 2

    problems = []
    for folder in analysis.unplaced:
        problems.append(f"{folder}: no floor in the layer table of {shown(layers)}; "
                        "give the folder its floor there")
    for edge, why in sorted(analysis.reasons.items()):
        if edge not in known:
            problems.append(f"{edge[0]} -> {edge[1]}  {analysis.example(edge)}: " + "; ".join(why))
    stale = sorted(known - set(analysis.reasons))
    for a, b in stale:
        gone = ("the include is gone" if (a, b) not in analysis.edges
                else "it makes no cycle and keeps to the floors")
        problems.append(f"{a} -> {b}: listed in {shown(baseline_path)} but no violation any more ({gone})")
    print(f"{len(analysis.folders)} folders, {len(analysis.edges)} folder edges, "
          f"{len(analysis.cycles)} folder cycles, {len(analysis.reasons)} violating edges "
          f"({len(known & set(analysis.reasons))} known)")
    for component in analysis.cycles:
        print(f"folder cycle of {len(component)} folders: " + ", ".join(component))
    for problem in problems:
        print(problem)
    if stale:
        again = " ".join(f"{option} {value}" for option, value in
                         (("--root", args.root if args.root != here else None), ("--layers", args.layers),
                          ("--baseline", args.baseline)) if value)
        print(f"The list only shrinks: take those lines out of {shown(baseline_path)}, "
              f"or write it anew with\n"
              f"  python3 {SCRIPT} {again + ' ' if again else ''}--write-baseline\n"
              f"and commit it with the change that removed them.")
    if problems:
        print("check-includes: FAILED")
        return 1
    print("check-includes: PASSED")
    return 0


if __name__ == "__main__":
    sys.exit(main())
