#!/usr/bin/env python3
"""scripts/check-docs.py — keeps README.md and docs/*.md true and short; CI runs it after the build.

  python3 scripts/check-docs.py [--no-run] [--root DIR]     (BUILD_DIR: default build/release)

Fails (exit 1) when README.md is over 250 lines, when a Markdown table cell in README.md or docs/*.md
is over 400 characters, when a docs/*.md page is not linked from README.md, when a relative link
(or its #anchor) points at nothing, when a table between `<!-- bench-table: FILE ... -->` and
`<!-- /bench-table -->` is not what scripts/bench_table.py computes from the bench JSON files it names,
or when a shell block fails, or when there is no build to run them with; exit 2: a usage error.

The convention for shell blocks: every fenced block marked `sh` (```sh) is a command a reader copies,
and is run as shown: `bash -e -o pipefail` in a fresh scratch folder, with $BUILD_DIR/app (the
build's interop-lab) first on PATH, under Xvfb when there is no DISPLAY. A block that needs what CI
lacks (a GPU, its own display server, a long time, a build) has, on the line right before its fence,

  <!-- skip: the reason -->

and is reported as skipped with that reason. Blocks in other languages (python, cmake, cpp, none)
are not run. --no-run does the static checks alone (no build needed). docs/testing.md says the same.
"""

import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

MAX_README_LINES = 250
MAX_CELL_CHARS = 400
BLOCK_TIMEOUT_S = 120
SKIP_MARK = re.compile(r"^\s*<!--\s*skip:\s*(.+?)\s*-->\s*$")
FENCE = re.compile(r"^(\s*)(`{3,}|~{3,})\s*([\w+-]*)")
LINK = re.compile(r"!?\[(?:[^\]\\]|\\.)*\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)")
RUN_LANGUAGES = {"sh"}
BENCH_TABLE = re.compile(r"^<!--\s*bench-table:\s*(.+?)\s*-->\s*$")
BENCH_TABLE_END = "<!-- /bench-table -->"

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import bench_table  # noqa: E402  (scripts/bench_table.py, beside this file)


class Page:
    """One Markdown file: its lines, and which of them lie inside fenced code."""

    def __init__(self, root, relative_path):
        self.path = relative_path
        with open(os.path.join(root, relative_path), encoding="utf-8") as file:
            self.lines = file.read().split("\n")
        if self.lines and self.lines[-1] == "":
            self.lines.pop()
        self.blocks = []  # (first line number, language, body lines, skip reason or None)
        self.in_code = [False] * len(self.lines)
        fence = None
        for index, line in enumerate(self.lines):
            match = FENCE.match(line)
            if fence is None:
                if match:
                    fence = (match.group(2)[0], len(match.group(2)), match.group(3), index)
                    self.in_code[index] = True
                continue
            self.in_code[index] = True
            closing = re.match(r"^\s*(`{3,}|~{3,})\s*$", line)
            if closing and closing.group(1)[0] == fence[0] and len(closing.group(1)) >= fence[1]:
                start = fence[3]
                previous = self.lines[start - 1] if start > 0 else ""
                skip = SKIP_MARK.match(previous)
                body = [re.sub(r"^" + re.escape(FENCE.match(self.lines[start]).group(1)), "", body_line)
                        for body_line in self.lines[start + 1:index]]
                self.blocks.append((start + 1, fence[2], body, skip.group(1) if skip else None))
                fence = None
        if fence is not None:
            self.unclosed_fence = fence[3] + 1
        else:
            self.unclosed_fence = None

    def prose_lines(self):
        """(line number, text with inline code removed) of every line outside fenced code."""
        for index, line in enumerate(self.lines):
            if not self.in_code[index]:
                yield index + 1, re.sub(r"`+[^`]*`+", "", line)

    def anchors(self):
        """GitHub's anchors of this page's headings."""
        seen = {}
        result = set()
        for index, line in enumerate(self.lines):
            match = re.match(r"^#{1,6}\s+(.*?)\s*#*\s*$", line)
            if self.in_code[index] or not match:
                continue
            slug = re.sub(r"[^\w\- ]", "", match.group(1).lower()).replace(" ", "-")
            count = seen.get(slug, 0)
            seen[slug] = count + 1
            result.add(slug if count == 0 else f"{slug}-{count}")
        return result


def table_cells(line):
    """The cells of one Markdown table row: split on | not escaped by a backslash."""
    row = line.strip()
    if row.startswith("|"):
        row = row[1:]
    if row.endswith("|") and not row.endswith("\\|"):
        row = row[:-1]
    return [cell.strip() for cell in re.split(r"(?<!\\)\|", row)]


def check_static(root, pages, problems):
    readme = pages["README.md"]
    if len(readme.lines) > MAX_README_LINES:
        problems.append(f"README.md: {len(readme.lines)} lines, over {MAX_README_LINES}: move reference "
                        "material into a docs/ page and link it")
    linked_from_readme = set()
    for page in pages.values():
        if page.unclosed_fence:
            problems.append(f"{page.path}:{page.unclosed_fence}: a code fence that never closes")
        for number, line in page.prose_lines():
            if line.lstrip().startswith("|"):
                for column, cell in enumerate(table_cells(line), 1):
                    if len(cell) > MAX_CELL_CHARS:
                        problems.append(f"{page.path}:{number}: table cell {column} has {len(cell)} characters, "
                                        f"over {MAX_CELL_CHARS}: keep the cell short and put the detail in a "
                                        "list or prose below the table")
            for target in LINK.findall(line):
                if re.match(r"^[a-z][a-z0-9+.-]*:", target, re.IGNORECASE):
                    continue  # https:, mailto:: not checked offline
                file_part, _, anchor = target.partition("#")
                folder = os.path.dirname(page.path)
                resolved = os.path.normpath(os.path.join(folder, file_part)) if file_part else page.path
                if not os.path.exists(os.path.join(root, resolved)):
                    problems.append(f"{page.path}:{number}: link to {target}: {resolved} does not exist")
                    continue
                if page.path == "README.md":
                    linked_from_readme.add(resolved)
                if anchor and resolved.endswith(".md"):
                    target_page = pages.get(resolved) or Page(root, resolved)
                    if anchor not in target_page.anchors():
                        problems.append(f"{page.path}:{number}: link to {target}: {resolved} has no heading "
                                        f"with the anchor #{anchor}")
    for page in pages.values():
        check_bench_tables(root, page, problems)
    for path in sorted(pages):
        if path.startswith("docs/") and path not in linked_from_readme:
            problems.append(f"{path}: not linked from README.md: add it to README's list of pages")


def run_block(body, app_dir, scratch_parent):
    """Runs one block in a fresh folder; returns (passed, seconds, what to say when it failed)."""
    scratch = tempfile.mkdtemp(prefix="block.", dir=scratch_parent)
    environment = dict(os.environ)
    environment["PATH"] = app_dir + os.pathsep + environment.get("PATH", "")
    started = time.monotonic()
    try:
        result = subprocess.run(["bash", "-e", "-o", "pipefail", "-c", "\n".join(body) + "\n"], cwd=scratch,
                                env=environment, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                                stderr=subprocess.STDOUT, timeout=BLOCK_TIMEOUT_S)
    except subprocess.TimeoutExpired:
        return False, time.monotonic() - started, f"ran over {BLOCK_TIMEOUT_S} s"
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    seconds = time.monotonic() - started
    if result.returncode == 0:
        return True, seconds, ""
    output = result.stdout.decode("utf-8", "replace").rstrip().split("\n")
    tail = "\n".join("      " + line for line in output[-8:])
    return False, seconds, f"exit code {result.returncode}; its last lines:\n{tail}"


def check_bench_tables(root, page, problems):
    """Each table a page marks as computed from bench JSON files equals what bench_table.py makes of them."""
    for index, line in enumerate(page.lines):
        match = BENCH_TABLE.match(line.strip())
        if not match:
            continue
        folder = os.path.dirname(page.path)
        files = [os.path.join(root, folder, name) for name in match.group(1).split()]
        end = next((i for i in range(index + 1, len(page.lines)) if page.lines[i].strip() == BENCH_TABLE_END),
                   None)
        if end is None:
            problems.append(f"{page.path}:{index + 1}: a bench-table with no {BENCH_TABLE_END} line after it")
            continue
        try:
            expected = bench_table.table(bench_table.load_cases(files))
        except bench_table.UsageError as error:
            problems.append(f"{page.path}:{index + 1}: bench-table: {error}")
            continue
        written = "\n".join(l.rstrip() for l in page.lines[index + 1:end]).strip()
        if written != expected:
            problems.append(f"{page.path}:{index + 1}: the table differs from what scripts/bench_table.py makes "
                            f"of {match.group(1)}: paste its output between the markers")


def main():
    parser = argparse.ArgumentParser(description="Check README.md and docs/*.md: length, table cells, links, "
                                     "and run their GPU-free sh blocks (see the top of this file).")
    parser.add_argument("--no-run", action="store_true", help="the static checks alone (no build needed)")
    parser.add_argument("--root", default=os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."),
                        help="the repository root (default: this script's repository)")
    arguments = parser.parse_args()
    root = os.path.abspath(arguments.root)
    if not os.path.isfile(os.path.join(root, "README.md")):
        print(f"check-docs: no README.md in {root}: pass the repository with --root", file=sys.stderr)
        return 2

    build_dir = os.environ.get("BUILD_DIR", "build/release")
    app_dir = os.path.join(build_dir if os.path.isabs(build_dir) else os.path.join(root, build_dir), "app")
    if not arguments.no_run and not os.access(os.path.join(app_dir, "interop-lab"), os.X_OK):
        print(f"check-docs: no interop-lab in {app_dir}: build it first (bash scripts/build.sh --target "
              "interop-lab), set BUILD_DIR to a build, or pass --no-run", file=sys.stderr)
        return 1
    if not arguments.no_run and not os.environ.get("DISPLAY") and shutil.which("xvfb-run"):
        # One virtual X server for every block, as scripts/test.sh gives the tests.
        os.execvp("xvfb-run", ["xvfb-run", "-a", "-s", "-screen 0 1920x1080x24 -noreset", sys.executable,
                               os.path.abspath(__file__)] + sys.argv[1:])

    paths = ["README.md"] + sorted("docs/" + name for name in os.listdir(os.path.join(root, "docs"))
                                   if name.endswith(".md"))
    pages = {path: Page(root, path) for path in paths}
    problems = []
    check_static(root, pages, problems)
    for problem in problems:
        print(f"check-docs: {problem}")

    counts = {"passed": 0, "failed": 0, "skipped": 0}
    if not arguments.no_run:
        with tempfile.TemporaryDirectory(prefix="check-docs.") as scratch_parent:
            for path in paths:
                for number, language, body, skip in pages[path].blocks:
                    if language not in RUN_LANGUAGES:
                        continue
                    first = next((line.strip() for line in body if line.strip()), "(empty)")
                    where = f"{path}:{number}: {first[:70]}"
                    if skip:
                        counts["skipped"] += 1
                        print(f"check-docs: {where}: skipped ({skip})")
                        continue
                    passed, seconds, why = run_block(body, app_dir, scratch_parent)
                    counts["passed" if passed else "failed"] += 1
                    print(f"check-docs: {where}: " +
                          (f"passed in {seconds:.1f}s" if passed else f"FAILED in {seconds:.1f}s ({why})"),
                          flush=True)

    failed = bool(problems) or counts["failed"] > 0
    blocks = "blocks not run (--no-run)" if arguments.no_run else \
        f"blocks: {counts['passed']} passed, {counts['failed']} failed, {counts['skipped']} skipped"
    print(f"check-docs: {'FAILED' if failed else 'PASSED'} — {len(paths)} pages, {len(problems)} problem(s), "
          f"{blocks}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
