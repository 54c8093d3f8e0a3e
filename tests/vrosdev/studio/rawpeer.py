"""Test helpers: the emulated Studio on a real loopback socket, and a raw peer of literal bytes.

The peer frames and parses by hand (``struct`` and ``json`` only), never through mxproto, so a
mistake shared by the client and the emulator cannot hide.
"""

from __future__ import annotations

import json
import struct
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import anyio
import anyio.abc

from vrosdev.studio.config import StudioConfig
from vrosdev.studio.host import StudioHost
from vrosdev.studio.transcript import Transcript

TOKEN = "studio-launch-token-5c1d9e-SECRET"
EXT_ID = "com.example.one"
# The seed's hello, with the token this host issued.
HELLO = (
    '{"jsonrpc":"2.0","id":1,"method":"host.v1.hello","params":'
    '{"token":"' + TOKEN + '","protocolVersion":1,"extensionId":"com.example.one"}}'
)
REPORT_STATUS = {"jsonrpc": "2.0", "id": 1, "method": "extension.v1.reportStatus", "params": None}
READY = (
    '{"jsonrpc":"2.0","id":1,"result":{"state":"ready","message":"watching","version":"0.1.0",'
    '"protocolVersion":1,"capabilities":["runtime.v1"]}}'
)


def frame(kind: int, body: bytes) -> bytes:
    return struct.pack(">I", 1 + len(body)) + bytes([kind]) + body


def jframe(text: str) -> bytes:
    return frame(0, text.encode("utf-8"))


class RawPeer:
    def __init__(self, stream: anyio.abc.SocketStream) -> None:
        self.stream = stream
        self.buf = b""

    async def send(self, data: bytes) -> None:
        await self.stream.send(data)

    async def send_json(self, text: str) -> None:
        await self.stream.send(jframe(text))

    async def _fill(self, n: int) -> None:
        while len(self.buf) < n:
            self.buf += await self.stream.receive()

    async def read_frame(self, timeout: float = 5.0) -> tuple[int, bytes]:
        with anyio.fail_after(timeout):
            await self._fill(4)
            (length,) = struct.unpack(">I", self.buf[:4])
            await self._fill(4 + length)
        payload = self.buf[4 : 4 + length]
        self.buf = self.buf[4 + length :]
        return payload[0], payload[1:]

    async def read_json(self, timeout: float = 5.0) -> dict[str, Any]:
        kind, body = await self.read_frame(timeout)
        assert kind == 0, (kind, body[:80])
        return json.loads(body)

    async def closed(self, timeout: float = 5.0) -> bool:
        """True once the host closes the connection (after any frames still in flight)."""
        with anyio.fail_after(timeout):
            try:
                while True:
                    self.buf += await self.stream.receive()
            except (anyio.EndOfStream, anyio.BrokenResourceError, ConnectionResetError):
                return True

    async def hello(self) -> dict[str, Any]:
        """Say the seed's hello, take the result, and the reportStatus call that follows it."""
        await self.send_json(HELLO)
        answer = await self.read_json()
        assert "result" in answer, answer
        assert await self.read_json() == REPORT_STATUS
        return answer["result"]

    async def ready(self) -> dict[str, Any]:
        result = await self.hello()
        await self.send_json(READY)
        return result


@dataclass
class RunningStudio:
    host: StudioHost
    port: int
    record: Path

    async def connect(self) -> RawPeer:
        return RawPeer(await anyio.connect_tcp("127.0.0.1", self.port))

    def transcript(self) -> str:
        return self.record.read_text(encoding="utf-8") if self.record.exists() else ""

    def lines(self) -> list[dict[str, Any]]:
        return [json.loads(line) for line in self.transcript().splitlines()]


@asynccontextmanager
async def running_studio(tmp_path: Path, **overrides: Any) -> AsyncIterator[RunningStudio]:
    config = StudioConfig(extension_id=EXT_ID, token=TOKEN, **overrides)
    record = tmp_path / "studio.jsonl"
    transcript = Transcript(TOKEN, record)
    host = StudioHost(config, transcript)
    listener = await anyio.create_tcp_listener(local_host="127.0.0.1", local_port=0)
    port = listener.extra(anyio.abc.SocketAttribute.local_port)
    try:
        async with anyio.create_task_group() as tg:
            tg.start_soon(host.serve, listener)
            yield RunningStudio(host, port, record)
            tg.cancel_scope.cancel()
    finally:
        await listener.aclose()
        transcript.close()
