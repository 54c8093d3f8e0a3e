"""bus: publish and subscribe between extensions and vrOS (VXP BUS-1 … BUS-10).

No capability: the own prefix ``ext.<id>.`` is always allowed; other topics are checked by the
host against ``granted.bus`` (docs/protocol-notes.md#r10), answered with ``not_allowed``.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import Field, Tag, field_validator

from ._base import Inbound, Outbound, domain_error, tag_of

NAMESPACE = "bus"
CAPABILITY: str | None = None
SINCE = "1.0"


def _check_topic(topic: str) -> str:
    if not topic or "*" in topic:
        raise domain_error("not_allowed", f"bus topic {topic!r} must be non-empty, without '*'")
    return topic


def _check_pattern(pattern: str) -> str:
    """A topic, or a prefix ending in ``.*`` (BUS-6)."""
    stem = pattern.removesuffix(".*")
    if not stem or "*" in stem:
        raise domain_error(
            "not_allowed", f"bus pattern {pattern!r} must be a topic or a prefix ending in '.*'"
        )
    return pattern


# --- requests -------------------------------------------------------------------------------


class BusPublish(Outbound):
    op: Literal["publish"] = "publish"
    topic: str
    payload: Any

    _topic = field_validator("topic")(_check_topic)


class BusSubscribe(Outbound):
    op: Literal["subscribe"] = "subscribe"
    pattern: str

    _pattern = field_validator("pattern")(_check_pattern)


class BusUnsubscribe(Outbound):
    op: Literal["unsubscribe"] = "unsubscribe"
    pattern: str

    _pattern = field_validator("pattern")(_check_pattern)


BusRequest = Annotated[
    Annotated[BusPublish, Tag("publish")]
    | Annotated[BusSubscribe, Tag("subscribe")]
    | Annotated[BusUnsubscribe, Tag("unsubscribe")],
    Field(discriminator="op"),
]

# --- responses ------------------------------------------------------------------------------


class BusOk(Inbound):
    result: Literal["ok"]


class BusErr(Inbound):
    result: Literal["err"]
    code: str
    message: str | None = None


class BusUnknown(Inbound):
    result: str


BusResponse = Annotated[
    Annotated[BusOk, Tag("ok")]
    | Annotated[BusErr, Tag("err")]
    | Annotated[BusUnknown, Tag("unknown")],
    tag_of("result", BusOk, BusErr),
]

ERROR_CODES = frozenset({"not_allowed", "internal"})
