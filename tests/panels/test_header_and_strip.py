"""The overlay's header and folder strip as written in overlay.slint (issue 25, items 2 and 3):
the page counter is a Text of its own beside the title, never elided and never narrower than
itself, so a long folder name gives way and the counter stays whole; a folder chip has a widest
size at which its name is elided; the strip follows folder-index and marks its edges. The
rendered strip is checked in test_overlay_render.py."""

from __future__ import annotations

import re
from pathlib import Path

PANELS = Path(__file__).resolve().parents[2] / "panels"


def _code() -> str:
    source = (PANELS / "overlay.slint").read_text(encoding="utf-8")
    return " ".join(re.sub(r"//[^\n]*", "", source).split())


def _text_showing(binding: str) -> str:
    found = re.search(r"Text \{([^{}]*?text: " + re.escape(binding) + r";[^{}]*)\}", _code())
    assert found is not None, f"no Text showing {binding}"
    return found.group(1)


def test_the_counter_is_a_text_of_its_own_that_is_always_whole() -> None:
    counter = _text_showing("root.page-counter")
    assert "overflow: elide" not in counter
    assert "min-width: self.preferred-width;" in counter
    assert "horizontal-stretch: 0;" in counter
    # the title is what gives way: it elides, and it holds no counter
    title = _text_showing("root.page-name")
    assert "overflow: elide;" in title and "page-counter" not in title
    assert "horizontal-stretch: 1;" in title


def test_the_title_and_counter_share_one_row() -> None:
    row = re.search(
        r"HorizontalLayout \{[^{}]*Text \{[^{}]*text: root\.page-name;[^{}]*\} "
        r"if root\.page-counter != \"\": Text \{[^{}]*text: root\.page-counter;",
        _code(),
    )
    assert row is not None


def test_a_folder_chip_elides_at_its_widest() -> None:
    code = _code()
    chip = re.search(r"component FolderChip inherits CueButton \{([^{}]*)\}", code)
    assert chip is not None and "max-width:" in chip.group(1)
    assert "overflow: elide;" in _text_showing("root.label")


def test_the_strip_follows_the_current_folder_and_marks_its_edges() -> None:
    code = _code()
    assert "property <bool> shown: i == root.folder-index;" in code
    for edge in ("changed shown", "changed x", "changed strip-width", "init"):
        assert f"{edge} => {{ self.follow(); }}" in code, edge
    assert "if folder-strip.content-x < 0: EdgeMark" in code
    assert re.search(r"if folder-strip\.content-x > [^:]+: EdgeMark", code)
