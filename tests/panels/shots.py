"""The overlay rendered by real Slint in vrosdev's preview in every theme the stub offers (OLED
and mono included), and WCAG's contrast of two rendered pixels: what the render tests measure
on."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from vrosdev.theme import LIGHT_THEME_IDS, THEME_IDS

REPO = Path(__file__).resolve().parents[2]
MARK = 3.0  # WCAG 1.4.11


def _luminance(rgb: tuple[int, int, int]) -> float:
    def channel(c: int) -> float:
        s = c / 255
        return s / 12.92 if s <= 0.04045 else ((s + 0.055) / 1.055) ** 2.4

    r, g, b = (channel(c) for c in rgb)
    return 0.2126 * r + 0.7152 * g + 0.0722 * b


def contrast(a: tuple[int, int, int], b: tuple[int, int, int]) -> float:
    """WCAG 2.2's contrast ratio of two rendered pixels."""
    high, low = sorted((_luminance(a), _luminance(b)), reverse=True)
    return (high + 0.05) / (low + 0.05)


def variants() -> list[tuple[str, bool]]:
    """Every theme, and OLED for each dark one: (theme, oled)."""
    out = [(theme, False) for theme in THEME_IDS]
    return out + [(theme, True) for theme in THEME_IDS if theme not in LIGHT_THEME_IDS]


async def overlay_shots(tmp_path: Path, props: list[list[Any]]) -> dict[tuple[str, bool], Any]:
    """The overlay with ``props`` in each of :func:`variants`, as RGB images."""
    from PIL import Image

    from vrosdev.panels import PreviewClient
    from vrosdev.panels.window import ThemeSettings

    source = (REPO / "panels" / "overlay.slint").read_text(encoding="utf-8")
    shots: dict[tuple[str, bool], Any] = {}
    async with PreviewClient.open(source, name="overlay") as preview:
        assert await preview.set_props(props) == []
        await preview.flush()
        for theme, oled in variants():
            await preview.set_theme(ThemeSettings(theme=theme, oled=oled, reduced_motion=True))
            await preview.flush()
            out = tmp_path / f"{theme}-{oled}.png"
            await preview.screenshot(out)
            with Image.open(out) as image:
                shots[(theme, oled)] = image.convert("RGB")
    return shots
