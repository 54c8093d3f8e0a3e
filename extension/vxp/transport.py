"""The only module that touches a socket or a pipe.

Linux: the Unix socket named by ``VROS_EXT_ENDPOINT`` (T-3, T-4). Windows: the named pipe
``\\\\.\\pipe\\vros.ext.<id>`` through asyncio's proactor, wrapped as the same anyio
``ByteStream`` (T-2). The endpoint may appear after the process starts (T-5): connecting is
retried for up to :data:`CONNECT_RETRY_S` with backoff from 50 ms doubling to 500 ms
(docs/protocol-notes.md#r1), so hello still lands within 5 s of launch (H-2).

The Windows path is untested on real Windows: on Linux its stream wrapper is exercised over an
asyncio Unix connection, which has the same StreamReader/StreamWriter interface.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Awaitable, Callable, Mapping
from typing import Any, NamedTuple

import anyio
import anyio.abc

from .errors import EndpointUnavailable, MissingEnvironment
from .secret import Secret

__all__ = [
    "CONNECT_RETRY_S",
    "LaunchEnvironment",
    "StreamPipe",
    "open_endpoint",
]

ENV_ENDPOINT = "VROS_EXT_ENDPOINT"
ENV_TOKEN = "VROS_EXT_TOKEN"
ENV_ID = "VROS_EXT_ID"
CONNECT_RETRY_S = 4.0  # docs/protocol-notes.md#r1
BACKOFF_START_S = 0.05
BACKOFF_MAX_S = 0.5
READ_CHUNK = 65536
SEND_BUFFER_BYTES = 4 * 1024 * 1024  # a whole frame (3 MiB, T-9) and what queues behind it


class LaunchEnvironment(NamedTuple):
    """The three variables vrOS sets before launching us (T-1)."""

    endpoint: str
    token: Secret
    ext_id: str

    @classmethod
    def from_environ(cls, env: Mapping[str, str] | None = None) -> LaunchEnvironment:
        env = os.environ if env is None else env
        values: list[str] = []
        for name in (ENV_ENDPOINT, ENV_TOKEN, ENV_ID):
            value = env.get(name, "")
            if not value:
                raise MissingEnvironment(name)
            values.append(value)
        return cls(values[0], Secret(values[1]), values[2])


Opener = Callable[[str], Awaitable[anyio.abc.ByteStream]]


async def open_endpoint(
    endpoint: str,
    *,
    retry_for: float = CONNECT_RETRY_S,
    opener: Opener | None = None,
) -> anyio.abc.ByteStream:
    """Connect, retrying while the endpoint does not exist or refuses, then fail clearly."""
    open_once = opener or _platform_opener()
    delay = BACKOFF_START_S
    deadline = anyio.current_time() + retry_for
    while True:
        try:
            return await open_once(endpoint)
        except (FileNotFoundError, ConnectionRefusedError) as exc:
            last = exc
        remaining = deadline - anyio.current_time()
        if remaining <= 0:
            kind = "does not exist" if isinstance(last, FileNotFoundError) else "refused"
            raise EndpointUnavailable(
                f"the vrOS endpoint {kind} after {retry_for:g} s of retries: {endpoint}"
            ) from None
        await anyio.sleep(min(delay, remaining))
        delay = min(delay * 2, BACKOFF_MAX_S)


def _platform_opener() -> Opener:
    return _open_pipe if _is_windows() else _open_unix


def _is_windows() -> bool:
    return sys.platform.startswith("win")


async def _open_unix(path: str) -> anyio.abc.ByteStream:
    import socket  # here, not at the top: connecting imports it anyway, importing vxp need not

    stream = await anyio.connect_unix(path)
    # Room for one whole frame in the kernel (Linux caps it at net.core.wmem_max): a 2.6 MB
    # assets put is then handed over in one write, and a request sent after it (a button
    # press) does not wait on the loop for the host to read the put (bench/bench_latency.py).
    sock = stream.extra(anyio.abc.SocketAttribute.raw_socket)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, SEND_BUFFER_BYTES)
    except OSError:  # a platform without the option keeps its default
        pass
    return stream


async def _open_pipe(path: str) -> anyio.abc.ByteStream:  # pragma: no cover - Windows only
    import asyncio

    loop = asyncio.get_running_loop()
    reader = asyncio.StreamReader(limit=READ_CHUNK)
    protocol = asyncio.StreamReaderProtocol(reader)
    create = getattr(loop, "create_pipe_connection", None)
    if create is None:
        raise EndpointUnavailable("named pipes need asyncio's proactor event loop on Windows")
    try:
        transport, _ = await create(lambda: protocol, path)
    except OSError as exc:
        # ERROR_FILE_NOT_FOUND (2) and ERROR_PIPE_BUSY (231): the pipe is not there yet.
        if getattr(exc, "winerror", None) in (2, 231):
            raise FileNotFoundError(path) from None
        raise
    writer = asyncio.StreamWriter(transport, protocol, reader, loop)
    return StreamPipe(reader, writer)


class StreamPipe(anyio.abc.ByteStream):
    """An asyncio StreamReader/StreamWriter pair seen as an anyio ByteStream.

    Used for Windows named pipes, which anyio does not open itself.
    """

    def __init__(self, reader: Any, writer: Any) -> None:
        self._reader = reader
        self._writer = writer
        self._closed = False

    async def receive(self, max_bytes: int = READ_CHUNK) -> bytes:
        if self._closed:
            raise anyio.ClosedResourceError
        data: bytes = await self._reader.read(max_bytes)
        if not data:
            raise anyio.EndOfStream
        return data

    async def send(self, item: bytes) -> None:
        if self._closed:
            raise anyio.ClosedResourceError
        try:
            self._writer.write(item)
            await self._writer.drain()
        except (ConnectionError, BrokenPipeError) as exc:
            raise anyio.BrokenResourceError from exc

    async def send_eof(self) -> None:
        if self._writer.can_write_eof():
            self._writer.write_eof()

    async def aclose(self) -> None:
        if self._closed:
            return
        self._closed = True
        self._writer.close()
        try:
            await self._writer.wait_closed()
        except (ConnectionError, BrokenPipeError):
            pass
