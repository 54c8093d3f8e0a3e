"""secrets: named slots in the OS credential store (VXP SEC-1 … SEC-11). Requires ``secrets``.

A secret value never reaches a repr or an error message: the fields are ``repr=False``, the
models hide their input in validation errors, and the size check names sizes only (SEC-8).
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import ConfigDict, Field, Tag, field_validator

from ..limits import SECRET_MAX_BYTES
from . import _checks
from ._base import Inbound, Outbound, tag_of

NAMESPACE = "secrets"
CAPABILITY: str | None = "secrets"
SINCE = "1.0"

_HIDDEN = ConfigDict(hide_input_in_errors=True)

# --- requests -------------------------------------------------------------------------------


class SecretSet(Outbound):
    model_config = _HIDDEN

    op: Literal["set"] = "set"
    slot: str
    value: str = Field(repr=False)

    @field_validator("value")
    @classmethod
    def _value_size(cls, value: str) -> str:
        return _checks.max_bytes(value, SECRET_MAX_BYTES, "secret value", "too_large")


class SecretGet(Outbound):
    op: Literal["get"] = "get"
    slot: str


class SecretDelete(Outbound):
    op: Literal["delete"] = "delete"
    slot: str


class SecretExists(Outbound):
    op: Literal["exists"] = "exists"
    slot: str


SecretsRequest = Annotated[
    Annotated[SecretSet, Tag("set")]
    | Annotated[SecretGet, Tag("get")]
    | Annotated[SecretDelete, Tag("delete")]
    | Annotated[SecretExists, Tag("exists")],
    Field(discriminator="op"),
]

# --- responses ------------------------------------------------------------------------------


class SecretOk(Inbound):
    result: Literal["ok"]


class SecretValue(Inbound):
    """``value`` is None for an empty slot (SEC-4)."""

    model_config = _HIDDEN

    result: Literal["value"]
    value: str | None = Field(default=None, repr=False)


class SecretExistence(Inbound):
    result: Literal["exists"]
    exists: bool


class SecretErr(Inbound):
    result: Literal["err"]
    code: str
    message: str | None = None


class SecretUnknown(Inbound):
    result: str


SecretsResponse = Annotated[
    Annotated[SecretOk, Tag("ok")]
    | Annotated[SecretValue, Tag("value")]
    | Annotated[SecretExistence, Tag("exists")]
    | Annotated[SecretErr, Tag("err")]
    | Annotated[SecretUnknown, Tag("unknown")],
    tag_of("result", SecretOk, SecretValue, SecretExistence, SecretErr),
]

ERROR_CODES = frozenset({"not_persistable", "too_large", "internal"})
