"""Limit checks that fail with the domain error code the host would answer (see ``_base``)."""

from __future__ import annotations

from ..limits import check_name, utf8_len
from ._base import domain_error


def name(value: str, what: str, code: str) -> str:
    """``[a-z0-9-]``, 1-64 bytes, failing as ``code``."""
    try:
        return check_name(value, what)
    except ValueError as exc:
        raise domain_error(code, str(exc)) from None


def max_bytes(value: str, limit: int, what: str, code: str) -> str:
    """At most ``limit`` UTF-8 bytes. The message gives sizes only, never the text itself."""
    size = utf8_len(value)
    if size > limit:
        raise domain_error(code, f"{what} is {size} bytes; the limit is {limit}")
    return value


def in_range(value: float, low: float, high: float, what: str, code: str) -> None:
    if not low <= value <= high:
        raise domain_error(code, f"{what} is {value}; it must be {low}-{high}")
