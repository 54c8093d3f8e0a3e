"""The public surface, pinned: changing it is a decision, not an accident."""

from __future__ import annotations

import mxproto


def test_exported_members() -> None:
    assert sorted(mxproto.__all__) == sorted(
        [
            "MAX_PAYLOAD_BYTES", "PROTOCOL_VERSION", "RUNTIME_V1", "Attachment",
            "AttachmentMismatch", "ConnectionClosed", "EmptyFrame", "FrameCorrupt",
            "FrameTooLarge", "FramebufferInfo", "HelloParams", "HelloRejected", "HelloResult",
            "InvalidEnvironment", "LaunchEnvironment", "LocalProtocolError",
            "MalformedAttachment", "MalformedResponse", "MxClient", "MxError", "RemoteError",
            "Reply", "Secret", "StatusReport", "StatusSource", "StatusState", "connect",
        ]
    )  # fmt: skip
    for name in mxproto.__all__:
        assert hasattr(mxproto, name), name
