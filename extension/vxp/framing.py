"""Bytes <-> frames (VXP T-7 … T-10), sans-IO: no sockets, no event loop.

A frame is one JSON object on one ``\\n``-terminated line. The decoder strips any mix of ASCII
whitespace, NUL and U+FEFF (in UTF-8: EF BB BF) at both ends of a line (docs/protocol-notes.md#r3),
skips empty lines, and refuses a line longer than :data:`MAX_FRAME_BYTES` (T-9). It never holds more
than ``MAX_FRAME_BYTES`` plus one fed chunk while looking for a newline: once the unterminated tail
is over the limit the connection is corrupt, whatever comes next (the same countermeasure h11 takes
against an endless header).

JSON parsing happens in the session, not here: the decoder yields raw lines.
"""

from __future__ import annotations

from .errors import FrameTooLarge
from .limits import MAX_FRAME_BYTES

__all__ = ["MAX_FRAME_BYTES", "FrameDecoder", "encode_frame", "strip_line"]

_STRIP = b" \t\r\n\x0b\x0c\x00"
# A line may carry this much padding (docs/protocol-notes.md#r3) around a frame that is itself
# within the limit;
# beyond it the raw line is refused without being stripped, so the buffer stays bounded.
PADDING_SLACK = 64
_BOM = b"\xef\xbb\xbf"


def strip_line(line: bytes) -> bytes:
    """Remove whitespace, NUL and BOMs in any mix from both ends (docs/protocol-notes.md#r3)."""
    while True:
        stripped = line.strip(_STRIP)
        while stripped.startswith(_BOM):
            stripped = stripped[3:]
        while stripped.endswith(_BOM):
            stripped = stripped[:-3]
        if stripped == line:
            return line
        line = stripped


# From this size a line is copied out through a view: bytes(buf[a:b]) copies twice and, for a
# line of megabytes (an assets put), costs about 20x one copy (bench_frames.py, large line),
# while for the usual short line the view's setup costs more than it saves.
_LARGE_LINE = 64 * 1024


def _copy_out(buf: bytearray, begin: int, end: int) -> bytes:
    with memoryview(buf) as view:
        return view[begin:end].tobytes()


class FrameDecoder:
    """Feed bytes, take lines. After :class:`FrameTooLarge` the decoder stays broken."""

    __slots__ = ("_broken", "_buffer", "max_frame_bytes")

    def __init__(self, max_frame_bytes: int = MAX_FRAME_BYTES) -> None:
        self._buffer = bytearray()
        self._broken = False
        self.max_frame_bytes = max_frame_bytes

    @property
    def buffered(self) -> int:
        return len(self._buffer)

    def feed(self, data: bytes) -> list[bytes]:
        """Return every complete, non-empty, stripped line; raise once a frame is too large."""
        if self._broken:
            raise FrameTooLarge(self.max_frame_bytes)
        buf = self._buffer
        start_scan = len(buf)
        buf += data
        frames: list[bytes] = []
        begin = 0
        pos = buf.find(b"\n", start_scan)
        while pos != -1:
            if pos - begin > self.max_frame_bytes + PADDING_SLACK:
                self._fail()
            if pos - begin < _LARGE_LINE:
                line = strip_line(bytes(buf[begin:pos]))
            else:
                line = strip_line(_copy_out(buf, begin, pos))
            if len(line) > self.max_frame_bytes:
                self._fail()
            if line:
                frames.append(line)
            begin = pos + 1
            pos = buf.find(b"\n", begin)
        if begin:
            del buf[:begin]
        if len(buf) > self.max_frame_bytes + PADDING_SLACK:
            self._fail()
        return frames

    def _fail(self) -> None:
        self._broken = True
        self._buffer = bytearray()
        raise FrameTooLarge(self.max_frame_bytes)

    def eof(self) -> bytes | None:
        """At end of stream: a non-empty unterminated tail is an incomplete frame."""
        tail = strip_line(bytes(self._buffer))
        self._buffer = bytearray()
        return tail or None


def encode_frame(payload: bytes) -> bytes:
    """Terminate one compact JSON object; refuse to send what the peer must refuse (T-9)."""
    if b"\n" in payload:
        raise ValueError("a frame must be a single line")
    if len(payload) > MAX_FRAME_BYTES:
        raise FrameTooLarge(MAX_FRAME_BYTES)
    return payload + b"\n"
