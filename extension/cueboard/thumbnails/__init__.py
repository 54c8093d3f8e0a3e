"""Animated icons: bytes from a file or URL to straight-RGBA frames for `assets.put`.

Imports Pillow and httpx: import this package only after hello (cueboard starts without it).
"""

from __future__ import annotations

from .cache import IconCache
from .decode import decode_file, decode_thumbnail
from .errors import ThumbnailError
from .model import Thumbnail, ThumbnailFrame
from .sources import fetch_url, is_url, load_source, read_local

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
