"""Which client minor a media feature needs, and the gate that checks it.

vrosdev reads the client's announced ``vxp_version`` itself instead of trusting the SDK: an
event or an option newer than what the client announced is never sent to it or honoured
(docs/protocol-notes.md#r16, #r23).
"""

from __future__ import annotations

from typing import NamedTuple

__all__ = [
    "CONTROLS_ON_PLAYER_SINCE",
    "MEDIA_CONTROL_SINCE",
    "MEDIA_SNAPSHOT_SINCE",
    "NATIVE_CONTROLS_SINCE",
    "RELOAD_TITLE_SINCE",
    "ClientVersion",
    "control_allowed",
    "parse_version",
    "snapshot_allowed",
]


class ClientVersion(NamedTuple):
    major: int
    minor: int

    def __str__(self) -> str:
        return f"{self.major}.{self.minor}"


MEDIA_SNAPSHOT_SINCE = ClientVersion(1, 4)  # MED-18, docs/protocol-notes.md#r16
MEDIA_CONTROL_SINCE = ClientVersion(1, 6)  # EVT-15, docs/protocol-notes.md#r16
NATIVE_CONTROLS_SINCE = ClientVersion(1, 6)  # version history: native controls
RELOAD_TITLE_SINCE = ClientVersion(1, 6)  # version history: title for reload
CONTROLS_ON_PLAYER_SINCE = ClientVersion(1, 7)  # version history: controls_on_player


def parse_version(version: str | tuple[int, int]) -> ClientVersion:
    """``"1.7"`` (as sent in hello) or ``(1, 7)`` to a comparable pair."""
    if isinstance(version, tuple):
        return ClientVersion(*version)
    major, sep, minor = version.partition(".")
    if not sep or not major.isdecimal() or not minor.isdecimal():
        raise ValueError(f"not a VXP version: {version!r} (expected major.minor)")
    return ClientVersion(int(major), int(minor))


def snapshot_allowed(client_version: str | tuple[int, int]) -> bool:
    """``media_snapshot`` reaches only clients that announced 1.4 or later (MED-18)."""
    return parse_version(client_version) >= MEDIA_SNAPSHOT_SINCE


def control_allowed(client_version: str | tuple[int, int]) -> bool:
    """``media_control`` reaches only clients that announced 1.6 or later (EVT-15,
    docs/protocol-notes.md#r16)."""
    return parse_version(client_version) >= MEDIA_CONTROL_SINCE
