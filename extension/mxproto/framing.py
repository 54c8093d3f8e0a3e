# pyright: strict
"""Bytes <-> frames for the Studio extension protocol v1, sans-IO: no sockets, no event loop.

A frame is a 4-byte big-endian payload length, then the payload: one kind byte and the body.
Kind 0 carries a UTF-8 JSON-RPC object, kind 1 a binary attachment (layout
docs/protocol-notes.md#m1, see
:func:`decode_attachment`); other kinds are handed up as they are, for the session to skip
(docs/protocol-notes.md#m4).

Corruption closes the connection and the decoder stays broken afterwards: a declared length over
:data:`MAX_PAYLOAD_BYTES` (docs/protocol-notes.md#m2) is refused as soon as its four length bytes
are in, before any of
the payload is buffered, and a zero-length payload (docs/protocol-notes.md#m3) has no kind byte to
act on. So the
decoder never holds more than one frame's payload plus one fed chunk.
"""

from __future__ import annotations

import json
import struct
from dataclasses import dataclass
from typing import Any, Final

from .errors import EmptyFrame, FrameCorrupt, FrameTooLarge, MalformedAttachment

__all__ = [
    "FRAMEBUFFER_ROLE",
    "KIND_ATTACHMENT",
    "KIND_JSON",
    "MAX_PAYLOAD_BYTES",
    "Attachment",
    "Frame",
    "FrameDecoder",
    "decode_attachment",
    "encode_attachment",
    "encode_frame",
    "encode_json",
]

# docs/protocol-notes.md#m2: a 4K RGBA framebuffer is about 33 MB
MAX_PAYLOAD_BYTES: Final = 64 * 1024 * 1024
KIND_JSON: Final = 0
KIND_ATTACHMENT: Final = 1
FRAMEBUFFER_ROLE: Final = "framebuffer"

_LENGTH: Final = struct.Struct(">I")
_U16: Final = struct.Struct(">H")
_U64: Final = struct.Struct(">Q")
_TAG_NUMBER: Final = 0  # docs/protocol-notes.md#m1: 8 bytes big-endian unsigned follow
_TAG_STRING: Final = 1  # docs/protocol-notes.md#m1: 2-byte big-endian length and UTF-8 follow


@dataclass(frozen=True, slots=True)
class Frame:
    kind: int
    body: bytes


@dataclass(frozen=True, slots=True)
class Attachment:
    """A kind-1 body: the JSON-RPC id it belongs to, its role, and its bytes."""

    id: int | str
    role: str
    data: bytes

    def __repr__(self) -> str:
        return f"Attachment(id={self.id!r}, role={self.role!r}, {len(self.data)} bytes)"


class FrameDecoder:
    """Feed bytes, take frames. After :class:`FrameCorrupt` every feed raises again."""

    __slots__ = ("_broken", "_buffer", "_need", "max_payload_bytes")

    def __init__(self, max_payload_bytes: int = MAX_PAYLOAD_BYTES) -> None:
        self._buffer = bytearray()
        self._broken: FrameCorrupt | None = None
        self._need = -1  # payload length of the frame in progress, -1 before its header
        self.max_payload_bytes = max_payload_bytes

    @property
    def buffered(self) -> int:
        return len(self._buffer)

    @property
    def in_frame(self) -> bool:
        """Whether a frame has begun but not ended (end of stream now would cut it)."""
        return bool(self._buffer)

    def feed(self, data: bytes) -> list[Frame]:
        if self._broken is not None:
            raise self._broken
        buf = self._buffer
        buf += data
        frames: list[Frame] = []
        while True:
            if self._need < 0:
                if len(buf) < _LENGTH.size:
                    return frames
                (need,) = _LENGTH.unpack_from(buf)
                if need == 0:
                    self._fail(EmptyFrame())
                if need > self.max_payload_bytes:
                    self._fail(FrameTooLarge(need, self.max_payload_bytes))
                del buf[: _LENGTH.size]
                self._need = need
            if len(buf) < self._need:
                return frames
            frames.append(Frame(buf[0], bytes(buf[1 : self._need])))
            del buf[: self._need]
            self._need = -1

    def _fail(self, error: FrameCorrupt) -> None:
        self._broken = error
        self._buffer = bytearray()
        raise error


def encode_frame(kind: int, body: bytes) -> bytes:
    """One frame; refuses to send what the peer must refuse (docs/protocol-notes.md#m2)."""
    if not 0 <= kind <= 255:
        raise ValueError(f"a kind is one byte, not {kind}")
    size = 1 + len(body)
    if size > MAX_PAYLOAD_BYTES:
        raise FrameTooLarge(size, MAX_PAYLOAD_BYTES)
    return _LENGTH.pack(size) + bytes((kind,)) + body


def encode_json(message: Any) -> bytes:
    """A kind-0 frame holding one compact JSON-RPC object."""
    body = json.dumps(message, separators=(",", ":"), ensure_ascii=False, allow_nan=False)
    return encode_frame(KIND_JSON, body.encode("utf-8"))


def encode_attachment(attachment: Attachment) -> bytes:
    """A kind-1 frame (docs/protocol-notes.md#m1 layout)."""
    tag = attachment.id
    if isinstance(tag, bool):
        raise ValueError("an attachment id is a number or a string, not a boolean")
    if isinstance(tag, int):
        if not 0 <= tag < 2**64:
            raise ValueError("a numeric attachment id is an unsigned 64-bit number")
        head = bytes((_TAG_NUMBER,)) + _U64.pack(tag)
    else:
        head = bytes((_TAG_STRING,)) + _short_string(tag)
    return encode_frame(KIND_ATTACHMENT, head + _short_string(attachment.role) + attachment.data)


def _short_string(text: str) -> bytes:
    raw = text.encode("utf-8")
    if len(raw) > 0xFFFF:
        raise ValueError("an attachment id or role is at most 65535 UTF-8 bytes")
    return _U16.pack(len(raw)) + raw


def decode_attachment(body: bytes) -> Attachment:
    """Read a kind-1 body (docs/protocol-notes.md#m1); raise :class:`MalformedAttachment` on any
    inconsistency."""
    view = memoryview(body)
    if not view:
        raise MalformedAttachment("an attachment without an id tag")
    tag = view[0]
    pos = 1
    attachment_id: int | str
    if tag == _TAG_NUMBER:
        if len(view) < pos + _U64.size:
            raise MalformedAttachment("an attachment whose numeric id is cut short")
        (attachment_id,) = _U64.unpack_from(view, pos)
        pos += _U64.size
    elif tag == _TAG_STRING:
        attachment_id, pos = _read_short_string(view, pos, "id")
    else:
        raise MalformedAttachment(f"an attachment with unknown id tag {tag}")
    role, pos = _read_short_string(view, pos, "role")
    return Attachment(attachment_id, role, bytes(view[pos:]))


def _read_short_string(view: memoryview, pos: int, what: str) -> tuple[str, int]:
    if len(view) < pos + _U16.size:
        raise MalformedAttachment(f"an attachment whose {what} length is cut short")
    (size,) = _U16.unpack_from(view, pos)
    pos += _U16.size
    if len(view) < pos + size:
        raise MalformedAttachment(f"an attachment whose {what} is cut short")
    try:
        text = str(view[pos : pos + size], "utf-8")
    except UnicodeDecodeError:
        raise MalformedAttachment(f"an attachment whose {what} is not UTF-8") from None
    return text, pos + size
