"""The player's native controls (MED-21, MED-22): script steps to ``media_control`` params.

A control does not change the session: the page says the extension applies each action
"with your own ``set`` or ``close``" (MED-23), after checking ``source_generation`` (MED-24).
So vrosdev only reports what the user did; the session changes when the extension answers.
"""

from __future__ import annotations

from collections.abc import Hashable
from dataclasses import dataclass
from typing import Any

__all__ = ["ACTION_ALIASES", "ControlEvent", "ControlRefused", "build_action"]

# Script spellings accepted besides the wire names set_paused, set_volume, stop.
ACTION_ALIASES: dict[str, tuple[str, Any]] = {
    "pause": ("set_paused", True),
    "resume": ("set_paused", False),
    "play": ("set_paused", False),
    "volume": ("set_volume", None),
}


@dataclass(frozen=True, slots=True)
class ControlEvent:
    """A ``media_control`` event to deliver to ``connection``; ``params`` is the event object."""

    connection: Hashable
    params: dict[str, Any]


@dataclass(frozen=True, slots=True)
class ControlRefused:
    """Why no event was sent, for vrosdev's log."""

    reason: str


def _as_bool(value: object) -> bool | None:
    if isinstance(value, bool):
        return value
    if isinstance(value, str) and value.lower() in ("true", "false", "1", "0", "on", "off"):
        return value.lower() in ("true", "1", "on")
    return None


def _as_volume(value: object) -> int | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, str) and value.strip().isdecimal():
        value = int(value)
    if isinstance(value, int) and 0 <= value <= 100:
        return value
    return None


def build_action(action: str, value: object = None) -> dict[str, Any] | ControlRefused:
    """The absolute ``action`` object, or why the step makes no sense."""
    name, default = ACTION_ALIASES.get(action, (action, None))
    if value is None:
        value = default
    if name == "set_paused":
        paused = True if value is None else _as_bool(value)
        if paused is None:
            return ControlRefused(f"set_paused needs true or false, got {value!r}")
        return {"kind": "set_paused", "paused": paused}
    if name == "set_volume":
        volume = _as_volume(value)
        if volume is None:
            return ControlRefused(f"set_volume needs a volume 0-100, got {value!r}")
        return {"kind": "set_volume", "volume_pct": volume}
    if name == "stop":
        return {"kind": "stop"}
    return ControlRefused(f"unknown player action {action!r} (set_paused, set_volume, stop)")
