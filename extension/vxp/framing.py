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


# Fed data larger than this is searched for a newline before it is split.
_SCAN_FIRST = 4096


class FrameDecoder:
    """Feed bytes, take lines. After :class:`FrameTooLarge` the decoder stays broken.

    The fed bytes are split in one C pass; a line that arrived in pieces is the buffered
    head plus the first piece, copied out once. When every line is already a bare object
    (``{`` … ``}``, the usual case: nothing strippable can end it) within the limit, the
    split is the answer; otherwise each line is stripped and checked.
    """

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
        if type(data) is not bytes:
            data = bytes(data)
        buf = self._buffer
        if len(data) > _SCAN_FIRST and data.find(b"\n") == -1:
            # A piece of a long line: find looks for a newline at memchr speed, where split
            # walks the bytes one by one (on a put of megabytes, several times the cost of
            # buffering it: bench_frames.py, large line).
            buf += data
            if len(buf) > self.max_frame_bytes + PADDING_SLACK:
                self._fail()
            return []
        lines = data.split(b"\n")
        tail = lines.pop()
        if buf and lines:
            buf += lines[0]
            lines[0] = bytes(buf)
            buf = self._buffer = bytearray()
        limit = self.max_frame_bytes
        for line in lines:
            if len(line) > limit or line[:1] != b"{" or line[-1:] != b"}":
                lines = self._clean(lines)
                break
        if tail:
            buf += tail
            if len(buf) > limit + PADDING_SLACK:
                self._fail()
        return lines

    def _clean(self, raw_lines: list[bytes]) -> list[bytes]:
        """Lines with padding, empty ones or one over the limit: each stripped and checked."""
        limit = self.max_frame_bytes
        lines: list[bytes] = []
        for raw in raw_lines:
            if len(raw) > limit + PADDING_SLACK:
                self._fail()
            line = strip_line(raw)
            if len(line) > limit:
                self._fail()
            if line:
                lines.append(line)
        return lines

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
