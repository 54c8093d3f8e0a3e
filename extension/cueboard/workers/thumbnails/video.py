"""Short MP4/WebM clips through imageio's PyAV plugin (FFmpeg), as opaque frames."""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

from PIL import Image

from .animation import Animation, check_declared_size
from .errors import ThumbnailError
from .limits import MAX_CLIP_SECONDS

_EXTENSION = {"mp4": ".mp4", "webm": ".webm"}
_MATROSKA_DURATION = re.compile(r"(\d+):(\d+):(\d+(?:\.\d+)?)")


def _video_errors() -> tuple[type[BaseException], ...]:
    from av.error import FFmpegError

    return (OSError, ValueError, RuntimeError, KeyError, IndexError, FFmpegError)


def open_clip(data: bytes, kind: str) -> Animation:
    try:
        import imageio.v3 as iio
    except ImportError:  # pragma: no cover - imageio and av are dependencies of the media extra
        raise ThumbnailError("unsupported", "video clips need imageio and av installed") from None
    extension = _EXTENSION[kind]
    errors = _video_errors()
    try:
        meta: dict[str, Any] = iio.immeta(data, plugin="pyav", extension=extension)
        props = iio.improps(data, plugin="pyav", extension=extension)
    except errors:
        raise ThumbnailError("corrupt", f"the {kind.upper()} clip cannot be read") from None
    height, width = int(props.shape[-3]), int(props.shape[-2])
    fps = float(meta.get("fps") or 0.0)
    if fps <= 0:
        raise ThumbnailError("unsupported", f"the {kind.upper()} clip has no frame rate")
    seconds = _duration(meta)
    if seconds is not None and seconds > MAX_CLIP_SECONDS:
        raise ThumbnailError(
            "too_large", f"the clip lasts {seconds:.0f} s, more than {MAX_CLIP_SECONDS:.0f} s"
        )
    count = int(props.n_images) if props.n_images else None
    if count is None and seconds is not None:
        count = max(1, round(seconds * fps))
    check_declared_size(width, height, frames=count or 1)
    animation = Animation(
        format=kind,
        width=width,
        height=height,
        frame_count=count,
        loop=0,  # a clip used as an icon repeats, as a looping GIF does
        frames=iter(()),
    )
    animation.frames = _frames(data, extension, fps, errors, animation.warnings, count)
    return animation


def _duration(meta: dict[str, Any]) -> float | None:
    if meta.get("duration"):
        return float(meta["duration"])
    text = meta.get("DURATION")
    if isinstance(text, str) and (match := _MATROSKA_DURATION.match(text)):
        hours, minutes, seconds = match.groups()
        return int(hours) * 3600 + int(minutes) * 60 + float(seconds)
    return None


def _frames(
    data: bytes,
    extension: str,
    fps: float,
    errors: tuple[type[BaseException], ...],
    warnings: list[str],
    declared: int | None,
) -> Iterator[tuple[Image.Image, int]]:
    """Each frame with its delay. FFmpeg ends a cut-off clip quietly: frames missing against
    the count the container declares are reported (one frame of slack: a count estimated from
    the duration may round either way)."""
    import imageio.v3 as iio

    max_frames = int(MAX_CLIP_SECONDS * fps) + 1
    shown_ms = 0
    index = -1
    try:
        for index, array in enumerate(
            iio.imiter(data, plugin="pyav", extension=extension, format="rgb24")
        ):
            if index >= max_frames:
                raise ThumbnailError("too_large", f"the clip is longer than {MAX_CLIP_SECONDS} s")
            # Delays from the frame clock, so rounding never drifts over a clip.
            next_ms = round((index + 1) * 1000 / fps)
            yield Image.fromarray(array, "RGB").convert("RGBA"), next_ms - shown_ms
            shown_ms = next_ms
    except errors:
        # `index` is the last frame yielded: the damage comes after index + 1 frames.
        if index < 0:
            raise ThumbnailError(
                "corrupt", "the clip's first frame cannot be decoded: its data is corrupt"
            ) from None
        warnings.append(f"kept the {index + 1} frames decoded before the clip's damaged data")
        return
    if declared is not None and 0 <= index < declared - 2:
        warnings.append(
            f"kept the {index + 1} frames decoded of the {declared} the clip declares: "
            "it is truncated or damaged"
        )
