"""The Huffman walk that spares a fresh worker PyAV: it only ever says "whole", and only of a
JPEG that FFmpeg's decoder (the check that refuses) also finds whole."""

from __future__ import annotations

import io
import subprocess
import sys

import pytest
from PIL import Image

from cueboard.workers.thumbnails.jpegwalk import MAX_WALK_PIXELS, baseline_scan_is_whole


def _jpeg(**options: object) -> bytes:
    return _sized_jpeg((160, 120), **options)


def _sized_jpeg(size: tuple[int, int], **options: object) -> bytes:
    gradient = Image.linear_gradient("L").resize(size)
    image = Image.merge(
        "RGB", (gradient, gradient.rotate(90), gradient.transpose(Image.Transpose.FLIP_LEFT_RIGHT))
    )
    buffer = io.BytesIO()
    image.convert(str(options.pop("mode", "RGB"))).save(buffer, "JPEG", **options)
    return buffer.getvalue()


def _broken_huffman(data: bytes) -> bytes:
    damaged = bytearray(data)
    middle = (damaged.index(b"\xff\xda") + len(damaged)) // 2
    damaged[middle + 14] ^= 0x5A
    return bytes(damaged)


@pytest.mark.parametrize(
    "options",
    [
        {},
        {"mode": "L"},
        {"quality": 100, "subsampling": 0},
        {"subsampling": 1},
        {"quality": 20},
        {"optimize": True},
        {"restart_marker_blocks": 4},
    ],
)
def test_whole_baseline_jpegs_walk_whole(options: dict[str, object]) -> None:
    assert baseline_scan_is_whole(_jpeg(**options))
    assert baseline_scan_is_whole(_jpeg(**options) + b"trailing bytes")


def test_damaged_jpegs_are_left_to_ffmpeg() -> None:
    data = _jpeg()
    restarts = _jpeg(restart_marker_blocks=4)
    rst = restarts.index(b"\xff\xd1")
    for damaged in (
        data[: len(data) // 2],
        data[: len(data) * 2 // 3] + b"\xff\xd9",
        _broken_huffman(data),
        data[:-2] + b"\x00\x11\x22\xff\xd9",  # stray bytes: FFmpeg's call, not the walk's
        restarts[:rst] + b"\xff\xd3" + restarts[rst + 2 :],  # a restart marker out of order
    ):
        assert not baseline_scan_is_whole(damaged)


def test_what_the_walk_does_not_read_is_left_to_ffmpeg() -> None:
    side = int(MAX_WALK_PIXELS**0.5) + 1
    for other in (
        _jpeg(progressive=True),
        _jpeg(mode="CMYK"),
        _sized_jpeg((side, side)),
        b"",
        b"\xff\xd8",
    ):
        assert not baseline_scan_is_whole(other)


def test_every_flipped_byte_the_walk_finds_whole_ffmpeg_finds_whole() -> None:
    """Each byte from the scan header on, flipped two ways: where the walk says whole, so must
    FFmpeg's decoder, told to stop at the first error (the check that refuses)."""
    import av
    from av.error import InvalidDataError

    data = _sized_jpeg((40, 24), quality=90)
    start = data.index(b"\xff\xda")
    walked = 0
    for index in range(start, len(data)):
        for flip in (0x01, 0x5A):
            variant = bytearray(data)
            variant[index] ^= flip
            if not baseline_scan_is_whole(bytes(variant)):
                continue
            walked += 1
            context = av.CodecContext.create("mjpeg", "r")
            context.options = {"err_detect": "explode"}
            try:
                context.decode(av.Packet(bytes(variant)))
            except InvalidDataError:
                pytest.fail(f"the walk finds byte {index} ^ {flip:#x} whole, FFmpeg does not")
    assert walked  # some flips (of magnitude bits) leave the codes whole


def test_a_fresh_process_refuses_a_broken_huffman_code_and_accepts_a_whole_jpeg() -> None:
    """Without PyAV loaded, the whole JPEG needs no FFmpeg; the damaged one still meets it."""
    code = (
        "import sys; import cueboard.workers.thumbnails as t\n"
        "print(t.decode_thumbnail(bytes.fromhex(sys.argv[1])).width, 'av' in sys.modules)\n"
        "try:\n"
        "    t.decode_thumbnail(bytes.fromhex(sys.argv[2]))\n"
        "except t.ThumbnailError as error:\n"
        "    print(error.kind, 'av' in sys.modules)\n"
    )
    whole = _jpeg()
    out = subprocess.run(
        [sys.executable, "-c", code, whole.hex(), _broken_huffman(whole).hex()],
        capture_output=True,
        text=True,
        check=True,
    )
    assert out.stdout.split("\n")[:2] == ["128 False", "corrupt True"]
