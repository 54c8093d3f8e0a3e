"""The runtime turns every client exception into the core's HostFailure, without its message."""

from __future__ import annotations

import pytest

from cueboard.core.effects import HostFailure
from cueboard.runtime.failures import failure_of
from vxp import (
    CapabilityDenied,
    ConnectionClosed,
    DomainError,
    InvalidRequest,
    MalformedResponse,
    NotSupportedByHost,
    ProtocolError,
)


@pytest.mark.parametrize(
    ("exc", "failure"),
    [
        (DomainError("media", "busy", "deck-1 has a session"), HostFailure("domain", "busy")),
        (DomainError("audio", "from_1_9", None), HostFailure("domain", "from_1_9")),
        (ProtocolError(-32603, "internal error", "media"), HostFailure("protocol", -32603)),
        (ProtocolError(-32099, "a newer error", "kv"), HostFailure("protocol", -32099)),
        (CapabilityDenied(-32001, "not granted", "media"), HostFailure("protocol", -32001)),
        (MalformedResponse("media: a result from 1.9"), HostFailure("unreadable")),
        (InvalidRequest("too long", "invalid_url"), HostFailure("invalid", "invalid_url")),
        (InvalidRequest("no such shape", None), HostFailure("invalid", None)),
        (NotSupportedByHost("1.7"), HostFailure("invalid", "not_supported_by_host")),
        (TimeoutError(), HostFailure("timeout")),
        (ConnectionClosed(), HostFailure("closed")),
        (
            RuntimeError("https://example.test/?token=x"),
            HostFailure("unreadable", None, "RuntimeError"),
        ),
    ],
)
def test_client_exceptions_become_host_failures_without_their_message(
    exc: BaseException, failure: HostFailure
) -> None:
    assert failure_of(exc) == failure
