"""The contract between a format reader and the fitter."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field

from PIL import Image

from .errors import ThumbnailError
from .limits import (
    MAX_SOURCE_FRAMES,
    MAX_SOURCE_PIXELS,
    MAX_SOURCE_SIDE,
    MAX_TOTAL_SOURCE_PIXELS,
)


@dataclass(slots=True)
class Animation:
    """A source opened from its headers, its pixels not decoded yet.

    `frames` yields each composited canvas (valid only until the next one is asked for) with
    its delay in ms. A reader that meets damaged data after some good frames stops, and adds
    a sentence to `warnings`, instead of raising.
    """

    format: str
    width: int
    height: int
    frame_count: int | None  # None when the container does not say
    loop: int  # total plays, 0 = forever
    frames: Iterator[tuple[Image.Image, int]]
    warnings: list[str] = field(default_factory=list[str])
    # Applied to each downscaled frame (EXIF orientation): rotating the icon, not the photo.
    transpose: Image.Transpose | None = None
    # SHA-256 of the whole source file, when the reader had it whole (see Thumbnail).
    source_digest: bytes | None = None


def check_declared_size(
    width: int, height: int, *, frames: int = 1, max_pixels: int = MAX_SOURCE_PIXELS
) -> None:
    """Refuse a decompression bomb from its declared size, before decoding anything."""
    if width <= 0 or height <= 0:
        raise ThumbnailError("corrupt", f"the image declares a size of {width}x{height}")
    if width > MAX_SOURCE_SIDE or height > MAX_SOURCE_SIDE or width * height > max_pixels:
        raise ThumbnailError(
            "too_large",
            f"the image declares {width}x{height} pixels, more than this pipeline decodes "
            f"({max_pixels} pixels, {MAX_SOURCE_SIDE} per side)",
        )
    if frames > MAX_SOURCE_FRAMES:
        raise ThumbnailError(
            "too_large",
            f"the animation declares {frames} frames, more than {MAX_SOURCE_FRAMES}",
        )
    if width * height * frames > MAX_TOTAL_SOURCE_PIXELS:
        raise ThumbnailError(
            "too_large",
            f"the animation declares {frames} frames of {width}x{height}, more pixels in all "
            f"than {MAX_TOTAL_SOURCE_PIXELS}",
        )
