"""Asset frames for `[image]` props, and which frame an animation shows at a given time.

The host's assets table (limits, LRU, errors: AST-*) is the lead's; this module only turns an
uploaded asset into Slint images and runs the clock: AST-18, animations advance on the
renderer's clock, and AST-8, `loop` is the total number of plays (0 repeats forever).
"""

import base64
import binascii
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class AssetFrame:
    rgba: bytes  # straight-alpha RGBA8, width * height * 4 bytes (AST-7)
    delay_ms: int


@dataclass(frozen=True)
class Asset:
    key: str
    width: int
    height: int
    frames: tuple[AssetFrame, ...]
    loop: int  # total plays; 0 repeats forever

    @property
    def animated(self) -> bool:
        return len(self.frames) > 1

    @property
    def cycle_ms(self) -> int:
        return sum(f.delay_ms for f in self.frames)


type AssetLookup = Callable[[str], Asset | None]


def asset_from_wire(params: dict[str, Any]) -> Asset:
    """An `assets put` request's fields as an Asset. Raises ValueError on pixels that do not
    decode to exactly width x height x 4 bytes (bad_pixels)."""
    width, height = int(params["width"]), int(params["height"])
    frames: list[AssetFrame] = []
    for index, frame in enumerate(params["frames"]):
        try:
            rgba = base64.b64decode(frame["rgba_base64"], validate=True)
        except (binascii.Error, ValueError) as exc:
            raise ValueError(f"frame {index}: rgba_base64 is not base64") from exc
        if len(rgba) != width * height * 4:
            raise ValueError(f"frame {index}: {len(rgba)} bytes, expected {width * height * 4}")
        frames.append(AssetFrame(rgba, int(frame["delay_ms"])))
    if not frames:
        raise ValueError("an asset needs at least one frame")
    return Asset(str(params["key"]), width, height, tuple(frames), int(params.get("loop", 0)))


def frame_index(asset: Asset, elapsed_ms: float) -> int:
    """The frame shown elapsed_ms after the asset started playing."""
    cycle = asset.cycle_ms
    if not asset.animated or cycle <= 0:
        return 0
    if asset.loop > 0 and elapsed_ms >= cycle * asset.loop:
        return len(asset.frames) - 1  # finished: hold the last frame
    position = elapsed_ms % cycle
    for index, frame in enumerate(asset.frames):
        if position < frame.delay_ms:
            return index
        position -= frame.delay_ms
    return len(asset.frames) - 1


def finished(asset: Asset, elapsed_ms: float) -> bool:
    return not asset.animated or (asset.loop > 0 and elapsed_ms >= asset.cycle_ms * asset.loop)


def frame_images(asset: Asset) -> "Sequence[Any]":
    """One slint.Image per frame (no display needed)."""
    import slint

    return tuple(
        slint.Image.load_from_array(memoryview(f.rgba).cast("B", (asset.height, asset.width, 4)))
        for f in asset.frames
    )
