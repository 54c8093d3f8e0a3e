"""The frames a ready session takes inline (an event, a result for a pending request) keep
every rule of the full path: anything off-spec among them still comes out as today."""

from __future__ import annotations

import json

import pytest

from vxp.errors import FrameTooLarge, ProtocolError
from vxp.framing import MAX_FRAME_BYTES, FrameDecoder
from vxp.models.kv import KvGet, KvValue
from vxp.secret import Secret
from vxp.session import (
    Closed,
    EventReceived,
    Failed,
    HelloAccepted,
    HostViolation,
    Replied,
    Session,
    State,
)

WELCOME = (
    b'{"jsonrpc":"2.0","id":1,"result":{"result":"welcome","vxp_version":"1.7",'
    b'"granted":{"bus":[],"audio":true},"locale":"en-US"}}\n'
)
SHOWN = b'{"jsonrpc":"2.0","method":"event","params":{"event":"panel_shown","panel":"overlay"}}\n'


def ready() -> Session:
    s = Session("com.example.x", Secret("tok-abcdefgh"))
    s.start()
    s.receive_data(WELCOME)
    assert s.state is State.READY
    return s


def test_t15_an_event_with_an_id_is_a_request_and_refused() -> None:
    """T-15: host events carry no id."""
    s = ready()
    out = s.receive_data(
        b'{"jsonrpc":"2.0","id":5,"method":"event","params":{"event":"shutting_down"}}\n'
    )
    assert len(out) == 1 and isinstance(out[0], HostViolation)
    assert "T-15" in out[0].description


def test_a_response_with_both_result_and_error_fails_the_request() -> None:
    s = ready()
    rid, _ = s.request("kv", KvGet(key="a"))
    out = s.receive_data(
        b'{"jsonrpc":"2.0","id":%d,"result":{"result":"value","value":1,"revision":1},'
        b'"error":{"code":-32602,"message":"x"}}\n' % rid
    )
    assert len(out) == 1 and isinstance(out[0], Failed)
    assert isinstance(out[0].error, ProtocolError) and out[0].error.code == -32602
    assert s.pending == 0


def test_a_result_whose_id_is_a_bool_answers_nothing() -> None:
    s = ready()
    rid, _ = s.request("kv", KvGet(key="a"))
    out = s.receive_data(b'{"jsonrpc":"2.0","id":true,"result":{"result":"ok"}}\n')
    assert len(out) == 1 and isinstance(out[0], HostViolation) and rid == 2
    assert s.pending == 1


def test_welcome_and_events_in_one_read_come_out_in_order() -> None:
    s = Session("com.example.x", Secret("tok-abcdefgh"))
    s.start()
    early = SHOWN.replace(b"overlay", b"early")
    out = s.receive_data(early + WELCOME + SHOWN + SHOWN)
    assert [type(o) for o in out] == [HostViolation, HelloAccepted, EventReceived, EventReceived]
    assert "before welcome" in out[0].description  # type: ignore[union-attr]


def test_nothing_after_the_frame_that_closes_the_session() -> None:
    s = ready()
    rid, _ = s.request("kv", KvGet(key="a"))
    before_hello = b'{"jsonrpc":"2.0","id":null,"error":{"code":-32002,"message":"x"}}\n'
    reply = b'{"jsonrpc":"2.0","id":%d,"result":{"result":"ok"}}\n' % rid
    out = s.receive_data(SHOWN + before_hello + SHOWN + reply)
    assert [type(o) for o in out] == [EventReceived, HostViolation, Failed, Closed]
    assert s.state is State.CLOSED


def test_events_and_replies_interleaved_keep_their_order() -> None:
    s = ready()
    rids = [s.request("kv", KvGet(key=f"k{n}"))[0] for n in range(3)]
    value = b'{"jsonrpc":"2.0","id":%d,"result":{"result":"value","value":%d,"revision":1}}\n'
    data = b"".join(SHOWN + value % (rid, n) for n, rid in enumerate(reversed(rids)))
    out = s.receive_data(data)
    assert [type(o) for o in out] == [EventReceived, Replied] * 3
    replies = [o for o in out if isinstance(o, Replied)]
    assert [(r.request_id, r.result) for r in replies] == [
        (rid, KvValue(result="value", value=n, revision=1)) for n, rid in enumerate(reversed(rids))
    ]


@pytest.mark.parametrize("pad", [b"", b" ", b"\xef\xbb\xbf"])
def test_t9_a_bare_object_one_byte_over_the_limit_is_corruption(pad: bytes) -> None:
    """T-9, for a line that needs no stripping as well as for a padded one."""
    body = b'{"s":"' + b"x" * (MAX_FRAME_BYTES - 7) + b'"}'
    assert len(body) == MAX_FRAME_BYTES + 1
    with pytest.raises(FrameTooLarge):
        FrameDecoder().feed(pad + body + b"\n")
    fits = body.replace(b"xx", b"x", 1)
    assert FrameDecoder().feed(pad + fits + b"\n") == [fits]


def test_a_line_split_across_reads_is_joined_then_stripped() -> None:
    dec = FrameDecoder()
    assert dec.feed(b' {"a":') == []
    assert dec.feed(b'1} \n{"b":2}\n\x00{"c"') == [b'{"a":1}', b'{"b":2}']
    assert dec.feed(b":3}\n") == [b'{"c":3}']
    assert dec.buffered == 0


def test_the_decoder_takes_a_bytearray_or_a_memoryview() -> None:
    line = json.dumps({"a": [1, 2]}).encode() + b"\n"
    assert FrameDecoder().feed(bytearray(line)) == [line[:-1]]  # pyright: ignore[reportArgumentType]
    assert FrameDecoder().feed(memoryview(line)) == [line[:-1]]  # pyright: ignore[reportArgumentType]
