"""bus (BUS-1 … BUS-10). The own prefix ``ext.<id>.`` is always allowed; anything else must
match the *granted* bus patterns (docs/protocol-notes.md#r10). Subscribing to
``vr.lifecycle`` yields ``vr_lifecycle`` events instead of ``bus`` events (BUS-9)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .. import shapes as S
from ..errors import DomainErr

if TYPE_CHECKING:
    from ..core import Connection, ExtensionHost

LIFECYCLE = "vr.lifecycle"


def topic_matches(pattern: str, topic: str) -> bool:
    """docs/protocol-notes.md#r10: equal, or ``pattern`` ends in ``.*`` and ``topic`` starts with
    what precedes ``*``."""
    if pattern.endswith(".*"):
        return topic.startswith(pattern[:-1])
    return pattern == topic


def pattern_within(pattern: str, allowed: str) -> bool:
    """A requested pattern is within a granted one when every topic it matches is matched."""
    if allowed.endswith(".*"):
        return pattern.startswith(allowed[:-1]) and pattern != allowed[:-1]
    return pattern == allowed


def _valid_pattern(pattern: str) -> bool:
    body = pattern[:-2] if pattern.endswith(".*") else pattern
    return bool(body) and "*" not in body and not body.startswith(".") and not body.endswith(".")


def install(host: ExtensionHost) -> None:
    own = f"ext.{host.config.ext_id}."

    def allowed(pattern: str) -> bool:
        if pattern.startswith(own) and pattern != own:
            return True
        return any(pattern_within(pattern, g) for g in host.config.granted.get("bus", []))

    async def handle(conn: Connection, req: Any) -> dict[str, Any]:
        subs: set[str] = conn.data.setdefault("bus", set())
        match req:
            case S.BusPublish(topic=topic, payload=payload):
                if topic.endswith(".*") or not _valid_pattern(topic):
                    raise DomainErr("not_allowed", f"{topic!r} is not a topic")
                if not allowed(topic):
                    host.violation("BUS-5", f"publish to {topic!r} outside the grant")
                    raise DomainErr("not_allowed", f"{topic!r} is outside ext.<id>. and the grant")
                await deliver(host, topic, payload)
                return {"result": "ok"}
            case S.BusSubscribe(pattern=pattern):
                if not _valid_pattern(pattern):
                    raise DomainErr("not_allowed", f"{pattern!r} is neither a topic nor a prefix.*")
                if not allowed(pattern):
                    host.violation("BUS-5", f"subscribe to {pattern!r} outside the grant")
                    raise DomainErr(
                        "not_allowed", f"{pattern!r} is outside ext.<id>. and the grant"
                    )
                subs.add(pattern)
                return {"result": "ok"}
            case S.BusUnsubscribe(pattern=pattern):
                subs.discard(pattern)
                return {"result": "ok"}
            case _:
                raise DomainErr("internal")

    host.register("bus", "1.0", None, handle)


async def deliver(host: ExtensionHost, topic: str, payload: Any) -> bool:
    """Send a bus message to the live connection if it subscribed to a matching pattern."""
    conn = host.connection
    if conn is None:
        return False
    subs: set[str] = conn.data.get("bus", set())
    if not any(topic_matches(p, topic) for p in subs):
        return False
    if topic == LIFECYCLE:
        state = payload.get("state") if isinstance(payload, dict) else payload
        return await conn.emit({"event": "vr_lifecycle", "state": state})
    return await conn.emit({"event": "bus", "topic": topic, "payload": payload})
