"""The one error type of the thumbnail pipeline.

Every expected failure (bad bytes, refused URL, limit exceeded) becomes a ThumbnailError whose
``reason`` is a sentence a user can act on. Reasons never contain a URL or a token: they end up
in the CLI's output and in logs.
"""

from __future__ import annotations

from typing import Literal

ErrorKind = Literal[
    "empty",
    "not_an_image",
    "unsupported",
    "corrupt",
    "truncated",
    "too_large",
    "network_denied",
    "bad_source",
    "fetch_failed",
]


class ThumbnailError(Exception):
    """An input that cannot become an icon, with the reason why."""

    def __init__(self, kind: ErrorKind, reason: str) -> None:
        super().__init__(reason)
        self.kind: ErrorKind = kind
        self.reason = reason

    def __repr__(self) -> str:
        return f"ThumbnailError({self.kind!r}, {self.reason!r})"
