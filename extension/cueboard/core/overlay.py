"""What the grid and the status words show: tiles, pages, durations, where a sound plays.

Pure functions from the soundboard's state to the values of the panels' props; the deck's
state words live in :mod:`cueboard.core.deck.views`.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from cueboard.core.contract import SLOTS_PER_PAGE, SlotState, TargetMark
from cueboard.core.i18n import Catalog

from .sound_state import Targets

# Tiles without an icon name this asset: an [image] prop has one entry per tile, and only keys
# uploaded with `assets` are valid (AST-16). Upload blank_icon_asset() once per connection, and
# name it only once its put answered `ok` (docs/protocol-notes.md#r33).
BLANK_ICON_KEY = "cb:blank"


# -- what the grid shows ------------------------------------------------------------------------


@dataclass(frozen=True)
class Page[T]:
    items: Sequence[T]
    index: int  # clamped into range
    count: int  # at least 1


def page_of[T](items: Sequence[T], index: int, size: int = SLOTS_PER_PAGE) -> Page[T]:
    """One page of a list (the library, a category, search results); index is clamped."""
    count = max(1, math.ceil(len(items) / size))
    index = min(max(index, 0), count - 1)
    return Page(items[index * size : (index + 1) * size], index, count)


@dataclass(frozen=True)
class Tile:
    """A sound as its grid tile shows it."""

    key: str
    name: str
    duration_s: float | None = None
    state: SlotState = SlotState.READY
    detail: str = ""  # localised, for LOADING and BROKEN
    favourite: bool = False
    icon_key: str | None = None
    mode: int = 0  # PlayMode: its own play mode, 0 for none
    note: str = ""  # localised: its folder while searching, or a favourite's command
    target: int = 0  # TargetMark: where it plays, 0 for both


def format_duration(seconds: float | None) -> str:
    if seconds is None or not math.isfinite(seconds) or seconds < 0:
        return ""
    whole = math.ceil(seconds)
    minutes, secs = divmod(whole, 60)
    return f"{minutes}:{secs:02d}"


def grid_values(tiles: Sequence[Tile], *, blank: bool = True) -> dict[str, Any]:
    """`slots` and `slot-icons` for one page of tiles (at most SLOTS_PER_PAGE). ``blank``: the
    blank asset's put answered `ok` on this connection; until then a tile without an icon names
    no key (docs/protocol-notes.md#r33)."""
    rows = [
        (
            t.key,
            t.name,
            format_duration(t.duration_s),
            int(t.state),
            t.detail,
            t.favourite,
            t.icon_key is not None,
            t.mode,
            t.note,
            t.target,
        )
        for t in tiles
    ]
    return {"slots": rows, "slot-icons": icon_keys([t.icon_key for t in tiles], blank=blank)}


def icon_keys(keys: Sequence[str | None], *, blank: bool) -> list[str]:
    """One key per tile for an [image] prop, each one the table holds. Without the blank asset
    the list ends at the last real icon, and a tile before it without one names that icon: its
    `has-icon` is false, so nothing shows it."""
    if blank:
        return [k or BLANK_ICON_KEY for k in keys]
    real = [k for k in keys if k is not None]
    if not real:
        return []
    last = max(i for i, k in enumerate(keys) if k is not None)
    return [k or real[0] for k in keys[: last + 1]]


def blank_icon_asset() -> dict[str, Any]:
    """The `assets put` fields of BLANK_ICON_KEY: one transparent pixel."""
    frame = {"rgba_base64": "AAAAAA==", "delay_ms": 100}
    return {"key": BLANK_ICON_KEY, "width": 1, "height": 1, "frames": [frame], "loop": 0}


# -- localised words --------------------------------------------------------------------------


def channels_text(catalog: Catalog, soundboard_pct: int | None, mic_pct: int | None) -> str:
    """Where a sound plays and how loud: `Soundboard 80% · Mic 40%`, or one of them."""
    if soundboard_pct is None:
        return catalog.t("play.targets_mic", mic=mic_pct or 0)
    if mic_pct is None:
        return catalog.t("play.targets_soundboard", soundboard=soundboard_pct)
    return catalog.t("play.targets_both", soundboard=soundboard_pct, mic=mic_pct)


def target_mark(targets: str, mic_enabled: bool) -> TargetMark:
    """A sound's own targets as its tile marks them; a mic-only sound while the mic is off is
    marked as one that cannot play."""
    match targets:
        case "me":
            return TargetMark.ONLY_ME
        case "mic":
            return TargetMark.ONLY_MIC if mic_enabled else TargetMark.MIC_OFF
        case _:
            return TargetMark.BOTH


def played_mark(channels: Targets, targets: str) -> TargetMark:
    """Where a play went, as its now-playing row marks it: the channels it was sent to (the
    sound's targets may have changed since), "only me" only when the sound asked for it (a
    sound for both plays on the soundboard channel alone while the mic is off)."""
    sent = {channel for channel, _ in channels}
    if "soundboard" not in sent:
        return TargetMark.ONLY_MIC
    if "mic" not in sent and targets == "me":
        return TargetMark.ONLY_ME
    return TargetMark.BOTH


def played_text(catalog: Catalog, channels: Targets, targets: str) -> str:
    """A play's channels and gains, after the words of its mark ("Only me · Soundboard 80%")."""
    gains = dict(channels)
    text = channels_text(catalog, gains.get("soundboard"), gains.get("mic"))
    match played_mark(channels, targets):
        case TargetMark.ONLY_ME:
            return catalog.t("play.only", target=catalog.t("grid.target_me"), channels=text)
        case TargetMark.ONLY_MIC | TargetMark.MIC_OFF:
            return catalog.t("play.only", target=catalog.t("grid.target_mic"), channels=text)
        case TargetMark.BOTH:
            return text


__all__ = [
    "BLANK_ICON_KEY",
    "Page",
    "Tile",
    "blank_icon_asset",
    "channels_text",
    "format_duration",
    "grid_values",
    "icon_keys",
    "page_of",
    "played_mark",
    "played_text",
    "target_mark",
]
