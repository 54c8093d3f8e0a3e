"""settings: read the manifest's ``[[settings]]`` values (VXP SET-15 … SET-20). Since 1.1.

There is no settings write on the wire: a setting is written with an ordinary ``kv`` ``set``
to the same key (SET-18).
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import Field, Tag, field_validator

from ..limits import SETTING_KEY_RE
from ._base import Inbound, Outbound, domain_error, tag_of

NAMESPACE = "settings"
CAPABILITY: str | None = None
SINCE = "1.1"


def _check_key(key: str) -> str:
    if not SETTING_KEY_RE.fullmatch(key):
        raise domain_error(
            "no_such_key", f"setting key {key!r} must be 1-64 characters of [a-z0-9_-] (SET-12)"
        )
    return key


# --- requests -------------------------------------------------------------------------------


class SettingsGet(Outbound):
    op: Literal["get"] = "get"
    key: str

    _key = field_validator("key")(_check_key)


class SettingsList(Outbound):
    op: Literal["list"] = "list"


SettingsRequest = Annotated[
    Annotated[SettingsGet, Tag("get")] | Annotated[SettingsList, Tag("list")],
    Field(discriminator="op"),
]

# --- responses ------------------------------------------------------------------------------


class SettingEntry(Inbound):
    """The stored value, or the default when nothing is stored (SET-17)."""

    key: str
    value: Any = None
    is_default: bool = False


class SettingsValue(Inbound):
    result: Literal["value"]
    key: str
    value: Any = None
    is_default: bool = False


class SettingsValues(Inbound):
    """``entries`` in manifest order (SET-16)."""

    result: Literal["values"]
    entries: list[SettingEntry] = Field(default_factory=list[SettingEntry])


class SettingsErr(Inbound):
    result: Literal["err"]
    code: str
    message: str | None = None


class SettingsUnknown(Inbound):
    result: str


SettingsResponse = Annotated[
    Annotated[SettingsValue, Tag("value")]
    | Annotated[SettingsValues, Tag("values")]
    | Annotated[SettingsErr, Tag("err")]
    | Annotated[SettingsUnknown, Tag("unknown")],
    tag_of("result", SettingsValue, SettingsValues, SettingsErr),
]

ERROR_CODES = frozenset({"no_such_key", "no_schema", "internal"})
