"""Bytes in, asset frames out: the pure, synchronous core of the thumbnail pipeline.

Each format reader opens the source from its headers (refusing bombs before decoding) and
yields full-size composited canvases one at a time; `render` downscales only the frames it
keeps, so a decode holds one full-size canvas, never the whole animation.
"""

from __future__ import annotations

import functools
import hashlib
import os
import zlib
from pathlib import Path

from PIL import Image

from .animation import Animation
from .apng import is_apng, open_apng
from .errors import ThumbnailError
from .fit import FrameCollector, downscale, fit_size, frame_budget
from .gif import open_gif
from .limits import MAX_LOCAL_BYTES, MAX_SIDE
from .model import Thumbnail
from .sniff import sniff
from .still import open_with_pillow
from .video import open_clip
from .webp import open_webp

# What a decoder library raises on bad data, as opposed to a bug of ours.
_DECODE_ERRORS = (OSError, ValueError, SyntaxError, EOFError, zlib.error, MemoryError)

# A file this small is read in one go, even a GIF (larger GIFs are streamed).
_READ_WHOLE = 1024 * 1024

_SWAPS_AXES = {Image.Transpose.ROTATE_90, Image.Transpose.ROTATE_270}
_SWAPS_AXES |= {Image.Transpose.TRANSPOSE, Image.Transpose.TRANSVERSE}


def decode_thumbnail(data: bytes, *, max_side: int = MAX_SIDE) -> Thumbnail:
    """The icon for `data`, within every limit of `assets.put`, or a ThumbnailError."""
    return render(open_animation(data), max_side=max_side)


def decode_file(
    path: Path, *, max_side: int = MAX_SIDE, max_bytes: int = MAX_LOCAL_BYTES
) -> Thumbnail:
    """The icon for a local file. A GIF is streamed from the file (a large one is never held
    in memory whole); other formats are read whole, up to `max_bytes`."""
    try:
        with path.open("rb") as file:
            size = os.fstat(file.fileno()).st_size
            if size > max_bytes:
                raise ThumbnailError("too_large", f"{path.name} is larger than {max_bytes} bytes")
            if 0 < size <= _READ_WHOLE:  # an icon: one read, whatever its format
                data = file.read(size + 1)
                return decode_thumbnail(data, max_side=max_side)
            head = file.read(64)
            if sniff(head) == "gif":
                file.seek(0)
                return render(open_gif(file), max_side=max_side)
            # Sized from fstat: read(max_bytes) would allocate max_bytes for every small icon.
            # A size of 0 may be a pipe or a special file: read up to the limit.
            rest = max(0, size - len(head)) + 1 if size else max_bytes + 1 - len(head)
            data = head + file.read(rest)
    except FileNotFoundError:
        raise ThumbnailError("bad_source", f"no such file: {path.name}") from None
    except IsADirectoryError:
        raise ThumbnailError("bad_source", f"not a file: {path.name}") from None
    except OSError as error:
        raise ThumbnailError("bad_source", f"cannot read {path.name}: {error.strerror}") from None
    return decode_thumbnail(data, max_side=max_side)


def open_animation(data: bytes) -> Animation:
    animation = _open_animation(data)
    if animation.source_digest is None:
        animation.source_digest = hashlib.sha256(data).digest()
    return animation


def _open_animation(data: bytes) -> Animation:
    kind = sniff(data)
    try:
        if kind == "gif":
            return open_gif(data)
        if kind == "png" and is_apng(data):
            animation = open_apng(data)
            if animation is not None:
                return animation
        if kind in ("mp4", "webm"):
            return open_clip(data, kind)
        if kind == "webp":
            return open_webp(data)
        return open_with_pillow(data, kind)
    except ThumbnailError:
        raise
    except _DECODE_ERRORS:
        raise ThumbnailError("corrupt", f"the {kind.upper()} data cannot be read") from None


def render(animation: Animation, *, max_side: int = MAX_SIDE) -> Thumbnail:
    width, height = fit_size(animation.width, animation.height, max_side)
    collector = FrameCollector(animation.frame_count, frame_budget(width, height))
    warnings = animation.warnings
    try:
        for canvas, delay_ms in animation.frames:
            collector.add(
                delay_ms, functools.partial(downscale, canvas, (width, height), animation.transpose)
            )
    except ThumbnailError:
        raise
    except _DECODE_ERRORS:
        if collector.count == 0:
            raise ThumbnailError(
                "corrupt", f"the {animation.format.upper()} frames cannot be decoded"
            ) from None
        warnings.append(f"kept the {collector.count} frames decoded before damaged data")
    if collector.count == 0:
        raise ThumbnailError("corrupt", f"the {animation.format.upper()} has no frames")
    frames, fit_warnings = collector.finish()
    if animation.transpose in _SWAPS_AXES:
        width, height = height, width
    return Thumbnail(
        width=width,
        height=height,
        frames=tuple(frames),
        loop=animation.loop if len(frames) > 1 else 0,
        source_format=animation.format,
        source_width=animation.width,
        source_height=animation.height,
        source_frames=collector.count,
        source_duration_ms=collector.source_duration_ms,
        warnings=(*warnings, *fit_warnings),
        source_digest=animation.source_digest,
    )
