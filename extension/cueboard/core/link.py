"""What the current connection is: the facts every feature may read, written only by the
router when a connection is welcomed or lost."""

from __future__ import annotations

from dataclasses import dataclass

from cueboard.core.i18n import Catalog

__all__ = ["HostLink"]


@dataclass
class HostLink:
    connected: bool = False
    ext_id: str = ""
    overlays: bool = False  # granted
    bus: tuple[str, ...] = ()  # topics granted
    network: bool = False  # granted
    content_root: str | None = None
    catalog: Catalog | None = None  # the locale's (the welcome's, then each change's)
