"""Emoji in sound names render in colour in vrosdev's screenshots (a colour emoji font from
`make sysdeps`, and a renderer that draws colour glyphs)."""

from __future__ import annotations

from pathlib import Path

import pytest

pytestmark = [
    pytest.mark.anyio,
    pytest.mark.display,
    pytest.mark.slow,
    pytest.mark.usefixtures("needs_x"),
]

REPO = Path(__file__).resolve().parents[2]


async def _green_pixels(name: str, out: Path) -> int:
    """Green pixels in the now-playing toast; its own colours (signal theme) are greys and the
    live red, and it may still be fading in, so the test asks for green, not for a shade."""
    from PIL import Image

    from vrosdev.panels import screenshot_panel

    source = (REPO / "panels" / "now-playing.slint").read_text(encoding="utf-8")
    props = [["sound-name", {"t": "str", "v": name}], ["showing", {"t": "bool", "v": True}]]
    _, violations = await screenshot_panel(source, out, props=props)
    assert violations == []
    with Image.open(out) as image:
        rgb = image.convert("RGB")
        width, height = rgb.size
        pixels = [rgb.getpixel((x, y)) for y in range(height) for x in range(width)]
    return sum(1 for p in pixels if isinstance(p, tuple) and p[1] >= p[0] and p[1] > p[2] + 60)


async def test_an_emoji_name_renders_in_colour(tmp_path: Path) -> None:
    """A frog drawn from a monochrome font, or as a missing-glyph box, has no green in it."""
    assert await _green_pixels("Frog", tmp_path / "plain.png") == 0
    green = await _green_pixels("🐸 Frog", tmp_path / "emoji.png")
    assert green > 50, f"{green} green pixels: no colour emoji (fonts-noto-color-emoji?)"
