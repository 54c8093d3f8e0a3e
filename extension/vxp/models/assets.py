"""assets: images for panels, decoded by the extension (VXP AST-1 … AST-20). No capability.

Limit failures carry the code the host answers (docs/protocol-notes.md#r18): a key ``bad_key``; a
zero size, no frames, a delay outside 20-1000 ms or pixels of the wrong length ``bad_pixels``; more
than 128 px or 2 MiB decoded ``too_large``; more than 60 frames ``too_many_frames``.
"""

from __future__ import annotations

import base64
from typing import Annotated, Literal, Self

from pydantic import Field, Tag, field_validator, model_validator

from ..limits import (
    ASSET_DELAY_MAX_MS,
    ASSET_DELAY_MIN_MS,
    ASSET_KEY_RE,
    ASSET_MAX_DECODED_BYTES,
    ASSET_MAX_FRAMES,
    ASSET_MAX_SIDE,
)
from ._base import Inbound, Outbound, domain_error, tag_of

NAMESPACE = "assets"
CAPABILITY: str | None = None
SINCE = "1.3"


def _check_key(key: str) -> str:
    if not ASSET_KEY_RE.fullmatch(key):
        raise domain_error(
            "bad_key", f"asset key {key!r} must be 1-128 of A-Z a-z 0-9 - _ . : / (AST-15)"
        )
    return key


# --- requests -------------------------------------------------------------------------------


_BASE64_ALPHABET = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"


def base64_size(text: str) -> int | None:
    """The bytes ``text`` decodes to as padded base64 (RFC 4648 § 4), or None if it is not that.

    Checked by alphabet and length, never decoded: an icon's frames are up to 2 MiB, the SDK
    checks them on the extension's event loop and vrosdev on the connection's read loop, and
    ``bytes.translate`` scans about 3x faster than ``binascii.a2b_base64`` decodes. The SDK and
    vrosdev share this one rule; it is stricter than ``a2b_base64(strict_mode=True)``, which
    lets padding follow a complete quad (``"AAAA="``).
    """
    if len(text) % 4 or not text.isascii():
        return None
    data = text.encode("ascii")
    body = data.rstrip(b"=")
    pad = len(data) - len(body)
    if pad > 2 or body.translate(None, _BASE64_ALPHABET):
        return None
    return len(data) // 4 * 3 - pad


class AssetFrame(Outbound):
    """Straight-alpha RGBA8, row-major (AST-6, AST-7)."""

    rgba_base64: str = Field(repr=False)
    delay_ms: int

    @classmethod
    def from_rgba(cls, rgba: bytes, delay_ms: int) -> AssetFrame:
        return cls(rgba_base64=base64.b64encode(rgba).decode("ascii"), delay_ms=delay_ms)

    def rgba(self) -> bytes:
        return base64.b64decode(self.rgba_base64, validate=True)

    @field_validator("delay_ms")
    @classmethod
    def _delay(cls, delay_ms: int) -> int:
        if not ASSET_DELAY_MIN_MS <= delay_ms <= ASSET_DELAY_MAX_MS:
            raise domain_error(
                "bad_pixels",
                f"frame delay_ms is {delay_ms}; it must be "
                f"{ASSET_DELAY_MIN_MS}-{ASSET_DELAY_MAX_MS} (AST-11)",
            )
        return delay_ms

    @field_validator("rgba_base64")
    @classmethod
    def _base64(cls, text: str) -> str:
        if base64_size(text) is None:
            raise domain_error("bad_pixels", "frame rgba_base64 is not valid base64")
        return text

    @property
    def decoded_size(self) -> int:
        """Bytes the base64 decodes to, by arithmetic (the text is valid by construction)."""
        text = self.rgba_base64
        return len(text) // 4 * 3 - (2 if text.endswith("==") else 1 if text.endswith("=") else 0)


class AssetPut(Outbound):
    op: Literal["put"] = "put"
    key: str
    width: int
    height: int
    frames: list[AssetFrame]
    loop: Annotated[int, Field(ge=0)] = 0  # total plays; 0 repeats forever (AST-8)

    _key = field_validator("key")(_check_key)

    @field_validator("width", "height")
    @classmethod
    def _side(cls, side: int) -> int:
        if side < 1:
            raise domain_error("bad_pixels", f"asset side is {side}; it must be at least 1")
        if side > ASSET_MAX_SIDE:
            raise domain_error(
                "too_large", f"asset side is {side}; the limit is {ASSET_MAX_SIDE} (AST-9)"
            )
        return side

    @field_validator("frames")
    @classmethod
    def _frame_count(cls, frames: list[AssetFrame]) -> list[AssetFrame]:
        if not frames:
            raise domain_error("bad_pixels", "an asset needs at least one frame")
        if len(frames) > ASSET_MAX_FRAMES:
            raise domain_error(
                "too_many_frames",
                f"asset has {len(frames)} frames; the limit is {ASSET_MAX_FRAMES} (AST-10)",
            )
        return frames

    @model_validator(mode="after")
    def _pixels(self) -> Self:
        expected = self.width * self.height * 4
        total = 0
        for index, frame in enumerate(self.frames):
            size = frame.decoded_size
            if size != expected:
                raise domain_error(
                    "bad_pixels",
                    f"frame {index} decodes to {size} bytes; "
                    f"{self.width}x{self.height} RGBA needs {expected} (AST-7)",
                )
            total += size
        if total > ASSET_MAX_DECODED_BYTES:
            raise domain_error(
                "too_large",
                f"asset decodes to {total} bytes; the limit is {ASSET_MAX_DECODED_BYTES} (AST-12)",
            )
        return self


class AssetRemove(Outbound):
    op: Literal["remove"] = "remove"
    key: str

    _key = field_validator("key")(_check_key)


class AssetClear(Outbound):
    op: Literal["clear"] = "clear"


AssetsRequest = Annotated[
    Annotated[AssetPut, Tag("put")]
    | Annotated[AssetRemove, Tag("remove")]
    | Annotated[AssetClear, Tag("clear")],
    Field(discriminator="op"),
]

# --- responses ------------------------------------------------------------------------------


class AssetOk(Inbound):
    result: Literal["ok"]


class AssetErr(Inbound):
    result: Literal["err"]
    code: str
    message: str | None = None


class AssetUnknown(Inbound):
    result: str


AssetsResponse = Annotated[
    Annotated[AssetOk, Tag("ok")]
    | Annotated[AssetErr, Tag("err")]
    | Annotated[AssetUnknown, Tag("unknown")],
    tag_of("result", AssetOk, AssetErr),
]

ERROR_CODES = frozenset({"too_large", "too_many_frames", "budget_full", "bad_key", "bad_pixels"})
