"""``Client.submit`` and ``Client.incoming``: answers, failures and events as one stream in the
order the host's bytes arrived, against the minimal host on a real Unix socket."""

from __future__ import annotations

import json
from typing import Any

import anyio
import pytest

import vxp
from vxp.client import Answered, HostEvent, Incoming, RequestFailed
from vxp.errors import ConnectionClosed, DomainError, NotSupportedByHost, ProtocolError
from vxp.models.audio import AudioLoad, AudioLoading, AudioStopAll

from .minihost import MiniHost, default_responder

pytestmark = pytest.mark.anyio


def _loading(rid: int, sound: str) -> str:
    return json.dumps(
        {"jsonrpc": "2.0", "id": rid, "result": {"result": "loading", "sound": sound}}
    )


def _loaded(sound: str) -> str:
    outcome = {"kind": "failed", "code": "undecodable"}
    params = {"event": "audio_loaded", "sound": sound, "outcome": outcome}
    return json.dumps({"jsonrpc": "2.0", "method": "event", "params": params})


def _loader(frame: dict[str, Any]) -> list[str]:
    """``/s/a.wav``: the reply and its event in ONE write; ``/s/b.wav``: the event, then the reply,
    in two writes; ``/s/c.wav``: an ``err``; ``/s/d.wav``: never answered."""
    if frame.get("method") != "audio":
        return default_responder(frame)
    rid, path = frame["id"], frame["params"].get("path")
    if path == "/s/a.wav":
        return [_loading(rid, "s-a") + "\n" + _loaded("s-a")]
    if path == "/s/b.wav":
        return [_loaded("s-b"), _loading(rid, "s-b")]
    if path == "/s/c.wav":
        err = {"result": "err", "code": "not_found", "message": "no such file"}
        return [json.dumps({"jsonrpc": "2.0", "id": rid, "result": err})]
    if path == "/s/d.wav":
        return []
    return [json.dumps({"jsonrpc": "2.0", "id": rid, "error": {"code": -32603, "message": "x"}})]


def _shape(item: Incoming) -> tuple[str, object, str]:
    match item:
        case HostEvent(event=event):
            return ("event", None, f"{event.event} {event.sound}")
        case Answered(tag=tag, result=result):
            assert isinstance(result, AudioLoading)
            return ("answered", tag, result.sound)
        case RequestFailed(tag=tag, error=error):
            return ("failed", tag, type(error).__name__)


async def _take(client: vxp.Client, n: int) -> list[Incoming]:
    got: list[Incoming] = []
    with anyio.fail_after(10):
        async for item in client.incoming():
            got.append(item)
            if len(got) == n:
                break
    return got


async def test_answers_and_events_come_in_the_order_their_bytes_arrived() -> None:
    host = MiniHost(_loader)
    async with anyio.create_task_group() as tg:
        await tg.start(host.serve)
        async with vxp.connect(host.env) as client:
            await client.submit("audio", AudioLoad(op="load", path="/s/a.wav"), "A")
            first = await _take(client, 2)
            await client.submit("audio", AudioLoad(op="load", path="/s/b.wav"), "B")
            second = await _take(client, 2)
            await client.submit("audio", AudioLoad(op="load", path="/s/c.wav"), "C")
            await client.submit("audio", AudioLoad(op="load", path="/s/e.wav"), "E")
            third = await _take(client, 2)
        tg.cancel_scope.cancel()
    host.cleanup()
    assert [_shape(i) for i in first] == [
        ("answered", "A", "s-a"),
        ("event", None, "audio_loaded s-a"),
    ]
    assert [_shape(i) for i in second] == [
        ("event", None, "audio_loaded s-b"),
        ("answered", "B", "s-b"),
    ]
    assert [_shape(i) for i in third] == [
        ("failed", "C", "DomainError"),
        ("failed", "E", "ProtocolError"),
    ]
    err, protocol = (i for i in third if isinstance(i, RequestFailed))
    assert isinstance(err.error, DomainError) and err.error.code == "not_found"
    assert isinstance(protocol.error, ProtocolError) and protocol.error.code == -32603


async def test_a_timeout_is_one_failure_on_the_stream_and_a_late_answer_is_not_another() -> None:
    host = MiniHost(_loader)
    async with anyio.create_task_group() as tg:
        await tg.start(host.serve)
        async with vxp.connect(host.env) as client:
            client.request_timeout = 0.05
            await client.submit("audio", AudioLoad(op="load", path="/s/d.wav"), "D")
            [timed_out] = await _take(client, 1)
            with anyio.fail_after(5):
                while not (frames := [f for f in host.received if f["id"] > 1]):  # noqa: ASYNC110
                    await anyio.sleep(0.01)
            [frame] = frames
            await host.send_line(_loading(frame["id"], "s-d"))  # too late: a violation
            await host.send_line(_loaded("s-d"))
            [event] = await _take(client, 1)
            assert client.violations == 1
        tg.cancel_scope.cancel()
    host.cleanup()
    assert _shape(timed_out) == ("failed", "D", "TimeoutError")
    assert _shape(event) == ("event", None, "audio_loaded s-d")


async def test_the_connection_ending_fails_what_is_unanswered_then_ends_the_stream() -> None:
    def closer(frame: dict[str, Any]) -> list[str]:
        if frame.get("method") == "audio" and frame["params"]["op"] == "stop_all":
            return ["<close>"]
        return _loader(frame)

    host = MiniHost(closer)
    got: list[Incoming] = []
    async with anyio.create_task_group() as tg:
        await tg.start(host.serve)
        async with vxp.connect(host.env) as client:
            await client.submit("audio", AudioLoad(op="load", path="/s/d.wav"), "D")
            await client.submit("audio", AudioStopAll(), "S")
            with pytest.raises(ConnectionClosed), anyio.fail_after(10):
                async for item in client.incoming():
                    got.append(item)
            with pytest.raises(ConnectionClosed):  # refused before writing: nothing to wait for
                await client.submit("audio", AudioStopAll(), "late")
        tg.cancel_scope.cancel()
    host.cleanup()
    assert sorted(_shape(i) for i in got) == [
        ("failed", "D", "ConnectionClosed"),
        ("failed", "S", "ConnectionClosed"),
    ]


async def test_a_request_refused_locally_raises_and_leaves_nothing_on_the_stream() -> None:
    host = MiniHost(_loader)
    async with anyio.create_task_group() as tg:
        await tg.start(host.serve)
        async with vxp.connect(host.env) as client:
            from vxp.version import Version

            client._session.host_version = Version.parse("1.0")  # pyright: ignore[reportPrivateUsage]
            with pytest.raises(NotSupportedByHost):
                await client.submit("media", vxp.models.MediaClose(session="m-1"), "M")
            client._session.host_version = Version.parse("1.7")  # pyright: ignore[reportPrivateUsage]
            await client.submit("audio", AudioLoad(op="load", path="/s/a.wav"), "A")
            got = await _take(client, 2)
        tg.cancel_scope.cancel()
    host.cleanup()
    assert [_shape(i)[:2] for i in got] == [("answered", "A"), ("event", None)]


async def test_events_still_yields_the_events_alone() -> None:
    host = MiniHost()
    async with anyio.create_task_group() as tg:
        await tg.start(host.serve)
        async with vxp.connect(host.env) as client:
            await client.commands.register("say-hello")
            with anyio.fail_after(10):
                async for event in client.events():
                    assert isinstance(event, vxp.models.CommandInvoked)
                    break
        tg.cancel_scope.cancel()
    host.cleanup()
