"""The items of :meth:`vxp.client.Client.incoming`: one ordered stream of what the host sends.

Named tuples, as the session's own values are (cheap to create before the hello); match them
on their type.
"""

from __future__ import annotations

from typing import Any, NamedTuple

from .errors import VxpError

__all__ = ["Answered", "HostEvent", "Incoming", "RequestFailed"]


class HostEvent(NamedTuple):
    """An event the host sent (a model of ``vxp.models``)."""

    event: Any


class Answered(NamedTuple):
    """The answer to a request written with :meth:`Client.submit`: the namespace's result,
    never an ``err`` (that is a :class:`RequestFailed` holding a :class:`DomainError`)."""

    tag: object
    namespace: str
    result: Any


class RequestFailed(NamedTuple):
    """A request written with :meth:`Client.submit` got no usable answer: ``error`` is the
    :class:`DomainError` of an ``err``, the JSON-RPC error, :class:`MalformedResponse`,
    :class:`ConnectionClosed`, or a :class:`TimeoutError` after the client's
    ``request_timeout``."""

    tag: object
    namespace: str
    error: VxpError | TimeoutError


type Incoming = HostEvent | Answered | RequestFailed
"""One item of :meth:`Client.incoming`."""
