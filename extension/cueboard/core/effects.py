"""What Cueboard's core asks the world to do, and what the world tells it back.

The core decides and the runtime does, as h11 and wsproto split a protocol from its socket.
A core component is fed inputs (events, commands, panel callbacks, ticks, the outcomes of
requests it asked for) and returns a list of effects. It never awaits, never reads the clock,
a file or a random source of its own, and never holds a client: time arrives in :class:`Tick`
and in each input's ``now``, and randomness is handed in by the caller.

The runtime carries each effect out and feeds back what happened: every :class:`Send` ends in
exactly one :class:`Reply` or :class:`Failure` carrying the same ticket, a :class:`Wake` in a
:class:`Tick`. A ``Failure`` that reaches a feature is final: the request tracker, which reads
the one host-error policy table, has already retried whatever was worth retrying.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal

from cueboard.core.contract import StatusLevel

if TYPE_CHECKING:
    from pydantic import BaseModel

    from vxp.prepared import Prepared

__all__ = [
    "Effect",
    "Failure",
    "FailureKind",
    "HostFailure",
    "Log",
    "Notice",
    "Reply",
    "Send",
    "Tick",
    "Tickets",
    "Wake",
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


# -- inputs that answer effects -------------------------------------------------------------


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
    """Why a request got no usable result.

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

    @property
    def outcome_unknown(self) -> bool:
        """The host may have done what was asked: reconcile from what it reports next rather
        than sending the request again blindly."""
        if self.kind in ("timeout", "closed", "unreadable"):
            return True
        return self.kind == "protocol" and self.code == -32603


@dataclass(frozen=True, slots=True)
class Failure:
    ticket: int
    failure: HostFailure


@dataclass(frozen=True, slots=True)
class Tick:
    """The clock reached a :class:`Wake`'s ``at``."""

    key: str
    now: float


type Effect = object
"""Send, Notice, Wake and Log, and the effects components add of their own (props, files to
read or write, jobs for a worker): the runtime dispatches on the type."""
