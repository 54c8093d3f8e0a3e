"""A minimal VXP host for SDK tests: literal JSON lines over a real Unix socket.

It is deliberately not vrosdev and shares no code with the SDK, so a mistake both make cannot
hide. A test gives it a script: a function from each received frame (parsed JSON) to the
literal lines to answer with.
"""

from __future__ import annotations

import json
import os
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

import anyio
import anyio.abc

from tests import leaks

TOKEN = leaks.register("tok-3f9c2a-SECRET-do-not-log", "launch token (tests/vxp/minihost.py)")
EXT_ID = "com.example.hello"

WELCOME = (
    '{"jsonrpc":"2.0","id":1,"result":{"result":"welcome","vxp_version":"1.7",'
    '"granted":{"bus":["vr.lifecycle"],"overlays":false,"capture":false,"audio":true,'
    '"media":false,"osc":false,"network":false,"secrets":false},"locale":"en-US",'
    '"content_root":"/tmp/vrOS"}}'
)

Responder = Callable[[dict[str, Any]], list[str]]


def default_responder(frame: dict[str, Any]) -> list[str]:
    method = frame.get("method")
    rid = frame.get("id")
    params = frame.get("params") or {}
    if method == "hello":
        if params.get("token") != TOKEN:
            return [
                f'{{"jsonrpc":"2.0","id":{rid},"result":{{"result":"rejected","code":"bad_token",'
                '"message":"token mismatch"}}'
            ]
        return [WELCOME]
    if method == "kv" and params.get("op") == "get":
        return [
            f'{{"jsonrpc":"2.0","id":{rid},"result":{{"result":"value","value":3,"revision":12}}}}'
        ]
    if method == "kv" and params.get("op") == "set":
        return [
            f'{{"jsonrpc":"2.0","id":{rid},"result":{{"result":"written","revision":13,"over_quota":false}}}}'
        ]
    if method == "commands":
        return [
            f'{{"jsonrpc":"2.0","id":{rid},"result":{{"result":"ok"}}}}',
            '{"jsonrpc":"2.0","method":"event","params":{"event":"command_invoked","command":"'
            + str(params.get("name"))
            + '"}}',
        ]
    if method == "media":
        return [
            f'{{"jsonrpc":"2.0","id":{rid},"error":{{"code":-32001,"message":"capability_denied"}}}}'
        ]
    if method == "audio" and params.get("op") == "play":
        return [
            f'{{"jsonrpc":"2.0","id":{rid},"result":{{"result":"err",'
            '"code":"unknown_sound","message":"no such sound"}}'
        ]
    return [
        f'{{"jsonrpc":"2.0","id":{rid},"error":{{"code":-32601,"message":"unknown namespace"}}}}'
    ]


class MiniHost:
    """Listens on a Unix socket; records every received frame; answers via a responder."""

    def __init__(self, responder: Responder = default_responder) -> None:
        self.responder = responder
        self.received: list[dict[str, Any]] = []
        self.raw_received = bytearray()
        self._dir = tempfile.mkdtemp(prefix="vxp-minihost-")
        self.path = str(Path(self._dir) / f"ext-{EXT_ID}.sock")
        self.connection: anyio.abc.SocketStream | None = None

    @property
    def env(self) -> dict[str, str]:
        return {"VROS_EXT_ENDPOINT": self.path, "VROS_EXT_TOKEN": TOKEN, "VROS_EXT_ID": EXT_ID}

    async def serve(
        self, *, task_status: anyio.abc.TaskStatus[None] = anyio.TASK_STATUS_IGNORED
    ) -> None:
        listener = await anyio.create_unix_listener(self.path)
        task_status.started()
        async with listener:
            conn = await listener.accept()
            self.connection = conn
            await self._handle(conn)

    async def send_line(self, line: str) -> None:
        assert self.connection is not None
        await self.connection.send(line.encode() + b"\n")

    async def _handle(self, conn: anyio.abc.SocketStream) -> None:
        buf = b""
        async with conn:
            while True:
                try:
                    data = await conn.receive()
                except (anyio.EndOfStream, anyio.BrokenResourceError, anyio.ClosedResourceError):
                    return
                self.raw_received += data
                buf += data
                while b"\n" in buf:
                    line, buf = buf.split(b"\n", 1)
                    frame = json.loads(line)
                    self.received.append(frame)
                    for answer in self.responder(frame):
                        if answer == "<close>":
                            await conn.aclose()
                            return
                        await conn.send(answer.encode() + b"\n")

    def cleanup(self) -> None:
        try:
            os.unlink(self.path)
        except FileNotFoundError:
            pass
        os.rmdir(self._dir)
