# pyright: strict
"""Everything the Studio client raises derives from :class:`MxError`.

Messages never carry the launch token: errors that concern it name the variable, not the value.
"""

from __future__ import annotations

from typing import Any

__all__ = [
    "AttachmentMismatch",
    "ConnectionClosed",
    "EmptyFrame",
    "FrameCorrupt",
    "FrameTooLarge",
    "HelloRejected",
    "InvalidEnvironment",
    "LocalProtocolError",
    "MalformedAttachment",
    "MalformedResponse",
    "MxError",
    "RemoteError",
]


class MxError(Exception):
    """Base of every error this package raises on purpose."""


class LocalProtocolError(MxError):
    """We were asked to do something the protocol forbids (a bug in the caller)."""


class FrameCorrupt(MxError):
    """The byte stream cannot be framed any further; the connection must close
    (docs/protocol-notes.md#m2, docs/protocol-notes.md#m3)."""


class FrameTooLarge(FrameCorrupt):
    def __init__(self, declared: int, limit: int) -> None:
        super().__init__(f"a frame declared {declared} payload bytes, over the {limit}-byte limit")
        self.declared = declared
        self.limit = limit


class EmptyFrame(FrameCorrupt):
    def __init__(self) -> None:
        super().__init__("a frame declared a zero-length payload (no kind byte)")


class MalformedAttachment(MxError):
    """A kind-1 body that does not follow the docs/protocol-notes.md#m1 layout."""


class AttachmentMismatch(MxError):
    """A framebuffer attachment whose length is not the ``byteLength`` its result declared."""


class MalformedResponse(MxError):
    """The host answered with a result that does not have the documented shape."""


class RemoteError(MxError):
    """The host answered a request with a JSON-RPC error object."""

    def __init__(self, code: int, message: str, data: Any = None) -> None:
        super().__init__(f"{message} (JSON-RPC error {code})")
        self.code = code
        self.message = message
        self.data = data


class HelloRejected(RemoteError):
    """The host refused ``host.v1.hello``; the connection is over."""


class ConnectionClosed(MxError):
    """The connection ended (host closed it, corruption, or we closed it)."""


class InvalidEnvironment(MxError):
    """A launch variable is missing or unusable; the message names the variable only."""
