"""Corrupt image data is refused, never shown: a first frame that cannot be decoded whole is a
ThumbnailError of kind ``corrupt``; damage after the first frame keeps the frames before it."""

from __future__ import annotations

import io
import random
import struct
import zlib

import pytest
from PIL import Image

from cueboard.workers.thumbnails import ThumbnailError, decode_thumbnail

from .thumbgen import ApngFrame, apng, chunk, fill, lzw_uncompressed, pixels, png_rows, sub_blocks

RED, GREEN, BLUE = (255, 0, 0, 255), (0, 255, 0, 255), (0, 0, 255, 255)


def _png(idat: bytes, width: int = 8, height: int = 8, interlace: int = 0) -> bytes:
    """An RGBA PNG with the given IDAT body: every chunk and CRC valid, whatever the body."""
    ihdr = struct.pack(">IIBBBBB", width, height, 8, 6, 0, 0, interlace)
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", ihdr) + chunk(b"IDAT", idat) + chunk(b"IEND", b"")


def _refused(data: bytes) -> ThumbnailError:
    with pytest.raises(ThumbnailError) as caught:
        decode_thumbnail(data)
    assert caught.value.kind == "corrupt"
    return caught.value


def test_png_with_garbage_zlib_and_valid_crcs_is_refused() -> None:
    error = _refused(_png(random.Random(7).randbytes(80)))
    assert "PNG" in error.reason and "corrupt" in error.reason


def test_png_whose_zlib_data_ends_before_the_last_row_is_refused() -> None:
    """A complete zlib stream holding two rows of eight: Pillow fills in the other six."""
    two_rows = png_rows(fill(8, 2, RED), 4)
    error = _refused(_png(two_rows))
    assert "ends early" in error.reason


def test_png_cut_inside_its_zlib_stream_is_refused() -> None:
    rows = png_rows(fill(8, 8, RED), 4)
    _refused(_png(rows[: len(rows) // 2]))


def test_png_with_a_flipped_byte_in_its_zlib_stream_is_refused() -> None:
    rows = bytearray(png_rows([[(x * 30, y * 30, 0, 255) for x in range(8)] for y in range(8)], 4))
    rows[len(rows) // 2] ^= 0x5A
    _refused(_png(bytes(rows)))


def _adam7(rows: list[list[tuple[int, int, int, int]]], passes: int = 7) -> bytes:
    """zlib data of an interlaced RGBA image (filter 0 in every pass), of its first `passes`
    passes."""
    raw = bytearray()
    adam7 = ((0, 0, 8, 8), (4, 0, 8, 8), (0, 4, 4, 8), (2, 0, 4, 4), (0, 2, 2, 4), (1, 0, 2, 2))
    for x0, y0, dx, dy in (*adam7, (0, 1, 1, 2))[:passes]:
        for y in range(y0, len(rows), dy):
            line = [rows[y][x] for x in range(x0, len(rows[0]), dx)]
            if line:
                raw.append(0)
                raw += b"".join(bytes(p) for p in line)
    return zlib.compress(bytes(raw))


def test_whole_interlaced_png_is_accepted() -> None:
    rows = [[(x * 20, y * 20, 7, 255) for x in range(11)] for y in range(5)]
    thumb = decode_thumbnail(_png(_adam7(rows), 11, 5, interlace=1))
    assert pixels(thumb.frames[0].rgba, 11, 5) == rows


@pytest.mark.parametrize(("width", "height", "passes"), [(8, 8, 6), (11, 5, 6), (7, 1, 5)])
def test_interlaced_png_whose_zlib_data_lacks_its_last_pass_is_refused(
    width: int, height: int, passes: int
) -> None:
    """A complete zlib stream without the last pass that has pixels (the odd rows; for a
    single row, its odd columns): Pillow leaves them as allocated."""
    rows = [[(x * 20, y * 20, 7, 255) for x in range(width)] for y in range(height)]
    data = _png(_adam7(rows, passes), width, height, interlace=1)
    assert "ends early" in _refused(data).reason


@pytest.mark.parametrize("interlace", [0, 1])
def test_whole_png_ending_on_the_pixel_value_of_the_early_end_check_is_accepted(
    interlace: int,
) -> None:
    """The decoder's last pixel is marked before decoding (integrity.LastPixel); a whole
    image whose last pixel holds that very value is told apart by counting its rows."""
    mark = (0x5A, 0xA5, 0x3C, 0xC3)
    rows = [[RED] * 8 for _ in range(8)]
    rows[7][7] = mark
    data = _png(_adam7(rows) if interlace else png_rows(rows, 4), interlace=interlace)
    assert pixels(decode_thumbnail(data).frames[0].rgba, 8, 8)[7][7] == mark


def test_png_whose_image_data_fails_its_crc_is_refused() -> None:
    """A byte of the IDAT chunk changed after its CRC was computed: Pillow does not check
    image data CRCs."""
    rows = [[(x * 30, y * 30, 0, 255) for x in range(8)] for y in range(8)]
    data = bytearray(_png(png_rows(rows, 4)))
    crc_end = data.index(b"IEND") - 4
    data[crc_end - 1] ^= 0x01
    assert "IDAT" in _refused(bytes(data)).reason


@pytest.mark.parametrize("mode", ["1", "L", "LA", "P", "RGB", "RGBA", "I;16"])
def test_whole_pngs_of_every_pixel_format_are_accepted(mode: str) -> None:
    """The size check must know every colour type and depth: no whole PNG is refused."""
    image = Image.linear_gradient("L").resize((37, 23)).convert(mode)
    buffer = io.BytesIO()
    image.save(buffer, "PNG")
    thumb = decode_thumbnail(buffer.getvalue())
    assert (thumb.width, thumb.height) == (37, 23)


@pytest.mark.parametrize(
    ("mode", "transparency"),
    [
        ("1", None),
        ("L", 77),
        ("LA", None),
        ("P", None),
        ("P", 3),
        ("RGB", (40, 80, 120)),
        ("RGBA", None),
    ],
)
def test_whole_pngs_decode_to_pillows_pixels(mode: str, transparency: object) -> None:
    """The checked rows decode to what Pillow decodes from the file, palette and transparency
    keys included."""
    gradient = Image.linear_gradient("L").resize((37, 23))
    image = Image.merge(
        "RGBA",
        (
            gradient,
            gradient.rotate(90),
            gradient.transpose(Image.Transpose.FLIP_LEFT_RIGHT),
            gradient,
        ),
    )
    image = image.convert(mode) if mode != "P" else image.convert("RGB").quantize(16)
    buffer = io.BytesIO()
    options: dict[str, object] = {"transparency": transparency} if transparency else {}
    image.save(buffer, "PNG", **options)
    thumb = decode_thumbnail(buffer.getvalue())
    with Image.open(io.BytesIO(buffer.getvalue())) as reference:
        assert thumb.frames[0].rgba == reference.convert("RGBA").tobytes()


def _apng_frames() -> bytes:
    return apng(
        2,
        2,
        [
            ApngFrame(fill(2, 2, RED), delay_num=30, delay_den=100),
            ApngFrame(fill(2, 2, GREEN), delay_num=40, delay_den=100),
            ApngFrame(fill(2, 2, BLUE), delay_num=50, delay_den=100),
        ],
    )


def _replace_data(data: bytes, kind: bytes, occurrence: int, body: bytes) -> bytes:
    """`data` with the body of its n-th `kind` chunk replaced (fdAT keeps its sequence)."""
    pos = -1
    for _ in range(occurrence + 1):
        pos = data.index(kind, pos + 1)
    (length,) = struct.unpack(">I", data[pos - 4 : pos])
    old = data[pos + 4 : pos + 4 + length]
    new = old[:4] + body if kind == b"fdAT" else body
    return data[: pos - 4] + chunk(kind, new) + data[pos + 8 + length :]


def test_apng_whose_first_frame_is_garbage_is_refused() -> None:
    data = _replace_data(_apng_frames(), b"IDAT", 0, random.Random(3).randbytes(30))
    assert "first frame" in _refused(data).reason


def test_apng_whose_first_frame_ends_early_is_refused() -> None:
    one_row = png_rows(fill(2, 1, RED), 4)
    assert "ends early" in _refused(_replace_data(_apng_frames(), b"IDAT", 0, one_row)).reason


def test_apng_frames_ending_on_the_pixel_value_of_the_early_end_check_are_accepted() -> None:
    mark = (0x5A, 0xA5, 0x3C, 0xC3)
    frames = [fill(2, 2, colour) for colour in (RED, GREEN)]
    for frame in frames:
        frame[1][1] = mark
    thumb = decode_thumbnail(apng(2, 2, [ApngFrame(f, delay_num=1, delay_den=10) for f in frames]))
    assert [pixels(f.rgba, 2, 2)[1][1] for f in thumb.frames] == [mark, mark]


def test_apng_damaged_after_its_first_frame_keeps_the_frames_before() -> None:
    one_row = png_rows(fill(2, 1, BLUE), 4)
    thumb = decode_thumbnail(_replace_data(_apng_frames(), b"fdAT", 1, one_row))
    assert [f.delay_ms for f in thumb.frames] == [300, 400]
    assert [pixels(f.rgba, 2, 2)[0][0] for f in thumb.frames] == [RED, GREEN]
    assert any("damaged" in w for w in thumb.warnings)


def _gif(frames_lzw: list[bytes]) -> bytes:
    palette = b"\x00\x00\x00\xff\x00\x00\x00\xff\x00\x00\x00\xff"
    out = bytearray(b"GIF89a" + struct.pack("<HHBBB", 4, 4, 0x80 | 0x70 | 1, 0, 0) + palette)
    for lzw in frames_lzw:
        out += b"\x21\xf9\x04\x00" + struct.pack("<H", 25) + b"\x00\x00"
        out += b"\x2c" + struct.pack("<HHHHB", 0, 0, 4, 4, 0) + b"\x08" + sub_blocks(lzw)
    return bytes(out + b"\x3b")


def test_gif_whose_first_frame_ends_early_is_refused() -> None:
    """An LZW stream with its end code after 8 of the 16 pixels."""
    error = _refused(_gif([lzw_uncompressed(bytes([1]) * 8, 8)]))
    assert "first frame" in error.reason


def test_gif_whose_first_frame_is_garbage_is_refused() -> None:
    _refused(_gif([random.Random(11).randbytes(20)]))


def test_gif_damaged_after_its_first_frame_keeps_the_frames_before() -> None:
    whole = lzw_uncompressed(bytes([1]) * 16, 8)
    thumb = decode_thumbnail(_gif([whole, lzw_uncompressed(bytes([2]) * 8, 8), whole]))
    assert [f.delay_ms for f in thumb.frames] == [250]
    assert thumb.warnings


def _webp(frames: list[Image.Image], **options: object) -> bytes:
    buffer = io.BytesIO()
    frames[0].save(buffer, "WEBP", save_all=True, append_images=frames[1:], **options)
    return buffer.getvalue()


@pytest.mark.parametrize("lossless", [True, False])
def test_truncated_webp_is_refused(lossless: bool) -> None:
    data = _webp([Image.linear_gradient("L").convert("RGBA")], lossless=lossless)
    _refused(data[: len(data) * 2 // 3])


def _jpeg(**options: object) -> bytes:
    gradient = Image.linear_gradient("L").resize((160, 120))
    image = Image.merge(
        "RGB", (gradient, gradient.rotate(90), gradient.transpose(Image.Transpose.FLIP_LEFT_RIGHT))
    )
    buffer = io.BytesIO()
    image.convert(str(options.pop("mode", "RGB"))).save(buffer, "JPEG", **options)
    return buffer.getvalue()


def test_truncated_jpeg_is_refused_as_corrupt() -> None:
    data = _jpeg()
    _refused(data[: len(data) // 2])


@pytest.mark.parametrize("progressive", [False, True])
def test_jpeg_ending_early_is_refused_not_filled_in(progressive: bool) -> None:
    """An end-of-image marker two thirds into the scan: libjpeg fills in the rest in grey."""
    data = _jpeg(progressive=progressive)
    error = _refused(data[: len(data) * 2 // 3] + b"\xff\xd9")
    assert "JPEG" in error.reason and "ends early" in error.reason


def test_jpeg_with_a_broken_huffman_code_is_refused() -> None:
    """One byte of the scan changed so that a code no longer decodes: libjpeg shows garbage
    for the rest (Pillow loads it without an error), FFmpeg's decoder stops."""
    data = bytearray(_jpeg())
    middle = (data.index(b"\xff\xda") + len(data)) // 2
    data[middle + 14] ^= 0x5A
    with Image.open(io.BytesIO(bytes(data))) as image:
        image.load()  # Pillow alone accepts it
    _refused(bytes(data))


@pytest.mark.parametrize(
    "options",
    [
        {},
        {"progressive": True},
        {"mode": "L"},
        {"mode": "CMYK"},
        {"quality": 100, "subsampling": 0},
        {"restart_marker_blocks": 4},
    ],
)
def test_whole_jpegs_are_accepted(options: dict[str, object]) -> None:
    thumb = decode_thumbnail(_jpeg(**options))
    assert (thumb.width, thumb.height) == (128, 96)


def test_jpeg_with_bytes_after_its_scan_or_its_end_is_accepted() -> None:
    """Stray bytes before the end marker, or after it, leave every block whole."""
    data = _jpeg()
    for variant in (data[:-2] + b"\x00\x11\x22\xff\xd9", data + b"trailing bytes"):
        assert decode_thumbnail(variant).width == 128


def _animated_webp() -> bytes:
    frames = []
    for colour in (RED, GREEN, BLUE):
        frame = Image.linear_gradient("L").resize((32, 32)).convert("RGBA")
        frame.paste(colour, (0, 0, 16, 16))
        frames.append(frame)
    return _webp(frames, duration=[300, 400, 500], lossless=True)


def _damage_frame(data: bytes, occurrence: int) -> bytes:
    """Up to 30 bytes of the n-th ANMF's bitstream flipped (its header left intact)."""
    pos = -1
    for _ in range(occurrence + 1):
        pos = data.index(b"ANMF", pos + 1)
    damaged = bytearray(data)
    for k in range(pos + 40, min(len(data), pos + 70)):
        damaged[k] ^= 0xA5
    return bytes(damaged)


def test_animated_webp_whose_first_frame_is_damaged_is_refused() -> None:
    _refused(_damage_frame(_animated_webp(), 0))


def test_animated_webp_damaged_after_its_first_frame_keeps_the_frames_before() -> None:
    thumb = decode_thumbnail(_damage_frame(_animated_webp(), 2))
    assert [f.delay_ms for f in thumb.frames] == [300, 400]
    assert any("damaged" in w for w in thumb.warnings)


def _webm() -> bytes:
    import imageio.v3 as iio
    import numpy as np

    frames = np.zeros((25, 48, 80, 3), np.uint8)
    for i in range(25):
        frames[i, :, i * 2 : i * 2 + 20] = (255, 0, 0)
    return bytes(
        iio.imwrite("<bytes>", frames, extension=".webm", plugin="pyav", codec="libvpx-vp9", fps=25)
    )


def test_clip_cut_short_keeps_its_frames_and_says_so() -> None:
    """FFmpeg ends a cut-off WebM quietly: the frames before the cut, 40 ms each, reported."""
    data = _webm()
    thumb = decode_thumbnail(data[: len(data) * 6 // 10])
    assert 1 <= len(thumb.frames) < 25
    assert [f.delay_ms for f in thumb.frames] == [40] * len(thumb.frames)
    assert any("truncated" in w and "25" in w for w in thumb.warnings)


def test_whole_clip_has_no_warning() -> None:
    thumb = decode_thumbnail(_webm())
    assert [f.delay_ms for f in thumb.frames] == [40] * 25
    assert not thumb.warnings


def test_clip_with_garbage_after_its_header_is_refused() -> None:
    data = _webm()
    _refused(data[:200] + random.Random(5).randbytes(len(data) - 200))


def test_jpeg_checks_do_not_depend_on_the_image_before() -> None:
    """One FFmpeg decoder serves a thread's checks: a damaged JPEG between whole ones, of
    other sizes and kinds, is refused, and the next whole one accepted."""
    whole, progressive = _jpeg(), _jpeg(progressive=True, mode="L")
    damaged = whole[: len(whole) * 2 // 3] + b"\xff\xd9"
    for data in (whole, damaged, progressive, damaged, whole):
        if data is damaged:
            _refused(data)
        else:
            assert decode_thumbnail(data).width == 128
