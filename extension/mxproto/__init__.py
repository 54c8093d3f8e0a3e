# pyright: strict
"""A client for the Studio extension protocol v1 (DocsExtensionsV1; docs/protocol-notes.md#m1).

Typical use, inside a process Studio launched::

    async with mxproto.connect(version="0.1.0") as client:
        vms = await client.list_vms()
        await client.wait_for_shutdown()

The framing (:mod:`mxproto.framing`) and the session (:mod:`mxproto.session`) do no I/O;
:mod:`mxproto.transport` is the only module with a socket.
"""

from __future__ import annotations

from .client import MxClient, Reply, StatusSource, connect
from .errors import (
    AttachmentMismatch,
    ConnectionClosed,
    EmptyFrame,
    FrameCorrupt,
    FrameTooLarge,
    HelloRejected,
    InvalidEnvironment,
    LocalProtocolError,
    MalformedAttachment,
    MalformedResponse,
    MxError,
    RemoteError,
)
from .framing import MAX_PAYLOAD_BYTES, Attachment
from .models import (
    PROTOCOL_VERSION,
    RUNTIME_V1,
    FramebufferInfo,
    HelloParams,
    HelloResult,
    StatusReport,
    StatusState,
)
from .secret import Secret
from .transport import LaunchEnvironment

__all__ = [
    "MAX_PAYLOAD_BYTES",
    "PROTOCOL_VERSION",
    "RUNTIME_V1",
    "Attachment",
    "AttachmentMismatch",
    "ConnectionClosed",
    "EmptyFrame",
    "FrameCorrupt",
    "FrameTooLarge",
    "FramebufferInfo",
    "HelloParams",
    "HelloRejected",
    "HelloResult",
    "InvalidEnvironment",
    "LaunchEnvironment",
    "LocalProtocolError",
    "MalformedAttachment",
    "MalformedResponse",
    "MxClient",
    "MxError",
    "RemoteError",
    "Reply",
    "Secret",
    "StatusReport",
    "StatusSource",
    "StatusState",
    "connect",
]
