"""The async client against the emulated Studio host (real loopback sockets), and against a few
raw misbehaving hosts written in literal bytes. Runs on asyncio and trio."""

from __future__ import annotations

import json
import re
import struct
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from pathlib import Path

import anyio
import anyio.abc
import pytest

import mxproto
from mxproto import (
    AttachmentMismatch,
    ConnectionClosed,
    HelloRejected,
    LaunchEnvironment,
    MalformedResponse,
    Secret,
    StatusReport,
)
from tests.vrosdev.studio.rawpeer import EXT_ID, TOKEN, running_studio
from vrosdev.studio.host import demo_framebuffer

pytestmark = pytest.mark.anyio


def env_for(port: int, *, token: str = TOKEN, protocol: int = 1) -> LaunchEnvironment:
    return LaunchEnvironment("127.0.0.1", port, Secret(token), EXT_ID, protocol)


async def test_hello_result_status_and_list_vms(tmp_path: Path) -> None:
    vms = [{"id": "a"}, {"id": "b", "state": "stopped"}]
    async with running_studio(tmp_path, vms=vms) as studio:
        status = StatusReport(state="degraded", message="no GPU", version="2.3.4")
        async with mxproto.connect(env_for(studio.port), status=status) as client:
            assert client.protocol_version == 1
            assert client.host_capabilities == ["runtime.v1"]
            assert re.fullmatch(r"com\.example\.one-[0-9a-f]{16}", client.session_id)
            with anyio.fail_after(5):
                await client.wait_status_reported()
                assert await client.list_vms() == vms
        assert studio.host.status is not None
        assert studio.host.status.report == {
            "state": "degraded",
            "message": "no GPU",
            "version": "2.3.4",
            "protocolVersion": 1,
            "capabilities": ["runtime.v1"],
        }


@pytest.mark.parametrize("order", ["after", "before"])
async def test_framebuffer_attachment_is_correlated(tmp_path: Path, order: str) -> None:
    """docs/protocol-notes.md#m5, whichever of the response and the attachment comes first."""
    async with (
        running_studio(tmp_path, framebuffer=order) as studio,
        mxproto.connect(env_for(studio.port)) as client,
    ):
        with anyio.fail_after(5):
            reply = await client.call("host.v1.listVms")
        assert reply.result == {"encoding": "mxfb0001", "byteLength": len(demo_framebuffer())}
        assert reply.framebuffer == demo_framebuffer()
        with anyio.fail_after(5), pytest.raises(MalformedResponse):
            await client.list_vms()  # a framebuffer is not a list of VMs


async def test_a_wrong_token_raises_with_code_and_message(tmp_path: Path) -> None:
    async with running_studio(tmp_path) as studio:
        with pytest.raises(HelloRejected) as info:
            async with mxproto.connect(env_for(studio.port, token="not-the-token-at-all")):
                pass
    assert info.value.code == -32602
    assert info.value.message == "hello token is not the token issued for this extension"
    assert "not-the-token-at-all" not in str(info.value)


async def test_a_wrong_protocol_raises(tmp_path: Path) -> None:
    async with running_studio(tmp_path) as studio:
        with pytest.raises(HelloRejected) as info:
            async with mxproto.connect(env_for(studio.port, protocol=2)):
                pass
    assert info.value.code == -32602


async def test_shutdown_is_answered_and_ends_the_wait(tmp_path: Path) -> None:
    async with (
        running_studio(tmp_path) as studio,
        mxproto.connect(env_for(studio.port)) as client,
    ):
        with anyio.fail_after(5):
            await client.wait_status_reported()
            await studio.host.end_session()
            await client.wait_for_shutdown()
            await studio.host.shutdown_acknowledged.wait()
        assert client.shutdown_requested


async def test_a_status_function_answers_report_status(tmp_path: Path) -> None:
    states = iter(["failed"])

    def status() -> StatusReport:
        return StatusReport(state=next(states), message="disk full", version="1.0")  # type: ignore[arg-type]

    async with (
        running_studio(tmp_path) as studio,
        mxproto.connect(env_for(studio.port), status=status),
    ):
        with anyio.fail_after(5):
            await studio.host.status_settled.wait()
    assert studio.host.status is not None
    assert (studio.host.status.state, studio.host.status.message) == ("failed", "disk full")


async def test_errors_leave_the_block_unwrapped(tmp_path: Path) -> None:
    """A RemoteError from call() reaches the caller as itself, not inside an ExceptionGroup."""
    async with running_studio(tmp_path) as studio:
        with pytest.raises(mxproto.RemoteError) as info:
            async with mxproto.connect(env_for(studio.port)) as client:
                with anyio.fail_after(5):
                    await client.call("host.v1.nope")
    assert info.value.code == -32601
    assert info.value.message == "method not found: host.v1.nope"


# -- raw misbehaving hosts ----------------------------------------------------------------


def jf(text: str) -> bytes:
    body = text.encode()
    return struct.pack(">I", 1 + len(body)) + b"\x00" + body


HELLO_OK = jf(
    '{"jsonrpc":"2.0","id":1,"result":{"protocolVersion":1,"hostCapabilities":["runtime.v1"],'
    '"sessionId":"com.example.one-0011223344556677"}}'
)

type Script = Callable[[anyio.abc.SocketStream], Awaitable[None]]


async def read_frame(stream: anyio.abc.SocketStream, buf: bytearray) -> dict[str, object]:
    while len(buf) < 4 or len(buf) < 4 + struct.unpack(">I", buf[:4])[0]:
        buf += await stream.receive()
    (n,) = struct.unpack(">I", buf[:4])
    payload = bytes(buf[4 : 4 + n])
    del buf[: 4 + n]
    assert payload[0] == 0
    return json.loads(payload[1:])


@asynccontextmanager
async def raw_host(script: Script) -> AsyncIterator[int]:
    listener = await anyio.create_tcp_listener(local_host="127.0.0.1", local_port=0)
    port = listener.extra(anyio.abc.SocketAttribute.local_port)

    async def handle(stream: anyio.abc.SocketStream) -> None:
        async with stream:
            await script(stream)

    async with anyio.create_task_group() as tg:
        tg.start_soon(listener.serve, handle)
        yield port
        tg.cancel_scope.cancel()
    await listener.aclose()


async def test_unknown_host_calls_get_method_not_found() -> None:
    seen: list[dict[str, object]] = []
    answered = anyio.Event()

    async def script(stream: anyio.abc.SocketStream) -> None:
        buf = bytearray()
        await read_frame(stream, buf)  # hello
        await stream.send(HELLO_OK + jf('{"jsonrpc":"2.0","id":9,"method":"extension.v1.bogus"}'))
        seen.append(await read_frame(stream, buf))
        answered.set()
        await anyio.sleep_forever()

    async with raw_host(script) as port, mxproto.connect(env_for(port)):
        with anyio.fail_after(5):
            await answered.wait()
    assert seen == [
        {
            "jsonrpc": "2.0",
            "id": 9,
            "error": {"code": -32601, "message": "method not found: extension.v1.bogus"},
        }
    ]


async def test_an_oversized_frame_closes_the_client_m2() -> None:
    async def script(stream: anyio.abc.SocketStream) -> None:
        buf = bytearray()
        await read_frame(stream, buf)
        await stream.send(HELLO_OK)
        await read_frame(stream, buf)  # the listVms request
        await stream.send(struct.pack(">I", 64 * 1024 * 1024 + 1))
        await anyio.sleep_forever()

    async with raw_host(script) as port, mxproto.connect(env_for(port)) as client:
        with anyio.fail_after(5), pytest.raises(ConnectionClosed, match="over the"):
            await client.list_vms()
        with anyio.fail_after(5):
            await client.wait_for_shutdown()  # returns: the link is gone
        assert not client.shutdown_requested
        assert client.closed_reason is not None


FB_INFO = {"encoding": "mxfb0001", "byteLength": 4}


async def test_a_short_framebuffer_fails_the_call_m5() -> None:
    async def script(stream: anyio.abc.SocketStream) -> None:
        buf = bytearray()
        await read_frame(stream, buf)
        await stream.send(HELLO_OK)
        request = await read_frame(stream, buf)
        rpc_id = request["id"]
        assert isinstance(rpc_id, int)
        body = b"\x00" + struct.pack(">Q", rpc_id) + b"\x00\x0bframebuffer" + b"abc"
        await stream.send(
            jf(json.dumps({"jsonrpc": "2.0", "id": rpc_id, "result": FB_INFO}))
            + struct.pack(">I", 1 + len(body))
            + b"\x01"
            + body
        )
        await anyio.sleep_forever()

    async with raw_host(script) as port, mxproto.connect(env_for(port)) as client:
        with anyio.fail_after(5), pytest.raises(AttachmentMismatch):
            await client.call("host.v1.listVms")


async def test_a_host_that_closes_during_hello() -> None:
    async def script(stream: anyio.abc.SocketStream) -> None:
        await stream.receive()

    async with raw_host(script) as port:
        with anyio.fail_after(5), pytest.raises(ConnectionClosed):
            async with mxproto.connect(env_for(port)):
                pass


async def test_a_host_that_never_answers_hello() -> None:
    async def script(stream: anyio.abc.SocketStream) -> None:
        await anyio.sleep_forever()

    async with raw_host(script) as port:
        with pytest.raises(ConnectionClosed, match=r"no answer to host\.v1\.hello"):
            async with mxproto.connect(env_for(port), hello_timeout=0.2):
                pass


async def test_nobody_listening() -> None:
    listener = await anyio.create_tcp_listener(local_host="127.0.0.1", local_port=0)
    port = listener.extra(anyio.abc.SocketAttribute.local_port)
    await listener.aclose()
    with pytest.raises(ConnectionClosed, match="cannot connect to Studio"):
        async with mxproto.connect(env_for(port)):
            pass


async def test_set_status_changes_the_next_report() -> None:
    replies: list[dict[str, object]] = []
    done = anyio.Event()
    asked = anyio.Event()

    async def script(stream: anyio.abc.SocketStream) -> None:
        buf = bytearray()
        await read_frame(stream, buf)
        await stream.send(HELLO_OK)
        await asked.wait()
        await stream.send(
            jf('{"jsonrpc":"2.0","id":"s1","method":"extension.v1.reportStatus","params":null}')
        )
        replies.append(await read_frame(stream, buf))
        done.set()
        await anyio.sleep_forever()

    async with raw_host(script) as port, mxproto.connect(env_for(port), version="9.9") as client:
        client.set_status("degraded", "reconnecting to libvirt")
        asked.set()
        with anyio.fail_after(5):
            await client.wait_status_reported()
            await done.wait()
    assert replies == [
        {
            "jsonrpc": "2.0",
            "id": "s1",
            "result": {
                "state": "degraded",
                "message": "reconnecting to libvirt",
                "version": "9.9",
                "protocolVersion": 1,
                "capabilities": ["runtime.v1"],
            },
        }
    ]
