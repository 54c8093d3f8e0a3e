"""Every rule of the seed (DocsExtensionsV1) and docs/protocol-notes.md#m1 to #m7, against the
emulated Studio host, spoken by a raw peer in literal bytes and JSON."""

from __future__ import annotations

import json
import re
import struct
from pathlib import Path

import anyio
import pytest

from vrosdev.studio.host import FRAMEBUFFER_BYTES, demo_framebuffer

from .rawpeer import EXT_ID, HELLO, READY, REPORT_STATUS, TOKEN, frame, jframe, running_studio

pytestmark = pytest.mark.anyio

SESSION_ID = re.compile(r"^com\.example\.one-[0-9a-f]{16}$")
HELLO_NOT_FIRST = "host.v1.hello is only valid as the first message on a new connection"
WRONG_TOKEN = "hello token is not the token issued for this extension"


def hello_with(params: object, rpc_id: int = 1) -> str:
    return json.dumps({"jsonrpc": "2.0", "id": rpc_id, "method": "host.v1.hello", "params": params})


def error(rpc_id: object, code: int, message: str) -> dict[str, object]:
    return {"jsonrpc": "2.0", "id": rpc_id, "error": {"code": code, "message": message}}


async def test_hello_result_then_report_status(tmp_path: Path) -> None:
    """The seed's hello gets the seed's result shape; reportStatus (params null) follows."""
    async with running_studio(tmp_path) as studio:
        peer = await studio.connect()
        await peer.send_json(HELLO)
        answer = await peer.read_json()
        assert set(answer) == {"jsonrpc", "id", "result"}
        assert answer["jsonrpc"] == "2.0"
        assert answer["id"] == 1
        result = answer["result"]
        assert set(result) == {"protocolVersion", "hostCapabilities", "sessionId"}
        assert result["protocolVersion"] == 1
        assert result["hostCapabilities"] == ["runtime.v1"]
        assert SESSION_ID.match(result["sessionId"]), result["sessionId"]
        kind, body = await peer.read_frame()
        assert kind == 0
        assert json.loads(body) == REPORT_STATUS
        assert b'"params":null' in body


async def test_session_ids_are_random_per_connection(tmp_path: Path) -> None:
    async with running_studio(tmp_path) as studio:
        first = await (await studio.connect()).hello()
        second = await (await studio.connect()).hello()
        assert first["sessionId"] != second["sessionId"]
        assert SESSION_ID.match(second["sessionId"])


async def test_a_later_hello_is_an_invalid_request(tmp_path: Path) -> None:
    async with running_studio(tmp_path) as studio:
        peer = await studio.connect()
        await peer.ready()
        await peer.send_json(
            hello_with({"token": TOKEN, "protocolVersion": 1, "extensionId": EXT_ID}, 7)
        )
        assert await peer.read_json() == error(7, -32600, HELLO_NOT_FIRST)


async def test_a_hello_without_an_id_is_dropped(tmp_path: Path) -> None:
    async with running_studio(tmp_path) as studio:
        peer = await studio.connect()
        await peer.send_json(
            '{"jsonrpc":"2.0","method":"host.v1.hello","params":'
            '{"token":"' + TOKEN + '","protocolVersion":1,"extensionId":"com.example.one"}}'
        )
        await peer.send_json(HELLO.replace('"id":1', '"id":3'))
        answer = await peer.read_json()  # nothing answered the first: this is the second's
        assert answer["id"] == 3
        assert "result" in answer
        assert any("without an id is dropped" in n for n in studio.host.transcript.notes)


async def test_a_wrong_token_is_invalid_params_and_closes(tmp_path: Path) -> None:
    async with running_studio(tmp_path) as studio:
        peer = await studio.connect()
        await peer.send_json(
            hello_with({"token": "not-the-token", "protocolVersion": 1, "extensionId": EXT_ID})
        )
        assert await peer.read_json() == error(1, -32602, WRONG_TOKEN)
        assert await peer.closed()


async def test_protocol_version_must_be_1(tmp_path: Path) -> None:
    async with running_studio(tmp_path) as studio:
        peer = await studio.connect()
        await peer.send_json(
            hello_with({"token": TOKEN, "protocolVersion": 2, "extensionId": EXT_ID})
        )
        answer = await peer.read_json()
        assert answer["error"]["code"] == -32602
        assert "protocolVersion must be 1" in answer["error"]["message"]
        assert await peer.closed()


async def test_extension_id_must_match_the_socket(tmp_path: Path) -> None:
    async with running_studio(tmp_path) as studio:
        peer = await studio.connect()
        await peer.send_json(
            hello_with({"token": TOKEN, "protocolVersion": 1, "extensionId": "com.example.two"})
        )
        answer = await peer.read_json()
        assert answer["error"]["code"] == -32602
        assert "extensionId" in answer["error"]["message"]
        assert await peer.closed()


@pytest.mark.parametrize(
    ("params", "field"),
    [
        ({"protocolVersion": 1, "extensionId": EXT_ID}, "token: Field required"),
        ({"token": TOKEN, "protocolVersion": "1", "extensionId": EXT_ID}, "protocolVersion: "),
        ({"token": TOKEN, "protocolVersion": 1, "extensionId": 5}, "extensionId: "),
        (None, "params: "),
        ([TOKEN, 1, EXT_ID], "params: "),
    ],
)
async def test_params_that_fail_to_deserialize(tmp_path: Path, params: object, field: str) -> None:
    """-32602 with the deserializer's message, which never echoes the input (the token)."""
    async with running_studio(tmp_path) as studio:
        peer = await studio.connect()
        await peer.send_json(hello_with(params))
        answer = await peer.read_json()
        assert answer["error"]["code"] == -32602
        assert answer["error"]["message"].startswith(field)
        assert TOKEN not in answer["error"]["message"]


async def test_the_first_message_must_be_hello(tmp_path: Path) -> None:
    async with running_studio(tmp_path) as studio:
        peer = await studio.connect()
        await peer.send_json('{"jsonrpc":"2.0","id":4,"method":"host.v1.listVms"}')
        answer = await peer.read_json()
        assert answer["id"] == 4
        assert answer["error"]["code"] == -32600
        assert await peer.closed()


async def test_unknown_methods_are_method_not_found(tmp_path: Path) -> None:
    async with running_studio(tmp_path) as studio:
        peer = await studio.connect()
        await peer.ready()
        await peer.send_json('{"jsonrpc":"2.0","method":"host.v1.nope"}')  # notification
        await peer.send_json('{"jsonrpc":"2.0","id":"q","method":"host.v1.nope","params":{}}')
        assert await peer.read_json() == error("q", -32601, "method not found: host.v1.nope")


async def test_bad_json_is_a_parse_error(tmp_path: Path) -> None:
    async with running_studio(tmp_path) as studio:
        peer = await studio.connect()
        await peer.ready()
        await peer.send_json('{"jsonrpc":"2.0","id":5,')
        answer = await peer.read_json()
        assert answer["id"] is None
        assert answer["error"]["code"] == -32700
        await peer.send_json('{"jsonrpc":"1.0","id":6,"method":"host.v1.listVms"}')
        assert (await peer.read_json())["error"]["code"] == -32600


async def test_list_vms_answers_the_configured_list(tmp_path: Path) -> None:
    vms = [{"id": "a", "name": "alpha"}, {"id": "b", "cpu": 2}]
    async with running_studio(tmp_path, vms=vms) as studio:
        peer = await studio.connect()
        await peer.ready()
        await peer.send_json('{"jsonrpc":"2.0","id":2,"method":"host.v1.listVms"}')
        assert await peer.read_json() == {"jsonrpc": "2.0", "id": 2, "result": vms}
        await peer.send_json('{"jsonrpc":"2.0","id":3,"method":"host.v1.listVms","params":{"x":1}}')
        assert (await peer.read_json())["error"]["code"] == -32602


def attachment_bytes(rpc_id: int, data: bytes) -> bytes:
    """docs/protocol-notes.md#m1 by hand: tag 0 and an 8-byte id, a 2-byte role length and the role,
    then the bytes."""
    body = b"\x00" + struct.pack(">Q", rpc_id) + b"\x00\x0bframebuffer" + data
    return frame(1, body)


@pytest.mark.parametrize("order", ["after", "before"])
async def test_framebuffer_result_and_its_attachment(tmp_path: Path, order: str) -> None:
    """docs/protocol-notes.md#m5: the mxfb0001 result and a kind-1 framebuffer frame with the same
    id and N bytes."""
    async with running_studio(tmp_path, framebuffer=order) as studio:
        peer = await studio.connect()
        await peer.ready()
        await peer.send_json('{"jsonrpc":"2.0","id":9,"method":"host.v1.listVms"}')
        first = await peer.read_frame()
        second = await peer.read_frame()
        json_frame, att_frame = (first, second) if order == "after" else (second, first)
        assert json_frame[0] == 0
        assert json.loads(json_frame[1]) == {
            "jsonrpc": "2.0",
            "id": 9,
            "result": {"encoding": "mxfb0001", "byteLength": FRAMEBUFFER_BYTES},
        }
        raw = struct.pack(">I", 1 + len(att_frame[1])) + bytes([att_frame[0]]) + att_frame[1]
        assert raw == attachment_bytes(9, demo_framebuffer())


async def test_report_status_ready_is_recorded(tmp_path: Path) -> None:
    async with running_studio(tmp_path) as studio:
        peer = await studio.connect()
        await peer.ready()
        with anyio.fail_after(5):
            await studio.host.status_settled.wait()
        assert studio.host.status is not None
        assert studio.host.status.state == "ready"
        assert studio.host.status.message == "watching"


async def test_no_status_reply_within_the_deadline_is_failed(tmp_path: Path) -> None:
    """docs/protocol-notes.md#m7: no reportStatus reply within the deadline (shortened here) marks
    the extension failed."""
    async with running_studio(tmp_path, status_deadline_s=0.2) as studio:
        peer = await studio.connect()
        await peer.hello()
        with anyio.fail_after(5):
            await studio.host.status_settled.wait()
        assert studio.host.status is not None
        assert studio.host.status.state == "failed"
        assert any(
            v.startswith("docs/protocol-notes.md#m7:") for v in studio.host.transcript.violations
        )


@pytest.mark.parametrize(
    "reply",
    [
        '{"jsonrpc":"2.0","id":1,"result":{"state":"sleepy","message":"","version":"1",'
        '"protocolVersion":1,"capabilities":[]}}',
        '{"jsonrpc":"2.0","id":1,"result":null}',
        '{"jsonrpc":"2.0","id":1,"error":{"code":-32000,"message":"broken"}}',
    ],
)
async def test_a_bad_status_reply_is_failed(tmp_path: Path, reply: str) -> None:
    async with running_studio(tmp_path) as studio:
        peer = await studio.connect()
        await peer.hello()
        await peer.send_json(reply)
        with anyio.fail_after(5):
            await studio.host.status_settled.wait()
        assert studio.host.status is not None
        assert studio.host.status.state == "failed"


async def test_shutdown_is_called_and_its_answer_recorded(tmp_path: Path) -> None:
    async with running_studio(tmp_path) as studio:
        peer = await studio.connect()
        await peer.ready()
        assert await studio.host.end_session() == 1
        assert await peer.read_json() == {
            "jsonrpc": "2.0",
            "id": 2,
            "method": "extension.v1.shutdown",
            "params": None,
        }
        await peer.send_json('{"jsonrpc":"2.0","id":2,"result":null}')
        with anyio.fail_after(5):
            await studio.host.shutdown_acknowledged.wait()


async def test_an_oversized_declared_length_closes_without_reading(tmp_path: Path) -> None:
    """docs/protocol-notes.md#m2: a declared length one over 64 MiB closes the connection on its
    four bytes alone."""
    async with running_studio(tmp_path) as studio:
        peer = await studio.connect()
        await peer.ready()
        await peer.send(struct.pack(">I", 64 * 1024 * 1024 + 1))
        assert await peer.closed()
        assert any(
            v.startswith("docs/protocol-notes.md#m2:") for v in studio.host.transcript.violations
        )


async def test_a_zero_length_payload_closes(tmp_path: Path) -> None:
    """docs/protocol-notes.md#m3: no kind byte is corruption."""
    async with running_studio(tmp_path) as studio:
        peer = await studio.connect()
        await peer.send(b"\x00\x00\x00\x00")
        assert await peer.closed()
        assert any(
            v.startswith("docs/protocol-notes.md#m3:") for v in studio.host.transcript.violations
        )


async def test_an_unknown_kind_is_skipped(tmp_path: Path) -> None:
    """docs/protocol-notes.md#m4: the frame is read and dropped; the connection goes on (also before
    hello)."""
    async with running_studio(tmp_path) as studio:
        peer = await studio.connect()
        await peer.send(frame(7, b"\xff" * 100))
        await peer.ready()
        await peer.send(
            frame(200, b"whatever") + jframe('{"jsonrpc":"2.0","id":2,"method":"host.v1.listVms"}')
        )
        assert (await peer.read_json())["id"] == 2


async def test_the_transcript_redacts_the_token(tmp_path: Path) -> None:
    async with running_studio(tmp_path) as studio:
        peer = await studio.connect()
        await peer.ready()
        await peer.send_json(HELLO.replace('"id":1', '"id":8'))
        await peer.read_json()
    text = studio.transcript()
    assert TOKEN not in text
    hellos = [
        line["frame"]
        for line in studio.lines()
        if line.get("dir") == "ext>host" and line["frame"].get("method") == "host.v1.hello"
    ]
    assert len(hellos) == 2
    assert all(h["params"]["token"] == "<token>" for h in hellos)


async def test_a_response_to_an_unknown_id_is_a_violation(tmp_path: Path) -> None:
    async with running_studio(tmp_path) as studio:
        peer = await studio.connect()
        await peer.ready()
        await peer.send_json('{"jsonrpc":"2.0","id":99,"result":true}')
        await peer.send_json('{"jsonrpc":"2.0","id":2,"method":"host.v1.listVms"}')
        await peer.read_json()
        assert any("id 99" in v for v in studio.host.transcript.violations)


def test_ready_literal_is_the_seed_status_object() -> None:
    assert json.loads(READY)["result"] == {
        "state": "ready",
        "message": "watching",
        "version": "0.1.0",
        "protocolVersion": 1,
        "capabilities": ["runtime.v1"],
    }
