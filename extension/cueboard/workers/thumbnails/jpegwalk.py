"""Is a small baseline JPEG's scan whole? A walk of its Huffman codes, without decoding pixels.

libjpeg (Pillow) decodes a scan with a broken Huffman code, or one cut by an early end marker,
without an error; FFmpeg's decoder refuses both (integrity.check_jpeg), but importing PyAV costs
a fresh worker more than decoding a page of icons. For a small icon, walking the codes here is
cheaper: every code of every block must be in its table, no block may run past its 64th
coefficient, every restart interval must hold its MCUs exactly, and the scan must end at the end
marker. The walk only ever says "whole": anything else (damage, a feature it does not walk,
a large image) is left to FFmpeg, so what is refused is what FFmpeg refuses.
"""

from __future__ import annotations

import struct
from array import array

# Larger images go to FFmpeg, whose 1/8-scale decode beats a walk in Python.
MAX_WALK_PIXELS = 256 * 256
_PAD = b"\x00\x00\x00\x00"
# Built decoding tables by their DHT bytes: most encoders use the same few tables.
_TABLES: dict[tuple[bool, bytes], array[int]] = {}
_ZRL, _EOB = 32, 64  # entry flags: a run of 16 zeros; the end of the block


def _table(counts: bytes, symbols: bytes, ac: bool) -> array[int] | None:
    """A lookup table by the next 16 bits: entry = bits consumed (code and magnitude) | flags
    | step << 7, where step is how far the coefficient index moves (DC: 0; the end of a block:
    past the last); 0 for a code not in the table. 128 KiB, unsigned shorts."""
    key = (ac, counts + symbols)
    table = _TABLES.get(key)
    if table is not None:
        return table
    table = array("H", bytes(2 * 65536))
    code, index = 0, 0
    for length in range(1, 17):
        for _ in range(counts[length - 1]):
            if code >= 1 << length:
                return None  # more codes than the length allows: not a valid table
            symbol = symbols[index]
            index += 1
            if ac:
                run, size = symbol >> 4, symbol & 15
                if size == 0 and run not in (0, 15):
                    return None  # not a baseline symbol: left to FFmpeg
                if size > 10:
                    return None
                step = 64 if symbol == 0 else run + 1 if size else 16
            else:
                if symbol > 11:
                    return None
                size, step = symbol, 0
            flags = _ZRL if symbol == 0xF0 else _EOB if ac and symbol == 0 else 0
            start = code << (16 - length)
            table[start : start + (1 << (16 - length))] = array(
                "H", [(length + size) | flags | step << 7]
            ) * (1 << (16 - length))
            code += 1
        code <<= 1
    if len(_TABLES) >= 16:  # at most 2 MiB kept
        _TABLES.clear()
    _TABLES[key] = table
    return table


def baseline_scan_is_whole(data: bytes) -> bool:
    """True when `data` is a baseline (or extended sequential, 8-bit Huffman) JPEG of at most
    MAX_WALK_PIXELS, grey or three components, whose one interleaved scan holds every MCU with
    valid codes and ends at the end-of-image marker. False means "not shown whole here"."""
    try:
        return _walk(data)
    except (IndexError, struct.error):
        return False


def _walk(data: bytes) -> bool:
    if data[:2] != b"\xff\xd8":
        return False
    tables: dict[int, array[int]] = {}  # class << 4 | id
    frame: list[tuple[int, int, int]] = []  # (component id, h, v)
    width = height = interval = 0
    pos = 2
    while True:
        if data[pos] != 0xFF:
            return False
        marker = data[pos + 1]
        if marker == 0xFF:
            pos += 1
            continue
        if marker in (0xD8, 0x01) or 0xD0 <= marker <= 0xD7 or marker == 0xD9:
            return False  # no scan before these
        (length,) = struct.unpack_from(">H", data, pos + 2)
        body = data[pos + 4 : pos + 2 + length]
        if len(body) != length - 2:
            return False
        pos += 2 + length
        if marker in (0xC0, 0xC1):
            if body[0] != 8 or frame:
                return False
            height, width, count = struct.unpack_from(">HHB", body, 1)
            if count not in (1, 3) or not 0 < width * height <= MAX_WALK_PIXELS:
                return False
            for k in range(count):
                ident, sampling = body[6 + 3 * k], body[7 + 3 * k]
                h, v = sampling >> 4, sampling & 15
                if not (1 <= h <= 2 and 1 <= v <= 2):
                    return False
                frame.append((ident, h, v) if count > 1 else (ident, 1, 1))
        elif 0xC2 <= marker <= 0xCF and marker not in (0xC4, 0xC8, 0xCC):
            return False  # progressive, lossless, arithmetic: FFmpeg's
        elif marker == 0xC4:
            at = 0
            while at < len(body):
                kind = body[at]
                counts = body[at + 1 : at + 17]
                total = sum(counts)
                symbols = body[at + 17 : at + 17 + total]
                if kind & 0xEE or len(symbols) != total:
                    return False
                table = _table(counts, symbols, bool(kind >> 4))
                if table is None:
                    return False
                tables[kind] = table
                at += 17 + total
        elif marker == 0xDD:
            (interval,) = struct.unpack_from(">H", body)
        elif marker == 0xDA:
            return _walk_scan(data, pos, body, frame, tables, width, height, interval)


def _walk_scan(
    data: bytes,
    pos: int,
    header: bytes,
    frame: list[tuple[int, int, int]],
    tables: dict[int, array[int]],
    width: int,
    height: int,
    interval: int,
) -> bool:
    count = header[0]
    if not frame or count != len(frame) or header[1 + 2 * count :] != b"\x00\x3f\x00":
        return False
    blocks: list[tuple[array[int], array[int]]] = []  # (DC table, AC table) per block of an MCU
    for k, (ident, h, v) in enumerate(frame):
        if header[1 + 2 * k] != ident:
            return False
        selectors = header[2 + 2 * k]
        dc, ac = tables.get(selectors >> 4), tables.get(0x10 | selectors & 15)
        if dc is None or ac is None:
            return False
        blocks += [(dc, ac)] * (h * v)
    h_max = max(h for _, h, _ in frame)
    v_max = max(v for _, _, v in frame)
    mcus = -(-width // (8 * h_max)) * -(-height // (8 * v_max))
    segments = _segments(data, pos)
    if segments is None:
        return False
    per_segment = interval or mcus
    if len(segments) != -(-mcus // per_segment):
        return False
    for index, segment in enumerate(segments):
        in_segment = min(per_segment, mcus - index * per_segment)
        if not _walk_segment(segment.replace(b"\xff\x00", b"\xff"), in_segment, blocks):
            return False
    return True


def _segments(data: bytes, pos: int) -> list[bytes] | None:
    """The scan's entropy-coded segments (split at its restart markers, in sequence), if the
    scan ends at the end-of-image marker and holds no other marker."""
    segments: list[bytes] = []
    start = pos
    expected = 0xD0
    while True:
        pos = data.find(b"\xff", pos)
        if pos < 0:
            return None
        marker = data[pos + 1]
        if marker == 0x00:
            pos += 2
            continue
        segments.append(data[start:pos])
        if marker == 0xD9:
            return segments
        if marker != expected:
            return None
        expected = 0xD0 | (expected + 1) & 7
        pos += 2
        start = pos


def _walk_segment(segment: bytes, mcus: int, blocks: list[tuple[array[int], array[int]]]) -> bool:
    """Every block of `mcus` MCUs decodes from `segment`, ending within its last byte."""
    end = len(segment) * 8
    data = segment + _PAD
    at = 0
    for _ in range(mcus):
        for dc, ac in blocks:
            entry = dc[(int.from_bytes(data[at >> 3 : (at >> 3) + 3]) >> (8 - (at & 7))) & 0xFFFF]
            if not entry:
                return False
            at += entry & 31
            k = 1
            while k < 64:
                entry = ac[
                    (int.from_bytes(data[at >> 3 : (at >> 3) + 3]) >> (8 - (at & 7))) & 0xFFFF
                ]
                if not entry:
                    return False
                at += entry & 31
                k += entry >> 7
            if k > 64 and not entry & (_ZRL | _EOB):
                return False  # a coefficient past the 64th (a run of zeros past it is harmless)
        if at > end:
            return False
    return end - at < 8
