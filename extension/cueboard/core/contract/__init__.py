"""The panels' props and callbacks, declared once.

Everything that crosses between Cueboard and its panels is listed here: the props model
validates what it sends against it, panel_event dispatch validates what it receives, a test
checks the .slint roots against it both ways, and tools/gen_panel_contract.py renders
panels/README.md from it. One module per panel (`overlay`, `dash_tab`, `now_playing`), the wire
shapes in `wire`, what they share in `common`. Names are the Slint names as declared
(kebab-case, docs/protocol-notes.md#r29), chosen to avoid the properties every Slint element
already has.
"""

from collections.abc import Mapping

from .common import (
    DECK_SLOTS,
    FIELD_BLUR,
    FIELD_FOCUS,
    MAX_FOLDERS,
    SLOTS_PER_PAGE,
    WAVEFORM_HEIGHT,
    WAVEFORM_TILE_WIDTH,
    WAVEFORM_TILES,
    MediaMode,
    Playback,
    PlayMode,
    SlotState,
    StatusLevel,
    TargetMark,
    Video,
)
from .dash_tab import DASH_TAB
from .now_playing import NOW_PLAYING
from .overlay import OVERLAY
from .wire import (
    RESERVED_NAMES,
    Arg,
    Callback,
    Cell,
    PanelContract,
    Prop,
    Wire,
    WireError,
    WireValue,
    tagged,
)

PANELS: Mapping[str, PanelContract] = {p.name: p for p in (OVERLAY, DASH_TAB, NOW_PLAYING)}

__all__ = [
    "DASH_TAB",
    "DECK_SLOTS",
    "FIELD_BLUR",
    "FIELD_FOCUS",
    "MAX_FOLDERS",
    "NOW_PLAYING",
    "OVERLAY",
    "PANELS",
    "RESERVED_NAMES",
    "SLOTS_PER_PAGE",
    "WAVEFORM_HEIGHT",
    "WAVEFORM_TILES",
    "WAVEFORM_TILE_WIDTH",
    "Arg",
    "Callback",
    "Cell",
    "MediaMode",
    "PanelContract",
    "PlayMode",
    "Playback",
    "Prop",
    "SlotState",
    "StatusLevel",
    "TargetMark",
    "Video",
    "Wire",
    "WireError",
    "WireValue",
    "tagged",
]
