"""Can an image be decoded whole? Pillow does not always say.

PNG: Pillow's zlib decoder stops without an error when the stream ends before the last row,
leaving the missing rows as they were allocated. Rather than inflating the data a second time,
the pixel the decoder writes last is marked before it runs (`LastPixel`): a mark still there
afterwards means the decoder may have stopped early, and only then is the data inflated here
(in bounded pieces, the output thrown away) to count its rows. Corruption that leaves the
stream well formed and long enough is caught by the chunk CRCs, which Pillow skips for image
data: a still PNG's IDAT chunks are checked here, an APNG's chunks by its reader.

JPEG: libjpeg fills in, silently, every block after an end-of-image marker that comes too
early, and decodes the rest of a scan with a broken Huffman code as garbage. FFmpeg's decoder,
told to stop at the first error, refuses both; it runs at 1/8 scale, so the check costs less
than Pillow's decode. Importing PyAV costs a fresh worker more than a page of small icons,
though: until PyAV is loaded (a worker's warm-up loads it, off the icons' path), a small
baseline JPEG whose Huffman codes walk whole (jpegwalk.py) needs no FFmpeg. Once it is loaded,
FFmpeg's check is the cheaper of the two. Either way FFmpeg alone refuses.
"""

from __future__ import annotations

import struct
import sys
import threading
import zlib
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from PIL import Image

from .jpegwalk import baseline_scan_is_whole

# Samples per pixel, by PNG colour type.
_CHANNELS = {0: 1, 2: 3, 3: 1, 4: 2, 6: 4}
# Adam7 passes: x offset, y offset, x step, y step.
_ADAM7 = ((0, 0, 8, 8), (4, 0, 8, 8), (0, 4, 4, 8), (2, 0, 4, 4), (0, 2, 2, 4), (1, 0, 2, 2))
_ADAM7 += ((0, 1, 1, 2),)
_PIECE = 1024 * 1024  # inflated bytes held at a time
_IDAT_CRC = zlib.crc32(b"IDAT")  # a chunk's CRC covers its type, then its body


class DamagedData(ValueError):
    """The image data cannot be decoded whole; the message says why, for a user."""


def expected_size(width: int, height: int, depth: int, colour_type: int, interlace: int) -> int:
    """The bytes of filtered scanlines (a filter byte per row) the header promises."""
    bits = _CHANNELS.get(colour_type, 4) * depth
    if not interlace:
        return height * (1 + (width * bits + 7) // 8)
    total = 0
    for x0, y0, dx, dy in _ADAM7:
        pass_width = (width - x0 + dx - 1) // dx if width > x0 else 0
        pass_height = (height - y0 + dy - 1) // dy if height > y0 else 0
        if pass_width and pass_height:
            total += pass_height * (1 + (pass_width * bits + 7) // 8)
    return total


def check_zlib_data(parts: Iterable[bytes], expected: int) -> None:
    """Raise DamagedData unless the concatenated `parts` form one whole zlib stream that
    inflates to at least `expected` bytes. Inflating stops once `expected` is passed."""
    inflater = zlib.decompressobj()
    produced = 0
    try:
        for part in parts:
            data = part
            while data and not inflater.eof:
                produced += len(inflater.decompress(data, _PIECE))
                data = inflater.unconsumed_tail
                if produced > expected:
                    return
            if inflater.eof:
                break
        if not inflater.eof:
            produced += len(inflater.flush())
    except zlib.error:
        raise DamagedData("its image data is corrupt") from None
    if produced < expected or not inflater.eof:
        raise DamagedData("its image data ends early (truncated or corrupt)")


# Put where the decoder writes last, by mode: a value a whole image seldom ends on there.
_MARKS: dict[str, int | tuple[int, ...]] = {
    "1": 255,
    "L": 0x5A,
    "P": 0x5A,
    "LA": (0x5A, 0xA5),
    "RGB": (0x5A, 0xA5, 0x3C),
    "RGBA": (0x5A, 0xA5, 0x3C, 0xC3),
    "I": 0x5AA53C,
    "I;16": 0x5AA5,
    "I;16B": 0x5AA5,
    "I;16L": 0x5AA5,
}


def last_decoded_pixel(width: int, height: int, interlaced: bool) -> tuple[int, int]:
    """The pixel a PNG decoder writes last. Rows are written whole, so it is on the last row
    written: the image's last row, or with Adam7 the last row of the last pass that has any
    (pass 7, the odd rows, all columns; for a single row, pass 6, its odd columns)."""
    if not interlaced or (width == 1 and height == 1):
        return width - 1, height - 1
    if height >= 2:
        return width - 1, (height - 2) | 1
    return (width - 2) | 1, 0


class LastPixel:
    """A mark on the pixel the decoder writes last, put into `core` (a Pillow image core the
    decoder is about to fill) before the decode."""

    __slots__ = ("core", "mark", "xy")

    def __init__(self, core: Any, mode: str, size: tuple[int, int], interlaced: bool) -> None:
        self.core = core
        self.xy = last_decoded_pixel(*size, interlaced)
        self.mark = _MARKS.get(mode)
        if self.mark is not None:
            core.putpixel(self.xy, self.mark)

    @classmethod
    def new(cls, mode: str, size: tuple[int, int], interlaced: bool) -> LastPixel:
        return cls(Image.core.new(mode, size), mode, size, interlaced)

    def maybe_unwritten(self, core: Any) -> bool:
        """True unless the decode certainly reached the last pixel: the mark is overwritten
        in the same core (a decoder that filled another one, or a whole image ending on the
        mark's value, is checked the slow way)."""
        return self.mark is None or core is not self.core or core.getpixel(self.xy) == self.mark


@dataclass(slots=True)
class PngParts:
    ihdr: bytes = b""
    idat: list[bytes] = field(default_factory=list[bytes])
    damage: str | None = None  # an IDAT chunk cut short or failing its CRC


def png_parts(data: bytes) -> PngParts:
    """The chunks of a still PNG this pipeline reads, as far as they can be walked (a chunk
    cut short gives what it holds), each IDAT's CRC checked."""
    parts = PngParts()
    pos, end = 8, len(data)
    while pos + 8 <= end:
        length, kind = struct.unpack_from(">I4s", data, pos)
        body_end = pos + 8 + length
        body = data[pos + 8 : min(end, body_end)]
        if kind == b"IHDR":
            parts.ihdr = body
        elif kind == b"IDAT":
            parts.idat.append(body)
            if body_end + 4 > end:
                parts.damage = "it is truncated"
                break
            if zlib.crc32(body, _IDAT_CRC) != struct.unpack_from(">I", data, body_end)[0]:
                parts.damage = f"its IDAT chunk at offset {pos} is corrupt"
                break
        elif kind == b"IEND" or (parts.idat and kind != b"IDAT"):
            break
        pos = body_end + 4
    return parts


def png_expected_size(ihdr: bytes) -> int:
    if len(ihdr) < 13:
        raise DamagedData("it has no valid IHDR chunk")
    width, height, depth, colour_type, _, _, interlace = struct.unpack(">IIBBBBB", ihdr[:13])
    return expected_size(width, height, depth, colour_type, interlace)


_jpeg_decoders = threading.local()  # one FFmpeg decoder per thread, reused: opening one costs
# several times what checking a small icon does


def check_jpeg(data: bytes) -> None:
    """Raise DamagedData when the JPEG's scans end early or are corrupt. Without PyAV, or on a
    feature FFmpeg's decoder lacks (arithmetic coding), Pillow alone decides."""
    if "av" not in sys.modules and baseline_scan_is_whole(data):
        return
    try:
        import av
        from av.error import FFmpegError, InvalidDataError
    except ImportError:  # pragma: no cover - av is a dependency of the media extra
        return
    context = _jpeg_decoder()
    try:
        context.decode(av.Packet(data))
    except InvalidDataError:
        _jpeg_decoders.context = None  # a fresh decoder for the next image
        raise DamagedData("its data ends early or is corrupt") from None
    except FFmpegError:
        _jpeg_decoders.context = None
        return


def _jpeg_decoder() -> Any:
    import av

    context: Any = getattr(_jpeg_decoders, "context", None)
    if context is None:
        context = av.CodecContext.create("mjpeg", "r")
        context.thread_count = 1
        context.options = {"err_detect": "explode", "lowres": "3"}
        _jpeg_decoders.context = context
    return context


def load_jpeg_check() -> None:
    """Import PyAV and open this thread's FFmpeg decoder now, so that no JPEG pays for it."""
    try:
        _jpeg_decoder()
    except ImportError:  # pragma: no cover - av is a dependency of the media extra
        pass
