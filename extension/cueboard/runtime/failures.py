"""The SDK's exceptions as the core's :class:`HostFailure`: the one place that reads them."""

from __future__ import annotations

import vxp
from cueboard.core.effects import HostFailure

__all__ = ["failure_of"]


def failure_of(exc: BaseException) -> HostFailure:
    """What a request's exception means to the policy table; never a URL or a token (the SDK's
    messages hold neither, and only the class and code are kept)."""
    match exc:
        case vxp.DomainError(code=code):
            return HostFailure("domain", code, f"{exc.namespace}: {code}")
        case vxp.ProtocolError(code=code):  # CapabilityDenied is one, with -32001
            return HostFailure("protocol", code, f"protocol error {code}")
        case vxp.MalformedResponse():
            return HostFailure("unreadable", None, "a response this SDK cannot read")
        case vxp.InvalidRequest(code=code):
            return HostFailure("invalid", code, "outside the spec's limits")
        case vxp.LocalProtocolError():  # NotSupportedByHost: newer than the host
            return HostFailure("invalid", None, type(exc).__name__)
        case vxp.ConnectionClosed() | vxp.FrameTooLarge():
            return HostFailure("closed", None, "the connection is gone")
        case TimeoutError():
            return HostFailure("timeout", None, "no answer in time")
        case _:
            return HostFailure("unreadable", None, type(exc).__name__)
