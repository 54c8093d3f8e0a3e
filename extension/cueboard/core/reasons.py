"""Why a sound cannot play, as a short phrase a person understands, never a host code.

A failed tile shows its reason under its name, where about a dozen columns are free, so each
phrase is short ("Can't decode", 「非対応の形式」); the catalog entries are in
``cueboard/runtime/locales``. A code this table does not know reads as the general "Can't load",
so a host that grows a new error code still shows words.
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType

from cueboard.core.contract import StatusLevel
from cueboard.core.i18n import msgid

from .effects import Notice

__all__ = ["LOAD_FAILED", "LOAD_FAILURE_KEYS", "OTHER", "load_failed", "load_failure_key"]

OTHER = "slot.reason.other"

# The `audio.load` errors a user can act on (VXP 1.7 "Audio"), and Cueboard's own checks.
LOAD_FAILURE_KEYS: Mapping[str, str] = MappingProxyType(
    {
        "not_found": "slot.reason.not_found",
        "undecodable": "slot.reason.undecodable",
        "too_long": "slot.reason.too_long",
        "cache_full": "slot.reason.cache_full",
        # Cueboard's own: bigger than it loads, or a file named like audio that is not audio.
        "too_large": "slot.too_large",
        "not_audio": "slot.reason.not_audio",
        "unreadable": "slot.reason.unreadable",
        # The render of an edited sound (core/render.py): nothing between start and end.
        "empty": "slot.reason.empty_trim",
        "render_failed": "slot.reason.render_failed",
    }
)


def load_failure_key(code: str) -> str:
    """The catalog key of the phrase for a failed load's ``code``."""
    return LOAD_FAILURE_KEYS.get(code, OTHER)


LOAD_FAILED = msgid("status.load_failed")


def load_failed(name: str, code: str) -> Notice:
    """The status line for a sound that cannot load: its name and the same short phrase its
    tile shows, never vrOS's code."""
    return Notice(
        LOAD_FAILED, StatusLevel.ERROR, {"name": name}, {"reason": load_failure_key(code)}
    )
