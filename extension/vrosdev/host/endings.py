"""Two facts about a connection's socket that its stream does not tell: whether the client has
hung up, and a way to wake whatever task waits on the socket."""

from __future__ import annotations

import select
import socket
from typing import Any

import anyio
import anyio.abc


def _raw(stream: anyio.abc.ByteStream) -> Any:
    try:
        return stream.extra(anyio.abc.SocketAttribute.raw_socket)
    except anyio.TypedAttributeLookupError:
        return None


def hung_up(stream: anyio.abc.ByteStream) -> bool:
    """The client closed its socket or died, whether or not this side has read that yet."""
    sock = _raw(stream)
    if sock is None:
        return False
    poller = select.poll()
    poller.register(sock, select.POLLHUP | select.POLLERR)
    return bool(poller.poll(0))


def shut(stream: anyio.abc.ByteStream) -> None:
    """Shut the socket down, so a read or write waiting on it returns at once.

    Only the selector then wakes the waiting task: cancelling it or closing the stream under it
    could complete its wait twice, which asyncio refuses (InvalidStateError)."""
    sock = _raw(stream)
    if sock is None:
        return
    try:
        sock.shutdown(socket.SHUT_RDWR)
    except OSError:
        pass
