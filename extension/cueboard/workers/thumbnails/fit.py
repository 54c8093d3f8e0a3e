"""Fitting a decoded animation into the host's limits: size, frame count, bytes and delays.

Frames arrive one at a time as full-size composited canvases. Only the frames that will be
kept are downscaled (in premultiplied space, so edges keep their colour); a dropped frame's
time goes to the kept frame shown in its place, so the animation keeps its total duration
(timeline.py then fits the delays).
"""

from __future__ import annotations

import itertools
from collections.abc import Callable

from PIL import Image

from .limits import MAX_ASSET_BYTES, MAX_FRAMES, MAX_SIDE
from .model import ThumbnailFrame
from .timeline import fit_timeline

# Bicubic after an integer box reduction down to twice the target: what Pillow's thumbnail()
# does, sharp at icon sizes, and about 1.5x cheaper than Lanczos (its support is 2, not 3).
RESAMPLE = Image.Resampling.BICUBIC
REDUCING_GAP = 2.0

# Pixels per strip when a full-size image is converted piecewise: 256 KiB of RGBA at a time.
STRIP_PIXELS = 64 * 1024


def fit_size(width: int, height: int, max_side: int = MAX_SIDE) -> tuple[int, int]:
    """The largest size within max_side x max_side with the same aspect ratio, never larger
    than the source and never with a side of 0."""
    if width <= 0 or height <= 0:
        raise ValueError("a source side of 0 has no aspect ratio")
    scale = min(1.0, max_side / width, max_side / height)
    return max(1, min(max_side, round(width * scale))), max(1, min(max_side, round(height * scale)))


def frame_budget(width: int, height: int) -> int:
    """How many frames of this size fit the host's limits (AST-10, AST-12)."""
    return max(1, min(MAX_FRAMES, MAX_ASSET_BYTES // (width * height * 4)))


def evenly_kept(total: int, budget: int) -> list[int]:
    """Indices of `budget` frames spread evenly over `total`, the first always kept."""
    if total <= budget:
        return list(range(total))
    return [k * total // budget for k in range(budget)]


def downscale(
    canvas: Image.Image, size: tuple[int, int], transpose: Image.Transpose | None = None
) -> bytes:
    """Straight RGBA8 bytes of the canvas at `size`, then turned by `transpose`.

    The filter runs on premultiplied pixels: averaging straight RGBA would pull the colour of
    fully transparent pixels (often black) into the visible edge. A large canvas is first
    box-reduced by an integer factor in strips of rows (exact: strips align with the factor),
    so no full-size premultiplied copy is ever made; bicubic then takes the small image to
    `size`, as Pillow's resize(reducing_gap=2) would, only without its full-size copy.
    """
    if canvas.size == size:
        small = canvas
    else:
        width, height = canvas.size
        factor_x = max(1, int(width / size[0] / REDUCING_GAP))
        factor_y = max(1, int(height / size[1] / REDUCING_GAP))
        if factor_x == 1 and factor_y == 1:
            premultiplied = canvas.convert("RGBa")
        else:
            premultiplied = Image.new("RGBa", (-(-width // factor_x), -(-height // factor_y)))
            rows = max(factor_y, STRIP_PIXELS // width // factor_y * factor_y)
            for top in range(0, height, rows):
                strip = canvas.crop((0, top, width, min(height, top + rows))).convert("RGBa")
                premultiplied.paste(strip.reduce((factor_x, factor_y)), (0, top // factor_y))
        box = (0.0, 0.0, width / factor_x, height / factor_y)
        small = premultiplied.resize(size, RESAMPLE, box=box).convert("RGBA")
    if transpose is not None:
        small = small.transpose(transpose)
    return rgba_bytes(small)


def rgba_bytes(image: Image.Image) -> bytes:
    """``image.tobytes()`` for an RGBA image, through Pillow's raw encoder directly: at icon
    sizes the wrapper's own work is a fair share of the call, and every kept frame makes one."""
    if image.mode != "RGBA":
        return image.tobytes()
    image.load()
    encoder = Image.core.raw_encoder("RGBA", "RGBA")
    encoder.setimage(image.im, (0, 0, *image.size))
    parts: list[bytes] = []
    try:
        while True:
            _, status, data = encoder.encode(max(65536, image.width * image.height * 4))
            parts.append(data)
            if status:
                break
    finally:
        encoder.cleanup()
    if status < 0:
        raise RuntimeError(f"encoder error {status} in tobytes")
    return parts[0] if len(parts) == 1 else b"".join(parts)


class FrameCollector:
    """Keeps at most `budget` frames out of a stream, spread evenly, merging delays.

    With the source's frame count known, the kept indices are fixed up front and only those
    frames are rendered. Without it (some video containers), every `stride`-th frame is kept and
    the stride doubles whenever twice the budget is held, so memory stays bounded.
    """

    def __init__(self, expected_frames: int | None, budget: int) -> None:
        self._budget = budget
        self._kept: set[int] | None = (
            set(evenly_kept(expected_frames, budget)) if expected_frames is not None else None
        )
        self._stride = 1
        self._frames: list[tuple[bytes, int]] = []
        self.count = 0
        self.source_duration_ms = 0

    def add(self, delay_ms: int, render: Callable[[], bytes]) -> None:
        index = self.count
        self.count += 1
        self.source_duration_ms += delay_ms
        keep = index in self._kept if self._kept is not None else index % self._stride == 0
        if keep or not self._frames:
            self._frames.append((render(), delay_ms))
        else:
            rgba, delay = self._frames[-1]
            self._frames[-1] = (rgba, delay + delay_ms)
        if self._kept is None and len(self._frames) >= 2 * self._budget:
            self._frames = _merge(self._frames, evenly_kept(len(self._frames), self._budget))
            self._stride *= 2

    def finish(self) -> tuple[list[ThumbnailFrame], list[str]]:
        """The frames to send, with delays within 20-1000 ms (a long frame repeated), and
        warnings about changed timing."""
        frames = self._frames
        if len(frames) > self._budget:
            frames = _merge(frames, evenly_kept(len(frames), self._budget))
        entries, warnings = fit_timeline([d for _, d in frames], self._budget)
        return [ThumbnailFrame(frames[i][0], delay) for i, delay in entries], warnings


def _merge(frames: list[tuple[bytes, int]], kept: list[int]) -> list[tuple[bytes, int]]:
    bounds = [*kept, len(frames)]
    return [
        (frames[start][0], sum(d for _, d in frames[start:end]))
        for start, end in itertools.pairwise(bounds)
    ]
