"""The shell feeds the core in the order the host's bytes arrived, and never waits on a write.

The host is a raw Unix socket written by hand (literal JSON lines, no vrosdev, no SDK code), so
what arrives together and what is read when is the test's own doing. The core is a stand-in
that records its inputs and asks for scripted requests: the shell's order is under test, not
Cueboard's behaviour.
"""

from __future__ import annotations

import json
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

import anyio
import anyio.abc
import pytest

import vxp
from cueboard.core.effects import Exit, Failure, Reply, Send
from cueboard.core.inputs import Connected
from cueboard.runtime.shell import Shell
from vxp.models.audio import AudioLoad, AudioPlay
from vxp.models.events import AudioLoaded, CommandInvoked
from vxp.prepared import Prepared
from vxp.transport import SEND_BUFFER_BYTES

from ...vxp.minihost import EXT_ID, TOKEN, WELCOME

pytestmark = pytest.mark.anyio

# One asset's worth of JSON, near the 3 MiB a frame may hold (T-9).
PIXELS = "A" * (2_600_000 // 4 * 4)


def _put(ticket: int) -> Send:
    body = b'{"op":"put","key":"k%d","width":128,"height":128,"frames":[{"rgba_base64":"%s",' % (
        ticket,
        PIXELS.encode(),
    )
    return Send(ticket, "assets", Prepared("assets", body + b'"delay_ms":20}]}'))


# More puts than the socket's send buffer holds (the kernel doubles what is asked for).
PUTS = 2 * SEND_BUFFER_BYTES // len(PIXELS) + 3


def _line(obj: dict[str, Any]) -> bytes:
    return json.dumps(obj, separators=(",", ":")).encode() + b"\n"


def _event(params: dict[str, Any]) -> bytes:
    return _line({"jsonrpc": "2.0", "method": "event", "params": params})


def _result(rid: int, result: dict[str, Any]) -> bytes:
    return _line({"jsonrpc": "2.0", "id": rid, "result": result})


class RawHost:
    """Welcomes one client, then reads only while ``reading`` is set; ``answer`` turns each
    request read into the bytes written back, in one write. A host that starts not reading
    welcomes before it reads the hello."""

    def __init__(self, answer: Callable[[dict[str, Any]], bytes], *, reading: bool = True) -> None:
        self.answer = answer
        self.received: list[dict[str, Any]] = []
        self.reading = anyio.Event()
        if reading:
            self.reading.set()
        self.conn: anyio.abc.SocketStream | None = None
        self.welcomed = False
        self.path = str(Path(tempfile.mkdtemp(prefix="cb-raw-")) / "ep.sock")

    @property
    def env(self) -> dict[str, str]:
        return {"VROS_EXT_ENDPOINT": self.path, "VROS_EXT_TOKEN": TOKEN, "VROS_EXT_ID": EXT_ID}

    async def write(self, data: bytes) -> None:
        assert self.conn is not None
        await self.conn.send(data)

    async def serve(self, *, task_status: anyio.abc.TaskStatus[None]) -> None:
        listener = await anyio.create_unix_listener(self.path)
        task_status.started()
        async with listener, await listener.accept() as conn:
            self.conn = conn
            self.welcomed = not self.reading.is_set()
            if self.welcomed:
                await conn.send(WELCOME.encode() + b"\n")
            buf = b""
            while True:
                await self.reading.wait()
                try:
                    buf += await conn.receive(1 << 20)
                except (anyio.EndOfStream, anyio.BrokenResourceError, anyio.ClosedResourceError):
                    return
                while b"\n" in buf:
                    line, buf = buf.split(b"\n", 1)
                    frame = json.loads(line)
                    self.received.append(frame)
                    if frame["method"] == "hello":
                        if not self.welcomed:
                            await conn.send(WELCOME.encode() + b"\n")
                    elif reply := self.answer(frame):
                        await conn.send(reply)


class ScriptedCore:
    """Records every input; ``script`` gives the effects for each."""

    def __init__(self, script: Callable[[object], list[object]]) -> None:
        self.script = script
        self.inputs: list[object] = []

    def handle(self, item: object, now: float) -> list[object]:
        self.inputs.append(item)
        return self.script(item)

    def sounds_folder(self) -> Path:
        return Path(tempfile.gettempdir())


async def _serve(host: RawHost, core: ScriptedCore) -> None:
    shell = Shell(core)  # type: ignore[arg-type]  # the stand-in has what the shell calls
    with anyio.fail_after(30):
        async with anyio.create_task_group() as tg:
            await tg.start(host.serve)
            async with vxp.connect(host.env) as client:
                await shell.serve(client)
            tg.cancel_scope.cancel()


LOADS = 10


def _load(ticket: int) -> Send:
    return Send(ticket, "audio", AudioLoad(op="load", path=f"/sounds/{ticket}.wav"))


async def test_a_load_reply_and_its_audio_loaded_reach_the_core_in_the_order_written() -> None:
    """Each ``load`` is answered by its reply and its ``audio_loaded`` in one write; a second
    batch by the event first, then the reply, in two writes."""

    def answer(frame: dict[str, Any]) -> bytes:
        n = int(Path(frame["params"]["path"]).stem)
        sound = f"s-{n:08d}"
        reply = _result(frame["id"], {"result": "loading", "sound": sound})
        outcome = {"kind": "failed", "code": "undecodable"}
        event = _event({"event": "audio_loaded", "sound": sound, "outcome": outcome})
        return reply + event if n <= LOADS else event + reply

    def script(item: object) -> list[object]:
        if isinstance(item, Connected):
            return [_load(t) for t in range(1, 2 * LOADS + 1)]
        if len(core.inputs) == 1 + 4 * LOADS:
            return [Exit(0)]
        return []

    core = ScriptedCore(script)
    await _serve(RawHost(answer), core)
    seen = [
        f"reply {i.ticket}"
        if isinstance(i, Reply)
        else f"event {int(i.sound.removeprefix('s-'))}"
        if isinstance(i, AudioLoaded)
        else type(i).__name__
        for i in core.inputs[1:]
    ]
    first = [s for n in range(1, LOADS + 1) for s in (f"reply {n}", f"event {n}")]
    then = [s for n in range(LOADS + 1, 2 * LOADS + 1) for s in (f"event {n}", f"reply {n}")]
    assert seen == first + then


async def test_reading_goes_on_behind_a_blocked_put_and_a_press_overtakes_the_queued_puts() -> None:
    """The host reads nothing while the shell writes more puts than the send buffer holds;
    a press and then another event still reach the core, and the press's play is written
    right after the put that was being written, before the puts that waited."""
    targets = [{"channel": "soundboard", "gain_pct": 80}]
    play = Send(PUTS + 1, "audio", AudioPlay(sound="s-00000001", targets=targets))
    waiting_at_press: list[int] = []
    seen_second = anyio.Event()

    def script(item: object) -> list[object]:
        if isinstance(item, Connected):
            return [_put(t) for t in range(1, PUTS + 1)]
        if isinstance(item, CommandInvoked) and item.command == "play-slot-1":
            waiting_at_press.append(len(shell.outbox))
            return [play]
        if isinstance(item, CommandInvoked):
            seen_second.set()
            return []
        if sum(isinstance(i, Reply | Failure) for i in core.inputs) == PUTS + 1:
            return [Exit(0)]
        return []

    def answer(frame: dict[str, Any]) -> bytes:
        return _result(frame["id"], {"result": "ok"})

    host = RawHost(answer, reading=False)  # not a byte read until the test says so

    async def drive() -> None:
        press = _event({"event": "command_invoked", "command": "play-slot-1"})
        second = _event({"event": "command_invoked", "command": "page-next"})
        await host.write(press + second)
        await seen_second.wait()
        host.reading.set()

    core = ScriptedCore(script)
    shell = Shell(core)  # type: ignore[arg-type]
    with anyio.fail_after(60):
        async with anyio.create_task_group() as tg:
            await tg.start(host.serve)
            async with vxp.connect(host.env) as client:
                tg.start_soon(drive)
                await shell.serve(client)
            tg.cancel_scope.cancel()
    assert waiting_at_press and waiting_at_press[0] >= 1  # puts still waited behind a full buffer
    order = [
        "play" if f["method"] == "audio" else f["params"]["key"]
        for f in host.received
        if f["method"] != "hello"
    ]
    assert [s for s in order if s != "play"] == [f"k{t}" for t in range(1, PUTS + 1)]  # as asked
    assert order.index("play") == PUTS - waiting_at_press[0]  # right after the put being written
    assert [type(i).__name__ for i in core.inputs if isinstance(i, Reply | Failure)] == [
        "Reply"
    ] * (PUTS + 1)
