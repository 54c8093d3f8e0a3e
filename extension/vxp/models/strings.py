"""strings: locale-resolved text from vrOS's catalog (VXP STR-1 … STR-6). Since 1.1.

Only keys under ``ext.`` exist, and an extension's own prefix yields nothing (STR-3): ship your
own translations and treat this as a source of vrOS's wording only.
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import Field, Tag, field_validator

from ._base import Inbound, Outbound, domain_error, tag_of

NAMESPACE = "strings"
CAPABILITY: str | None = None
SINCE = "1.1"
ALLOWED_PREFIX = "ext."  # STR-2
FALLBACK_LOCALE = "en-US"  # STR-4

# --- requests -------------------------------------------------------------------------------


class StringsGet(Outbound):
    op: Literal["get"] = "get"
    prefix: str
    locale: str | None = None

    @field_validator("prefix")
    @classmethod
    def _prefix(cls, prefix: str) -> str:
        if not prefix.startswith(ALLOWED_PREFIX):
            raise domain_error(
                "prefix_not_allowed", f"strings prefix {prefix!r} must start with 'ext.' (STR-2)"
            )
        return prefix


StringsRequest = Annotated[Annotated[StringsGet, Tag("get")], Field(discriminator="op")]

# --- responses ------------------------------------------------------------------------------


class Strings(Inbound):
    """``locale`` is the one actually returned: ``en-US`` for an unknown locale (STR-4).

    ``entries`` maps key to text (docs/protocol-notes.md#r20).
    """

    result: Literal["strings"]
    locale: str = FALLBACK_LOCALE
    entries: dict[str, str] = Field(default_factory=dict[str, str])


class StringsErr(Inbound):
    result: Literal["err"]
    code: str
    message: str | None = None


class StringsUnknown(Inbound):
    result: str


StringsResponse = Annotated[
    Annotated[Strings, Tag("strings")]
    | Annotated[StringsErr, Tag("err")]
    | Annotated[StringsUnknown, Tag("unknown")],
    tag_of("result", Strings, StringsErr),
]

ERROR_CODES = frozenset({"prefix_not_allowed", "internal"})
