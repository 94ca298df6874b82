#!/usr/bin/env python3
"""Checks `interop-lab --doctor --json` as a script reads it, against the text report of the same machine.

    check_doctor_report.py DOCTOR.json DOCTOR.txt

- every key and title is a name, without the text report's indentation (no leading or trailing spaces);
- every line of the modes section has "available", a boolean that agrees with its value;
- "verdict" is the verdict without the text's "verdict: " label, and agrees with "interop_works";
- why there is no CUDA device (the CUDA section's "devices" line) is said once in the text report.
Exits 0 when all hold, 1 with what failed.
"""
import json
import sys


def problems_of(document, text):
    problems = []
    sections = {section["title"]: section["lines"] for section in document["sections"]}
    for section in document["sections"]:
        names = [section["title"]] + [line["key"] for line in section["lines"]]
        problems += [f"{section['title']}: {name!r} has spaces around it" for name in names if name != name.strip()]
    if "modes" not in sections:
        problems.append("no modes section")
    for line in sections.get("modes", []):
        available = line.get("available")
        if not isinstance(available, bool):
            problems.append(f"mode {line['key']}: 'available' is {available!r}, not true or false")
        elif available != (line["value"] == "available"):
            problems.append(f"mode {line['key']}: available {available} but the value says {line['value']!r}")
    verdict = document["verdict"]
    if verdict.startswith("verdict"):
        problems.append(f"the verdict repeats its label: {verdict!r}")
    expected = "CUDA-GL interop works" if document["interop_works"] else "CUDA-GL interop is unavailable: "
    if not verdict.startswith(expected):
        problems.append(f"the verdict {verdict!r} does not start with {expected!r}")
    if f"\nverdict: {verdict}\n" not in text:
        problems.append("the text report's verdict line is not 'verdict: ' and the JSON's verdict")
    devices = next((line["value"] for line in sections.get("CUDA", []) if line["key"] == "devices"), None)
    if devices is None:
        problems.append("no devices line in the CUDA section")
    elif devices.startswith("none: "):
        why = devices[len("none: "):]
        if text.count(why) != 1:
            problems.append(f"why there is no CUDA device is said {text.count(why)} times in the text: {why!r}")
    return problems


def main():
    if len(sys.argv) != 3:
        sys.exit("usage: check_doctor_report.py DOCTOR.json DOCTOR.txt")
    with open(sys.argv[1], encoding="utf-8") as file:
        document = json.load(file)
    with open(sys.argv[2], encoding="utf-8") as file:
        text = file.read()
    problems = problems_of(document, text)
    for problem in problems:
        print(f"check_doctor_report: {problem}", file=sys.stderr)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
