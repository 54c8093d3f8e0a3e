"""The colour pairs the panels choose read in every palette of the theme stub, OLED included.

The theme belongs to vrOS, so the panels answer for contrast by the pairs they pick. Each
`color:` expression in panels/*.slint is listed below with the surfaces it is drawn on and what
it is: text (WCAG 2.2 1.4.3: 4.5:1) or a mark or outline that carries meaning (1.4.11: 3:1).
An expression that a panel adds or changes fails the listing test until it is listed here, so
no text colour escapes the check. The palettes are read from the stub itself.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

import pytest

from vrosdev.theme import LIGHT_THEME_IDS, THEME_FILE, hex_to_rgb, palette

REPO = Path(__file__).resolve().parents[2]
PANELS = REPO / "panels"

TEXT = 4.5  # WCAG 1.4.3, body text
MARK = 3.0  # WCAG 1.4.11, graphical objects and the parts of controls that carry meaning


@dataclass(frozen=True)
class Use:
    surfaces: tuple[str, ...]
    minimum: float
    what: str
    # Keys in the expression that WCAG asks nothing of here (an inactive control's caption).
    exempt: tuple[str, ...] = ()


ALL = ("bg0", "bg1", "bg2")
CARD = ("bg1",)  # cards, the status line, fields
TILE = ("bg1", "bg2")  # a tile or row at rest, and hovered, pressed, playing or selected
INACTIVE = ("tx-low",)

# (panel, colour expression as written, whitespace collapsed) -> where it is drawn.
COLOURS: dict[tuple[str, str], tuple[Use, ...]] = {
    ("overlay.slint", "ExtTheme.c.tx-hi"): (Use(ALL, TEXT, "body text, names, values"),),
    ("overlay.slint", "ExtTheme.c.tx-mid"): (Use(ALL, TEXT, "secondary text, hints"),),
    ("overlay.slint", "ExtTheme.c.tx-low"): (Use(TILE, MARK, "the ♪ of a tile without icon"),),
    ("overlay.slint", "ExtTheme.c.warn"): (
        Use(("bg0",), TEXT, "the media deck's unsupported notice"),
    ),
    ("overlay.slint", "root.favourite ? ExtTheme.c.warn : ExtTheme.c.tx-mid"): (
        Use(TILE, MARK, "a tile's ★ (favourite) or ☆"),
    ),
    ("overlay.slint", "root.active ? ExtTheme.c.tx-hi : ExtTheme.c.tx-low"): (
        Use(TILE, TEXT, "button captions: Stop all and the selected tab too", INACTIVE),
    ),
    ("overlay.slint", "root.active ? ExtTheme.c.live : ExtTheme.c.tx-low"): (
        Use(TILE, MARK, "the ■ of Stop all", INACTIVE),
    ),
    ("overlay.slint", "root.mark-color"): (Use(TILE, MARK, "a tile's state mark ▶ ◌ ⚠ ⊘"),),
    ("overlay.slint", "root.state == 5 ? ExtTheme.c.tx-mid : ExtTheme.c.tx-hi"): (
        Use(TILE, TEXT, "a tile's name (tx-mid while sound is off)"),
    ),
    ("overlay.slint", "root.state == 4 ? ExtTheme.c.tx-hi : ExtTheme.c.tx-mid"): (
        Use(TILE, TEXT, "a tile's state label: duration, detail, reason"),
    ),
    ("overlay.slint", "root.mic-enabled ? ExtTheme.c.tx-hi : ExtTheme.c.tx-mid"): (
        Use(CARD, TEXT, "the mic gain value"),
    ),
    (
        "overlay.slint",
        "root.playback-state == 5 ? ExtTheme.c.err : root.playback-state == 2 ? ExtTheme.c.ok"
        " : root.playback-state <= 1 ? ExtTheme.c.warn : ExtTheme.c.tx-mid",
    ): (Use(CARD, TEXT, "a stream's playback state"),),
    (
        "overlay.slint",
        "root.video-state == 3 ? ExtTheme.c.warn : root.video-state == 2 ? ExtTheme.c.ok"
        " : ExtTheme.c.tx-mid",
    ): (Use(CARD, TEXT, "a stream's video state"),),
    (
        "overlay.slint",
        "root.status-level == 2 ? ExtTheme.c.err : root.status-level == 1 ? ExtTheme.c.warn"
        " : ExtTheme.c.tx-mid",
    ): (Use(CARD, TEXT, "the status line"),),
    ("dash-tab.slint", "ExtTheme.c.tx-hi"): (Use(ALL, TEXT, "body text, names, values"),),
    ("dash-tab.slint", "ExtTheme.c.tx-mid"): (Use(ALL, TEXT, "secondary text, hints"),),
    ("dash-tab.slint", "ExtTheme.c.warn"): (Use(("bg0",), TEXT, "the toast note"),),
    ("dash-tab.slint", "root.active ? ExtTheme.c.tx-hi : ExtTheme.c.tx-low"): (
        Use(TILE, TEXT, "button captions", INACTIVE),
    ),
    ("dash-tab.slint", "root.active ? ExtTheme.c.live : ExtTheme.c.tx-low"): (
        Use(TILE, MARK, "the ■ of a stop button", INACTIVE),
    ),
    (
        "dash-tab.slint",
        "root.state == 2 ? ExtTheme.c.live : root.state == 3 ? ExtTheme.c.warn"
        " : root.state == 5 ? ExtTheme.c.tx-mid : ExtTheme.c.err",
    ): (Use(TILE, MARK, "a library row's state mark"),),
    ("dash-tab.slint", "ch.c3 ? ExtTheme.c.ok : ExtTheme.c.err"): (
        Use(CARD, MARK, "a channel's ● armed / ○ not"),
    ),
    ("dash-tab.slint", "ch.c3 ? ExtTheme.c.tx-mid : ExtTheme.c.err"): (
        Use(CARD, TEXT, "a channel's state"),
    ),
    (
        "dash-tab.slint",
        "root.status-level == 2 ? ExtTheme.c.err : root.status-level == 1 ? ExtTheme.c.warn"
        " : ExtTheme.c.tx-mid",
    ): (Use(CARD, TEXT, "the status line"),),
    ("now-playing.slint", "ExtTheme.c.tx-hi"): (Use(CARD, TEXT, "the sound's name"),),
    ("now-playing.slint", "ExtTheme.c.tx-mid"): (Use(CARD, TEXT, "the channels line"),),
    ("now-playing.slint", "ExtTheme.c.live"): (Use(CARD, MARK, "the ♪ without icon"),),
}

# Backgrounds the listed text sits on: each pins the surfaces above to what the panel draws.
SURFACES: dict[tuple[str, str], tuple[str, ...]] = {
    # CueButton's face: never a fill of accent or live, which no caption colour reads on.
    (
        "overlay.slint",
        "!root.active ? ExtTheme.c.bg1 : touch.pressed || touch.has-hover || root.primary"
        " ? ExtTheme.c.bg2 : ExtTheme.c.bg1",
    ): TILE,
    # SoundTile (its face, and the gaps that break a failed tile's outline)
    ("overlay.slint", "root.face"): ALL,
    # LibraryRow
    (
        "dash-tab.slint",
        "root.selected || touch.pressed || touch.has-hover ? ExtTheme.c.bg2 : ExtTheme.c.bg1",
    ): TILE,
}

_KEY = re.compile(r"ExtTheme\.c\.([a-z0-9-]+)")
_COLOUR = re.compile(r"(?<![\w-])color:\s*([^;]+);")
_BACKGROUND = re.compile(r"(?<![\w-])background:\s*([^;]+);")


def _code(path: Path) -> str:
    source = re.sub(r"/\*.*?\*/", "", path.read_text(encoding="utf-8"), flags=re.S)
    return re.sub(r"//[^\n]*", "", source)


def _expressions(pattern: re.Pattern[str]) -> set[tuple[str, str]]:
    return {
        (path.name, " ".join(m.group(1).split()))
        for path in sorted(PANELS.glob("*.slint"))
        for m in pattern.finditer(_code(path))
    }


def _keys(panel: str, expression: str) -> set[str]:
    """Palette keys an expression can take, through a panel's own `<color>` properties."""
    keys = set(_KEY.findall(expression))
    for name in re.findall(r"root\.([a-z-]+)", expression):
        found = re.search(rf"property <color> {name}:\s*([^;]+);", _code(PANELS / panel))
        if found:
            keys |= _keys(panel, found.group(1))
    return keys


def _palette_ids() -> list[str]:
    """Every palette block in the stub, read from the file (not from a list kept elsewhere)."""
    text = THEME_FILE.read_text(encoding="utf-8")
    return re.findall(r"private property <ExtPalette> ([a-z-]+):\s*\{", text)


def _palettes() -> list[tuple[str, dict[str, str]]]:
    out: list[tuple[str, dict[str, str]]] = []
    for theme in _palette_ids():
        out.append((theme, palette(theme)))
        if theme not in LIGHT_THEME_IDS:
            out.append((f"{theme}+oled", palette(theme, oled=True)))
    return out


def _luminance(colour: str) -> float:
    def channel(c: int) -> float:
        s = c / 255
        return s / 12.92 if s <= 0.04045 else ((s + 0.055) / 1.055) ** 2.4

    r, g, b = (channel(c) for c in hex_to_rgb(colour))
    return 0.2126 * r + 0.7152 * g + 0.0722 * b


def contrast(a: str, b: str) -> float:
    high, low = sorted((_luminance(a), _luminance(b)), reverse=True)
    return (high + 0.05) / (low + 0.05)


def _failures(fg_keys: set[str], surfaces: tuple[str, ...], minimum: float) -> list[str]:
    return [
        f"{fg} on {bg} in {theme}: {contrast(colours[fg], colours[bg]):.2f}:1 < {minimum}:1"
        for theme, colours in _palettes()
        for fg in sorted(fg_keys)
        for bg in surfaces
        if contrast(colours[fg], colours[bg]) < minimum
    ]


def test_contrast_is_computed_as_wcag_defines_it() -> None:
    assert contrast("#ffffff", "#000000") == pytest.approx(21.0)
    assert contrast("#777777", "#ffffff") == pytest.approx(4.48, abs=0.01)
    assert contrast("#ff3b4e", "#ffffff") == contrast("#ffffff", "#ff3b4e")


def test_every_palette_of_the_stub_is_checked_oled_included() -> None:
    ids = _palette_ids()
    assert len(ids) >= 12 and "signal" in ids and "hc-light" in ids
    names = [name for name, _ in _palettes()]
    assert "signal+oled" in names and "daylight+oled" not in names
    # palette(oled=True) models the stub's own rule for the OLED background.
    assert re.search(r"bg0: black-bg \? #000000 : base\.bg0", THEME_FILE.read_text("utf-8"))


def test_every_text_colour_in_the_panels_is_listed_here() -> None:
    used = _expressions(_COLOUR)
    assert sorted(used - COLOURS.keys()) == [], "a colour the contrast check does not know"
    assert sorted(COLOURS.keys() - used) == [], "listed here but no longer in the panels"


def test_the_surfaces_text_sits_on_are_the_ones_listed() -> None:
    used = _expressions(_BACKGROUND)
    for (panel, expression), surfaces in SURFACES.items():
        assert (panel, expression) in used, f"{panel}: a listed surface changed: {expression}"
        assert _keys(panel, expression) <= set(surfaces)


@pytest.mark.parametrize(
    ("panel", "expression"), sorted(COLOURS), ids=lambda v: v[:40] if "." in v else v
)
def test_colour_pair_reads_in_every_palette(panel: str, expression: str) -> None:
    problems: list[str] = []
    for use in COLOURS[(panel, expression)]:
        keys = _keys(panel, expression) - set(use.exempt)
        assert keys, f"no palette colour found in {expression}"
        problems += [f"{use.what}: {p}" for p in _failures(keys, use.surfaces, use.minimum)]
    assert problems == []


def test_body_text_reaches_four_and_a_half_to_one() -> None:
    assert _failures({"tx-hi", "tx-mid"}, ALL, TEXT) == []


def test_stop_all_and_the_selected_tab_read_at_four_and_a_half_to_one() -> None:
    """A caption on CueButton's face (danger: Stop all; primary: the selected tab)."""
    caption = _keys("overlay.slint", "root.active ? ExtTheme.c.tx-hi : ExtTheme.c.tx-low")
    face = _keys(
        "overlay.slint",
        "!root.active ? ExtTheme.c.bg1 : touch.pressed || touch.has-hover || root.primary"
        " ? ExtTheme.c.bg2 : ExtTheme.c.bg1",
    )
    assert _failures(caption - {"tx-low"}, tuple(sorted(face)), TEXT) == []
    # What the panels chose before: filled live and accent faces did not read.
    assert _failures({"live-text"}, ("live",), TEXT) != []
    assert _failures({"accent-text"}, ("accent",), TEXT) != []


def test_tile_states_differ_by_a_mark_not_only_a_hue() -> None:
    """Playing, loading, failed and disabled tiles each have their own symbol; ready has none."""
    code = _code(PANELS / "overlay.slint")
    found = re.search(r"property <string> mark:\s*([^;]+);", code)
    assert found is not None
    marks = dict(re.findall(r'root\.state == (\d) \? "([^"]+)"', found.group(1)))
    assert set(marks) == {"2", "3", "4", "5"}
    assert len(set(marks.values())) == 4
    # and the playing and failed outlines are thick, which a ready tile's is not
    assert "root.state == 2 || root.state == 4 ? root.edge" in " ".join(code.split())


def _tile() -> str:
    code = _code(PANELS / "overlay.slint")
    start = code.index("component SoundTile")
    return " ".join(code[start : code.index("component FolderChip", start)].split())


def test_playing_and_failed_tiles_differ_in_shape_not_only_in_hue() -> None:
    """The palettes' live and err are within 1.4:1 of each other in every theme, so a playing
    tile has a filled live edge along its bottom and a failed one an outline broken by gaps in
    the tile's own colour; neither shape is drawn for the other state."""
    assert max(contrast(c["live"], c["err"]) for _, c in _palettes()) < 1.5
    tile = _tile()
    edge = re.search(r"if root\.state == 2: Rectangle \{(.*?)\}", tile)
    assert edge and "background: ExtTheme.c.live;" in edge.group(1)
    gaps = re.search(r"if root\.state == 4 && !root\.pressed: Rectangle \{(.*?)\} \}", tile)
    assert gaps and gaps.group(1).count("background: root.face;") == 3


def _tile_outline(state: int, *, pressed: bool = False) -> str:
    """The palette key of a tile's outline in a state, read from its border-color expression."""
    found = re.search(r"border-color: (root\.state == 0 \?[^;]+);", _tile())
    assert found is not None
    branches = re.findall(r"(?:^|: )([^?:]+?) \? ExtTheme\.c\.([a-z0-9-]+)", found.group(1))
    default = found.group(1).rsplit(": ExtTheme.c.", 1)[1]
    for condition, key in branches:
        condition = condition.strip()
        if condition == "root.pressed" and pressed:
            return key
        if condition == f"root.state == {state}":
            return key
    return default


@pytest.mark.parametrize(
    ("what", "state", "pressed"),
    [("playing", 2, False), ("failed", 4, False), ("pressed", 1, True)],
)
def test_state_outlines_reach_three_to_one_on_the_tile(
    what: str, state: int, pressed: bool
) -> None:
    """Each state's outline against the tile's face (bg1 at rest, bg2 raised or hovered) in
    every palette of the stub, OLED and mono included: the palette is the host's, so the pairs
    are the panel's choice."""
    key = _tile_outline(state, pressed=pressed)
    assert key in {"live", "err", "focus"}, what
    assert _failures({key}, TILE, MARK) == []


def test_the_outline_lookup_can_tell_states_apart() -> None:
    """The parser above reads the real expression: playing, failed and ready differ."""
    assert (_tile_outline(2), _tile_outline(4), _tile_outline(1)) == ("live", "err", "line")
    # a ready tile's thin line outline is decoration, far under 3:1 in the dark themes
    assert _failures({"line"}, TILE, MARK) != []


def test_the_playing_edge_and_the_star_outline_reach_three_to_one() -> None:
    tile = _tile()
    assert (
        "border-color: star.pressed || star.has-hover ? ExtTheme.c.focus : ExtTheme.c.tx-low;"
        in tile
    )
    assert _failures({"live"}, ("bg2",), MARK) == []  # a playing tile's face is bg2
    assert _failures({"focus", "tx-low"}, TILE, MARK) == []


@pytest.mark.parametrize("path", sorted(PANELS.glob("*.slint")), ids=lambda p: p.name)
def test_panels_take_the_palette_and_never_branch_on_the_theme(path: Path) -> None:
    """PAN-38: a panel reads its colours from `ExtTheme.c` and never looks at which theme is
    current (nor at the OLED flag, which the palette already answers for), so the contrast
    checked here against every palette is the contrast each theme gets."""
    code = _code(path)
    assert re.findall(r"ExtTheme\.(?:current|oled)\b", code) == []
    assert "ExtTheme.c." in code
