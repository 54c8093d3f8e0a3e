"""docs/protocol-notes.md carries every reading the code cites, under a stable anchor."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]

NOTES = REPO / "docs" / "protocol-notes.md"
CITATION = re.compile(r"docs/protocol-notes\.md#([a-z0-9-]+)((?:(?:, | and | to )#[a-z0-9-]+)*)")


def _anchors() -> set[str]:
    """GitHub's anchors for the headings: lower case, spaces to dashes, punctuation dropped."""
    headings = re.findall(r"^#{2,3} (.+)$", NOTES.read_text(encoding="utf-8"), re.M)
    return {re.sub(r"[^a-z0-9 -]", "", h.lower()).replace(" ", "-") for h in headings}


def test_every_reading_r1_to_r35_and_m1_to_m7_has_its_anchor() -> None:
    anchors = _anchors()
    assert {f"r{n}" for n in range(1, 36)} <= anchors
    assert {f"m{n}" for n in range(1, 8)} <= anchors
    assert "shapes-the-page-does-not-give" in anchors


def test_every_citation_in_the_repository_points_at_an_anchor() -> None:
    files = subprocess.run(
        ["git", "ls-files"], cwd=REPO, capture_output=True, text=True, check=True
    ).stdout.split()
    anchors = _anchors()
    cited: dict[str, str] = {}
    for name in files:
        path = REPO / name
        if path.suffix not in {".py", ".md", ".slint", ".toml", ".txt"} or not path.is_file():
            continue
        for first, rest in CITATION.findall(path.read_text(encoding="utf-8", errors="replace")):
            for anchor in [first, *re.findall(r"#([a-z0-9-]+)", rest)]:
                cited.setdefault(anchor, name)
    assert len(cited) > 20
    assert {a: f for a, f in cited.items() if a not in anchors} == {}
