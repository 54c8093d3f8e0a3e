"""WebP (libwebp composites through Pillow), still images with EXIF orientation, and short
clips through imageio's PyAV plugin."""

from __future__ import annotations

import base64
import io

import numpy as np
import pytest
from PIL import Image

from cueboard.workers.thumbnails import decode_thumbnail

from .thumbgen import pixel

RED, GREEN, BLUE = (255, 0, 0, 255), (0, 255, 0, 255), (0, 0, 255, 255)


def _webp(frames: list[Image.Image], **options: object) -> bytes:
    buffer = io.BytesIO()
    frames[0].save(buffer, "WEBP", save_all=True, append_images=frames[1:], **options)
    return buffer.getvalue()


def _rgba(value: object) -> tuple[int, int, int, int]:
    assert isinstance(value, tuple) and len(value) == 4
    r, g, b, a = value
    return (int(r), int(g), int(b), int(a))


def _squares() -> list[Image.Image]:
    """Three 8x8 frames: a moving 4x4 square on transparency, each in its own colour."""
    out = []
    for i, colour in enumerate((RED, GREEN, BLUE)):
        image = Image.new("RGBA", (8, 8), (0, 0, 0, 0))
        image.paste(colour, (i * 2, i * 2, i * 2 + 4, i * 2 + 4))
        out.append(image)
    return out


def test_lossless_animated_webp_with_alpha_is_exact() -> None:
    frames = _squares()
    data = _webp(frames, lossless=True, duration=[40, 50, 60], loop=2)
    thumb = decode_thumbnail(data)
    assert thumb.source_format == "webp"
    assert [f.delay_ms for f in thumb.frames] == [40, 50, 60]
    assert thumb.loop == 2
    for out, source in zip(thumb.frames, frames, strict=True):
        got = [pixel(out.rgba, 8, x, y) for y in range(8) for x in range(8)]
        want = [_rgba(source.getpixel((x, y))) for y in range(8) for x in range(8)]
        # Fully transparent pixels may carry any colour; what shows must be exact.
        assert [p if p[3] else (0, 0, 0, 0) for p in got] == [
            p if p[3] else (0, 0, 0, 0) for p in want
        ]


def test_lossy_animated_webp_keeps_alpha_and_frames() -> None:
    data = _webp(_squares(), lossless=False, quality=90, duration=100, loop=0)
    thumb = decode_thumbnail(data)
    assert len(thumb.frames) == 3 and thumb.loop == 0
    assert pixel(thumb.frames[0].rgba, 8, 7, 7)[3] == 0  # outside the square: transparent
    r, g, b, a = pixel(thumb.frames[2].rgba, 8, 5, 5)
    assert a == 255 and b > 200 and r < 60 and g < 60


@pytest.mark.parametrize("kind", ["JPEG", "WEBP", "PNG"])
def test_exif_orientation_is_applied(kind: str) -> None:
    """Orientation 6: stored sideways, shown turned 90 degrees clockwise, so the stored left
    half (red) ends up on top."""
    image = Image.new("RGB", (40, 20), (0, 0, 255))
    image.paste((255, 0, 0), (0, 0, 20, 20))
    exif = Image.Exif()
    exif[0x0112] = 6
    buffer = io.BytesIO()
    image.save(buffer, kind, exif=exif, **({"quality": 95} if kind != "PNG" else {}))
    thumb = decode_thumbnail(buffer.getvalue())
    assert (thumb.width, thumb.height) == (20, 40)
    top, bottom = pixel(thumb.frames[0].rgba, 20, 10, 5), pixel(thumb.frames[0].rgba, 20, 10, 35)
    assert top[0] > 200 and top[2] < 60
    assert bottom[2] > 200 and bottom[0] < 60


def test_large_jpeg_becomes_a_fitted_still() -> None:
    image = Image.new("RGB", (4000, 3000), (10, 200, 30))
    buffer = io.BytesIO()
    image.save(buffer, "JPEG")
    thumb = decode_thumbnail(buffer.getvalue())
    assert (thumb.width, thumb.height, len(thumb.frames)) == (128, 96, 1)
    assert 20 <= thumb.frames[0].delay_ms <= 1000


def _clip(extension: str, codec: str) -> bytes:
    import imageio.v3 as iio

    frames = np.zeros((25, 96, 160, 3), np.uint8)
    for i in range(25):
        frames[i, :, i * 4 : i * 4 + 40] = (255, 0, 0)
    return bytes(
        iio.imwrite("<bytes>", frames, extension=extension, plugin="pyav", codec=codec, fps=25)
    )


@pytest.mark.parametrize(("extension", "codec"), [(".mp4", "libx264"), (".webm", "libvpx-vp9")])
def test_short_clip_through_imageio_pyav(extension: str, codec: str) -> None:
    thumb = decode_thumbnail(_clip(extension, codec))
    assert thumb.source_format == extension[1:]
    assert (thumb.width, thumb.height) == (128, 77)
    assert len(thumb.frames) == 25
    assert thumb.duration_ms == 1000
    r, g, b, a = pixel(thumb.frames[0].rgba, 128, 10, 40)
    assert a == 255 and r > 200 and g < 60 and b < 60


def test_png_exif_after_the_image_data_is_applied() -> None:
    """An eXIf chunk may follow the image data (PNG 1.5 allows it): read without decoding
    twice, orientation 6 still turns the icon."""
    image = Image.new("RGB", (40, 20), (0, 0, 255))
    image.paste((255, 0, 0), (0, 0, 20, 20))
    exif = Image.Exif()
    exif[0x0112] = 6
    buffer = io.BytesIO()
    image.save(buffer, "PNG", exif=exif)
    data = buffer.getvalue()
    start = data.index(b"eXIf") - 4
    end = start + 12 + int.from_bytes(data[start : start + 4], "big")
    moved = data[:start] + data[end:]
    iend = moved.index(b"IEND") - 4
    moved = moved[:iend] + data[start:end] + moved[iend:]
    assert moved.index(b"eXIf") > moved.index(b"IDAT")
    thumb = decode_thumbnail(moved)
    assert (thumb.width, thumb.height) == (20, 40)
    top = pixel(thumb.frames[0].rgba, 20, 10, 5)
    assert top[0] > 200 and top[2] < 60


def test_put_params_carry_each_frame_as_standard_padded_base64() -> None:
    """28 bytes of pixels: the encoding needs padding. The encoder is pybase64's when
    installed (model.b64encode), which must match the standard library's alphabet."""
    image = Image.linear_gradient("L").resize((7, 1)).convert("RGBA")
    buffer = io.BytesIO()
    image.save(buffer, "PNG")
    thumb = decode_thumbnail(buffer.getvalue())
    encoded = [f["rgba_base64"] for f in thumb.put_params()["frames"]]
    assert encoded == [base64.b64encode(f.rgba).decode("ascii") for f in thumb.frames]
    assert all(text.endswith("=") for text in encoded)
