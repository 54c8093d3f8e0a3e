"""Framing: T-7 (one object per line), T-9 (3 MiB), T-10 (stripping), and the line rules of
docs/protocol-notes.md#r2 and #r3."""

from __future__ import annotations

import itertools
import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from vxp.errors import FrameTooLarge
from vxp.framing import MAX_FRAME_BYTES, PADDING_SLACK, FrameDecoder, encode_frame, strip_line


def test_t7_one_frame_per_line_split_anywhere() -> None:
    dec = FrameDecoder()
    stream = b'{"a":1}\n{"b":2}\n'
    got: list[bytes] = []
    for i in range(len(stream)):
        got += dec.feed(stream[i : i + 1])
    assert got == [b'{"a":1}', b'{"b":2}']
    assert dec.buffered == 0


@pytest.mark.parametrize(
    "raw",
    [
        b'  {"a":1}  ',
        b'\x00\x00{"a":1}\x00',
        b'\xef\xbb\xbf{"a":1}',
        b'\xef\xbb\xbf \x00\xef\xbb\xbf{"a":1}\r',
        b'\t{"a":1}\xef\xbb\xbf\x00 ',
    ],
)
def test_t10_r3_strips_whitespace_nul_bom_in_any_mix(raw: bytes) -> None:
    assert FrameDecoder().feed(raw + b"\n") == [b'{"a":1}']


def test_t10_empty_and_padding_only_lines_are_skipped() -> None:
    assert FrameDecoder().feed(b"\n\n  \n\x00\xef\xbb\xbf\n\r\n") == []


def test_t9_frame_at_limit_is_accepted_and_one_byte_more_is_corruption() -> None:
    body = b'"' + b"x" * (MAX_FRAME_BYTES - 2) + b'"'
    assert len(body) == MAX_FRAME_BYTES
    assert FrameDecoder().feed(body + b"\n") == [body]
    with pytest.raises(FrameTooLarge):
        FrameDecoder().feed(b'"' + b"x" * (MAX_FRAME_BYTES - 1) + b'"\n')


def test_t9_r2_unterminated_stream_never_buffers_past_the_limit() -> None:
    """h11's countermeasure: an endless line is refused once it passes the limit."""
    dec = FrameDecoder()
    chunk = b"y" * 65536
    with pytest.raises(FrameTooLarge):
        for _ in range(MAX_FRAME_BYTES // len(chunk) + 2):
            dec.feed(chunk)
            assert dec.buffered <= MAX_FRAME_BYTES + PADDING_SLACK
    with pytest.raises(FrameTooLarge):
        dec.feed(b"\n")  # stays broken: the stream is corrupt


def test_eof_reports_unterminated_tail() -> None:
    dec = FrameDecoder()
    assert dec.feed(b'{"a":1}\n{"b"') == [b'{"a":1}']
    assert dec.eof() == b'{"b"'
    assert dec.eof() is None


def test_encode_refuses_newlines_and_oversize() -> None:
    assert encode_frame(b"{}") == b"{}\n"
    with pytest.raises(ValueError, match="single line"):
        encode_frame(b"{\n}")
    with pytest.raises(FrameTooLarge):
        encode_frame(b"x" * (MAX_FRAME_BYTES + 1))


def test_strip_line_is_idempotent() -> None:
    assert strip_line(b"\xef\xbb\xbf\xef\xbb\xbf") == b""


json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=20),
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=5), inner, max_size=4)
    ),
    max_leaves=10,
)
padding = st.lists(st.sampled_from([b" ", b"\t", b"\r", b"\x00", b"\xef\xbb\xbf"]), max_size=4).map(
    b"".join
)


@settings(max_examples=300, deadline=None)
@given(
    frames=st.lists(st.tuples(padding, json_values, padding), max_size=8),
    garbage=st.lists(st.binary(max_size=30).filter(lambda b: b"\n" not in b), max_size=3),
    cuts=st.lists(st.integers(min_value=0, max_value=4000), max_size=10),
)
def test_property_any_chunking_yields_exactly_the_frames(
    frames: list[tuple[bytes, object, bytes]], garbage: list[bytes], cuts: list[int]
) -> None:
    """Valid frames, padded and mixed with garbage lines, come out exactly, in order."""
    lines: list[bytes] = []
    expected: list[bytes] = []
    for i, (pre, value, post) in enumerate(frames):
        body = json.dumps({"v": value}, separators=(",", ":")).encode()
        lines.append(pre + body + post)
        expected.append(body)
        if i < len(garbage):
            lines.append(garbage[i])
            g = strip_line(garbage[i])
            if g:
                expected.append(g)
    stream = b"\n".join(lines) + b"\n"
    points = sorted({0, len(stream), *(c % (len(stream) + 1) for c in cuts)})
    dec = FrameDecoder()
    got: list[bytes] = []
    for a, b in itertools.pairwise(points):
        got += dec.feed(stream[a:b])
    assert got == expected


@settings(max_examples=50, deadline=None)
@given(
    size=st.integers(
        min_value=MAX_FRAME_BYTES + PADDING_SLACK + 1, max_value=MAX_FRAME_BYTES + 70000
    ),
    chunk=st.integers(min_value=1000, max_value=200_000),
)
def test_property_oversized_line_is_always_the_documented_error(size: int, chunk: int) -> None:
    data = b"z" * size + b"\n"
    dec = FrameDecoder()
    with pytest.raises(FrameTooLarge):
        for i in range(0, len(data), chunk):
            dec.feed(data[i : i + chunk])
            assert dec.buffered <= MAX_FRAME_BYTES + PADDING_SLACK


@settings(max_examples=40, deadline=None)
@given(
    sizes=st.lists(st.integers(min_value=65_500, max_value=65_560), min_size=1, max_size=3),
    pre=padding,
    post=padding,
    chunk=st.integers(min_value=1, max_value=100_000),
)
def test_property_lines_either_side_of_the_large_line_copy(
    sizes: list[int], pre: bytes, post: bytes, chunk: int
) -> None:
    """Short lines and large ones (copied out through a view) come out the same, T-10 stripped."""
    bodies = [b'"' + bytes([65 + i]) * (size - 2) + b'"' for i, size in enumerate(sizes)]
    stream = b"".join(pre + body + post + b"\n" for body in bodies)
    dec = FrameDecoder()
    got: list[bytes] = []
    for at in range(0, len(stream), chunk):
        got += dec.feed(stream[at : at + chunk])
    assert got == bodies and dec.buffered == 0
