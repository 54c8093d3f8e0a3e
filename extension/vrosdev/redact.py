"""Keep credentials out of vrosdev's logs and transcripts (T-6, MED-12, secrets).

Every frame vrosdev logs or records passes through :func:`redact_frame` (or a per-connection
:class:`FrameRedactor`), every log line through :func:`redact_text`. Four things are replaced:

- the launch token, wherever it occurs inside any string, by ``<token>``;
- the ``url`` field of ``media`` requests, whatever its value, by ``<url>``;
- every URL with a scheme, anywhere in any string (object keys, ``panel_event`` args, text
  typed into a panel), also inside a longer string, by ``<url>``;
- the ``value`` of ``secrets`` ``set`` requests and of ``secrets`` ``value`` responses by
  ``<secret>``.

What counts as a URL with a scheme (:data:`URL_PATTERN`): a scheme (a letter, then letters,
digits, ``+ . -``) that does not continue a word, followed by ``://`` and at least one
non-space character; or one of the schemes in :data:`OPAQUE_SCHEMES`, which are written
without ``//`` (``mailto:``, ``data:``, ``magnet:``, also ``http:host``), followed by ``:`` and
a non-space character that does not start ``//`` (a bare ``https://`` is not a URL), unless
the scheme follows ``:``, ``/`` or ``_`` (then it is a word of a name such as ``e:file:1``).
The URL runs to the next whitespace.

This keeps asset keys such as ``e:icon:1`` and ``e:file:1``, ids such as ``s-00000001``,
times such as ``12:30``, Windows paths and prose such as ``Note: x``. It does redact a string
that itself looks like a URL (the asset key ``e:https://h/p``, a lone ``data:x``), which errs
on the side of the secret. Scheme-less forms (``www.example.com/live``) are not URLs here.

The launch token is expected to be a random string of 8 characters or more (vrosdev makes
them much longer); shorter or empty tokens are not searched for, because replacing a string
no longer than ``<token>`` could loop or reveal nothing worth hiding.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any, Final

__all__ = [
    "OPAQUE_SCHEMES",
    "SECRET_PLACEHOLDER",
    "TOKEN_PLACEHOLDER",
    "URL_PATTERN",
    "URL_PLACEHOLDER",
    "FrameRedactor",
    "is_url",
    "redact_frame",
    "redact_text",
]

TOKEN_PLACEHOLDER: Final = "<token>"
URL_PLACEHOLDER: Final = "<url>"
SECRET_PLACEHOLDER: Final = "<secret>"
MIN_TOKEN_CHARS: Final = 8  # longer than TOKEN_PLACEHOLDER, so replacement always terminates

# Schemes commonly written without "//": a `scheme:` prefix with one of these is a URL.
OPAQUE_SCHEMES: Final = frozenset(
    {
        "about", "blob", "data", "file", "ftp", "geo", "http", "https", "javascript", "magnet",
        "mailto", "mms", "news", "rtmp", "rtmps", "rtp", "rtsp", "rtsps", "sftp", "sip", "sips",
        "sms", "srt", "tel", "udp", "urn", "ws", "wss", "xmpp",
    }
)  # fmt: skip

_SCHEME_START: Final = r"(?<![A-Za-z0-9+.\-])"
# An opaque scheme inside a colon- or slash-separated name is a word of that name, not a URL:
# the asset key `e:file:1` stays, `e:https://h` does not.
_OPAQUE_START: Final = r"(?<![A-Za-z0-9+.\-:/_])"
_OPAQUE_ALT: Final = "|".join(sorted(OPAQUE_SCHEMES, key=lambda s: (-len(s), s)))
URL_PATTERN: Final = re.compile(
    rf"(?:{_SCHEME_START}[A-Za-z][A-Za-z0-9+.\-]*://|{_OPAQUE_START}(?i:{_OPAQUE_ALT}):(?!//))\S+"
)


def is_url(text: str) -> bool:
    """Whether the whole of ``text`` is a URL with a scheme, by the rule above."""
    return URL_PATTERN.fullmatch(text) is not None


def _usable(token: str | None) -> str | None:
    return token if token is not None and len(token) >= MIN_TOKEN_CHARS else None


def _redact_string(text: str, token: str | None) -> str:
    if token is not None:
        # A replacement can join the text around it into a new occurrence; it always shrinks
        # the text (the token is longer than the placeholder), so this loop ends.
        while token in text:
            text = text.replace(token, TOKEN_PLACEHOLDER)
    if ":" in text:
        text = URL_PATTERN.sub(URL_PLACEHOLDER, text)
    return text


def redact_text(text: str, token: str | None) -> str:
    """A log line with the launch token and every URL replaced."""
    return _redact_string(text, _usable(token))


def _walk(value: Any, token: str | None) -> Any:
    if isinstance(value, str):
        return _redact_string(value, token)
    if isinstance(value, Mapping):
        return {
            _redact_string(str(k), token): _walk(v, token)
            for k, v in value.items()  # pyright: ignore[reportUnknownVariableType]
        }
    if isinstance(value, list | tuple):
        return [_walk(v, token) for v in value]  # pyright: ignore[reportUnknownVariableType]
    return value


def _is_secret_value_result(result: Mapping[str, Any], response_to: str | None) -> bool:
    if result.get("result") != "value" or "value" not in result:
        return False
    if response_to is not None:
        return response_to == "secrets"
    # Without knowing the request, err on the side of the secret: a kv value carries
    # `revision`, a secrets value does not.
    return "revision" not in result


def redact_frame(frame: Any, token: str | None, *, response_to: str | None = None) -> Any:
    """A redacted deep copy of one parsed JSON frame (the input is left untouched).

    ``response_to`` is the namespace of the request this frame answers, when the caller
    knows it; without it a ``value`` result with no ``revision`` is treated as a secret.
    """
    usable = _usable(token)
    out = _walk(frame, usable)
    if not isinstance(out, dict):
        return out
    params = out.get("params")
    if isinstance(params, dict):
        method = out.get("method")
        if method == "media" and "url" in params:
            params["url"] = URL_PLACEHOLDER
        elif method == "secrets" and params.get("op") == "set" and "value" in params:
            params["value"] = SECRET_PLACEHOLDER
    result = out.get("result")
    if (
        isinstance(result, dict)
        and _is_secret_value_result(result, response_to)
        and result["value"] is not None
    ):
        result["value"] = SECRET_PLACEHOLDER
    return out


class FrameRedactor:
    """Redacts one connection's frames, both directions, pairing responses with requests.

    A response does not name its namespace; this remembers the ids of ``secrets`` requests
    so that their ``value`` responses are redacted for certain, and kv values are kept.
    """

    __slots__ = ("_pending", "_token")

    def __init__(self, token: str | None) -> None:
        self._token = token
        self._pending: dict[Any, str] = {}

    def __repr__(self) -> str:
        return f"FrameRedactor(pending={len(self._pending)})"

    def redact(self, frame: Any) -> Any:
        response_to: str | None = None
        if isinstance(frame, Mapping):
            method = frame.get("method")  # pyright: ignore[reportUnknownMemberType]
            frame_id = frame.get("id")  # pyright: ignore[reportUnknownMemberType]
            if isinstance(method, str) and isinstance(frame_id, int):
                self._pending[frame_id] = method
            elif method is None and isinstance(frame_id, int):
                response_to = self._pending.pop(frame_id, None)
        return redact_frame(frame, self._token, response_to=response_to)
