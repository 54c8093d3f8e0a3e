"""The two ways a media request can be refused, kept apart as the spec keeps them apart.

A shape problem means the request never reached the namespace (the caller answers JSON-RPC
-32602); a domain problem is an ``err`` result inside a successful response.
"""

from __future__ import annotations

from typing import Any

__all__ = ["MediaDomainError", "MediaParamsError"]


class MediaParamsError(ValueError):
    """``params`` fits no media request shape (-32602; unknown ops: docs/protocol-notes.md#r4)."""


class MediaDomainError(Exception):
    """A media ``err`` result. The message never contains the URL (MED-12)."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(f"{code}: {message}")
        self.code = code
        self.message = message

    def to_result(self) -> dict[str, Any]:
        return {"result": "err", "code": self.code, "message": self.message}
