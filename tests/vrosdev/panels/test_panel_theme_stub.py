"""The theme stub `@vros/theme.slint` (PAN-33 … PAN-41, docs/protocol-notes.md#r12)."""

from __future__ import annotations

import subprocess

import pytest

from vrosdev.panels.compile import compile_source, compiler_path, parse_diagnostics
from vrosdev.theme import (
    LIGHT_THEME_IDS,
    PALETTE_KEYS,
    THEME_FILE,
    THEME_IDS,
    hex_to_rgb,
    palette,
)

from .panel_samples import THEME_IMPORT


def _luminance(colour: str) -> float:
    def channel(c: int) -> float:
        s = c / 255
        return s / 12.92 if s <= 0.04045 else ((s + 0.055) / 1.055) ** 2.4

    r, g, b = (channel(c) for c in hex_to_rgb(colour))
    return 0.2126 * r + 0.7152 * g + 0.0722 * b


def _contrast(a: str, b: str) -> float:
    high, low = sorted((_luminance(a), _luminance(b)), reverse=True)
    return (high + 0.05) / (low + 0.05)


def test_stub_compiles_on_its_own_without_errors() -> None:
    done = subprocess.run(
        [str(compiler_path()), "-o", "/dev/null", str(THEME_FILE)],
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert [d for d in parse_diagnostics(done.stderr) if d.level == "error"] == []


def test_every_member_the_spec_lists_is_readable_by_a_panel() -> None:
    """PAN-35, PAN-36, PAN-37, PAN-39, PAN-40, PAN-41: all of them live on ExtTheme
    (docs/protocol-notes.md#r12)."""
    colours = " ".join(f"ExtTheme.c.{k}" for k in PALETTE_KEYS)
    reads = "\n".join(f"    Rectangle {{ background: {c}; }}" for c in colours.split())
    lengths = [
        *(f"space-{i}" for i in range(1, 7)),
        "control-h",
        "hit-min",
        "radius-card",
        "radius-control",
        "border-default",
        "type-title",
        "type-body",
        "type-data",
        "type-label",
        "type-numeral",
    ]
    length_reads = "\n".join(f"    out property <length> l-{n}: ExtTheme.{n};" for n in lengths)
    source = (
        THEME_IMPORT
        + "export component P {\n"
        + reads
        + "\n"
        + length_reads
        + "\n    out property <string> id: ExtTheme.current;"
        + "\n    out property <bool> o: ExtTheme.oled || ExtTheme.is-desktop"
        + " || ExtTheme.reduced-motion;"
        + "\n    out property <duration> m: ExtTheme.motion-press + ExtTheme.motion-expand;"
        + "\n    ExtFocusRegion { focused: true; }\n}\n"
    )
    result = compile_source(source)
    assert result.ok, result.message


def test_the_stub_has_a_full_palette_for_each_of_the_twelve_theme_ids() -> None:
    """PAN-35 (15 colours) and PAN-36 (12 ids)."""
    assert len(THEME_IDS) == 12
    for theme_id in THEME_IDS:
        assert tuple(palette(theme_id)) == PALETTE_KEYS, theme_id
    assert len({palette(t)["accent"] for t in THEME_IDS}) >= 10  # each its own palette
    text = THEME_FILE.read_text()
    for theme_id in THEME_IDS:
        assert f'current == "{theme_id}"' in text or theme_id == "signal"


@pytest.mark.parametrize("theme_id", THEME_IDS)
def test_light_themes_are_light_and_text_is_readable(theme_id: str) -> None:
    colours = palette(theme_id)
    is_light = _luminance(colours["bg0"]) > 0.5
    assert is_light == (theme_id in LIGHT_THEME_IDS)
    minimum = 7.0 if theme_id.startswith("hc-") else 4.5
    assert _contrast(colours["tx-hi"], colours["bg0"]) >= minimum
    assert _contrast(colours["accent-text"], colours["accent"]) >= (
        7.0 if theme_id.startswith("hc-") else 3.0
    )


def test_oled_blacks_only_dark_backgrounds() -> None:
    """PAN-37: OLED is a flag beside the theme id."""
    assert palette("signal", oled=True)["bg0"] == "#000000"
    assert palette("daylight", oled=True)["bg0"] == palette("daylight")["bg0"]
