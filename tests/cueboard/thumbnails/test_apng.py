"""APNG blend and dispose ops, and 16-bit PNG, on hand-written files (AST-7 straight alpha)."""

from __future__ import annotations

import struct

import pytest

from cueboard.workers.thumbnails import ThumbnailError, decode_thumbnail

from .thumbgen import ApngFrame, apng, chunk, fill, pixels, png_rows

CLEAR = (0, 0, 0, 0)
RED, GREEN, BLUE = (255, 0, 0, 255), (0, 255, 0, 255), (0, 0, 255, 255)
HALF_RED = (255, 0, 0, 128)
SOURCE, OVER = 0, 1
NONE, BACKGROUND, PREVIOUS = 0, 1, 2


def frames_of(data: bytes) -> list[list[list[tuple[int, int, int, int]]]]:
    thumb = decode_thumbnail(data)
    return [pixels(f.rgba, thumb.width, thumb.height) for f in thumb.frames]


def test_half_transparent_red_stays_straight() -> None:
    """AST-7: blended OVER nothing, (255,0,0,128) stays (255,0,0,128); Pillow gives
    (128,0,0,64)."""
    (only,) = frames_of(apng(2, 2, [ApngFrame(fill(2, 2, HALF_RED), blend=OVER)]))
    assert only == [[HALF_RED] * 2] * 2


def test_half_transparent_red_stays_straight_when_downscaled() -> None:
    """A 300x300 half-transparent red fits into 128x128 and keeps its colour and alpha."""
    thumb = decode_thumbnail(apng(300, 300, [ApngFrame(fill(300, 300, HALF_RED), blend=OVER)]))
    assert (thumb.width, thumb.height) == (128, 128)
    assert set(pixels(thumb.frames[0].rgba, 128, 128)[64]) == {HALF_RED}


def test_edges_are_not_darkened_by_transparent_black() -> None:
    """Red on transparent black, downscaled: the edge pixel is red with partial alpha, not a
    dark red (the premultiplied filter)."""
    rows = [[RED if x < 150 else CLEAR for x in range(300)] for _ in range(300)]
    thumb = decode_thumbnail(apng(300, 300, [ApngFrame(rows)]))
    row = pixels(thumb.frames[0].rgba, 128, 128)[64]
    assert row[:60] == [RED] * 60  # the red half is there, opaque
    assert row[68:] == [CLEAR] * 60  # the transparent half stays transparent
    edge = [p for p in row if 0 < p[3] < 255]
    assert edge, "the edge is filtered: some pixels are partly transparent"
    assert all(p[:3] == (255, 0, 0) for p in edge)


def test_blend_over_an_opaque_colour() -> None:
    data = apng(
        1,
        1,
        [ApngFrame(fill(1, 1, BLUE)), ApngFrame(fill(1, 1, HALF_RED), blend=OVER)],
    )
    (r, g, b, a) = frames_of(data)[1][0][0]
    assert a == 255 and g == 0
    assert abs(r - 128) <= 1 and abs(b - 127) <= 1


def test_blend_source_replaces_alpha_too() -> None:
    data = apng(
        2,
        1,
        [ApngFrame(fill(2, 1, RED)), ApngFrame(fill(1, 1, CLEAR), x=1, blend=SOURCE)],
    )
    assert frames_of(data)[1] == [[RED, CLEAR]]


def test_dispose_background_of_an_rgb_apng_is_transparent() -> None:
    """Pillow and FFmpeg leave opaque black here."""
    data = apng(
        2,
        1,
        [
            ApngFrame(fill(2, 1, (255, 0, 0)), dispose=BACKGROUND),
            ApngFrame(fill(1, 1, (0, 0, 255)), x=1, blend=OVER),
        ],
        colour_type=2,
    )
    assert frames_of(data)[1] == [[CLEAR, BLUE]]


def test_dispose_previous_restores_the_covered_area() -> None:
    data = apng(
        3,
        1,
        [
            ApngFrame(fill(3, 1, RED)),
            ApngFrame(fill(2, 1, BLUE), dispose=PREVIOUS),
            ApngFrame(fill(1, 1, GREEN), x=2, blend=OVER),
        ],
    )
    assert frames_of(data)[1:] == [[[BLUE, BLUE, RED]], [[RED, RED, GREEN]]]


def test_dispose_previous_on_the_first_frame_means_background() -> None:
    data = apng(
        2,
        1,
        [ApngFrame(fill(2, 1, RED), dispose=PREVIOUS), ApngFrame(fill(1, 1, GREEN), blend=OVER)],
    )
    assert frames_of(data)[1] == [[GREEN, CLEAR]]


def test_hidden_default_image_is_not_a_frame() -> None:
    """Pillow returns the default image as frame 0."""
    magenta = (255, 0, 255, 255)
    data = apng(
        1,
        1,
        [ApngFrame(fill(1, 1, RED)), ApngFrame(fill(1, 1, GREEN))],
        hidden_default=fill(1, 1, magenta),
    )
    assert frames_of(data) == [[[RED]], [[GREEN]]]


def test_delays_and_plays() -> None:
    data = apng(
        1,
        1,
        [
            ApngFrame(fill(1, 1, RED), delay_num=1, delay_den=4),  # 250 ms
            ApngFrame(fill(1, 1, GREEN), delay_num=3, delay_den=0),  # den 0 = 1/100 s
            ApngFrame(fill(1, 1, BLUE), delay_num=0, delay_den=10),  # 0 ms, raised to 20
        ],
        plays=3,
    )
    thumb = decode_thumbnail(data)
    assert [f.delay_ms for f in thumb.frames] == [250, 30, 20]
    assert thumb.loop == 3  # acTL num_plays is already the total play count (AST-8)


def _three_frame_apng() -> bytes:
    return apng(1, 1, [ApngFrame(fill(1, 1, c)) for c in (RED, GREEN, BLUE)])


def test_truncated_apng_keeps_the_intact_frames() -> None:
    data = _three_frame_apng()
    last_fdat = data.rindex(b"fdAT")
    thumb = decode_thumbnail(data[: last_fdat + 10])
    assert len(thumb.frames) == 2
    assert any("truncated" in w for w in thumb.warnings)


def test_corrupt_chunk_crc_keeps_the_frames_before() -> None:
    data = bytearray(_three_frame_apng())
    last_fdat = data.rindex(b"fdAT")
    data[last_fdat + 8] ^= 0xFF
    thumb = decode_thumbnail(bytes(data))
    assert len(thumb.frames) == 2
    assert any("corrupt" in w for w in thumb.warnings)


def _png(
    width: int, height: int, depth: int, colour_type: int, rows: bytes, *extra: bytes
) -> bytes:
    ihdr = chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, depth, colour_type, 0, 0, 0))
    return (
        b"\x89PNG\r\n\x1a\n" + ihdr + b"".join(extra) + chunk(b"IDAT", rows) + chunk(b"IEND", b"")
    )


def test_sixteen_bit_grey_is_scaled_not_clipped() -> None:
    """Pillow converts 0x8000 grey to nearly white."""
    rows = png_rows([[(0,), (0x8000,), (0xFFFF,), (0x1234,)]], 1, depth=16)
    thumb = decode_thumbnail(_png(4, 1, 16, 0, rows))
    assert pixels(thumb.frames[0].rgba, 4, 1) == [
        [(0, 0, 0, 255), (128, 128, 128, 255), (255, 255, 255, 255), (18, 18, 18, 255)]
    ]


def test_sixteen_bit_grey_transparency_key() -> None:
    rows = png_rows([[(0x8000,), (0x1234,)]], 1, depth=16)
    trns = chunk(b"tRNS", struct.pack(">H", 0x1234))
    thumb = decode_thumbnail(_png(2, 1, 16, 0, rows, trns))
    assert pixels(thumb.frames[0].rgba, 2, 1) == [[(128, 128, 128, 255), (18, 18, 18, 0)]]


def test_png_declaring_a_huge_size_is_refused_before_decoding() -> None:
    rows = png_rows([[(0,)]], 1)
    bomb = _png(100_000, 100_000, 8, 0, rows)
    with pytest.raises(ThumbnailError) as caught:
        decode_thumbnail(bomb)
    assert caught.value.kind == "too_large"


def test_apng_declaring_a_huge_canvas_is_refused() -> None:
    data = bytearray(_three_frame_apng())
    data[16:24] = struct.pack(">II", 60_000, 60_000)
    data[29:33] = struct.pack(">I", __import__("zlib").crc32(bytes(data[12:29])))
    with pytest.raises(ThumbnailError) as caught:
        decode_thumbnail(bytes(data))
    assert caught.value.kind == "too_large"
