"""vrosdev's media player simulation: a sans-IO state machine the host wires to the protocol.

See :mod:`vrosdev.media.host` for how the caller drives it, and
:mod:`vrosdev.media.behaviour` for the URL markers that make each error and failure happen.
"""

from __future__ import annotations

from .behaviour import REFUSALS, SourceBehaviour, behaviour_for
from .controls import ControlEvent, ControlRefused
from .errors import MediaDomainError, MediaParamsError
from .host import MediaHost, MediaMode
from .rules import MAX_KEY_BYTES, MAX_SESSIONS, MAX_TITLE_BYTES, MAX_URL_BYTES
from .session import MediaOptions, MediaSession, MediaTimings
from .versions import (
    ClientVersion,
    control_allowed,
    parse_version,
    snapshot_allowed,
)

__all__ = [
    "MAX_KEY_BYTES",
    "MAX_SESSIONS",
    "MAX_TITLE_BYTES",
    "MAX_URL_BYTES",
    "REFUSALS",
    "ClientVersion",
    "ControlEvent",
    "ControlRefused",
    "MediaDomainError",
    "MediaHost",
    "MediaMode",
    "MediaOptions",
    "MediaParamsError",
    "MediaSession",
    "MediaTimings",
    "SourceBehaviour",
    "behaviour_for",
    "control_allowed",
    "parse_version",
    "snapshot_allowed",
]
