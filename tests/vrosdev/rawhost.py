"""Test helpers: a vrosdev host on a real Unix socket, and a raw peer that speaks literal lines.

The peer never uses the SDK: what it sends is the exact text a test writes, and what it reads
is parsed with json.loads only, so a mistake shared by the SDK and vrosdev cannot hide.
"""

from __future__ import annotations

import json
import tempfile
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import anyio
import anyio.abc

from tests import leaks
from vrosdev.host.config import HostConfig
from vrosdev.host.core import ExtensionHost
from vrosdev.host.log import Recorder

TOKEN = leaks.register("launch-token-7f3e9a-TOPSECRET", "launch token (tests/vrosdev/rawhost.py)")
EXT_ID = "com.example.raw"
HELLO = (
    '{"jsonrpc":"2.0","id":1,"method":"hello","params":'
    '{"id":"com.example.raw","vxp_version":"%s","token":"' + TOKEN + '"}}'
)


class RawPeer:
    def __init__(self, stream: anyio.abc.SocketStream) -> None:
        self.stream = stream
        self.buf = b""
        self.events: list[dict[str, Any]] = []

    async def send(self, text: str | bytes) -> None:
        data = text.encode() if isinstance(text, str) else text
        await self.stream.send(data if data.endswith(b"\n") else data + b"\n")

    async def recv(self, timeout: float = 5.0) -> dict[str, Any]:
        """The next frame (events included)."""
        with anyio.fail_after(timeout):
            while b"\n" not in self.buf:
                chunk = await self.stream.receive()
                self.buf += chunk
        line, self.buf = self.buf.split(b"\n", 1)
        return json.loads(line)

    async def reply(self, timeout: float = 5.0) -> dict[str, Any]:
        """The next response, keeping events that arrive before it in ``self.events``."""
        while True:
            frame = await self.recv(timeout)
            if frame.get("method") == "event":
                self.events.append(frame["params"])
                continue
            return frame

    async def event(self, timeout: float = 5.0) -> dict[str, Any]:
        if self.events:
            return self.events.pop(0)
        frame = await self.recv(timeout)
        assert frame.get("method") == "event", frame
        assert "id" not in frame
        return frame["params"]

    async def call(self, rid: int, method: str, params: Any) -> dict[str, Any]:
        await self.send(
            json.dumps({"jsonrpc": "2.0", "id": rid, "method": method, "params": params})
        )
        answer = await self.reply()
        assert answer.get("id") == rid, answer
        return answer

    async def result(self, rid: int, method: str, params: Any) -> dict[str, Any]:
        answer = await self.call(rid, method, params)
        assert "result" in answer, answer
        return answer["result"]

    async def closed(self, timeout: float = 5.0) -> bool:
        """True when the host closes the connection (after any pending frames)."""
        with anyio.fail_after(timeout):
            try:
                while True:
                    self.buf += await self.stream.receive()
            except (anyio.EndOfStream, anyio.BrokenResourceError, ConnectionResetError):
                return True

    async def hello(self, version: str = "1.7") -> dict[str, Any]:
        await self.send(HELLO % version)
        answer = await self.reply()
        assert answer["result"]["result"] == "welcome", answer
        return answer["result"]


@dataclass
class RunningHost:
    host: ExtensionHost
    path: str
    record: Path
    peers: list[RawPeer] = field(default_factory=list[RawPeer])
    saved: str | None = None  # the transcript, kept after the temporary folder is gone

    async def connect(self) -> RawPeer:
        stream = await anyio.connect_unix(self.path)
        peer = RawPeer(stream)
        self.peers.append(peer)
        return peer

    async def ready(self, version: str = "1.7") -> RawPeer:
        peer = await self.connect()
        await peer.hello(version)
        return peer

    def transcript(self) -> str:
        if self.saved is not None:
            return self.saved
        return self.record.read_text(encoding="utf-8")


def config(**overrides: Any) -> HostConfig:
    base: dict[str, Any] = {
        "ext_id": EXT_ID,
        "token": TOKEN,
        "granted": {"bus": ["vr.lifecycle"], "overlays": True, "audio": True, "media": True},
        "content_root": "/tmp/vrOS",
        "hello_deadline_s": 5.0,
    }
    base.update(overrides)
    return HostConfig(**base)


@asynccontextmanager
async def running_host(cfg: HostConfig | None = None) -> AsyncIterator[RunningHost]:
    cfg = cfg or config()
    with tempfile.TemporaryDirectory(prefix="vrosdev-test-") as tmp:
        if cfg.state_dir is None:
            cfg.state_dir = Path(tmp) / "state"
        record = Path(tmp) / "transcript.jsonl"
        host = ExtensionHost(cfg, Recorder(cfg.token, record))
        path = str(Path(tmp) / f"ext-{cfg.ext_id}.sock")
        listener = await anyio.create_unix_listener(path)
        running = RunningHost(host, path, record)
        async with anyio.create_task_group() as tg:
            tg.start_soon(host.serve, listener)
            try:
                yield running
            finally:
                for peer in running.peers:
                    await peer.stream.aclose()
                await listener.aclose()
                tg.cancel_scope.cancel()
        host.recorder.close()
        running.saved = record.read_text(encoding="utf-8")
