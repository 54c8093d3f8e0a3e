"""The SDK's exceptions.

Two kinds of failure come from the host and never overlap (VXP E-1): a JSON-RPC error object
(:class:`ProtocolError`: the request never reached the namespace) and a domain ``err`` inside a
successful response (:class:`DomainError`). Everything else is local or about the connection.
No message here ever contains the launch token or a media URL.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from pydantic import ValidationError

__all__ = [
    "BEFORE_HELLO",
    "CAPABILITY_DENIED",
    "CapabilityDenied",
    "ConnectionClosed",
    "DomainError",
    "EndpointUnavailable",
    "FrameTooLarge",
    "HelloRejected",
    "InvalidRequest",
    "LocalProtocolError",
    "MalformedResponse",
    "MissingEnvironment",
    "NotSupportedByHost",
    "ProtocolError",
    "VxpError",
    "protocol_error_of",
    "validation_summary",
]

CAPABILITY_DENIED = -32001  # E-10: the namespace needs a capability the host did not grant
BEFORE_HELLO = -32002  # E-11: a request before the hello was answered


class VxpError(Exception):
    """Base class of every error the SDK raises on purpose."""


class MissingEnvironment(VxpError):
    def __init__(self, variable: str) -> None:
        super().__init__(f"{variable} is not set: start the extension from vrOS or vrosdev")
        self.variable = variable


class EndpointUnavailable(VxpError):
    """The endpoint accepted no connection in the retry budget (T-5, docs/protocol-notes.md#r1)."""


class FrameTooLarge(VxpError):
    def __init__(self, limit: int) -> None:
        super().__init__(f"a frame is larger than {limit} bytes: the connection is corrupt (T-9)")
        self.limit = limit


class ConnectionClosed(VxpError):
    """The connection is gone; ``reason`` says why, once."""

    def __init__(self, reason: str = "the host closed the connection") -> None:
        super().__init__(reason)
        self.reason = reason


class LocalProtocolError(VxpError):
    """We tried to do something the protocol does not allow (a bug in the caller)."""


class InvalidRequest(VxpError, ValueError):
    """A request we were about to send breaks the spec's limits; nothing was sent.

    ``code`` is the domain error the host would answer with, when the spec names one.
    """

    def __init__(self, message: str, code: str | None) -> None:
        super().__init__(message)
        self.code = code


class NotSupportedByHost(LocalProtocolError):
    """An op or option newer than the host's welcome version (docs/protocol-notes.md#r7, #r23)."""


class HelloRejected(VxpError):
    def __init__(self, code: str, message: str) -> None:
        super().__init__(f"vrOS rejected hello: {code}" + (f" ({message})" if message else ""))
        self.code = code
        self.message = message


class ProtocolError(VxpError):
    """A JSON-RPC error object: the request never reached the namespace (E-4)."""

    def __init__(self, code: int, message: str, method: str | None = None) -> None:
        where = f" for {method}" if method else ""
        super().__init__(f"protocol error {code}{where}: {message}")
        self.code = code
        self.message = message
        self.method = method


class CapabilityDenied(ProtocolError):
    """-32001: the namespace exists but is not granted to this extension (E-10)."""


class DomainError(VxpError):
    """A namespace's ``err`` result (E-2). ``code`` may be one this SDK does not know."""

    def __init__(self, namespace: str, code: str, message: str | None) -> None:
        super().__init__(f"{namespace}: {code}" + (f": {message}" if message else ""))
        self.namespace = namespace
        self.code = code
        self.message = message


class MalformedResponse(VxpError):
    """The host answered with something that fits no response shape of the namespace."""


def validation_summary(exc: ValidationError, limit: int = 3) -> str:
    """Where and why validation failed, never the input values (they may hold a URL or a
    secret). Shared by the SDK and vrosdev, so both word refusals alike."""
    parts: list[str] = []
    for e in exc.errors(include_url=False, include_input=False)[:limit]:
        loc = ".".join(str(p) for p in e["loc"])
        parts.append(f"{loc}: {e['msg']}" if loc else e["msg"])
    return "; ".join(parts)


def protocol_error_of(obj: Any, namespace: str | None) -> VxpError:
    """The error a JSON-RPC error object stands for; a malformed one is itself the host's fault."""
    if not isinstance(obj, dict):
        return MalformedResponse("a JSON-RPC error that is not an object")
    err: dict[str, Any] = obj  # pyright: ignore[reportUnknownVariableType]
    code = err.get("code")
    message = err.get("message")
    if type(code) is not int:
        return MalformedResponse("a JSON-RPC error without an integer code")
    text = message if isinstance(message, str) else ""
    if code == CAPABILITY_DENIED:
        return CapabilityDenied(code, text, namespace)
    return ProtocolError(code, text, namespace)
