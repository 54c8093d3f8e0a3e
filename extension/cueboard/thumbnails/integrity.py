"""Can an image be decoded whole? Pillow does not always say.

PNG: Pillow decodes a zlib stream that ends before the last row without an error and leaves
the missing rows as they were allocated. So the data of every still PNG and every APNG frame
is inflated here first (in bounded pieces, the output thrown away) and must be a complete zlib
stream holding at least every row the header promises.

JPEG: libjpeg fills in, silently, every block after an end-of-image marker that comes too
early, and decodes the rest of a scan with a broken Huffman code as garbage. FFmpeg's decoder,
told to stop at the first error, refuses both; it runs at 1/8 scale, so the check costs less
than Pillow's decode.
"""

from __future__ import annotations

import struct
import threading
import zlib
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

# Samples per pixel, by PNG colour type.
_CHANNELS = {0: 1, 2: 3, 3: 1, 4: 2, 6: 4}
# Adam7 passes: x offset, y offset, x step, y step.
_ADAM7 = ((0, 0, 8, 8), (4, 0, 8, 8), (0, 4, 4, 8), (2, 0, 4, 4), (0, 2, 2, 4), (1, 0, 2, 2))
_ADAM7 += ((0, 1, 1, 2),)
_PIECE = 1024 * 1024  # inflated bytes held at a time


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


@dataclass(slots=True)
class PngParts:
    ihdr: bytes = b""
    idat: list[bytes] = field(default_factory=list[bytes])


def png_parts(data: bytes) -> PngParts:
    """The chunks of a still PNG this pipeline reads, as far as they can be walked (a chunk
    cut short gives what it holds)."""
    parts = PngParts()
    pos, end = 8, len(data)
    while pos + 8 <= end:
        length, kind = struct.unpack_from(">I4s", data, pos)
        body = data[pos + 8 : min(end, pos + 8 + length)]
        if kind == b"IHDR":
            parts.ihdr = body
        elif kind == b"IDAT":
            parts.idat.append(body)
        elif kind == b"IEND" or (parts.idat and kind != b"IDAT"):
            break
        pos += 12 + length
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
    try:
        import av
        from av.error import FFmpegError, InvalidDataError
    except ImportError:  # pragma: no cover - av is a dependency of the media extra
        return
    context: Any = getattr(_jpeg_decoders, "context", None)
    if context is None:
        context = av.CodecContext.create("mjpeg", "r")
        context.thread_count = 1
        context.options = {"err_detect": "explode", "lowres": "3"}
        _jpeg_decoders.context = context
    try:
        context.decode(av.Packet(data))
    except InvalidDataError:
        _jpeg_decoders.context = None  # a fresh decoder for the next image
        raise DamagedData("its data ends early or is corrupt") from None
    except FFmpegError:
        _jpeg_decoders.context = None
        return
