"""Readable in a headset (issue 25, item 6): no text in the overlay, the dash-tab or the toast is
under 14 px at the panels' preferred size and density 1.0. The sizes are the theme stub's own
tokens, read from its source, and every `font-size:` of a panel is resolved through them, so a
text set in `ExtTheme.type-label` (12 px) fails here."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from vrosdev.theme import THEME_FILE

PANELS = Path(__file__).resolve().parents[2] / "panels"
MIN_PX = 14.0
READ_HERE = ("overlay.slint", "now-playing.slint", "dash-tab.slint")

_TOKEN = re.compile(r"out property <length> (type-[a-z]+):\s*(\d+(?:\.\d+)?)px \* density;")


def _code(path: Path) -> str:
    source = re.sub(r"/\*.*?\*/", "", path.read_text(encoding="utf-8"), flags=re.S)
    return re.sub(r"//[^\n]*", "", source)


def type_sizes() -> dict[str, float]:
    """The stub's type tokens in px at density 1.0."""
    return {name: float(px) for name, px in _TOKEN.findall(THEME_FILE.read_text("utf-8"))}


def font_sizes(panel: str) -> list[str]:
    return [
        " ".join(m.split()) for m in re.findall(r"font-size:\s*([^;]+);", _code(PANELS / panel))
    ]


def smallest(expression: str, sizes: dict[str, float]) -> float:
    """The least size an expression can take: each token it names, times a factor in front."""
    found = re.findall(r"(?:(\d+(?:\.\d+)?)\s*\*\s*)?ExtTheme\.(type-[a-z]+)", expression)
    assert found, f"a font size not taken from the theme's type tokens: {expression}"
    return min(float(factor or 1) * sizes[token] for factor, token in found)


def test_the_tokens_are_read_from_the_stub() -> None:
    sizes = type_sizes()
    assert sizes["type-label"] == 12 and sizes["type-data"] == 14 and sizes["type-body"] == 15
    assert smallest("ExtTheme.type-label", sizes) < MIN_PX  # what the check would catch


@pytest.mark.parametrize("panel", READ_HERE)
def test_no_text_is_under_fourteen_px_at_density_one(panel: str) -> None:
    sizes = type_sizes()
    expressions = font_sizes(panel)
    assert expressions, f"no font-size found in {panel}: the check would prove nothing"
    assert [e for e in expressions if smallest(e, sizes) < MIN_PX] == []


@pytest.mark.parametrize("panel", READ_HERE)
def test_the_label_size_is_not_used_for_text(panel: str) -> None:
    assert "ExtTheme.type-label" not in _code(PANELS / panel)
