"""vrosdev's framing, errors and handshake, spoken to with literal JSON lines (T-, E-, H-)."""

from __future__ import annotations

import json

import pytest

from .rawhost import EXT_ID, HELLO, TOKEN, config, running_host

pytestmark = pytest.mark.anyio


async def test_h6_h7_h8_h9_h10_welcome_shape() -> None:
    cfg = config(granted={"bus": ["vr.lifecycle"], "audio": True, "face_read": False})
    async with running_host(cfg) as h:
        peer = await h.connect()
        await peer.send(HELLO % "1.7")
        answer = await peer.reply()
        assert answer["id"] == 1
        welcome = answer["result"]
        assert welcome["result"] == "welcome"
        assert welcome["vxp_version"] == "1.7"
        assert welcome["locale"] == "en-US"
        assert welcome["content_root"] == "/tmp/vrOS"
        granted = welcome["granted"]
        assert granted["bus"] == ["vr.lifecycle"]
        assert granted["audio"] is True
        assert granted["media"] is False
        assert "face_read" not in granted
        assert "face_provide" not in granted


async def test_h10_face_grants_appear_when_true() -> None:
    async with running_host(config(granted={"bus": [], "face_read": True})) as h:
        peer = await h.connect()
        welcome = await peer.hello()
        assert welcome["granted"]["face_read"] is True
        assert "face_provide" not in welcome["granted"]


@pytest.mark.parametrize(
    ("params", "code"),
    [
        ('{"id":"com.example.raw","vxp_version":"1.7","token":"wrong"}', "bad_token"),
        (f'{{"id":"com.other","vxp_version":"1.7","token":"{TOKEN}"}}', "wrong_id"),
        (
            f'{{"id":"com.example.raw","vxp_version":"2.0","token":"{TOKEN}"}}',
            "version_unsupported",
        ),
    ],
)
async def test_h12_h13_h14_h15_rejected_then_disconnect(params: str, code: str) -> None:
    async with running_host() as h:
        peer = await h.connect()
        await peer.send(f'{{"jsonrpc":"2.0","id":1,"method":"hello","params":{params}}}')
        answer = await peer.reply()
        assert answer["result"]["result"] == "rejected"
        assert answer["result"]["code"] == code
        assert answer["result"]["message"]
        assert await peer.closed()


async def test_h15_previous_major_and_newer_minor_are_accepted() -> None:
    async with running_host() as h:
        peer = await h.connect()
        welcome = await peer.hello("0.9")
        assert welcome["vxp_version"] == "1.7"
    async with running_host() as h:
        peer = await h.connect()
        assert (await peer.hello("1.9"))["vxp_version"] == "1.7"  # docs/protocol-notes.md#r7


async def test_h16_already_connected() -> None:
    async with running_host() as h:
        await h.ready()
        second = await h.connect()
        await second.send(HELLO % "1.7")
        answer = await second.reply()
        assert answer["result"] == {
            "result": "rejected",
            "code": "already_connected",
            "message": "this extension is already connected",
        }
        assert await second.closed()


async def test_e11_request_before_hello_is_32002_then_disconnect() -> None:
    async with running_host() as h:
        peer = await h.connect()
        await peer.send('{"jsonrpc":"2.0","id":4,"method":"kv","params":{"op":"list"}}')
        answer = await peer.reply()
        assert answer["id"] == 4
        assert answer["error"]["code"] == -32002
        assert await peer.closed()
        assert any("E-11" in v for v in h.host.recorder.violations)


async def test_h2_r5_no_hello_within_deadline_closes() -> None:
    async with running_host(config(hello_deadline_s=0.2)) as h:
        peer = await h.connect()
        assert await peer.closed(timeout=3)
        assert any(v.startswith("H-2") for v in h.host.recorder.violations)


async def test_r19_second_hello_is_32600_and_connection_stays() -> None:
    async with running_host() as h:
        peer = await h.ready()
        await peer.send(HELLO.replace('"id":1', '"id":2') % "1.7")
        answer = await peer.reply()
        assert answer["id"] == 2
        assert answer["error"]["code"] == -32600
        assert (await peer.result(3, "kv", {"op": "list"}))["result"] == "keys"


@pytest.mark.parametrize(
    ("line", "code"),
    [
        ("this is not json", -32700),
        ('{"jsonrpc":"2.0","id":5,"method":"kv","params":{"op":"get","key":"\\ud800"}}', -32700),
        (b'{"jsonrpc":"2.0","id":5,"method":"kv","params":{"op":"get","key":"\xff"}}', -32700),
        ('[{"jsonrpc":"2.0","id":5,"method":"kv","params":{"op":"list"}}]', -32600),
        ('{"jsonrpc":"1.0","id":5,"method":"kv","params":{"op":"list"}}', -32600),
        ('{"jsonrpc":"2.0","id":5,"params":{"op":"list"}}', -32600),
        ('{"jsonrpc":"2.0","id":"5","method":"kv","params":{"op":"list"}}', -32600),
        ('{"jsonrpc":"2.0","id":-5,"method":"kv","params":{"op":"list"}}', -32600),
        ('{"jsonrpc":"2.0","id":5,"method":"nope","params":{}}', -32601),
        ('{"jsonrpc":"2.0","id":5,"method":"kv","params":{"op":"get"}}', -32602),
        ('{"jsonrpc":"2.0","id":5,"method":"kv","params":{"op":"explode","key":"a"}}', -32602),
        ('{"jsonrpc":"2.0","id":5,"method":"kv","params":{"op":"get","key":7}}', -32602),
    ],
)
async def test_e5_e6_e7_e8_t8_r4_r17_protocol_errors(line: str | bytes, code: int) -> None:
    """A lone surrogate escape and invalid UTF-8 are not JSON text: parse errors (E-5)."""
    async with running_host() as h:
        peer = await h.ready()
        await peer.send(line)
        answer = await peer.reply()
        assert answer["error"]["code"] == code
        assert "result" not in answer  # E-1: never both kinds
        if code in (-32601, -32602):
            assert answer["id"] == 5
        # the connection survives every one of them
        assert (await peer.result(6, "kv", {"op": "list"}))["result"] == "keys"


async def test_e10_capability_denied() -> None:
    async with running_host(config(granted={"bus": []})) as h:
        peer = await h.ready()
        answer = await peer.call(2, "media", {"op": "status", "session": "m-1"})
        assert answer["error"]["code"] == -32001
        answer = await peer.call(3, "secrets", {"op": "exists", "slot": "a"})
        assert answer["error"]["code"] == -32001


async def test_t10_t12_padding_stripped_unknown_fields_ignored() -> None:
    async with running_host() as h:
        peer = await h.ready()
        await peer.send(
            b'\xef\xbb\xbf \x00{"jsonrpc":"2.0","id":9,"method":"kv","extra":1,'
            b'"params":{"op":"get","key":"a","future":true}}\x00 \r\n\n  \n'
        )
        answer = await peer.reply()
        assert answer == {
            "jsonrpc": "2.0",
            "id": 9,
            "result": {"result": "value", "value": None, "revision": 0},
        }


async def test_t9_oversized_frame_closes_the_connection() -> None:
    async with running_host() as h:
        peer = await h.ready()
        await peer.stream.send(b'{"pad":"' + b"x" * (3 * 1024 * 1024) + b'"}\n')
        assert await peer.closed()
        assert any(v.startswith("T-9") for v in h.host.recorder.violations)


async def test_t14_response_carries_request_id_and_tagged_result() -> None:
    async with running_host() as h:
        peer = await h.ready()
        answer = await peer.call(4242, "kv", {"op": "set", "key": "count", "value": 3})
        assert answer["jsonrpc"] == "2.0"
        assert answer["id"] == 4242
        assert answer["result"]["result"] == "written"


async def test_r16_version_gated_namespace_on_older_host() -> None:
    async with running_host(config(host_version="1.2")) as h:
        peer = await h.ready("1.2")
        answer = await peer.call(2, "assets", {"op": "clear"})
        assert answer["error"]["code"] == -32601  # assets arrive in 1.3


async def test_transcript_records_both_directions_and_never_the_token() -> None:
    async with running_host() as h:
        peer = await h.ready()
        await peer.result(2, "kv", {"op": "set", "key": "k", "value": TOKEN})
    text = h.transcript()
    assert TOKEN not in text
    lines = [json.loads(x) for x in text.splitlines()]
    dirs = {x.get("dir") for x in lines}
    assert {"ext>host", "host>ext"} <= dirs
    hello = next(x for x in lines if x.get("dir") == "ext>host")
    assert hello["frame"]["params"]["token"] == "<token>"
    assert all(isinstance(x["t"], float | int) for x in lines)
    assert EXT_ID in text
