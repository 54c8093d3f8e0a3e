"""Animated icons: bytes from a file or URL to straight-RGBA frames for `assets.put`.

Imports Pillow: import this package only after hello (cueboard starts without it). What
fetching URLs needs (anyio, httpx) and the on-disk cache are imported on first use, so a
worker that decodes local files loads only the decoders.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .decode import decode_file, decode_thumbnail
from .errors import ThumbnailError
from .model import Thumbnail, ThumbnailFrame
from .sources import fetch_url, is_url, load_source, read_local

if TYPE_CHECKING:
    from .cache import IconCache

__all__ = [
    "IconCache",
    "Thumbnail",
    "ThumbnailError",
    "ThumbnailFrame",
    "decode_file",
    "decode_thumbnail",
    "fetch_url",
    "is_url",
    "load_source",
    "read_local",
]


def __getattr__(name: str) -> Any:
    if name == "IconCache":
        from .cache import IconCache

        return IconCache
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
