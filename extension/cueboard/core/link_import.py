"""Importing a sound from a link: what is decided without touching the network or a file.

The link is a credential (it may carry a token in its path or query): it stays a
:class:`vxp.Secret` here, and a failure names at most the link's host, which the user typed
and needs to tell one failing server from another. The download itself is the worker
``cueboard.workers.download``; this module decides whether an import may start, whether a link or a
redirect is acceptable, which audio format the first bytes are, and what the file is called.

A file is accepted when its first bytes are a format the library scan also accepts, and it is
named with an extension the scan recognises, so an imported file is always listed.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Literal, get_args
from urllib.parse import unquote, urljoin, urlsplit

from cueboard.core.i18n import msgid
from vxp.secret import Secret

__all__ = [
    "MAX_IMPORT_BYTES",
    "MAX_REDIRECTS",
    "REASON_KEYS",
    "SNIFF_BYTES",
    "AudioFormat",
    "CancelFetch",
    "CheckedLink",
    "DiscardSound",
    "FetchFailed",
    "FetchProgress",
    "FetchSound",
    "LinkImportError",
    "Reason",
    "SoundFetched",
    "can_import",
    "candidate_names",
    "check_link",
    "content_disposition_name",
    "pick_name",
    "redirect_target",
    "safe_file_name",
    "sniff_audio",
    "start_import",
    "status_reason",
]

MAX_IMPORT_BYTES = 256 * 1024 * 1024  # the most a sound may be (AUD-15)
MAX_REDIRECTS = 5
SNIFF_BYTES = 512  # an Ogg page header with its segment table, then the first packet's magic
LINK_MAX_BYTES = 8 * 1024
STEM_MAX_BYTES = 150  # leaves room for " (NNNN)" and the extension within 255 bytes
DEFAULT_STEM = "sound"

type Reason = Literal[
    "no_grant",
    "invalid_link",
    "not_https",
    "too_many_redirects",
    "not_found",
    "http_error",
    "timeout",
    "network",
    "too_large",
    "not_audio",
    "cannot_write",
    "undecodable",
]
"""Why an import failed. ``no_grant`` and ``undecodable`` (vrOS's ``audio_loaded`` refused the
file) are decided by the caller; the worker raises every other one."""

REASONS: tuple[Reason, ...] = get_args(Reason.__value__)

REASON_KEYS: Mapping[Reason, str] = {
    "no_grant": msgid("import.error.no_grant"),
    "invalid_link": msgid("import.error.invalid_link"),
    "not_https": msgid("import.error.not_https"),
    "too_many_redirects": msgid("import.error.too_many_redirects"),
    "not_found": msgid("import.error.not_found"),
    "http_error": msgid("import.error.http_error"),
    "timeout": msgid("import.error.timeout"),
    "network": msgid("import.error.network"),
    "too_large": msgid("import.error.too_large"),
    "not_audio": msgid("import.error.not_audio"),
    "cannot_write": msgid("import.error.cannot_write"),
    "undecodable": msgid("import.error.undecodable"),
}
"""The catalog key that explains each reason. Parameters: ``{host}``, ``{status}`` (the HTTP
status), ``{limit}`` (MiB for ``too_large``, a count for ``too_many_redirects``), ``{name}``
(the file's name, for ``undecodable``)."""


class LinkImportError(Exception):
    """An import that failed for ``reason``. Its text holds the host at most, never the link."""

    def __init__(self, reason: Reason, *, host: str = "", status: int | None = None) -> None:
        super().__init__(reason, host, status)
        self.reason: Reason = reason
        self.host = host
        self.status = status

    def __str__(self) -> str:
        status = f" (HTTP {self.status})" if self.status is not None else ""
        return f"{self.reason}{' from ' + self.host if self.host else ''}{status}"

    def __repr__(self) -> str:
        return f"LinkImportError({self})"

    def notice_params(self, limit: int | None = None) -> dict[str, str | int]:
        """The parameters of :data:`REASON_KEYS`'s text for this failure."""
        params: dict[str, str | int] = {"host": self.host}
        if self.status is not None:
            params["status"] = self.status
        if self.reason == "too_large":
            params["limit"] = (limit or MAX_IMPORT_BYTES) // (1024 * 1024)
        elif self.reason == "too_many_redirects":
            params["limit"] = limit or MAX_REDIRECTS
        return params


def can_import(granted_network: bool) -> Reason | None:
    """Whether an import may start: downloading needs vrOS's ``network`` grant."""
    return None if granted_network else "no_grant"


@dataclass(frozen=True, slots=True)
class CheckedLink:
    """An https link with a host, kept secret; ``host`` is what a failure may show."""

    url: Secret
    host: str


def check_link(link: str | Secret) -> CheckedLink:
    """The pasted link, trimmed; only ``https://host/...`` passes (before anything connects)."""
    raw = (link.reveal() if isinstance(link, Secret) else link).strip()
    if not raw or len(raw.encode("utf-8")) > LINK_MAX_BYTES or _has_space_or_control(raw):
        raise LinkImportError("invalid_link")
    try:
        parts = urlsplit(raw)
        host = parts.hostname or ""
        parts.port  # noqa: B018 - a malformed port raises here, before any connection
    except ValueError:
        raise LinkImportError("invalid_link") from None
    if not host:
        raise LinkImportError("invalid_link")
    if parts.scheme.lower() != "https":
        raise LinkImportError("not_https", host=host)
    return CheckedLink(Secret(raw), host)


def redirect_target(current: CheckedLink, location: str) -> CheckedLink:
    """Where a redirect leads, resolved against the link it came from; it must be https too."""
    try:
        target = urljoin(current.url.reveal(), location.strip())
    except ValueError:
        raise LinkImportError("network", host=current.host) from None
    try:
        return check_link(target)
    except LinkImportError as error:
        # A redirect the server got wrong is the server's fault, not the user's link.
        reason: Reason = "not_https" if error.reason == "not_https" else "network"
        raise LinkImportError(reason, host=error.host or current.host) from None


def status_reason(status: int) -> Reason | None:
    """What a final (non-redirect) HTTP status means for the import; None is success."""
    if status == 200:
        return None
    if status in (404, 410):
        return "not_found"
    return "http_error"


def _has_space_or_control(text: str) -> bool:
    return any(ch.isspace() or unicodedata.category(ch)[0] == "C" for ch in text)


# -- the audio format -------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class AudioFormat:
    name: str
    extensions: tuple[str, ...]  # the first is the one a file without a fitting one gets


WAV = AudioFormat("wav", (".wav", ".wave"))
FLAC = AudioFormat("flac", (".flac",))
OGG = AudioFormat("ogg", (".ogg", ".oga"))
OPUS = AudioFormat("opus", (".opus", ".ogg"))
MP3 = AudioFormat("mp3", (".mp3",))
FORMATS = (WAV, FLAC, OGG, OPUS, MP3)
# Extensions that claim some audio format: replaced, not kept, when the bytes say another one.
AUDIO_EXTENSIONS = frozenset(
    {ext for f in FORMATS for ext in f.extensions} | {".m4a", ".aac", ".wma", ".aif", ".aiff"}
)


def sniff_audio(head: bytes) -> AudioFormat | None:
    """The format of a file from its first :data:`SNIFF_BYTES` bytes, or None.

    Stricter than the library scan's own test (an MPEG frame header must have a valid layer,
    bit rate and sample rate, which also turns away ADTS AAC), never looser: whatever passes
    here, the scan lists.
    """
    if head[:4] == b"RIFF" and head[8:12] == b"WAVE":
        return WAV
    if head[:4] == b"fLaC":
        return FLAC
    if head[:4] == b"OggS":
        if len(head) > 26:
            start = 27 + head[26]  # past the segment table: the first packet
            if head[start : start + 8] == b"OpusHead":
                return OPUS
        return OGG
    if head[:3] == b"ID3":
        return MP3
    if len(head) >= 3 and head[0] == 0xFF and head[1] & 0xE0 == 0xE0:
        version, layer = (head[1] >> 3) & 3, (head[1] >> 1) & 3
        bitrate, rate = head[2] >> 4, (head[2] >> 2) & 3
        if version != 1 and layer != 0 and bitrate != 15 and rate != 3:
            return MP3
    return None


# -- the file name ----------------------------------------------------------------------------

_TOKEN = r"[!#$%&'*+.^_`|~0-9A-Za-z-]+"
_PARAM = re.compile(rf'(?:^|;)\s*({_TOKEN})\s*=\s*("(?:[^"\\]|\\.)*"|[^;]*)')
_QUOTED_PAIR = re.compile(r"\\(.)")
_WINDOWS_FORBIDDEN = frozenset('<>:"/\\|?*')
_WINDOWS_RESERVED = frozenset(
    {"con", "prn", "aux", "nul", "conin$", "conout$"}
    | {f"{dev}{n}" for dev in ("com", "lpt") for n in [*"123456789", "¹", "²", "³"]}
)


def content_disposition_name(value: str) -> str | None:
    """The file name a ``Content-Disposition`` header offers (RFC 6266), unsanitised:
    ``filename*`` (RFC 5987, UTF-8 or ISO-8859-1) first, then ``filename``."""
    params: dict[str, str] = {}
    for match in _PARAM.finditer(value):
        raw = match.group(2).strip()
        if len(raw) >= 2 and raw[0] == raw[-1] == '"':
            raw = _QUOTED_PAIR.sub(r"\1", raw[1:-1])
        params.setdefault(match.group(1).lower(), raw)
    extended = params.get("filename*")
    if extended:
        charset, _, rest = extended.partition("'")
        _, quote, encoded = rest.partition("'")
        if quote and charset.strip().lower() in ("utf-8", "iso-8859-1"):
            try:
                decoded = unquote(encoded, encoding=charset.strip().lower(), errors="strict")
            except UnicodeDecodeError:
                decoded = ""
            if decoded.strip():
                return decoded
    plain = params.get("filename", "").strip()
    return plain or None


def _last_segment(path: str) -> str:
    segments = [s for s in path.split("/") if s]
    return unquote(segments[-1]) if segments else ""


def pick_name(disposition: str | None, paths: Sequence[str]) -> str | None:
    """The name to sanitise: the server's ``Content-Disposition``; else the last segment of the
    first path along the redirect chain (pasted link first) that ends in an audio extension;
    else the last segment of the final path. ``paths`` are URL paths without their query, which
    never names a file (it is where tokens live)."""
    if disposition:
        offered = content_disposition_name(disposition)
        if offered:
            return offered
    names = [_last_segment(p) for p in paths]
    for name in names:
        if _suffix(name) in AUDIO_EXTENSIONS:
            return name
    return names[-1] if names and names[-1] else None


def _suffix(name: str) -> str:
    stem, dot, ext = name.rpartition(".")
    return f".{ext.lower()}" if dot and stem.strip(" .") else ""


def _clip_utf8(text: str, limit: int) -> str:
    return text.encode("utf-8")[:limit].decode("utf-8", errors="ignore")


def safe_file_name(raw: str | None, audio: AudioFormat) -> str:
    """A name that is one plain, visible file on Windows, macOS and Linux, ending in an
    extension of ``audio``: no separators or characters Windows forbids, no control or
    formatting characters (bidi overrides included), no leading dot (the scan skips hidden
    files) or trailing dot or space, no device name, at most :data:`STEM_MAX_BYTES` bytes of
    stem."""
    text = unicodedata.normalize("NFC", raw or "")
    text = "".join(
        "_" if ch in _WINDOWS_FORBIDDEN else ch for ch in text if unicodedata.category(ch)[0] != "C"
    )
    text = " ".join(text.split()).strip(" .")
    ext = _suffix(text)
    if ext in audio.extensions:
        stem = text[: -len(ext)]
    else:
        stem = text[: -len(ext)] if ext in AUDIO_EXTENSIONS else text
        ext = audio.extensions[0]
    stem = _clip_utf8(stem.strip(" ."), STEM_MAX_BYTES).strip(" .") or DEFAULT_STEM
    if stem.split(".")[0].strip().lower() in _WINDOWS_RESERVED:
        stem = f"_{stem}"
    return f"{stem}{ext}"


def candidate_names(name: str) -> Iterator[str]:
    """``name``, then ``stem (2).ext``, ``stem (3).ext``…: an existing file is never replaced."""
    yield name
    stem, dot, ext = name.rpartition(".")
    if not dot:
        stem, ext = name, ""
    n = 2
    while True:
        yield f"{stem} ({n}){dot}{ext}"
        n += 1


# -- the effect the core asks for, and the inputs the worker feeds back ----------------------


@dataclass(frozen=True, slots=True)
class FetchSound:
    """Effect: download ``link`` into the library folder ``category`` (``""``: the root)."""

    ticket: int
    link: CheckedLink
    category: str
    max_bytes: int = MAX_IMPORT_BYTES

    def __repr__(self) -> str:  # the link is a credential: its host at most
        return f"FetchSound(#{self.ticket} from {self.link.host} into {self.category!r})"


@dataclass(frozen=True, slots=True)
class CancelFetch:
    """Effect: stop the download of this ticket. A cancelled download feeds nothing back and
    leaves nothing in the folder."""

    ticket: int


@dataclass(frozen=True, slots=True)
class DiscardSound:
    """Effect: remove a sound this import put in place, after vrOS's ``audio_loaded`` said it
    cannot decode it (``undecodable``). Only ever a path a :class:`SoundFetched` reported."""

    rel_path: str


@dataclass(frozen=True, slots=True)
class FetchProgress:
    """Input: bytes received so far, and the total when the server declared one."""

    ticket: int
    received: int
    total: int | None


@dataclass(frozen=True, slots=True)
class SoundFetched:
    """Input: the sound is in place, at ``rel_path`` (posix, relative to the library root)."""

    ticket: int
    rel_path: str


@dataclass(frozen=True, slots=True)
class FetchFailed:
    """Input: the download failed; nothing of it is left in the folder."""

    ticket: int
    error: LinkImportError


def start_import(
    link: str | Secret, *, granted_network: bool, category: str, ticket: int
) -> FetchSound | LinkImportError:
    """The dash-tab's "import" press: the effect to carry out, or why not (shown at once,
    before anything connects)."""
    refused = can_import(granted_network)
    if refused is not None:
        return LinkImportError(refused)
    try:
        return FetchSound(ticket, check_link(link), category)
    except LinkImportError as error:
        return error
