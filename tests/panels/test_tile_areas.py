"""A tile's ☆ has a hit area of its own that a press of the tile does not reach (issue 25,
item 5). The geometry of SoundTile's TouchAreas is read from overlay.slint and worked out for a
few tile sizes: the star's square and the areas that play the tile never overlap, and together
they cover the whole tile, so no press of a tile goes unanswered either."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

PANELS = Path(__file__).resolve().parents[2] / "panels"
HIT_MIN = 44.0  # ExtTheme.hit-min at density 1.0

type Rect = tuple[float, float, float, float]  # x, y, width, height


def _tile() -> str:
    source = (PANELS / "overlay.slint").read_text(encoding="utf-8")
    source = re.sub(r"//[^\n]*", "", source)
    start = source.index("component SoundTile")
    return source[start : source.index("component FolderChip", start)]


def _body(code: str, at: int) -> str:
    depth, i = 1, at
    while depth:
        depth += {"{": 1, "}": -1}.get(code[i], 0)
        i += 1
    return code[at : i - 1]


def touch_areas(tile: str) -> dict[str, dict[str, str]]:
    """id -> its own x, y, width and height bindings (children's are left out)."""
    areas: dict[str, dict[str, str]] = {}
    for m in re.finditer(r"([\w-]+)\s*:=\s*TouchArea\s*\{", tile):
        body = _body(tile, m.end())
        own = re.sub(r"\{[^{}]*(?:\{[^{}]*\}[^{}]*)*\}", "", body)  # drop nested blocks
        areas[m.group(1)] = dict(re.findall(r"(?<![\w-])(x|y|width|height):\s*([^;]+);", own))
    return areas


def _value(expr: str, env: dict[str, float]) -> float:
    for name in sorted(env, key=len, reverse=True):
        expr = expr.replace(name, repr(env[name]))
    expr = expr.replace("px", "")
    assert re.fullmatch(r"[\d.\s+\-*/()]+", expr), f"cannot work out {expr!r}"
    return float(eval(expr))  # digits and arithmetic only, checked above


def rects(width: float, height: float) -> dict[str, Rect]:
    areas = touch_areas(_tile())
    env = {
        "root.width": width,
        "root.height": height,
        "parent.width": width,
        "parent.height": height,
        "ExtTheme.hit-min": HIT_MIN,
    }
    out: dict[str, Rect] = {}
    # the star first: the other areas are placed by it
    order = ["star"] + [a for a in areas if a != "star"]
    for area in order:
        b = areas[area]
        w = _value(b.get("width", "root.width"), env)
        h = _value(b.get("height", "root.height"), env)
        own = env | {"self.width": w, "self.height": h}
        r = (_value(b.get("x", "0"), own), _value(b.get("y", "0"), own), w, h)
        out[area] = r
        if area == "star":
            env |= {"star.x": r[0], "star.y": r[1], "star.width": r[2], "star.height": r[3]}
    return out


def _overlap(a: Rect, b: Rect) -> float:
    w = min(a[0] + a[2], b[0] + b[2]) - max(a[0], b[0])
    h = min(a[1] + a[3], b[1] + b[3]) - max(a[1], b[1])
    return max(0.0, w) * max(0.0, h)


def test_the_tile_has_a_star_and_areas_that_play_it() -> None:
    areas = touch_areas(_tile())
    assert "star" in areas and len(areas) >= 2
    assert "set-favourite" in _tile() and "root.play();" in _tile()


@pytest.mark.parametrize(
    ("width", "height"), [(150.0, 122.0), (2 * HIT_MIN, HIT_MIN + 1), (300, 90)]
)
def test_the_star_and_a_press_of_the_tile_never_share_a_point(width: float, height: float) -> None:
    found = rects(width, height)
    star = found.pop("star")
    assert star == (width - HIT_MIN, 0.0, HIT_MIN, HIT_MIN)  # a whole hit-min square
    for name, area in found.items():
        assert _overlap(star, area) == 0, f"{name} reaches under the star"
    for a in found.values():
        for b in found.values():
            assert a is b or _overlap(a, b) == 0
    covered = sum(r[2] * r[3] for r in found.values()) + star[2] * star[3]
    assert covered == pytest.approx(width * height), "part of the tile answers no press"


def test_the_check_catches_a_tile_area_under_the_star() -> None:
    """The old layout: one TouchArea over the whole tile, the star on top of it."""
    whole = (0.0, 0.0, 150.0, 122.0)
    assert _overlap((150.0 - HIT_MIN, 0.0, HIT_MIN, HIT_MIN), whole) > 0
