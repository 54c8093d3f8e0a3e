"""Framing (seed "Frames", docs/protocol-notes.md#m1 to #m4): literal bytes, limits, chunking."""

from __future__ import annotations

import itertools
import struct

import pytest
from hypothesis import given
from hypothesis import strategies as st

from mxproto.errors import EmptyFrame, FrameCorrupt, FrameTooLarge, MalformedAttachment
from mxproto.framing import (
    MAX_PAYLOAD_BYTES,
    Attachment,
    Frame,
    FrameDecoder,
    decode_attachment,
    encode_attachment,
    encode_frame,
    encode_json,
)


def test_a_json_frame_is_length_kind_body() -> None:
    assert encode_json({"a": 1}) == b"\x00\x00\x00\x08\x00" + b'{"a":1}'


def test_the_decoder_reads_literal_frames() -> None:
    data = b"\x00\x00\x00\x03\x00{}" + b"\x00\x00\x00\x01\x01"
    assert FrameDecoder().feed(data) == [Frame(0, b"{}"), Frame(1, b"")]


def test_numeric_attachment_layout_m1() -> None:
    """docs/protocol-notes.md#m1: tag 0, the id in 8 bytes big-endian, 2-byte role length, role,
    then the bytes."""
    raw = encode_attachment(Attachment(2, "framebuffer", b"\x01\x02\x03"))
    body = b"\x00" + b"\x00" * 7 + b"\x02" + b"\x00\x0bframebuffer" + b"\x01\x02\x03"
    assert raw == struct.pack(">I", 1 + len(body)) + b"\x01" + body
    assert decode_attachment(body) == Attachment(2, "framebuffer", b"\x01\x02\x03")


def test_string_attachment_layout_m1() -> None:
    body = b"\x01\x00\x03req" + b"\x00\x02fb" + b"xyz"
    assert decode_attachment(body) == Attachment("req", "fb", b"xyz")
    assert encode_attachment(Attachment("req", "fb", b"xyz"))[5:] == body


@pytest.mark.parametrize(
    "body",
    [
        b"",
        b"\x02",  # unknown tag
        b"\x00\x00\x00",  # numeric id cut short
        b"\x01\x00\x05ab",  # string id cut short
        b"\x00" + b"\x00" * 8 + b"\x00",  # role length cut short
        b"\x00" + b"\x00" * 8 + b"\x00\x04ab",  # role cut short
        b"\x01\x00\x01\xff\x00\x00",  # id not UTF-8
    ],
)
def test_malformed_attachments_are_refused(body: bytes) -> None:
    with pytest.raises(MalformedAttachment):
        decode_attachment(body)


def test_an_oversized_length_is_refused_on_its_header_alone() -> None:
    """docs/protocol-notes.md#m2: four bytes declaring 64 MiB + 1 are enough; nothing of the payload
    is buffered."""
    decoder = FrameDecoder()
    with pytest.raises(FrameTooLarge) as info:
        decoder.feed(struct.pack(">I", MAX_PAYLOAD_BYTES + 1))
    assert info.value.declared == MAX_PAYLOAD_BYTES + 1
    assert decoder.buffered == 0
    with pytest.raises(FrameCorrupt):
        decoder.feed(b"\x00\x00\x00\x02\x00{")  # broken for good


def test_the_limit_itself_is_accepted() -> None:
    decoder = FrameDecoder(max_payload_bytes=16)
    assert decoder.feed(b"\x00\x00\x00\x10\x00" + b"x" * 15) == [Frame(0, b"x" * 15)]
    with pytest.raises(FrameTooLarge):
        decoder.feed(b"\x00\x00\x00\x11")


def test_the_buffer_never_exceeds_a_frame_plus_a_chunk() -> None:
    """Bounded buffering: a peer trickling a big frame cannot make us hold more than it declared."""
    decoder = FrameDecoder(max_payload_bytes=1000)
    decoder.feed(struct.pack(">I", 1000))
    for _ in range(9):
        decoder.feed(b"\x00" * 100)
        assert decoder.buffered <= 1000
    assert decoder.feed(b"\x00" * 100) == [Frame(0, b"\x00" * 999)]
    assert decoder.buffered == 0


def test_a_zero_length_payload_is_corruption() -> None:
    """docs/protocol-notes.md#m3."""
    with pytest.raises(EmptyFrame):
        FrameDecoder().feed(b"\x00\x00\x00\x00")


def test_unknown_kinds_pass_up_for_the_session_to_skip() -> None:
    """docs/protocol-notes.md#m4: the framing layer reads the whole frame; skipping is the session's
    job."""
    assert FrameDecoder().feed(b"\x00\x00\x00\x02\x09z") == [Frame(9, b"z")]


def test_encode_refuses_what_the_peer_must_refuse() -> None:
    with pytest.raises(FrameTooLarge):
        encode_frame(1, bytes(MAX_PAYLOAD_BYTES))
    with pytest.raises(ValueError, match="one byte"):
        encode_frame(256, b"")
    with pytest.raises(ValueError, match="unsigned"):
        encode_attachment(Attachment(-1, "framebuffer", b""))


frames_strategy = st.lists(
    st.tuples(st.integers(0, 255), st.binary(max_size=64)).map(lambda t: Frame(*t)), max_size=8
)


@given(frames=frames_strategy, cuts=st.lists(st.integers(0, 2000), max_size=10))
def test_any_chunking_yields_the_same_frames(frames: list[Frame], cuts: list[int]) -> None:
    stream = b"".join(encode_frame(f.kind, f.body) for f in frames)
    points = sorted({c % (len(stream) + 1) for c in cuts} | {0, len(stream)})
    decoder = FrameDecoder()
    out: list[Frame] = []
    for start, end in itertools.pairwise(points):
        out.extend(decoder.feed(stream[start:end]))
    assert out == frames
    assert not decoder.in_frame


@given(data=st.binary(max_size=300), limit=st.integers(1, 64))
def test_arbitrary_bytes_are_frames_or_corruption(data: bytes, limit: int) -> None:
    """h11's invariant: accepted, or a protocol error; never anything else, never over-buffered."""
    decoder = FrameDecoder(max_payload_bytes=limit)
    try:
        for frame in decoder.feed(data):
            assert 0 <= len(frame.body) < limit
    except FrameCorrupt:
        return
    assert decoder.buffered <= max(4, limit)


@given(
    rpc_id=st.one_of(st.integers(0, 2**64 - 1), st.text(max_size=20)),
    role=st.text(max_size=20),
    data=st.binary(max_size=100),
)
def test_attachments_round_trip(rpc_id: int | str, role: str, data: bytes) -> None:
    raw = encode_attachment(Attachment(rpc_id, role, data))
    [frame] = FrameDecoder().feed(raw)
    assert frame.kind == 1
    assert decode_attachment(frame.body) == Attachment(rpc_id, role, data)
