"""The tile marks of where a sound plays, as rendered by real Slint in vrosdev's preview
(private Xvfb), issue 26 item 4: in every theme the stub offers (OLED and mono included) the
outline of an only-me, only-mic and mic-off mark reads at 3:1 or more against the mark's own
face, measured on the rendered pixels; each holds its words in tx-hi; and the shapes differ: the
only-me pill is round where the only-mic one has square corners. The mic-off mark's outline is
the error colour. Sizes are checked for every text by test_text_size.py."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from cueboard.core.contract import SlotState, TargetMark
from cueboard.core.overlay import Tile, grid_values
from cueboard.core.props import PropsModel
from cueboard.runtime.catalogs import load_catalog
from vrosdev.theme import THEME_IDS, hex_to_rgb, palette

from .shots import MARK, contrast, overlay_shots

pytestmark = [
    pytest.mark.anyio,
    pytest.mark.display,
    pytest.mark.slow,
    pytest.mark.usefixtures("needs_x"),
]

# The first three tiles at the preferred size (960 x 640, density 1.0): the left part of each
# one's icon area, clear of its rounded corners and of the star, where the mark sits at the
# icon's foot.
MARKS = {
    TargetMark.ONLY_ME: range(24, 126),
    TargetMark.ONLY_MIC: range(182, 284),
    TargetMark.MIC_OFF: range(340, 442),
}
BAND = range(190, 262)  # the icon area, below the tile's top edge and above the name


def _props() -> list[list[Any]]:
    model = PropsModel(None)
    model.set_texts(load_catalog("en-US"))
    tiles = [Tile(f"{int(m)}.wav", m.name, 1.0, SlotState.READY, target=int(m)) for m in MARKS]
    strip = {"folders": [("c:A", "A"), ("c:B", "B")], "folder-key": "c:A", "folder-index": 0}
    model.update("overlay", {**grid_values(tiles), **strip, "page-name": "A"})
    return [[name, value] for name, value in model.desired("overlay").items()]


def _face(image: Any, xs: range, colour: tuple[int, int, int]) -> tuple[int, int, int, int]:
    """The bounding box (x0, y0, x1, y1) of a mark's face: its pixels of ``colour``."""
    found = [(x, y) for x in xs for y in BAND if image.getpixel((x, y)) == colour]
    assert found, f"no mark's face of {colour} in columns {xs.start}-{xs.stop}: the layout moved"
    return (
        min(x for x, _ in found),
        min(y for _, y in found),
        max(x for x, _ in found),
        max(y for _, y in found),
    )


async def test_the_marks_read_hold_their_words_and_differ_in_shape(tmp_path: Path) -> None:
    shots = await overlay_shots(tmp_path, _props())
    # Where each mark is: found by its face in the first theme, whose bg0 is no tile's face;
    # the layout is the same in every theme.
    first = {k: hex_to_rgb(v) for k, v in palette(THEME_IDS[0]).items()}
    boxes = {m: _face(shots[(THEME_IDS[0], False)], xs, first["bg0"]) for m, xs in MARKS.items()}
    problems: list[str] = []
    for (theme, oled), image in shots.items():
        colours = {k: hex_to_rgb(v) for k, v in palette(theme, oled=oled).items()}
        name = f"{theme}{'+oled' if oled else ''}"
        left_edges: dict[TargetMark, int] = {}
        for mark, (x0, y0, x1, y1) in boxes.items():
            middle = (x0 + x1) // 2
            face = image.getpixel((middle, y0))  # the top row inside, clear of the words
            outline = image.getpixel((middle, y0 - 1))  # the top edge, straight in every shape
            ratio = contrast(outline, face)
            if ratio < MARK:
                problems.append(f"{name} {mark.name}: outline {ratio:.2f}:1")
            edge = [image.getpixel((middle, y)) for y in range(y0 - 3, y0)]
            if mark is TargetMark.MIC_OFF and colours["err"] not in edge:
                problems.append(f"{name} {mark.name}: the outline {edge} is not the error colour")
            inside = [(x, y) for x in range(x0, x1 + 1) for y in range(y0, y1 + 1)]
            if not any(image.getpixel(p) == colours["tx-hi"] for p in inside):
                problems.append(f"{name} {mark.name}: no words in tx-hi")
            # How much of the outline's left column reads as outline: little for a round end.
            left_edges[mark] = sum(
                1
                for y in range(y0 - 1, y1 + 2)
                if contrast(image.getpixel((x0 - 1, y)), face) >= MARK
            )
        if not left_edges[TargetMark.ONLY_ME] < left_edges[TargetMark.ONLY_MIC]:
            problems.append(f"{name}: only me's round end is not rounder ({left_edges})")
    assert problems == [], "\n".join(problems)
