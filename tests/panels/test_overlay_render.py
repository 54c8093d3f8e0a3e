"""The overlay as rendered by real Slint in vrosdev's preview (private Xvfb), issue 25 items 2
and 5: the folder strip shows folder 33 of 40 without a press, and in every theme the stub
offers (OLED and mono included) a playing tile's outline and a failed tile's outline read at
3:1 or more against the tile's face, measured on the rendered pixels, and differ in shape: the
playing outline is whole with a filled edge, the failed one is broken by gaps."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from cueboard.core.contract import SlotState
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


# Where the layout puts things at the preferred size (960 x 640, density 1.0), with the strip
# shown: checked below against the palette, so a moved layout fails loudly instead of
# measuring the wrong pixels.
STRIP_BAND = range(66, 122)  # the strip's row, below the header's tabs
LEFT_COLUMN = range(0, 648)
PLAYING_X = 100  # a column through the first tile, clear of its corner mark and star
FAILED_X = 194  # a column through the second tile, clear of the gaps in its outline
GRID_TOP = 130  # above the first row of tiles, below the page header


def _props() -> list[list[Any]]:
    model = PropsModel(None)
    model.set_texts(load_catalog("en-US"))
    tiles = [
        Tile("a.wav", "Playing", 1.0, SlotState.PLAYING),
        Tile("b.wav", "Broken", 1.0, SlotState.BROKEN, "Can't decode"),
    ]
    folders = [(f"c:Category {n:02d}", f"Category {n:02d}") for n in range(1, 41)]
    values = {
        **grid_values(tiles),
        "folders": folders,
        "folder-key": "c:Category 33",
        "folder-index": 32,
        "page-name": "Category 33",
        "page-counter": "1 / 5",
    }
    model.update("overlay", values)
    return [[name, value] for name, value in model.desired("overlay").items()]


def _edge(image: Any, x: int, colour: tuple[int, int, int]) -> int:
    """The first row at or below GRID_TOP in column x that has exactly ``colour``."""
    for y in range(GRID_TOP, image.height):
        if image.getpixel((x, y)) == colour:
            return y
    raise AssertionError(f"no outline of {colour} in column {x}")


def _runs(pixels: list[tuple[int, int, int]], colour: tuple[int, int, int]) -> int:
    """How many separate runs of ``colour`` a row of pixels holds."""
    return sum(
        1 for i, p in enumerate(pixels) if p == colour and (i == 0 or pixels[i - 1] != colour)
    )


async def test_outlines_read_and_differ_in_shape_in_every_theme(tmp_path: Path) -> None:
    shots = await overlay_shots(tmp_path, _props())
    problems: list[str] = []
    for (theme, oled), image in shots.items():
        colours = {k: hex_to_rgb(v) for k, v in palette(theme, oled=oled).items()}
        name = f"{theme}{'+oled' if oled else ''}"
        for what, x, outline, face in (
            ("playing", PLAYING_X, colours["live"], colours["bg2"]),
            ("failed", FAILED_X, colours["err"], colours["bg1"]),
        ):
            top = _edge(image, x, outline)
            inside = image.getpixel((x, top + 4))
            assert inside == face, f"{name} {what}: the layout moved ({inside} != {face})"
            ratio = contrast(image.getpixel((x, top)), inside)
            if ratio < MARK:
                problems.append(f"{name} {what}: {ratio:.2f}:1")
        # shape: the playing tile's top outline is one run, the failed tile's is broken
        top = _edge(image, PLAYING_X, colours["live"])
        playing_row = [image.getpixel((x, top)) for x in range(32, 150)]
        failed_row = [image.getpixel((x, top)) for x in range(190, 308)]
        assert _runs(playing_row, colours["live"]) == 1, name
        assert _runs(failed_row, colours["err"]) >= 3, name
        # and the playing tile's filled bottom edge: thicker than its top outline
        column = [image.getpixel((PLAYING_X, y)) for y in range(top, top + 200)]
        outline = [y for y, p in enumerate(column) if p == colours["live"]]
        thick_top = sum(1 for y in outline if y < 10)
        assert len(outline) - thick_top >= 2 * thick_top, f"{name}: no filled edge"
    assert problems == []
    # the strip, in the first theme: the current folder's primary chip is in view
    image = shots[(THEME_IDS[0], False)]
    accent = hex_to_rgb(palette(THEME_IDS[0])["accent"])
    xs = [x for y in STRIP_BAND for x in LEFT_COLUMN if image.getpixel((x, y)) == accent]
    assert xs, "folder 33 of 40 is not in view: the strip did not scroll to it"
    centre = sum(xs) / len(xs)
    assert 160 < centre < 490, f"the current folder is at the strip's edge ({centre:.0f})"
