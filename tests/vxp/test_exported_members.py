"""The SDK's public surface, pinned: a change here is a deliberate API change."""

from __future__ import annotations

import vxp


def test_vxp_exports_exactly_these_names() -> None:
    assert sorted(vxp.__all__) == sorted(
        [
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
    )
    for name in vxp.__all__:
        assert getattr(vxp, name) is not None


def test_both_error_kinds_are_told_apart() -> None:
    """E-1: a JSON-RPC error and a domain err are different types, never both."""
    assert not issubclass(vxp.DomainError, vxp.ProtocolError)
    assert not issubclass(vxp.ProtocolError, vxp.DomainError)
    assert issubclass(vxp.CapabilityDenied, vxp.ProtocolError)
    assert issubclass(vxp.InvalidRequest, ValueError)
