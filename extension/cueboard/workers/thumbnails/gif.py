"""GIF: the block structure read here, each frame's LZW data decoded by Pillow, composited on
our canvas.

Pillow's own GIF frames are composited wrongly in several cases (docs/animated-images.md), so
Pillow is only asked to decode one frame's indices (`Image.frombytes` with its "gif" decoder);
palettes, transparency and disposal are applied here, the way browsers do:
- the canvas starts transparent, and disposal 2 clears to transparent (not to the background
  colour, not to the transparent index's colour);
- disposal 0 and 1 leave the frame in place, whatever the previous frame's disposal was;
- disposal 3 restores what the frame covered, the initial transparent canvas included;
- a delay of 10 ms or less plays as 100 ms; no NETSCAPE extension means one play, and its
  count is repeats after the first play.
"""

from __future__ import annotations

import hashlib
import io
import struct
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any, BinaryIO

from PIL import Image

from .animation import Animation, check_declared_size
from .compose import Box, Canvas
from .errors import ThumbnailError
from .fit import STRIP_PIXELS
from .limits import GIF_FAST_DELAY_MS, GIF_FAST_DELAY_PLAYS_AS_MS, MAX_SOURCE_PIXELS

_HEADER_SIZE = 13
_LOOP_APPLICATIONS = (b"NETSCAPE2.0", b"ANIMEXTS1.0")
_DISPOSE_BACKGROUND = 2
_DISPOSE_PREVIOUS = 3
_GREYSCALE = bytes(v for i in range(256) for v in (i, i, i))


_WINDOW = 256 * 1024


class _Truncated(Exception):
    pass


class _Reader:
    """Random access to a seekable file through one small window: a GIF is walked and decoded
    without ever holding the whole file (a 40-frame 2048x1536 GIF can be 30 MiB)."""

    def __init__(self, file: BinaryIO) -> None:
        self.file = file
        self.start = 0
        self.window = b""

    def window_at(self, pos: int) -> tuple[bytes, int]:
        """A window of the file starting at or before `pos` and containing it."""
        if not self.start <= pos < self.start + len(self.window):
            self.file.seek(pos)
            self.start, self.window = pos, self.file.read(_WINDOW)
            if not self.window:
                raise _Truncated
        return self.window, self.start

    def read(self, pos: int, size: int) -> bytes:
        offset = pos - self.start
        if offset >= 0 and offset + size <= len(self.window):  # the common case, inline
            return self.window[offset : offset + size]
        window, start = self.window_at(pos)
        if pos + size <= start + len(window):
            return window[pos - start : pos - start + size]
        self.file.seek(pos)
        data = self.file.read(size)
        if len(data) < size:
            raise _Truncated
        return data

    def byte(self, pos: int) -> int:
        offset = pos - self.start
        if 0 <= offset < len(self.window):  # the common case, inline
            return self.window[offset]
        window, start = self.window_at(pos)
        return window[pos - start]


@dataclass(slots=True)  # not frozen: a frozen dataclass is slower to build, per frame
class _Frame:
    box: Box
    interlaced: bool
    palette: bytes | None  # local colour table (RGB triplets)
    code_size: int
    data_start: int  # the LZW sub-blocks, terminator included
    data_end: int
    disposal: int
    delay_ms: int
    transparent: int | None


@dataclass(slots=True)
class _Layout:
    width: int
    height: int
    palette: bytes | None
    frames: list[_Frame]
    loop: int
    damage: str | None  # why the walk stopped early, if it did


def is_gif(data: bytes) -> bool:
    return data[:6] in (b"GIF87a", b"GIF89a")


def open_gif(source: bytes | BinaryIO) -> Animation:
    """Open a GIF from bytes or from a seekable binary file, which the animation then owns
    (closed when its frames are exhausted or closed)."""
    file = io.BytesIO(source) if isinstance(source, bytes) else source
    try:
        return _open(_Reader(file))
    except BaseException:
        file.close()
        raise


def _open(reader: _Reader) -> Animation:
    layout = _walk(reader)
    if not layout.frames:
        if layout.damage:
            raise ThumbnailError("truncated", f"the GIF has no complete frame ({layout.damage})")
        raise ThumbnailError("corrupt", "the GIF has no frames")
    width, height = layout.width, layout.height
    if width == 0 or height == 0:  # some encoders leave the logical screen at 0
        width = max(f.box[2] for f in layout.frames)
        height = max(f.box[3] for f in layout.frames)
    check_declared_size(width, height, frames=len(layout.frames))
    for frame in layout.frames:
        fw, fh = frame.box[2] - frame.box[0], frame.box[3] - frame.box[1]
        if fw * fh > MAX_SOURCE_PIXELS:
            raise ThumbnailError("too_large", f"a GIF frame declares {fw}x{fh} pixels")
    animation = Animation(
        format="gif",
        width=width,
        height=height,
        frame_count=len(layout.frames),
        loop=layout.loop,
        frames=iter(()),
    )
    if layout.damage:
        animation.warnings.append(
            f"kept the {len(layout.frames)} complete frames before the damage: {layout.damage}"
        )
    if reader.start == 0 and len(reader.window) < _WINDOW:  # the whole file, read once
        animation.source_digest = hashlib.sha256(reader.window).digest()
    animation.frames = _composite(reader, layout, animation)
    return animation


def _walk(reader: _Reader) -> _Layout:
    """Every frame's position and control data, without decoding any pixels."""
    try:
        header = reader.read(0, _HEADER_SIZE)
    except _Truncated:
        raise ThumbnailError("truncated", "the GIF ends inside its header") from None
    width, height, flags = struct.unpack_from("<HHB", header, 6)
    pos = _HEADER_SIZE
    layout = _Layout(width, height, None, [], loop=1, damage=None)
    disposal, delay_cs, transparent = 0, 0, None
    try:
        if flags & 0x80:
            size = 3 << ((flags & 7) + 1)
            layout.palette = reader.read(pos, size)
            pos += size
        while True:
            introducer = reader.byte(pos)
            if introducer == 0x3B:  # trailer
                return layout
            if introducer == 0x21:
                label = reader.byte(pos + 1)
                start = pos + 2
                pos = _end_of_blocks(reader, start)
                if label == 0xF9 and reader.byte(start) >= 4:
                    packed, delay_cs, index = struct.unpack("<BHB", reader.read(start + 1, 4))
                    disposal = (packed >> 2) & 7
                    transparent = index if packed & 1 else None
                elif label == 0xFF:
                    _read_loop(reader, start, pos, layout)
                continue
            if introducer != 0x2C:
                layout.damage = f"unexpected byte 0x{introducer:02x} at offset {pos}"
                return layout
            x, y, w, h, packed = struct.unpack("<HHHHB", reader.read(pos + 1, 9))
            pos += 10
            local = None
            if packed & 0x80:
                size = 3 << ((packed & 7) + 1)
                local = reader.read(pos, size)
                pos += size
            code_size = reader.byte(pos)
            start = pos + 1
            pos = _end_of_blocks(reader, start)
            if not 1 <= code_size <= 11:
                layout.damage = f"frame {len(layout.frames) + 1} has an invalid LZW code size"
                return layout
            delay_ms = delay_cs * 10
            if delay_ms <= GIF_FAST_DELAY_MS:
                delay_ms = GIF_FAST_DELAY_PLAYS_AS_MS
            layout.frames.append(
                _Frame(
                    box=(x, y, x + w, y + h),
                    interlaced=bool(packed & 0x40),
                    palette=local,
                    code_size=code_size,
                    data_start=start,
                    data_end=pos,
                    disposal=disposal if disposal <= _DISPOSE_PREVIOUS else 0,
                    delay_ms=delay_ms,
                    transparent=transparent,
                )
            )
            disposal, delay_cs, transparent = 0, 0, None
    except _Truncated:
        layout.damage = "the file is truncated"
        return layout


def _end_of_blocks(reader: _Reader, pos: int) -> int:
    """The offset just past a chain of data sub-blocks and its 0 terminator."""
    while True:
        window, start = reader.window_at(pos)
        index, end = pos - start, len(window)
        while index < end:
            size = window[index]
            if size == 0:
                return start + index + 1
            index += size + 1
        pos = start + index


def _read_loop(reader: _Reader, start: int, end: int, layout: _Layout) -> None:
    block = reader.read(start, min(end - start, 16))
    if len(block) < 16 or block[0] != 11 or block[1:12] not in _LOOP_APPLICATIONS:
        return
    if block[12] >= 3 and block[13] == 1:
        repeats = block[14] | block[15] << 8
        layout.loop = 0 if repeats == 0 else repeats + 1


def _rgba_palette(rgb: bytes | None, transparent: int | None) -> bytes:
    """256 RGBA entries; missing entries are opaque black, the transparent one (0,0,0,0) so a
    keyed frame on a blank canvas is the canvas."""
    rgb = (rgb or _GREYSCALE)[: 256 * 3]
    table = bytearray(b"\x00\x00\x00\xff" * 256)
    count = len(rgb) // 3
    table[0 : count * 4 : 4] = rgb[0 : count * 3 : 3]
    table[1 : count * 4 : 4] = rgb[1 : count * 3 : 3]
    table[2 : count * 4 : 4] = rgb[2 : count * 3 : 3]
    if transparent is not None:
        table[transparent * 4 : transparent * 4 + 4] = b"\x00\x00\x00\x00"
    return bytes(table)


def _draw(canvas: Canvas, indices: Any, box: Box, keyed: bool) -> None:
    """Convert the frame (``indices``: a Pillow image core, mode P, its RGBA table set) and draw
    it in strips of rows: never a full-size RGBA copy of it. Pillow's cores are used directly:
    at icon sizes the Image wrapper's own work is a fair share of a frame's cost."""
    left, top, right, bottom = box
    width = right - left
    target = canvas.image.im  # made by the canvas itself: writable, never a shared buffer
    rows = max(1, STRIP_PIXELS // width)
    for first in range(0, bottom - top, rows):
        last = min(bottom - top, first + rows)
        whole = first == 0 and last == bottom - top  # an icon-sized frame: no strip to cut
        strip = (indices if whole else indices.crop((0, first, width, last))).convert("RGBA")
        area = (left, top + first, right, top + last)
        if keyed:
            target.paste(strip, area, strip)
        else:
            target.paste(strip, area)


def _composite(
    reader: _Reader, layout: _Layout, animation: Animation
) -> Iterator[tuple[Image.Image, int]]:
    try:
        yield from _frames(reader, layout, animation)
    finally:
        reader.file.close()


def _frames(
    reader: _Reader, layout: _Layout, animation: Animation
) -> Iterator[tuple[Image.Image, int]]:
    canvas = Canvas(animation.width, animation.height)
    tables: dict[tuple[bytes | None, int | None], bytes] = {}  # RGBA palettes, built once each
    indices: Any = None  # a Pillow image core, mode P
    table_set: bytes | None = None  # the table the index image holds
    for number, frame in enumerate(layout.frames, start=1):
        width, height = frame.box[2] - frame.box[0], frame.box[3] - frame.box[1]
        saved = canvas.save(frame.box) if frame.disposal == _DISPOSE_PREVIOUS else None
        if width and height:
            try:
                data = reader.read(frame.data_start, frame.data_end - frame.data_start)
                # The last frame's index image is decoded into again when the size is the same
                # (the common case): allocating one is a fair part of a small frame's cost.
                if indices is None or indices.size != (width, height):
                    indices = table_set = None  # freed before the next one is allocated
                    indices = Image.core.new("P", (width, height))
                _decode_indices(indices, data, frame)
            except (ValueError, OSError, _Truncated):
                if number == 1:
                    raise ThumbnailError(
                        "corrupt",
                        "the GIF's first frame cannot be decoded whole: its LZW data is corrupt "
                        "or ends early",
                    ) from None
                animation.warnings.append(
                    f"kept the {number - 1} frames before frame {number}, whose data is corrupt"
                )
                return
            del data
            palette = frame.palette if frame.palette is not None else layout.palette
            table = tables.get((palette, frame.transparent))
            if table is None:
                table = tables[(palette, frame.transparent)] = _rgba_palette(
                    palette, frame.transparent
                )
            if table is not table_set:  # a GIF with one table sets it once
                indices.putpalette("RGBA", "RGBA", table)
                table_set = table
            keyed = frame.transparent is not None and not canvas.blank
            _draw(canvas, indices, frame.box, keyed)
            if width * height > STRIP_PIXELS:
                indices = table_set = None  # a large one is not kept while it is downscaled
        yield canvas.image, frame.delay_ms
        if frame.disposal == _DISPOSE_BACKGROUND:
            canvas.clear(frame.box)
        elif frame.disposal == _DISPOSE_PREVIOUS:
            canvas.restore(saved, frame.box)


def _decode_indices(indices: Any, data: bytes, frame: _Frame) -> None:
    """One frame's LZW data into ``indices`` (a core of the frame's size), as
    ``Image.frombytes(data, "gif", ...)`` would: a ValueError when the data ends early or is
    corrupt. -1: no transparency, the decoder writes every index."""
    decoder = Image.core.gif_decoder("P", frame.code_size, frame.interlaced, -1)
    decoder.setimage(indices, (0, 0, *indices.size))
    status = decoder.decode(data)
    if status[0] >= 0:
        raise ValueError("not enough image data")
    if status[1] != 0:
        raise ValueError("cannot decode image data")
