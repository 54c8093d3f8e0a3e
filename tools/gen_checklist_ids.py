"""Write docs/checklist-ids.txt from the VXP 1.7 checklist: each line's ID, side, and a summary.

    .venv/bin/python tools/gen_checklist_ids.py PATH/TO/vxp-1.7-checklist.md

The checklist itself is not part of this repository; the IDs and sides are, so that
tests/test_checklist.py can tell when a line the host must honour is cited by no test. The
summary is the line's section and the short names it mentions (fields, ops, codes), not its
prose.
Rerun after the checklist changes; the file is rewritten whole.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

OUT = Path(__file__).resolve().parent.parent / "docs" / "checklist-ids.txt"
LINE = re.compile(r"^\d+\. (?P<id>[A-Z]+-\d+) — (?P<text>.*) \[(?P<side>host|ext|both)\]\s*$")
SECTION = re.compile(r"^## (?P<prefix>[A-Z]+) — (?P<title>.*)$")
CODE = re.compile(r"`([^`]+)`")

HEADER = """\
# The VXP 1.7 checklist's line IDs, the side each binds, and what each is about.
# Written by tools/gen_checklist_ids.py; tests/test_checklist.py reads it.
# Columns: ID, side (host, ext, both), section: the names the line mentions.
"""


def main(source: Path) -> None:
    rows: list[str] = []
    section = ""
    for raw in source.read_text(encoding="utf-8").splitlines():
        if match := SECTION.match(raw):
            section = match["title"].split(" (")[0].split(",")[0].lower()
        elif match := LINE.match(raw):
            spans = [c for c in CODE.findall(match["text"]) if len(c) <= 32 and "{" not in c]
            names = ", ".join(dict.fromkeys(spans))
            summary = f"{section}: {names}" if names else section
            rows.append(f"{match['id']:<9} {match['side']:<5} {summary}")
    if not rows:
        sys.exit(f"no checklist lines found in {source}")
    OUT.write_text(HEADER + "\n".join(rows) + "\n", encoding="utf-8")
    print(f"{len(rows)} lines written to {OUT}")


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    main(Path(sys.argv[1]))
