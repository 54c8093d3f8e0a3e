"""What Cueboard's core asks the world to do: one closed union, :data:`Effect`.

The core decides and the runtime does, as h11 and wsproto split a protocol from its socket.
A feature is fed inputs (:mod:`.inputs`) and returns effects. It never awaits, never reads the
clock, a file or a random source of its own, and never holds a client: time arrives in
:class:`~.inputs.Tick` and in each input's ``now``, and randomness is handed in by the caller.

The runtime carries each effect out and feeds back what happened: every :class:`Send` ends in
exactly one :class:`~.inputs.Reply` or :class:`~.inputs.Failure` carrying the same ticket, a
:class:`Wake` in a :class:`~.inputs.Tick`, each job in its report. A failure reaches a feature
only through the request tracker, with the policy table's decision: whatever was worth
retrying has been. The runtime and the in-memory test host match :data:`Effect` exhaustively
(``typing.assert_never``), so an effect nothing carries out is a type error.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from cueboard.core.contract import StatusLevel

from .inputs import Failure, FailureKind, HostFailure, Reply, Tick
from .link_import import CancelFetch, DiscardSound, FetchSound
from .render import DropRenders, RenderSound, TouchRender

if TYPE_CHECKING:
    from pydantic import BaseModel

    from vxp.prepared import Prepared

__all__ = [
    "CancelFetch",
    "CountTasks",
    "DecodeIcons",
    "DiscardSound",
    "DrawWaveform",
    "DropRenders",
    "Effect",
    "Exit",
    "Failure",
    "FailureKind",
    "FetchSound",
    "HostFailure",
    "LoadCatalog",
    "Log",
    "Notice",
    "ReadFile",
    "RenderSound",
    "Reply",
    "Scan",
    "Send",
    "Tick",
    "Tickets",
    "TouchRender",
    "Wake",
    "Watch",
    "WriteFile",
]


class Tickets:
    """Ticket numbers shared by every component of one core, so that outcomes route back to
    the component that asked."""

    __slots__ = ("_last",)

    def __init__(self) -> None:
        self._last = 0

    def __call__(self) -> int:
        self._last += 1
        return self._last


# -- effects ------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Send:
    """One request to the host. ``params`` is a validated request model of ``vxp.models`` (or
    a request prepared in a worker). ``user_asked`` marks a request the user asked for by a
    press, a click or a command: its final failure becomes a notice, any other is logged."""

    ticket: int
    namespace: str
    params: BaseModel | Prepared
    user_asked: bool = False

    @property
    def op(self) -> str:
        """The request's ``op`` (read from the serialised body of a prepared request)."""
        op = getattr(self.params, "op", None)
        if isinstance(op, str):
            return op
        body = getattr(self.params, "params_json", b"")
        if isinstance(body, bytes):
            start = body.find(b'"op":"')
            if start >= 0:
                end = body.find(b'"', start + 6)
                return body[start + 6 : end].decode("ascii", "replace")
        return "?"

    @property
    def kind(self) -> str:
        """``namespace.op``: the policy table's name for this request."""
        return f"{self.namespace}.{self.op}"

    def __repr__(self) -> str:  # params may carry a URL or pixels: never in a repr
        return f"Send(#{self.ticket} {self.kind})"


@dataclass(frozen=True, slots=True)
class Notice:
    """A status-line message in the user's language: a catalog key and its parameters
    (``refs`` name parameters whose value is itself a catalog key)."""

    key: str
    level: StatusLevel = StatusLevel.ERROR
    params: Mapping[str, str | int] = field(default_factory=dict[str, str | int])
    refs: Mapping[str, str] = field(default_factory=dict[str, str])


@dataclass(frozen=True, slots=True)
class Wake:
    """Ask for a :class:`Tick` with this ``key`` once the clock reaches ``at`` (the same clock
    the inputs carry). A later Wake of the same key replaces the earlier one."""

    key: str
    at: float


@dataclass(frozen=True, slots=True)
class Log:
    """A line for the log (``logging`` levels). Never a URL, a token or a secret value."""

    level: int
    message: str


# -- jobs for the runtime's workers and files ------------------------------------------------


@dataclass(frozen=True, slots=True)
class Scan:
    """Scan this folder (off the event loop) and report :class:`~.inputs.Scanned`."""

    root: Path
    reason: str


@dataclass(frozen=True, slots=True)
class Watch:
    """Watch this folder (and only this one) and report :class:`~.inputs.FolderChanged`."""

    root: Path


@dataclass(frozen=True, slots=True)
class LoadCatalog:
    """Read this locale's catalog and report :class:`~.inputs.CatalogLoaded`."""

    locale: str


@dataclass(frozen=True, slots=True)
class CountTasks:
    """Report :class:`~.inputs.TaskCounts` now: the debug topic's figures, which only the
    runtime knows (a leak of tasks or timers shows as a count that grows between two idle
    moments)."""


@dataclass(frozen=True, slots=True)
class DecodeIcons:
    """Decode these icon files (rel path of the sound, file); report
    :class:`~.inputs.IconsDecoded`."""

    items: tuple[tuple[str, Path], ...]


@dataclass(frozen=True, slots=True)
class DrawWaveform:
    """Draw this sound's waveform with ``edit`` in it, from ``peaks`` when given (else read from
    ``path``, at ``fingerprint``: size and mtime); report :class:`~.inputs.WaveformDrawn`."""

    rel: str
    path: Path
    fingerprint: tuple[int, int]
    peaks: tuple[float, ...] | None
    duration_ms: int
    edit: tuple[int, int | None, int, int]


@dataclass(frozen=True, slots=True)
class WriteFile:
    """Write ``text`` to ``path`` whole, or not at all; report :class:`~.inputs.FileWritten`."""

    path: Path
    text: str
    purpose: str
    request_id: str | int | None = None


@dataclass(frozen=True, slots=True)
class ReadFile:
    """Read ``path`` as UTF-8 (at most a few MiB); report :class:`~.inputs.FileRead`."""

    path: Path
    purpose: str
    request_id: str | int | None = None


@dataclass(frozen=True, slots=True)
class Exit:
    """End the process with this status (after ``shutting_down``: 0, once kv is flushed)."""

    code: int


type Effect = (
    Send
    | Notice
    | Wake
    | Log
    | Scan
    | Watch
    | LoadCatalog
    | CountTasks
    | DecodeIcons
    | DrawWaveform
    | FetchSound
    | CancelFetch
    | DiscardSound
    | WriteFile
    | ReadFile
    | RenderSound
    | DropRenders
    | TouchRender
    | Exit
)
"""Everything the core asks of the world. The runtime and the in-memory host match it
exhaustively. A :class:`Notice` is the status line's: the core's router shows it and hands the
runtime a :class:`Log` of it instead; the runtime only logs one that reaches it."""
