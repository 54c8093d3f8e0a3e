"""Hand-written GIF and APNG files whose every byte is what the test says.

Encoders like Pillow's rewrite frames (crop to the changed area, merge palettes, pick
disposals), so a file made with them is not the case a test means. These writers emit exactly
the frames, palettes, disposal and blend ops given.
"""

from __future__ import annotations

import struct
import zlib
from collections.abc import Sequence
from dataclasses import dataclass

RGB = tuple[int, int, int]
RGBA = tuple[int, int, int, int]


# --- GIF -------------------------------------------------------------------------------------


@dataclass
class GifFrame:
    indices: Sequence[Sequence[int]]  # rows of palette indices
    x: int = 0
    y: int = 0
    disposal: int = 0
    delay_cs: int = 10
    transparent: int | None = None
    palette: Sequence[RGB] | None = None  # a local colour table
    interlace: bool = False
    graphic_control: bool = True


def _palette_bytes(colours: Sequence[RGB]) -> tuple[bytes, int]:
    size_bits = max(1, (len(colours) - 1).bit_length())
    padded = list(colours) + [(0, 0, 0)] * ((1 << size_bits) - len(colours))
    return b"".join(bytes(c) for c in padded), size_bits - 1


def lzw_uncompressed(indices: bytes, min_code_size: int) -> bytes:
    """A valid LZW stream that never grows the code table: a clear code every few literals.

    Larger than real LZW, but every decoder reads it the same way.
    """
    clear, end = 1 << min_code_size, (1 << min_code_size) + 1
    width = min_code_size + 1
    codes = [clear]
    run = 0
    for index in indices:
        if run == clear - 2:
            codes.append(clear)
            run = 0
        codes.append(index)
        run += 1
    codes.append(end)
    out = bytearray()
    acc = bits = 0
    for code in codes:
        acc |= code << bits
        bits += width
        while bits >= 8:
            out.append(acc & 0xFF)
            acc >>= 8
            bits -= 8
    if bits:
        out.append(acc & 0xFF)
    return bytes(out)


def sub_blocks(data: bytes) -> bytes:
    parts = [bytes([len(data[i : i + 255])]) + data[i : i + 255] for i in range(0, len(data), 255)]
    return b"".join(parts) + b"\x00"


def _interlaced_rows(height: int) -> list[int]:
    order: list[int] = []
    for start, step in ((0, 8), (4, 8), (2, 4), (1, 2)):
        order.extend(range(start, height, step))
    return order


def gif(
    width: int,
    height: int,
    frames: Sequence[GifFrame],
    *,
    palette: Sequence[RGB] | None = None,
    loop: int | None = None,
    background: int = 0,
    trailer: bool = True,
) -> bytes:
    out = bytearray(b"GIF89a")
    flags = 0
    table = b""
    if palette is not None:
        table, size = _palette_bytes(palette)
        flags = 0x80 | 0x70 | size
    out += struct.pack("<HHBBB", width, height, flags, background, 0) + table
    if loop is not None:
        out += b"\x21\xff\x0bNETSCAPE2.0" + struct.pack("<BBH", 3, 1, loop) + b"\x00"
    for frame in frames:
        rows = [list(r) for r in frame.indices]
        h, w = len(rows), len(rows[0]) if rows else 0
        if frame.graphic_control:
            packed = (frame.disposal << 2) | (1 if frame.transparent is not None else 0)
            out += b"\x21\xf9\x04" + struct.pack(
                "<BHB", packed, frame.delay_cs, frame.transparent or 0
            )
            out += b"\x00"
        flags = 0x40 if frame.interlace else 0
        local = b""
        if frame.palette is not None:
            local, size = _palette_bytes(frame.palette)
            flags |= 0x80 | size
        out += b"\x2c" + struct.pack("<HHHHB", frame.x, frame.y, w, h, flags) + local
        order = _interlaced_rows(h) if frame.interlace else range(h)
        pixels = bytes(v for y in order for v in rows[y])
        code_size = 8
        out += bytes([code_size]) + sub_blocks(lzw_uncompressed(pixels, code_size))
    if trailer:
        out += b"\x3b"
    return bytes(out)


def solid(width: int, height: int, index: int) -> list[list[int]]:
    return [[index] * width for _ in range(height)]


# --- PNG / APNG ------------------------------------------------------------------------------


def chunk(kind: bytes, body: bytes) -> bytes:
    return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body))


def png_rows(pixels: Sequence[Sequence[Sequence[int]]], channels: int, depth: int = 8) -> bytes:
    """zlib data of filter-0 scanlines; each pixel a tuple of `channels` samples."""
    sample = ">H" if depth == 16 else ">B"
    raw = bytearray()
    for row in pixels:
        raw.append(0)
        for pixel in row:
            for value in pixel[:channels]:
                raw += struct.pack(sample, value)
    return zlib.compress(bytes(raw))


@dataclass
class ApngFrame:
    pixels: Sequence[Sequence[Sequence[int]]]  # rows of RGBA (or RGB) tuples
    x: int = 0
    y: int = 0
    delay_num: int = 1
    delay_den: int = 10
    dispose: int = 0  # 0 NONE, 1 BACKGROUND, 2 PREVIOUS
    blend: int = 0  # 0 SOURCE, 1 OVER


def apng(
    width: int,
    height: int,
    frames: Sequence[ApngFrame],
    *,
    plays: int = 0,
    colour_type: int = 6,
    hidden_default: Sequence[Sequence[Sequence[int]]] | None = None,
) -> bytes:
    channels = {6: 4, 2: 3}[colour_type]
    out = [b"\x89PNG\r\n\x1a\n"]
    out.append(chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, colour_type, 0, 0, 0)))
    out.append(chunk(b"acTL", struct.pack(">II", len(frames), plays)))
    sequence = 0

    def fctl(frame: ApngFrame) -> bytes:
        nonlocal sequence
        h, w = len(frame.pixels), len(frame.pixels[0])
        body = struct.pack(
            ">IIIIIHHBB",
            sequence,
            w,
            h,
            frame.x,
            frame.y,
            frame.delay_num,
            frame.delay_den,
            frame.dispose,
            frame.blend,
        )
        sequence += 1
        return chunk(b"fcTL", body)

    if hidden_default is not None:
        out.append(chunk(b"IDAT", png_rows(hidden_default, channels)))
    for number, frame in enumerate(frames):
        out.append(fctl(frame))
        data = png_rows(frame.pixels, channels)
        if number == 0 and hidden_default is None:
            out.append(chunk(b"IDAT", data))
        else:
            out.append(chunk(b"fdAT", struct.pack(">I", sequence) + data))
            sequence += 1
    out.append(chunk(b"IEND", b""))
    return b"".join(out)


def fill(width: int, height: int, colour: Sequence[int]) -> list[list[tuple[int, ...]]]:
    return [[tuple(colour)] * width for _ in range(height)]


# --- reading results -------------------------------------------------------------------------


def pixel(rgba: bytes, width: int, x: int, y: int) -> RGBA:
    i = (y * width + x) * 4
    r, g, b, a = rgba[i : i + 4]
    return (r, g, b, a)


def pixels(rgba: bytes, width: int, height: int) -> list[list[RGBA]]:
    return [[pixel(rgba, width, x, y) for x in range(width)] for y in range(height)]
