"""The now-playing text that is longer in Japanese wraps rather than clips (issue 16, item 8):
「サウンドボード 80% · マイク 40%」 is cut to 「サウンドボード 80% · マイク …」 by an elided
line in the overlay's now-playing card and in the toast."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

PANELS = Path(__file__).resolve().parents[2] / "panels"


def _text_block(panel: str, binding: str) -> str:
    """The body of the Text element whose text is ``binding``."""
    source = re.sub(r"//[^\n]*", "", (PANELS / panel).read_text(encoding="utf-8"))
    found = re.search(r"Text\s*\{([^{}]*?text:\s*" + re.escape(binding) + r";[^{}]*)\}", source)
    assert found is not None, f"no Text showing {binding} in {panel}"
    return " ".join(found.group(1).split())


@pytest.mark.parametrize(
    ("panel", "binding"),
    [("overlay.slint", "p.c2"), ("now-playing.slint", "root.channels-text")],
)
def test_the_channels_line_wraps_and_never_elides(panel: str, binding: str) -> None:
    block = _text_block(panel, binding)
    assert "wrap: word-wrap" in block
    assert "overflow: elide" not in block
