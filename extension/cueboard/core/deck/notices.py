"""What the deck tells the user, and what a final host failure means for a media request.

A notice names a catalog key and its parameters, never a URL: the title a user typed (or the
URL's host name) is the only thing that identifies a stream in a message (MED-12).
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from dataclasses import dataclass

from cueboard.core.contract import StatusLevel
from cueboard.core.effects import HostFailure, Log, Notice
from cueboard.core.i18n import Catalog, msgid

# Catalog keys a shipped catalog may not hold yet, with the English shown until it does.
FALLBACK_TEXT: Mapping[str, str] = {
    "media.error.url_too_long": "That URL is longer than 8 KiB ({limit} bytes).",
    "media.error.busy": "{title} is already open: use Reload to change its URL.",
    "media.error.invalid_option": "{option} must be between {min} and {max}.",
    "media.error.pending": "{title} is still opening: try again in a moment.",
}


def notice_text(notice: Notice, catalog: Catalog) -> str:
    """The notice in the catalog's language (parameters named in ``refs`` looked up too)."""
    values: dict[str, object] = dict(notice.params)
    for name, ref in notice.refs.items():
        values[name] = _lookup(catalog, ref)
    return _lookup(catalog, notice.key, **values)


def _lookup(catalog: Catalog, key: str, /, **params: object) -> str:
    if key not in catalog and key in FALLBACK_TEXT:
        return FALLBACK_TEXT[key].format_map(_Keep(params))
    return catalog.t(key, **params)


class _Keep(dict[str, object]):
    def __missing__(self, name: str) -> str:
        return "{" + name + "}"


def unsupported() -> Notice:
    return Notice(msgid("media.unsupported"), StatusLevel.WARN)


def busy(title: str) -> Notice:
    return Notice("media.error.busy", StatusLevel.WARN, {"title": title})


def pending(title: str) -> Notice:
    return Notice("media.error.pending", StatusLevel.WARN, {"title": title})


def unconfirmed(title: str, code: str) -> Notice:
    """The person's open got no clear answer: say so now; the next snapshot settles it."""
    params: dict[str, str | int] = {"title": title, "code": code}
    return Notice(msgid("media.error.unconfirmed"), StatusLevel.WARN, params)


def failure_code(failure: HostFailure) -> str:
    """A failure as the short code a notice or a log line shows (never the host's message,
    which may quote what was sent)."""
    match failure.kind:
        case "domain" | "invalid" if isinstance(failure.code, str):
            return failure.code
        case "invalid":
            return "invalid_request"
        case "protocol" if failure.code == -32001:
            return "not_granted"
        case "protocol":
            return str(failure.code)
        case _:
            return failure.kind


@dataclass(frozen=True, slots=True)
class Meaning:
    """What a final failure of a media request means: the notice, the log line, and whether
    the deck stops sending (``unsupported``: until the next connection, MED-2) or the grant is
    gone (-32001)."""

    notice: Notice
    log: Log | None = None
    unsupported: bool = False
    denied: bool = False


def meaning(failure: HostFailure, title: str) -> Meaning:
    params: dict[str, str | int] = {"title": title}
    code = failure_code(failure)
    if failure.kind == "closed":
        return Meaning(Notice(msgid("status.reconnecting"), StatusLevel.WARN))
    if failure.kind == "domain":
        match code:
            case "unsupported":
                why = Log(logging.INFO, "media is unsupported on this host: the deck stops sending")
                return Meaning(unsupported(), why, unsupported=True)
            case "too_many":
                return Meaning(Notice(msgid("media.error.too_many"), StatusLevel.WARN))
            case "busy":  # the key already has a session: not transient, never retried
                return Meaning(busy(title))
            case _:
                pass
    if code == "invalid_url" and failure.kind in ("domain", "invalid"):
        return Meaning(Notice(msgid("media.error.invalid_url"), StatusLevel.ERROR))
    notice = Notice(msgid("media.error.code"), StatusLevel.ERROR, {**params, "code": code})
    return Meaning(
        notice, Log(logging.INFO, f"media request failed: {code}"), denied=code == "not_granted"
    )


__all__ = [
    "FALLBACK_TEXT",
    "Meaning",
    "busy",
    "failure_code",
    "meaning",
    "notice_text",
    "pending",
    "unconfirmed",
    "unsupported",
]
