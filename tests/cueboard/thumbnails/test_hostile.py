"""Bad input: always a ThumbnailError with a reason, never another exception."""

from __future__ import annotations

import io
import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from PIL import Image

from cueboard.workers.thumbnails import ThumbnailError, decode_thumbnail

from .thumbgen import ApngFrame, GifFrame, apng, fill, gif, solid


def _jpeg() -> bytes:
    buffer = io.BytesIO()
    Image.new("RGB", (64, 48), (200, 10, 10)).save(buffer, "JPEG")
    return buffer.getvalue()


@pytest.mark.parametrize(
    ("data", "kind"),
    [
        (b"", "empty"),
        (b"hello, I am a text file\n", "not_an_image"),
        (b"PK\x03\x04" + bytes(40), "not_an_image"),
        (b"BM" + bytes(60), "unsupported"),
        (b"II*\x00" + bytes(60), "unsupported"),
        (b"<svg xmlns='http://www.w3.org/2000/svg'></svg>", "unsupported"),
        (b"\x00\x00\x00\x1cftypavif" + bytes(40), "unsupported"),
        (b"GIF89a\x01\x00", "truncated"),
        (b"\x89PNG\r\n\x1a\n" + b"\x00\x00\x00\x0dIHDR" + bytes(17), "corrupt"),
        (b"RIFF\x10\x00\x00\x00WEBPVP8 " + bytes(20), "corrupt"),
        (b"\x1a\x45\xdf\xa3" + bytes(64), "corrupt"),
        (b"\x00\x00\x00\x18ftypisom" + bytes(64), "corrupt"),
    ],
)
def test_bad_input_kinds(data: bytes, kind: str) -> None:
    with pytest.raises(ThumbnailError) as caught:
        decode_thumbnail(data)
    assert caught.value.kind == kind
    assert caught.value.reason


def test_truncated_jpeg_is_refused_with_a_reason() -> None:
    data = _jpeg()
    with pytest.raises(ThumbnailError) as caught:
        decode_thumbnail(data[: len(data) // 2])
    assert caught.value.kind in ("truncated", "corrupt")


def _samples() -> list[bytes]:
    palette = [(0, 0, 0), (255, 0, 0), (0, 255, 0)]
    return [
        gif(4, 4, [GifFrame(solid(4, 4, 1)), GifFrame(solid(2, 2, 2), x=1, y=1)], palette=palette),
        apng(
            4,
            4,
            [
                ApngFrame(fill(4, 4, (255, 0, 0, 255))),
                ApngFrame(fill(2, 2, (0, 0, 255, 128)), blend=1),
            ],
        ),
        _jpeg(),
    ]


@settings(max_examples=150, deadline=None)
@given(
    st.sampled_from(_samples()),
    st.lists(st.tuples(st.integers(0, 10**6), st.integers(0, 255)), max_size=8),
    st.integers(0, 10**6),
)
def test_mangled_files_are_accepted_or_refused_nothing_else(
    original: bytes, flips: list[tuple[int, int]], cut: int
) -> None:
    """Property (h11-style): corrupted bytes give a valid thumbnail or a ThumbnailError."""
    data = bytearray(original)
    for position, value in flips:
        data[position % len(data)] = value
    data = data[: max(0, len(data) - cut % (len(data) + 1))]
    try:
        thumb = decode_thumbnail(bytes(data))
    except ThumbnailError as error:
        reason = error.reason
        assert reason
        return
    assert 1 <= thumb.width <= 128 and 1 <= thumb.height <= 128
    assert 1 <= len(thumb.frames) <= 60
    assert all(len(f.rgba) == thumb.width * thumb.height * 4 for f in thumb.frames)
    assert all(20 <= f.delay_ms <= 1000 for f in thumb.frames)


def test_random_bytes_are_refused() -> None:
    for seed in range(20):
        data = random.Random(seed).randbytes(200 + seed)  # the same bytes on every run
        with pytest.raises(ThumbnailError):
            decode_thumbnail(data)
