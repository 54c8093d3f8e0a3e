"""kv: a private key/value store (VXP KV-1 … KV-14). No capability needed."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import Field, Tag, field_validator

from ..limits import KV_KEY_MAX_BYTES, KV_VALUE_MAX_BYTES, json_size, utf8_len
from ._base import Inbound, Outbound, domain_error, tag_of

NAMESPACE = "kv"
CAPABILITY: str | None = None
SINCE = "1.0"


def _check_key(key: str) -> str:
    if utf8_len(key) > KV_KEY_MAX_BYTES:
        raise domain_error(
            "key_too_large",
            f"kv key is {utf8_len(key)} bytes; the limit is {KV_KEY_MAX_BYTES} (KV-9)",
        )
    return key


# --- requests -------------------------------------------------------------------------------


class KvGet(Outbound):
    op: Literal["get"] = "get"
    key: str

    _key = field_validator("key")(_check_key)


class KvSet(Outbound):
    op: Literal["set"] = "set"
    key: str
    value: Any

    _key = field_validator("key")(_check_key)

    @field_validator("value")
    @classmethod
    def _value_size(cls, value: Any) -> Any:
        size = json_size(value)
        if size > KV_VALUE_MAX_BYTES:
            raise domain_error(
                "value_too_large",
                f"kv value is {size} bytes; the limit is {KV_VALUE_MAX_BYTES} (KV-10)",
            )
        return value


class KvDelete(Outbound):
    op: Literal["delete"] = "delete"
    key: str

    _key = field_validator("key")(_check_key)


class KvList(Outbound):
    op: Literal["list"] = "list"


KvRequest = Annotated[
    Annotated[KvGet, Tag("get")]
    | Annotated[KvSet, Tag("set")]
    | Annotated[KvDelete, Tag("delete")]
    | Annotated[KvList, Tag("list")],
    Field(discriminator="op"),
]

# --- responses ------------------------------------------------------------------------------


class KvValue(Inbound):
    result: Literal["value"]
    value: Any = None
    revision: Annotated[int, Field(ge=0)] = 0


class KvWritten(Inbound):
    result: Literal["written"]
    revision: Annotated[int, Field(ge=0)]
    over_quota: bool = False


class KvDeleted(Inbound):
    result: Literal["deleted"]


class KvKeys(Inbound):
    result: Literal["keys"]
    keys: list[str]


class KvErr(Inbound):
    result: Literal["err"]
    code: str
    message: str | None = None


class KvUnknown(Inbound):
    result: str


KvResponse = Annotated[
    Annotated[KvValue, Tag("value")]
    | Annotated[KvWritten, Tag("written")]
    | Annotated[KvDeleted, Tag("deleted")]
    | Annotated[KvKeys, Tag("keys")]
    | Annotated[KvErr, Tag("err")]
    | Annotated[KvUnknown, Tag("unknown")],
    tag_of("result", KvValue, KvWritten, KvDeleted, KvKeys, KvErr),
]

ERROR_CODES = frozenset({"key_too_large", "value_too_large", "internal"})
