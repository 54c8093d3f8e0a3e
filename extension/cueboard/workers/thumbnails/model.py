"""What a decode produces: frames ready for `assets.put`, plus what the source was.

Pillow-free, so the asset table and the CLI can use it without importing a decoder.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import Any

KEY_PREFIX = "thumb:"

_encoder: Callable[[bytes], bytes] | None = None


def b64encode(data: bytes) -> bytes:
    """Standard base64, with pybase64's SIMD encoder where installed (the media extra installs
    it): with the standard library's, encoding is a fair share of a small icon's cost
    (bench/README.md). Imported on first use, so the package stays light to import."""
    global _encoder
    if _encoder is None:
        try:
            from pybase64 import b64encode as fast
        except ImportError:  # pragma: no cover - pybase64 is a dependency of the media extra
            from base64 import b64encode as fast
        _encoder = fast
    return _encoder(data)


@dataclass(frozen=True, slots=True)
class ThumbnailFrame:
    """One frame: straight (not premultiplied) RGBA8, row-major, width*height*4 bytes."""

    rgba: bytes
    delay_ms: int


@dataclass(frozen=True, slots=True)
class Thumbnail:
    width: int
    height: int
    frames: tuple[ThumbnailFrame, ...]
    loop: int  # total plays; 0 = forever (AST-8)
    source_format: str
    source_width: int
    source_height: int
    source_frames: int
    source_duration_ms: int
    warnings: tuple[str, ...] = field(default=())
    # SHA-256 of the source file's bytes, when the decoder had them whole: the content key is
    # then derived from it (cheaper than hashing every decoded frame; decoding is
    # deterministic, and a key means something only for one connection: AST-17).
    source_digest: bytes | None = field(default=None, compare=False, repr=False)

    def __post_init__(self) -> None:
        expected = self.width * self.height * 4
        if not self.frames or any(len(f.rgba) != expected for f in self.frames):
            raise ValueError("every frame must hold exactly width*height*4 bytes")

    @property
    def duration_ms(self) -> int:
        return sum(f.delay_ms for f in self.frames)

    @property
    def decoded_bytes(self) -> int:
        """The size the host counts against its 2 MiB and 32 MiB limits."""
        return self.width * self.height * 4 * len(self.frames)

    @property
    def animated(self) -> bool:
        return len(self.frames) > 1

    def content_key(self) -> str:
        """A key derived from the source's bytes (or else the pixels), the size, delays and
        loop: the same image gets the same key.

        Fits the spec's key alphabet (AST-15): letters, digits and ``:``.
        """
        digest = hashlib.sha256()
        digest.update(f"{self.width}x{self.height}:{self.loop}:{len(self.frames)}".encode())
        if self.source_digest is not None:
            digest.update(b"source:" + self.source_digest)
        for frame in self.frames:
            digest.update(frame.delay_ms.to_bytes(4, "little"))
            if self.source_digest is None:
                digest.update(frame.rgba)
        return KEY_PREFIX + digest.hexdigest()[:32]

    def first_frame_only(self) -> Thumbnail:
        """The still variant shown beyond the host's 24 animations per panel (AST-14)."""
        if not self.animated:
            return self
        first = self.frames[0]
        return replace(self, frames=(ThumbnailFrame(first.rgba, first.delay_ms),), loop=0)

    def put_params(self, key: str | None = None) -> dict[str, Any]:
        """The `assets.put` params (without `op`), JSON-ready (AST-3, AST-6).

        A frame repeated to show longer than the host's longest delay is encoded once.
        """
        encoded: dict[int, str] = {}
        frames: list[dict[str, Any]] = []
        for frame in self.frames:
            text = encoded.get(id(frame.rgba))
            if text is None:
                text = encoded[id(frame.rgba)] = b64encode(frame.rgba).decode("ascii")
            frames.append({"rgba_base64": text, "delay_ms": frame.delay_ms})
        return {
            "key": key if key is not None else self.content_key(),
            "width": self.width,
            "height": self.height,
            "frames": frames,
            "loop": self.loop,
        }

    def summary(self) -> dict[str, Any]:
        return {
            "key": self.content_key(),
            "format": self.source_format,
            "source_width": self.source_width,
            "source_height": self.source_height,
            "source_frames": self.source_frames,
            "source_duration_ms": self.source_duration_ms,
            "width": self.width,
            "height": self.height,
            "frames": len(self.frames),
            "duration_ms": self.duration_ms,
            "loop": self.loop,
            "decoded_bytes": self.decoded_bytes,
        }
