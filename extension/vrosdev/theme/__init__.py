"""vrosdev's stub of the host theme module `@vros/theme.slint` (VXP 1.7 "Theme module").

The palettes live only in `theme.slint`; `palette()` reads them back from there so that tests and
tools never keep a second copy that could drift.
"""

import functools
import re
from pathlib import Path

THEME_DIR = Path(__file__).resolve().parent
THEME_FILE = THEME_DIR / "theme.slint"
# The library name the compiler maps to THEME_DIR: `-L vros=<dir>` / library_paths={"vros": dir}.
THEME_LIBRARY = "vros"
THEME_IMPORT = "@vros/theme.slint"

# PAN-36, in the spec's order.
THEME_IDS = (
    "signal",
    "graphite",
    "aura",
    "meow",
    "ember",
    "cobalt",
    "mono",
    "volt",
    "crimson",
    "daylight",
    "hc-dark",
    "hc-light",
)
LIGHT_THEME_IDS = frozenset({"daylight", "hc-light"})
DEFAULT_THEME_ID = "signal"

# PAN-35, in the spec's order.
PALETTE_KEYS = (
    "bg0",
    "bg1",
    "bg2",
    "line",
    "tx-hi",
    "tx-mid",
    "tx-low",
    "accent",
    "accent-text",
    "ok",
    "warn",
    "err",
    "focus",
    "live",
    "live-text",
)

_PALETTE_BLOCK = re.compile(r"private property <ExtPalette> ([a-z-]+):\s*\{(.*?)\};", re.S)
_COLOUR = re.compile(r"([a-z][a-z0-9-]*):\s*(#[0-9a-f]{6})")


@functools.cache
def _palettes() -> dict[str, dict[str, str]]:
    text = THEME_FILE.read_text(encoding="utf-8")
    return {m.group(1): dict(_COLOUR.findall(m.group(2))) for m in _PALETTE_BLOCK.finditer(text)}


def palette(theme_id: str, *, oled: bool = False) -> dict[str, str]:
    """The colours `ExtTheme.c` holds for a theme, as lowercase `#rrggbb`."""
    colours = dict(_palettes()[theme_id])
    if oled and theme_id not in LIGHT_THEME_IDS:
        colours["bg0"] = "#000000"
    return colours


def hex_to_rgb(colour: str) -> tuple[int, int, int]:
    value = int(colour.removeprefix("#"), 16)
    return (value >> 16) & 0xFF, (value >> 8) & 0xFF, value & 0xFF
