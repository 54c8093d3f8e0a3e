"""WebP, still or animated, through libwebp's animation decoder (as bound by Pillow).

libwebp composites animated WebP correctly, but Pillow's plugin reads its RGBA canvas as RGBX
whenever the VP8X alpha flag is unset, and libwebp's own encoder leaves that flag unset when
every frame rectangle is opaque, even though the canvas around them is transparent. The canvas
is taken here as the RGBA it is. (Pillow's `_webp` module is the binding its WebP plugin uses;
no other installed library binds WebPAnimDecoder.)
"""

from __future__ import annotations

import struct
from collections.abc import Iterator
from typing import Any

from PIL import Image

from .animation import Animation, check_declared_size
from .errors import ThumbnailError
from .still import orientation_fix


def _declared_size(data: bytes) -> tuple[int, int] | None:
    """The canvas size from the first chunk, before libwebp allocates the canvas."""
    kind = data[12:16]
    if kind == b"VP8X" and len(data) >= 30:
        width = int.from_bytes(data[24:27], "little") + 1
        height = int.from_bytes(data[27:30], "little") + 1
        return width, height
    if kind == b"VP8L" and len(data) >= 25 and data[20] == 0x2F:
        (bits,) = struct.unpack_from("<I", data, 21)
        return (bits & 0x3FFF) + 1, ((bits >> 14) & 0x3FFF) + 1
    if kind == b"VP8 " and len(data) >= 30 and data[23:26] == b"\x9d\x01\x2a":
        width, height = struct.unpack_from("<HH", data, 26)
        return width & 0x3FFF, height & 0x3FFF
    return None


def open_webp(data: bytes) -> Animation:
    from PIL import _webp  # pyright: ignore[reportAttributeAccessIssue, reportPrivateUsage]

    size = _declared_size(data)
    if size is None:
        raise ThumbnailError("corrupt", "the WebP header is malformed or truncated")
    check_declared_size(*size)
    try:
        decoder: Any = _webp.WebPAnimDecoder(data)
        (width, height), loop, _background, count, _rawmode = decoder.get_info()
    except (OSError, ValueError, TypeError):
        raise ThumbnailError("corrupt", "the WebP data is corrupt or truncated") from None
    check_declared_size(width, height, frames=count)
    transpose = None
    if count == 1:
        exif = decoder.get_chunk("EXIF")
        if exif:
            holder = Image.Exif()
            holder.load(bytes(exif))
            transpose = orientation_fix(holder)
    animation = Animation(
        format="webp",
        width=width,
        height=height,
        frame_count=count,
        loop=int(loop),  # the ANIM loop count is the total number of plays, 0 = forever
        frames=iter(()),
        transpose=transpose,
    )
    animation.frames = _frames(decoder, (width, height), count, animation.warnings)
    return animation


def _frames(
    decoder: Any, size: tuple[int, int], count: int, warnings: list[str]
) -> Iterator[tuple[Image.Image, int]]:
    shown_ms = 0
    for index in range(count):
        got = decoder.get_next()
        if got is None:
            if index == 0:
                raise ThumbnailError("corrupt", "the WebP's first frame cannot be decoded")
            warnings.append(f"kept the {index} frames before frame {index + 1}, which is damaged")
            return
        pixels, end_ms = got  # libwebp reports when each frame ends
        yield Image.frombuffer("RGBA", size, pixels, "raw", "RGBA", 0, 1), end_ms - shown_ms
        shown_ms = end_ms
