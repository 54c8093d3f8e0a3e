"""The media namespace's limits and the checks of one request's fields.

Field types are a matter of shape (-32602); lengths, ranges and formats are domain errors
named by the spec. An option newer than the client's announced version is ignored like an
unknown field (docs/protocol-notes.md#r23), before its type is even looked at.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Final

from vrosdev.redact import is_url

from .errors import MediaDomainError, MediaParamsError
from .versions import (
    CONTROLS_ON_PLAYER_SINCE,
    NATIVE_CONTROLS_SINCE,
    ClientVersion,
)

__all__ = [
    "MAX_KEY_BYTES",
    "MAX_SESSIONS",
    "MAX_TITLE_BYTES",
    "MAX_URL_BYTES",
    "OPTION_RULES",
    "OptionRule",
    "check_key",
    "check_options",
    "check_title",
    "check_url",
    "optional_str",
    "read_options",
    "required_str",
]

MAX_KEY_BYTES: Final = 64  # MED-9
MAX_URL_BYTES: Final = 8 * 1024  # MED-11
MAX_TITLE_BYTES: Final = 256  # MED-11
MAX_SESSIONS: Final = 4  # MED-14: across all extensions together

_KEY: Final = re.compile(r"[a-z0-9-]+")


@dataclass(frozen=True, slots=True)
class OptionRule:
    name: str
    kind: type[bool] | type[int]
    default: bool | int
    low: int | None = None
    high: int | None = None
    since: ClientVersion | None = None


# MED-8 defaults, MED-13 ranges.
OPTION_RULES: Final[tuple[OptionRule, ...]] = (
    OptionRule("max_fps", int, 30, 1, 120),
    OptionRule("volume_pct", int, 100, 0, 100),
    OptionRule("muted", bool, False),
    OptionRule("paused", bool, False),
    OptionRule("show_video", bool, True),
    OptionRule("native_controls", bool, False, since=NATIVE_CONTROLS_SINCE),
    OptionRule("controls_on_player", bool, False, since=CONTROLS_ON_PLAYER_SINCE),
)


def required_str(params: Mapping[str, Any], name: str) -> str:
    value = params.get(name)
    if not isinstance(value, str):
        raise MediaParamsError(f"media: `{name}` must be a string")
    return value


def optional_str(params: Mapping[str, Any], name: str) -> str | None:
    value = params.get(name)
    if value is None:
        return None
    if not isinstance(value, str):
        raise MediaParamsError(f"media: `{name}` must be a string")
    return value


def check_key(key: str) -> None:
    if len(key.encode()) > MAX_KEY_BYTES or _KEY.fullmatch(key) is None:
        raise MediaDomainError("invalid_key", f"key must be 1-{MAX_KEY_BYTES} bytes of [a-z0-9-]")


def check_url(url: str) -> None:
    """The message never repeats the URL (MED-12)."""
    if len(url.encode()) > MAX_URL_BYTES:
        raise MediaDomainError("invalid_url", f"url is longer than {MAX_URL_BYTES} bytes")
    if not is_url(url):
        raise MediaDomainError("invalid_url", "url is not a URL with a scheme")


def check_title(title: str) -> None:
    if len(title.encode()) > MAX_TITLE_BYTES:
        raise MediaDomainError("invalid_value", f"title is longer than {MAX_TITLE_BYTES} bytes")


def _is_kind(value: Any, kind: type[bool] | type[int]) -> bool:
    if kind is bool:
        return isinstance(value, bool)
    return isinstance(value, int) and not isinstance(value, bool)


def read_options(params: Mapping[str, Any], version: ClientVersion) -> dict[str, bool | int]:
    """The options present in ``params`` that the client's version knows, type-checked only."""
    found: dict[str, bool | int] = {}
    for rule in OPTION_RULES:
        value = params.get(rule.name)
        if value is None or (rule.since is not None and version < rule.since):
            continue
        if not _is_kind(value, rule.kind):
            raise MediaParamsError(f"media: `{rule.name}` must be {rule.kind.__name__}")
        found[rule.name] = value
    return found


def check_options(found: Mapping[str, bool | int], *, for_set: bool) -> None:
    """Ranges and the set rule, all checked before any option is applied."""
    if for_set and "native_controls" in found:
        # MED-4, docs/protocol-notes.md#r23: native_controls is chosen at open and cannot be
        # changed.
        raise MediaDomainError("invalid_value", "native_controls cannot be changed by set")
    for rule in OPTION_RULES:
        value = found.get(rule.name)
        if value is None or rule.low is None or rule.high is None:
            continue
        if not rule.low <= value <= rule.high:
            raise MediaDomainError(
                "invalid_value", f"{rule.name} must be {rule.low}-{rule.high}, got {value}"
            )
