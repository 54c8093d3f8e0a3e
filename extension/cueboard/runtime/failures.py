"""The SDK's exceptions as the core's :class:`HostFailure`: the one place that reads them."""

from __future__ import annotations

import vxp
from cueboard.core.effects import HostFailure

__all__ = ["failure_of"]


def failure_of(exc: BaseException) -> HostFailure:
    """What a request's exception means to the policy table: its kind and code, never its
    message (a host's message may quote what was sent, a URL say)."""
    match exc:
        case vxp.DomainError(code=code):
            return HostFailure("domain", code)
        case vxp.ProtocolError(code=code):  # CapabilityDenied is one, with -32001
            return HostFailure("protocol", code)
        case vxp.MalformedResponse():
            return HostFailure("unreadable")
        case vxp.InvalidRequest(code=code):
            return HostFailure("invalid", code)
        case vxp.NotSupportedByHost():  # newer than the host's version
            return HostFailure("invalid", "not_supported_by_host")
        case vxp.ConnectionClosed() | vxp.FrameTooLarge() | vxp.LocalProtocolError():
            return HostFailure("closed")  # no session to send on: between connections
        case TimeoutError():
            return HostFailure("timeout")
        case _:
            return HostFailure("unreadable", None, type(exc).__name__)
