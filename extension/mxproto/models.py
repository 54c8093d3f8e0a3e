# pyright: strict
"""The shapes the seed documents, as pydantic models named like the wire.

Inbound models ignore fields they do not know, so a newer host still parses. ``host.v1.listVms``
entries stay opaque objects (docs/protocol-notes.md#m6): the runtime page that would define them is
not in the seed.
"""

from __future__ import annotations

from typing import Any, Final, Literal

from pydantic import BaseModel, ConfigDict, Field

__all__ = [
    "FRAMEBUFFER_ENCODING",
    "HOST_CALLS",
    "METHOD_HELLO",
    "METHOD_LIST_VMS",
    "METHOD_REPORT_STATUS",
    "METHOD_SHUTDOWN",
    "PROTOCOL_VERSION",
    "RUNTIME_V1",
    "FramebufferInfo",
    "HelloParams",
    "HelloResult",
    "StatusReport",
    "StatusState",
]

PROTOCOL_VERSION: Final = 1
RUNTIME_V1: Final = "runtime.v1"
FRAMEBUFFER_ENCODING: Final = "mxfb0001"

METHOD_HELLO: Final = "host.v1.hello"
METHOD_LIST_VMS: Final = "host.v1.listVms"
METHOD_REPORT_STATUS: Final = "extension.v1.reportStatus"
METHOD_SHUTDOWN: Final = "extension.v1.shutdown"
# The methods the host calls on the extension.
HOST_CALLS: Final = frozenset({METHOD_REPORT_STATUS, METHOD_SHUTDOWN})

type StatusState = Literal["ready", "degraded", "failed"]


class _Inbound(BaseModel):
    model_config = ConfigDict(extra="ignore", frozen=True)


class HelloParams(BaseModel):
    """What ``host.v1.hello`` carries; built only at the moment of sending (it holds the token)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    token: str = Field(repr=False)
    protocolVersion: int
    extensionId: str


class HelloResult(_Inbound):
    protocolVersion: int
    hostCapabilities: list[str]
    sessionId: str


class StatusReport(BaseModel):
    """The reply to ``extension.v1.reportStatus``: the object Settings displays."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    state: StatusState
    message: str
    version: str
    protocolVersion: int = PROTOCOL_VERSION
    capabilities: list[str] = Field(default_factory=lambda: [RUNTIME_V1])


class FramebufferInfo(_Inbound):
    """A result that announces a ``framebuffer`` attachment of exactly ``byteLength`` bytes
    (docs/protocol-notes.md#m5)."""

    encoding: Literal["mxfb0001"]
    byteLength: int = Field(ge=0)

    @classmethod
    def recognise(cls, result: Any) -> FramebufferInfo | None:
        if not isinstance(result, dict) or result.get("encoding") != FRAMEBUFFER_ENCODING:  # pyright: ignore[reportUnknownMemberType]
            return None
        return cls.model_validate(result)
