"""What the deck checks before a URL or a title leaves Cueboard, and the title a URL gets.

The URL is a credential (MED-12): nothing here returns, logs or puts into an exception any part
of it except the host name, which the user sees as the default title. A failure carries a
catalog key for the overlay, never the text that failed.
"""

from __future__ import annotations

import unicodedata
from dataclasses import dataclass
from urllib.parse import urlsplit

from cueboard.core.i18n import msgid
from vxp.secret import Secret

# The page's limits (MED-11), counted in UTF-8 bytes as vrOS does.
URL_MAX_BYTES = 8 * 1024
TITLE_MAX_BYTES = 256
# A URL that fits a secret (SEC-7) is kept across runs; a longer one is asked for again.
SECRET_MAX_BYTES = 2048
# Streams vrOS's player is built for: web video and the usual live-streaming protocols.
STREAM_SCHEMES = frozenset({"http", "https", "rtmp", "rtmps", "rtsp", "rtsps", "srt"})


class DeckInputError(ValueError):
    """A value the deck refuses to send. ``key`` is the catalog entry that explains it."""

    def __init__(self, key: str, **params: str | int) -> None:
        super().__init__(key)
        self.key = key
        self.params = params


@dataclass(frozen=True, slots=True)
class CheckedUrl:
    """A URL that passed the checks, held as a :class:`vxp.Secret`, and its host name."""

    url: Secret
    host: str
    size: int  # UTF-8 bytes: decides whether it fits a secret

    @property
    def fits_secret(self) -> bool:
        return self.size <= SECRET_MAX_BYTES


def _has_control_or_space(text: str) -> bool:
    return any(ch.isspace() or unicodedata.category(ch)[0] == "C" for ch in text)


def check_url(url: str | Secret) -> CheckedUrl:
    """Trim what a paste adds around a URL, complete a missing scheme to ``https://`` when the
    rest then parses as a host name (``example.com/live.m3u8``), then insist on a stream scheme
    and a host."""
    raw = (url.reveal() if isinstance(url, Secret) else url).strip()
    if not raw:
        raise DeckInputError(msgid("media.error.invalid_url"))
    raw = _with_scheme(raw)
    size = len(raw.encode("utf-8"))
    if size > URL_MAX_BYTES:
        raise DeckInputError("media.error.url_too_long", limit=URL_MAX_BYTES)
    if _has_control_or_space(raw):
        raise DeckInputError(msgid("media.error.invalid_url"))
    try:
        parts = urlsplit(raw)
        host = parts.hostname or ""
        parts.port  # noqa: B018 - a malformed port raises here, not later at the host
    except ValueError:
        raise DeckInputError(msgid("media.error.invalid_url")) from None
    if parts.scheme.lower() not in STREAM_SCHEMES or not host:
        raise DeckInputError(msgid("media.error.invalid_url"))
    return CheckedUrl(Secret(raw), host, size)


def _with_scheme(raw: str) -> str:
    """``https://`` before a URL typed without a scheme, if that gives a plausible host (a dot
    in it, or localhost); anything else is left to be refused as it was typed."""
    if "://" in raw or raw.startswith("//"):
        return raw
    candidate = "https://" + raw
    try:
        host = urlsplit(candidate).hostname or ""
    except ValueError:
        return raw
    if host == "localhost" or ("." in host and not host.startswith(".") and "@" not in raw):
        return candidate
    return raw


def check_title(title: str) -> str:
    """The title as sent: trimmed, at most 256 bytes (MED-11). Empty means "use the host"."""
    text = title.strip()
    if len(text.encode("utf-8")) > TITLE_MAX_BYTES:
        raise DeckInputError(msgid("media.error.title_too_long"), limit=TITLE_MAX_BYTES)
    return text


def title_for(title: str, url: CheckedUrl) -> str:
    """The typed title, or the URL's host name: never the whole URL."""
    text = check_title(title)
    if text:
        return text
    host = url.host
    # A host name is at most 253 bytes; an IDN in Unicode form could be longer than the limit.
    while len(host.encode("utf-8")) > TITLE_MAX_BYTES:
        host = host[:-1]
    return host


__all__ = [
    "SECRET_MAX_BYTES",
    "STREAM_SCHEMES",
    "TITLE_MAX_BYTES",
    "URL_MAX_BYTES",
    "CheckedUrl",
    "DeckInputError",
    "check_title",
    "check_url",
    "title_for",
]
