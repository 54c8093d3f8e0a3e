"""The sans-IO session fed literal bytes: handshake, host calls, replies, docs/protocol-notes.md#m5
correlation, loss."""

from __future__ import annotations

import json
import struct
from typing import Any

import pytest

from mxproto import (
    AttachmentMismatch,
    ConnectionClosed,
    HelloParams,
    HelloRejected,
    LocalProtocolError,
    MalformedResponse,
    RemoteError,
    Secret,
)
from mxproto.session import (
    ClientSession,
    Closed,
    Failed,
    HelloAccepted,
    HelloFailed,
    HostCall,
    Replied,
    Skipped,
    State,
)

TOKEN = Secret("abc")
HELLO_RESULT = (
    '{"jsonrpc":"2.0","id":1,"result":{"protocolVersion":1,'
    '"hostCapabilities":["runtime.v1"],"sessionId":"com.example.one-a1b2c3d4e5f60708"}}'
)


def jf(text: str) -> bytes:
    body = text.encode()
    return struct.pack(">I", 1 + len(body)) + b"\x00" + body


def att(rpc_id: int, data: bytes, role: bytes = b"framebuffer") -> bytes:
    body = b"\x00" + struct.pack(">Q", rpc_id) + struct.pack(">H", len(role)) + role + data
    return struct.pack(">I", 1 + len(body)) + b"\x01" + body


def body_of(frame: bytes) -> Any:
    (length,) = struct.unpack(">I", frame[:4])
    assert len(frame) == 4 + length
    assert frame[4] == 0
    return json.loads(frame[5:])


def ready_session() -> ClientSession:
    session = ClientSession()
    session.start(TOKEN, "com.example.one")
    [event] = session.receive_data(jf(HELLO_RESULT))
    assert isinstance(event, HelloAccepted)
    return session


def test_hello_is_the_seeds_request_object() -> None:
    """The seed's unit test round-trips exactly this object."""
    frame = ClientSession().start(TOKEN, "com.example.one")
    assert body_of(frame) == {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "host.v1.hello",
        "params": {"token": "abc", "protocolVersion": 1, "extensionId": "com.example.one"},
    }
    params = HelloParams.model_validate(body_of(frame)["params"])
    assert params.model_dump() == body_of(frame)["params"]
    assert "abc" not in repr(params)


def test_the_hello_result_is_exposed() -> None:
    session = ClientSession()
    session.start(TOKEN, "com.example.one")
    [event] = session.receive_data(jf(HELLO_RESULT))
    assert isinstance(event, HelloAccepted)
    assert event.result.protocolVersion == 1
    assert event.result.hostCapabilities == ["runtime.v1"]
    assert event.result.sessionId == "com.example.one-a1b2c3d4e5f60708"
    assert session.state is State.READY


def test_a_hello_error_fails_with_its_code_and_message() -> None:
    session = ClientSession()
    session.start(TOKEN, "com.example.one")
    events = session.receive_data(
        jf(
            '{"jsonrpc":"2.0","id":1,"error":{"code":-32602,'
            '"message":"hello token is not the token issued for this extension"}}'
        )
    )
    [event] = events
    assert isinstance(event, HelloFailed)
    assert isinstance(event.error, HelloRejected)
    assert event.error.code == -32602
    assert event.error.message == "hello token is not the token issued for this extension"
    assert session.state is State.CLOSED


def test_a_malformed_hello_result_fails() -> None:
    session = ClientSession()
    session.start(TOKEN, "x")
    [event] = session.receive_data(jf('{"jsonrpc":"2.0","id":1,"result":{"protocolVersion":1}}'))
    assert isinstance(event, HelloFailed)
    assert isinstance(event.error, MalformedResponse)


def test_local_misuse_raises() -> None:
    session = ClientSession()
    with pytest.raises(LocalProtocolError):
        session.request("host.v1.listVms")
    session.start(TOKEN, "x")
    with pytest.raises(LocalProtocolError):
        session.start(TOKEN, "x")
    ready = ready_session()
    with pytest.raises(LocalProtocolError):
        ready.request("host.v1.hello")
    with pytest.raises(LocalProtocolError):
        ready.reply(5, None)  # the host never asked


def test_host_calls_and_our_replies() -> None:
    session = ready_session()
    events = session.receive_data(
        jf('{"jsonrpc":"2.0","id":1,"method":"extension.v1.reportStatus","params":null}')
        + jf('{"jsonrpc":"2.0","method":"extension.v1.ping"}')
    )
    assert events == [
        HostCall(1, "extension.v1.reportStatus", None),
        HostCall(None, "extension.v1.ping", None),
    ]
    assert body_of(session.reply(1, {"state": "ready"})) == {
        "jsonrpc": "2.0",
        "id": 1,
        "result": {"state": "ready"},
    }
    with pytest.raises(LocalProtocolError):
        session.reply(1, None)  # answered already


def test_requests_omit_params_and_match_results() -> None:
    session = ready_session()
    rpc_id, frame = session.request("host.v1.listVms")
    assert rpc_id == 2
    assert body_of(frame) == {"jsonrpc": "2.0", "id": 2, "method": "host.v1.listVms"}
    [event] = session.receive_data(jf('{"jsonrpc":"2.0","id":2,"result":[{"id":"a"}]}'))
    assert event == Replied(2, [{"id": "a"}])


def test_an_error_response_fails_the_request() -> None:
    session = ready_session()
    rpc_id, _ = session.request("host.v1.nope")
    assert rpc_id == 2
    [event] = session.receive_data(
        jf(
            '{"jsonrpc":"2.0","id":2,"error":'
            '{"code":-32601,"message":"method not found: host.v1.nope"}}'
        )
    )
    assert isinstance(event, Failed)
    assert isinstance(event.error, RemoteError)
    assert (event.error.code, event.error.message) == (-32601, "method not found: host.v1.nope")


FB = '{"jsonrpc":"2.0","id":2,"result":{"encoding":"mxfb0001","byteLength":4}}'


def test_framebuffer_after_its_result_m5() -> None:
    session = ready_session()
    session.request("host.v1.listVms")
    assert session.receive_data(jf(FB)) == []  # held until the bytes come
    [event] = session.receive_data(att(2, b"RGBA"))
    assert event == Replied(2, {"encoding": "mxfb0001", "byteLength": 4}, b"RGBA")


def test_framebuffer_before_its_result_m5() -> None:
    session = ready_session()
    session.request("host.v1.listVms")
    assert session.receive_data(att(2, b"RGBA")) == []
    [event] = session.receive_data(jf(FB))
    assert isinstance(event, Replied)
    assert event.attachment == b"RGBA"


@pytest.mark.parametrize("data", [b"RGB", b"RGBAX"])
def test_framebuffer_length_must_match_m5(data: bytes) -> None:
    session = ready_session()
    session.request("host.v1.listVms")
    session.receive_data(jf(FB))
    [event] = session.receive_data(att(2, data))
    assert isinstance(event, Failed)
    assert isinstance(event.error, AttachmentMismatch)


def test_unasked_attachments_are_skipped_not_buffered() -> None:
    session = ready_session()
    [event] = session.receive_data(att(77, b"x" * 100))
    assert isinstance(event, Skipped)
    session.request("host.v1.listVms")
    assert session.receive_data(att(2, b"RGBA")) == []
    [dup] = session.receive_data(att(2, b"RGBA"))  # one early attachment per id
    assert isinstance(dup, Skipped)
    [other_role] = session.receive_data(att(2, b"RGBA", role=b"audio"))
    assert isinstance(other_role, Skipped)


def test_a_bad_framebuffer_result_fails() -> None:
    session = ready_session()
    session.request("host.v1.listVms")
    [event] = session.receive_data(
        jf('{"jsonrpc":"2.0","id":2,"result":{"encoding":"mxfb0001","byteLength":-1}}')
    )
    assert isinstance(event, Failed)
    assert isinstance(event.error, MalformedResponse)


def test_unknown_kinds_are_skipped_m4() -> None:
    session = ready_session()
    events = session.receive_data(b"\x00\x00\x00\x03\x05ab" + jf('{"jsonrpc":"2.0","method":"x"}'))
    assert isinstance(events[0], Skipped)
    assert events[1] == HostCall(None, "x", None)


def test_bad_json_gets_a_parse_error_reply() -> None:
    session = ready_session()
    [event] = session.receive_data(jf("{oops"))
    assert isinstance(event, Skipped)
    assert event.reply is not None
    reply = body_of(event.reply)
    assert reply["id"] is None
    assert reply["error"]["code"] == -32700


def test_a_broken_response_is_not_answered() -> None:
    """Answering a malformed response could echo between two strict peers forever."""
    session = ready_session()
    [event] = session.receive_data(jf('{"jsonrpc":"2.0","id":2,"result":1,"error":{}}'))
    assert isinstance(event, Skipped)
    assert event.reply is None


def test_corruption_closes_and_fails_pending_m2() -> None:
    session = ready_session()
    session.request("host.v1.listVms")
    events = session.receive_data(struct.pack(">I", 64 * 1024 * 1024 + 1))
    assert isinstance(events[0], Failed)
    assert isinstance(events[0].error, ConnectionClosed)
    assert isinstance(events[-1], Closed)
    assert session.state is State.CLOSED
    assert session.receive_data(jf("{}")) == []


def test_loss_mid_frame_is_reported() -> None:
    session = ready_session()
    session.receive_data(b"\x00\x00\x00\x09\x00{")
    [closed] = session.connection_lost()
    assert isinstance(closed, Closed)
    assert "middle of a frame" in closed.reason


def test_loss_during_hello_fails_the_hello() -> None:
    session = ClientSession()
    session.start(TOKEN, "x")
    events = session.connection_lost()
    assert isinstance(events[0], HelloFailed)
    assert isinstance(events[0].error, ConnectionClosed)
