"""The sans-IO session: hello first, ids, correlation, events, violations, closing (H-, T-, E-)."""

from __future__ import annotations

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from vxp.errors import (
    CapabilityDenied,
    ConnectionClosed,
    LocalProtocolError,
    MalformedResponse,
    NotSupportedByHost,
    ProtocolError,
)
from vxp.models.kv import KvGet, KvValue
from vxp.models.media import MediaOpen
from vxp.secret import Secret
from vxp.session import (
    Closed,
    EventReceived,
    Failed,
    HelloAccepted,
    HelloRefused,
    HostViolation,
    Replied,
    Session,
    State,
)
from vxp.version import Version

WELCOME = (
    b'{"jsonrpc":"2.0","id":1,"result":{"result":"welcome","vxp_version":"1.7",'
    b'"granted":{"bus":[],"audio":true},"locale":"ja-JP"}}\n'
)


def ready(version: str = "1.7") -> Session:
    s = Session("com.example.x", Secret("tok-abcdefgh"))
    s.start()
    s.receive_data(WELCOME.replace(b'"1.7"', f'"{version}"'.encode()))
    assert s.state is State.READY
    return s


def test_h1_h3_h4_hello_is_the_first_frame_with_token() -> None:
    s = Session("com.example.x", Secret("tok-abcdefgh"))
    with pytest.raises(LocalProtocolError):
        s.request("kv", KvGet(key="a"))
    frame = json.loads(s.start())
    assert frame == {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "hello",
        "params": {"id": "com.example.x", "vxp_version": "1.7", "token": "tok-abcdefgh"},
    }
    with pytest.raises(LocalProtocolError):
        s.start()


def test_h6_welcome_is_accepted_and_exposed() -> None:
    s = Session("com.example.x", Secret("tok-abcdefgh"))
    s.start()
    out = s.receive_data(WELCOME)
    assert isinstance(out[0], HelloAccepted)
    assert s.welcome is not None and s.welcome.locale == "ja-JP" and s.welcome.granted.audio
    assert s.host_version == Version(1, 7)


def test_h12_rejected_closes() -> None:
    s = Session("com.example.x", Secret("tok-abcdefgh"))
    s.start()
    out = s.receive_data(
        b'{"jsonrpc":"2.0","id":1,"result":{"result":"rejected","code":"bad_token","message":"no"}}\n'
    )
    assert out[0] == HelloRefused("bad_token", "no")
    assert isinstance(out[-1], Closed) and s.state is State.CLOSED


def test_t11_t13_t14_ids_grow_and_responses_correlate() -> None:
    s = ready()
    rid1, frame1 = s.request("kv", KvGet(key="a"))
    rid2, _ = s.request("kv", KvGet(key="b"))
    assert rid2 == rid1 + 1 and rid1 >= 2
    assert json.loads(frame1) == {
        "jsonrpc": "2.0",
        "id": rid1,
        "method": "kv",
        "params": {"op": "get", "key": "a"},
    }
    out = s.receive_data(
        b'{"jsonrpc":"2.0","id":%d,"result":{"result":"value","value":3,"revision":12}}\n' % rid2
    )
    assert out == [Replied(rid2, "kv", KvValue(result="value", value=3, revision=12))]
    assert s.pending == 1


def test_e4_e10_protocol_errors_fail_the_request() -> None:
    s = ready()
    rid, _ = s.request("kv", KvGet(key="a"))
    out = s.receive_data(
        b'{"jsonrpc":"2.0","id":%d,"error":{"code":-32001,"message":"capability_denied"}}\n' % rid
    )
    assert isinstance(out[0], Failed) and isinstance(out[0].error, CapabilityDenied)
    rid, _ = s.request("kv", KvGet(key="a"))
    out = s.receive_data(b'{"jsonrpc":"2.0","id":%d,"error":{"code":-32602,"message":"x"}}\n' % rid)
    assert type(out[0].error) is ProtocolError and out[0].error.code == -32602  # type: ignore[union-attr]


def test_t15_events_and_ver3_unknown_event_is_skippable() -> None:
    s = ready()
    out = s.receive_data(
        b'{"jsonrpc":"2.0","method":"event","params":{"event":"panel_shown","panel":"overlay"}}\n'
        b'{"jsonrpc":"2.0","method":"event","params":{"event":"from_the_future","x":1}}\n'
    )
    assert [type(o) for o in out] == [EventReceived, EventReceived]
    assert type(out[0].event).__name__ == "PanelShown"  # type: ignore[union-attr]
    assert type(out[1].event).__name__ == "UnknownEvent"  # type: ignore[union-attr]


@pytest.mark.parametrize(
    "line",
    [
        b"not json",
        b"[1,2]",
        b"42",
        b'{"jsonrpc":"1.0","method":"event","params":{"event":"shutting_down"}}',
        b'{"jsonrpc":"2.0","id":999,"result":{"result":"ok"}}',
        b'{"jsonrpc":"2.0","method":"event","params":{"no_event":1}}',
        b'{"jsonrpc":"2.0","id":5,"method":"kv","params":{}}',
        b'{"jsonrpc":"2.0"}',
    ],
)
def test_host_violations_never_raise(line: bytes) -> None:
    s = ready()
    out = s.receive_data(line + b"\n")
    assert len(out) == 1 and isinstance(out[0], HostViolation)
    assert s.state is State.READY


def test_malformed_response_fails_only_that_request() -> None:
    s = ready()
    rid, _ = s.request("kv", KvGet(key="a"))
    out = s.receive_data(
        b'{"jsonrpc":"2.0","id":%d,"result":{"result":"value","revision":-3}}\n' % rid
    )
    assert isinstance(out[0], HostViolation)
    assert isinstance(out[1], Failed) and isinstance(out[1].error, MalformedResponse)


def test_t9_oversized_frame_closes_and_fails_pending() -> None:
    s = ready()
    s.request("kv", KvGet(key="a"))
    out = s.receive_data(b"x" * (3 * 1024 * 1024 + 100))
    assert isinstance(out[0], Failed) and isinstance(out[0].error, ConnectionClosed)
    assert isinstance(out[-1], Closed) and s.state is State.CLOSED
    assert s.receive_data(b"{}\n") == []


def test_connection_lost_surfaces_once() -> None:
    s = ready()
    s.request("kv", KvGet(key="a"))
    out = s.connection_lost()
    assert [type(o) for o in out] == [Failed, Closed]
    assert s.connection_lost() == []


def test_r7_r23_version_gating_by_the_host_version() -> None:
    s = ready("1.5")
    with pytest.raises(NotSupportedByHost, match="native_controls"):
        s.request("media", MediaOpen(key="deck-1", url="https://e.test/x", native_controls=True))
    s.request("media", MediaOpen(key="deck-1", url="https://e.test/x"))
    old = ready("1.3")
    with pytest.raises(NotSupportedByHost, match=r"media needs VXP 1\.4"):
        old.request("media", MediaOpen(key="deck-1", url="https://e.test/x"))


def test_repr_never_shows_the_token() -> None:
    s = Session("com.example.x", Secret("tok-abcdefgh"))
    assert "tok-abcdefgh" not in repr(s) + str(s.__dict__.get("_token"))


@settings(max_examples=200, deadline=None)
@given(st.binary(max_size=300))
def test_property_arbitrary_bytes_never_raise(data: bytes) -> None:
    s = ready()
    s.request("kv", KvGet(key="a"))
    for chunk in (data, b"\n"):
        out = s.receive_data(chunk)
        assert all(
            isinstance(o, HostViolation | EventReceived | Replied | Failed | Closed) for o in out
        )


def test_a_prepared_request_frames_the_same_bytes_and_keeps_the_version_gate() -> None:
    """vxp.prepare: serialised elsewhere (a worker process), framed here, still gated
    (docs/protocol-notes.md#r23)."""
    import pickle

    from vxp.prepared import prepare

    model = MediaOpen(key="deck-1", url="https://e.test/x", native_controls=True)
    prepared = pickle.loads(pickle.dumps(prepare("media", model)))
    assert "e.test" not in repr(prepared)
    s = ready()
    _, direct = s.request("media", model)
    _, framed = s.request("media", prepared)
    assert json.loads(direct)["params"] == json.loads(framed)["params"]
    with pytest.raises(NotSupportedByHost, match="native_controls"):
        ready("1.5").request("media", prepared)
    with pytest.raises(LocalProtocolError):
        s.request("kv", prepared)
