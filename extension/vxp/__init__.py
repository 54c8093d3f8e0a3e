"""vxp: a client SDK for VXP 1.7, the vrOS extension protocol.

``async with vxp.connect() as client:`` says hello within vrOS's 5 s budget, then exposes one
typed async method per op (``await client.audio.play(...)``) and the events in arrival order
(``async for event in client.events()``). Models live in :mod:`vxp.models`, imported on first
use so the time to hello stays short.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .errors import (
    CapabilityDenied,
    ConnectionClosed,
    DomainError,
    EndpointUnavailable,
    FrameTooLarge,
    HelloRejected,
    InvalidRequest,
    LocalProtocolError,
    MalformedResponse,
    MissingEnvironment,
    NotSupportedByHost,
    ProtocolError,
    VxpError,
)
from .prepared import Prepared, prepare
from .secret import Secret
from .version import CLIENT_VERSION, Version

if TYPE_CHECKING:
    from . import models
    from .client import Client, connect

__all__ = [
    "CLIENT_VERSION",
    "CapabilityDenied",
    "Client",
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
    "Prepared",
    "ProtocolError",
    "Secret",
    "Version",
    "VxpError",
    "connect",
    "models",
    "prepare",
]


def __getattr__(name: str) -> Any:
    if name in ("Client", "connect"):
        from . import client

        return getattr(client, name)
    if name == "models":
        import importlib

        return importlib.import_module(".models", __name__)
    raise AttributeError(f"module 'vxp' has no attribute {name!r}")
