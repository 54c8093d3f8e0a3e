"""What the runtime tells the core besides host events, replies, failures and ticks, and the
jobs the core asks the runtime's workers to do."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from cueboard.core.i18n import Catalog
from cueboard.core.library import Library
from vxp.models.handshake import Welcome
from vxp.version import Version

__all__ = [
    "CatalogLoaded",
    "Connected",
    "CountTasks",
    "Disconnected",
    "Exit",
    "FolderChanged",
    "LoadCatalog",
    "Scan",
    "Scanned",
    "TaskCounts",
    "Watch",
]

# -- inputs ---------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Connected:
    """A welcomed connection; ``catalog`` is the welcome locale's."""

    welcome: Welcome
    ext_id: str
    version: Version  # the host's
    catalog: Catalog


@dataclass(frozen=True, slots=True)
class Disconnected:
    """The connection is gone and a new one is being tried."""


@dataclass(frozen=True, slots=True)
class Scanned:
    library: Library
    reason: str
    elapsed_ms: float
    folder_exists: bool


@dataclass(frozen=True, slots=True)
class FolderChanged:
    """Files changed under the watched folder (debounced by the watcher)."""


@dataclass(frozen=True, slots=True)
class CatalogLoaded:
    catalog: Catalog


@dataclass(frozen=True, slots=True)
class TaskCounts:
    """What the runtime is running (the answer to :class:`CountTasks`): the tasks of the
    connection's task group and the timers (:class:`~cueboard.core.effects.Wake` keys) waiting."""

    tasks: int
    timers: int


# -- jobs -----------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Scan:
    """Scan this folder (off the event loop) and report :class:`Scanned`."""

    root: Path
    reason: str


@dataclass(frozen=True, slots=True)
class Watch:
    """Watch this folder (and only this one) and report :class:`FolderChanged`."""

    root: Path


@dataclass(frozen=True, slots=True)
class LoadCatalog:
    locale: str


@dataclass(frozen=True, slots=True)
class CountTasks:
    """Report :class:`TaskCounts` now: the debug topic's figures, which only the runtime knows
    (a leak of tasks or timers shows as a count that grows between two idle moments)."""


@dataclass(frozen=True, slots=True)
class Exit:
    """End the process with this status (after ``shutting_down``: 0, once kv is flushed)."""

    code: int


def default_sounds_folder(content_root: str | None, fallback: Path) -> Path:
    """``Cueboard/Sounds`` in the vrOS content folder, or under ``fallback`` without one."""
    return Path(content_root or fallback) / "Cueboard" / "Sounds"
