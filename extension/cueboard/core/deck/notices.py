"""What the deck tells the user (what a failure means is the policy table's: the deck words
the reason its row gives).

A notice names a catalog key and its parameters, never a URL: the title a user typed (or the
URL's host name) is the only thing that identifies a stream in a message (MED-12).
"""

from __future__ import annotations

from collections.abc import Mapping

from cueboard.core.contract import StatusLevel
from cueboard.core.effects import Notice
from cueboard.core.i18n import Catalog, msgid
from cueboard.core.outcomes import Outcome

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


def failure_code(outcome: Outcome) -> str:
    """A failure as the short code a notice or a log line shows (never the host's message,
    which may quote what was sent)."""
    failure = outcome.failure
    if failure is None:
        return ""
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


def told(outcome: Outcome, title: str) -> Notice:
    """The policy's reason for a failed media request, worded for the slot ``title``."""
    key = outcome.reason or msgid("media.error.code")
    tone = outcome.rule.tone if outcome.rule is not None else StatusLevel.ERROR
    return Notice(key, tone, {"title": title, "code": failure_code(outcome)})


__all__ = [
    "FALLBACK_TEXT",
    "busy",
    "failure_code",
    "notice_text",
    "pending",
    "told",
    "unconfirmed",
    "unsupported",
]
