"""Everything the core is fed: one closed union, :data:`Input`.

The host's events (the SDK's models, in the order the host sent them), the outcome of every
request the core asked for (:class:`Reply` or :class:`Failure`, carrying the request's ticket),
the clock reaching a :class:`~cueboard.core.effects.Wake` (:class:`Tick`), the connection's
life, and what the runtime's workers report back. :meth:`CueboardCore.handle
<cueboard.core.app.CueboardCore.handle>` matches it exhaustively: a kind added here that no
feature handles is a type error, not a silent drop.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from cueboard.core.asset_table import AssetRef
from cueboard.core.i18n import Catalog
from cueboard.core.library import Library
from vxp.models import events
from vxp.models.handshake import Welcome
from vxp.prepared import Prepared
from vxp.version import Version

from .link_import import FetchFailed, FetchProgress, SoundFetched
from .render import SoundRendered

__all__ = [
    "CatalogLoaded",
    "Connected",
    "Decoded",
    "Disconnected",
    "Failure",
    "FailureKind",
    "FetchFailed",
    "FetchProgress",
    "FileRead",
    "FileWritten",
    "FolderChanged",
    "HostEvent",
    "HostFailure",
    "IconsDecoded",
    "Input",
    "Put",
    "Reply",
    "Scanned",
    "SoundFetched",
    "SoundRendered",
    "TaskCounts",
    "Tick",
    "WaveEdit",
    "Waveform",
    "WaveformDrawn",
    "default_sounds_folder",
]

# -- what the host said -----------------------------------------------------------------------

type HostEvent = (
    events.ShuttingDown
    | events.VrLifecycle
    | events.BusMessage
    | events.PanelShown
    | events.PanelHidden
    | events.PanelEvent
    | events.CommandInvoked
    | events.SettingsChanged
    | events.LocaleChanged
    | events.AudioLoaded
    | events.MediaSnapshot
    | events.MediaControl
    | events.FaceUpdate
    | events.UnknownEvent
)
"""Every event of the SDK's ``Event`` union (an unknown one is :class:`events.UnknownEvent`)."""


@dataclass(frozen=True, slots=True)
class Reply:
    """The namespace's result model for the request with this ticket (never an ``err``)."""

    ticket: int
    result: Any

    def __repr__(self) -> str:
        return f"Reply(#{self.ticket} {getattr(self.result, 'result', '?')})"


type FailureKind = Literal["domain", "protocol", "unreadable", "invalid", "timeout", "closed"]


@dataclass(frozen=True, slots=True)
class HostFailure:
    """Why a request got no usable result: the facts only. What they mean for Cueboard is the
    policy table's row for the request and :func:`~cueboard.core.policy.code_of` this failure.

    ``domain``: the namespace answered ``err`` (``code`` is its string code, perhaps one this
    version does not know). ``protocol``: a JSON-RPC error object (``code`` an int: -32001,
    -32602, -32603 or one we do not know). ``unreadable``: a response the SDK cannot read, such
    as a result tag from a newer host. ``invalid``: refused locally before sending (``code``
    the host's code the spec names for it, if any). ``timeout`` and ``closed``: no answer.
    ``message`` never holds a URL, a token or a secret value.
    """

    kind: FailureKind
    code: str | int | None = None
    message: str = ""


@dataclass(frozen=True, slots=True)
class Failure:
    ticket: int
    failure: HostFailure


# -- the runtime's own ------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Tick:
    """The clock reached a :class:`~cueboard.core.effects.Wake`'s ``at``."""

    key: str
    now: float


@dataclass(frozen=True, slots=True)
class Connected:
    """A welcomed connection; ``catalog`` is the welcome locale's."""

    welcome: Welcome
    ext_id: str
    version: Version  # the host's
    catalog: Catalog
    # The Unix time when it connected (the core has no clock of its own: a play's time is this
    # plus the monotonic clock's progress since). None: plays are counted without a time.
    unix_s: float | None = None


@dataclass(frozen=True, slots=True)
class Disconnected:
    """The connection is gone and a new one is being tried."""


@dataclass(frozen=True, slots=True)
class CatalogLoaded:
    catalog: Catalog


@dataclass(frozen=True, slots=True)
class TaskCounts:
    """What the runtime is running (the answer to :class:`~cueboard.core.effects.CountTasks`):
    the tasks of the connection's task group and the timers waiting."""

    tasks: int
    timers: int


# -- what the workers report ------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Scanned:
    library: Library
    reason: str
    elapsed_ms: float
    folder_exists: bool


@dataclass(frozen=True, slots=True)
class FolderChanged:
    """Files changed under the watched folder (debounced by the watcher)."""


type Put = tuple[AssetRef, Prepared]
type Decoded = tuple[Put, Put | None]  # the icon, and its still variant when it is animated


@dataclass(frozen=True, slots=True)
class IconsDecoded:
    """Each sound's decoded icon, or why it cannot be shown."""

    results: tuple[tuple[str, Decoded | str], ...]


type WaveEdit = tuple[int, int | None, int, int]
"""What the waveform shows of an edit: trim start, trim end (None: the end), fade in, fade out."""
type Waveform = tuple[tuple[float, ...], int, tuple[Put, ...]]
"""A sound's peaks per column, its length in ms, and its waveform's tiles."""


@dataclass(frozen=True, slots=True)
class WaveformDrawn:
    """The waveform asked for by :class:`~.effects.DrawWaveform`, or why there is none."""

    rel: str
    fingerprint: tuple[int, int]
    edit: WaveEdit
    result: Waveform | str


@dataclass(frozen=True, slots=True)
class FileWritten:
    purpose: str
    request_id: str | int | None
    error: str | None  # the OS's reason, in words; None when written


@dataclass(frozen=True, slots=True)
class FileRead:
    purpose: str
    request_id: str | int | None
    text: str | None
    error: str | None  # "missing", or the OS's reason in words


type Input = (
    HostEvent
    | Reply
    | Failure
    | Tick
    | Connected
    | Disconnected
    | CatalogLoaded
    | TaskCounts
    | Scanned
    | FolderChanged
    | IconsDecoded
    | WaveformDrawn
    | FileWritten
    | FileRead
    | FetchProgress
    | SoundFetched
    | FetchFailed
    | SoundRendered
)
"""Everything :meth:`CueboardCore.handle <cueboard.core.app.CueboardCore.handle>` is fed."""


def default_sounds_folder(content_root: str | None, fallback: Path) -> Path:
    """``Cueboard/Sounds`` in the vrOS content folder, or under ``fallback`` without one."""
    return Path(content_root or fallback) / "Cueboard" / "Sounds"
