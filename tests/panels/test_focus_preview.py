"""The panels running in vrosdev's preview (real Slint, private Xvfb): every prop the overlay
model sends is accepted, the focus contract works through the `focus` and `blur` script steps
(PAN-24, PAN-26, PAN-27, PAN-30), and Japanese text renders as glyphs, not blank boxes."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import anyio
import pytest

from cueboard.core.contract import MediaMode, SlotState
from cueboard.core.overlay import Tile, blank_icon_asset, grid_values
from cueboard.core.props import PropsModel
from cueboard.runtime.catalogs import load_catalog

pytestmark = [
    pytest.mark.anyio,
    pytest.mark.display,
    pytest.mark.slow,
    pytest.mark.usefixtures("needs_x"),
]

REPO = Path(__file__).resolve().parents[2]


def _overlay_state(locale: str) -> list[list[Any]]:
    model = PropsModel(None)
    model.set_texts(load_catalog(locale))
    tiles = [Tile(f"s{i}.wav", f"Sound {i}", 1.0 + i, SlotState(1 + i % 4)) for i in range(12)]
    model.update("overlay", {**grid_values(tiles), "page-count": 2, "media-mode": 1})
    return [[name, value] for name, value in model.desired("overlay").items()]


async def _edge(preview: Any) -> bool:
    with anyio.fail_after(10):
        return bool((await preview.next_event("field-focus"))["focused"])


async def test_focus_contract_through_the_preview() -> None:
    from vrosdev.panels import PreviewClient

    source = (REPO / "panels" / "overlay.slint").read_text(encoding="utf-8")
    async with PreviewClient.open(source, name="overlay") as preview:
        await preview.put_asset(blank_icon_asset())
        assert await preview.set_props(_overlay_state("en-US")) == []
        await preview.flush()

        await preview.focus("search")
        assert await _edge(preview) is True
        await preview.blur()  # field-blur advances: the panel drops focus and says so
        assert await _edge(preview) is False

        await preview.focus("url")  # switches to the media tab
        assert await _edge(preview) is True
        # The deck goes away under a focused field: the panel reports the loss itself.
        await preview.set_props([["media-mode", {"t": "i64", "v": int(MediaMode.UNSUPPORTED)}]])
        await preview.flush()
        assert await _edge(preview) is False


async def _toast_pixels(name: str, out: Path) -> bytes:
    from PIL import Image

    from vrosdev.panels import screenshot_panel

    source = (REPO / "panels" / "now-playing.slint").read_text(encoding="utf-8")
    props = [
        ["sound-name", {"t": "str", "v": name}],
        ["showing", {"t": "bool", "v": True}],
        ["sound-icon", {"t": "assets", "v": ["cb:blank"]}],
    ]
    _, violations = await screenshot_panel(source, out, props=props, assets=[blank_icon_asset()])
    assert violations == []
    with Image.open(out) as image:
        return image.convert("L").tobytes()


async def test_japanese_renders_as_glyphs(tmp_path: Path) -> None:
    """Two different five-character Japanese names: with no CJK font both would be five
    identical missing-glyph boxes, so identical pixels mean blank boxes."""
    first = await _toast_pixels("エアホーン", tmp_path / "a.png")
    second = await _toast_pixels("ドラムロル", tmp_path / "b.png")
    assert len(first) == len(second)
    differing = sum(1 for a, b in zip(first, second, strict=True) if abs(a - b) > 32)
    assert differing > 200, f"only {differing} pixels differ: CJK glyphs missing (fonts-noto-cjk)"
