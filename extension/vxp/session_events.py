"""What a :class:`vxp.session.Session` hands back: one value per thing that happened.

Named tuples rather than dataclasses: nine frozen dataclasses in the SDK cost ~10 ms of class
creation before the hello is written (bench_startup.py); a named tuple costs a tenth. Like any
tuple one equals another with the same items, so match on the type (``case Closed(reason)``),
as the client does, not on equality alone.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, NamedTuple

from .errors import VxpError

if TYPE_CHECKING:
    from .models.handshake import Welcome

__all__ = [
    "Closed",
    "EventReceived",
    "Failed",
    "HelloAccepted",
    "HelloRefused",
    "HostViolation",
    "Replied",
    "SessionEvent",
]


class HelloAccepted(NamedTuple):
    welcome: Welcome


class HelloRefused(NamedTuple):
    code: str
    message: str


class Replied(NamedTuple):
    """A response to request ``request_id``: any of the namespace's results, ``err`` included."""

    request_id: int
    namespace: str
    result: Any


class Failed(NamedTuple):
    """Request ``request_id`` got no usable result: a JSON-RPC error or a lost connection."""

    request_id: int
    namespace: str
    error: VxpError


class EventReceived(NamedTuple):
    event: Any


class HostViolation(NamedTuple):
    """The host sent something off-spec; it was skipped. For logs (never contains a secret)."""

    description: str


class Closed(NamedTuple):
    reason: str


SessionEvent = (
    HelloAccepted | HelloRefused | Replied | Failed | EventReceived | HostViolation | Closed
)
