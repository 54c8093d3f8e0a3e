"""vrOS-wide face tracking: sources of every extension, the user's selection, demand, updates.

One hub serves every extension of a vrosdev run (they share ``ExtensionHost.shared``), so a
provider and a reader launched side by side meet as they would in vrOS. The rules and shapes
are docs/face.md's. After every change the hub works out each participant's snapshot and sends
it where it differs from the last one sent, ages aside: updates are complete and coalesced,
and nothing is sent when nothing a participant sees has changed.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from .errors import DomainErr
from .face_rules import MAX_AGE_MS, MAX_IN_VROS, MAX_PER_EXTENSION, Sample, Source

if TYPE_CHECKING:
    from .core import Connection, ExtensionHost

PARTS = ("eyes", "mouth")
GRANTS = {"provide": "face_provide", "read": "face_read"}


@dataclass
class Latest:
    sequence: int
    age_ms: float
    received: float  # time.monotonic() when published
    data: dict[str, Any]


@dataclass
class Registered:
    conn: Connection
    ext_id: str
    source: Source
    generation: int
    last_sequence: int | None = None
    latest: dict[str, Latest] = field(default_factory=dict[str, Latest])


type Key = tuple[str, str]  # (extension id, source id)


class FaceHub:
    def __init__(self) -> None:
        self.hosts: dict[str, ExtensionHost] = {}
        self.sources: dict[Key, Registered] = {}
        self.generations: dict[Key, int] = {}
        self.selection: dict[str, Key | None] = dict.fromkeys(PARTS)
        self.readers: dict[Connection, dict[str, bool]] = {}
        self.participants: set[Connection] = set()
        self.last_sent: dict[Connection, Any] = {}

    # -- grants (docs/face.md "Who is who") ---------------------------------------------------

    @staticmethod
    def grants(conn: Connection) -> dict[str, bool]:
        """The face grants of this connection: fixed at hello, only ever revoked
        (docs/protocol-notes.md#r6)."""
        found: dict[str, bool] = conn.data.setdefault(
            "face_grants", {k: conn.host.granted(cap) for k, cap in GRANTS.items()}
        )
        return found

    def require(self, conn: Connection, grant: str, op: str) -> None:
        if not self.grants(conn)[grant]:
            raise DomainErr("not_granted", f"face {op} needs {GRANTS[grant]} (FACE-1)")

    def set_grant(self, ext_id: str, grant: str, on: bool) -> str:
        """The user switches a grant; off applies at once, on from the next hello
        (docs/protocol-notes.md#r6)."""
        host = self.hosts.get(ext_id)
        if host is None:
            raise KeyError(ext_id)
        host.config.granted[GRANTS[grant]] = on
        conn = host.connection
        if on or conn is None:
            return "from the next hello" if on else "off"
        self.grants(conn)[grant] = False
        if grant == "provide":
            for key in [k for k, r in self.sources.items() if r.conn is conn]:
                self._remove(key)
        else:
            self.readers.pop(conn, None)
        return "off at once"

    # -- providers ----------------------------------------------------------------------------

    def register(self, conn: Connection, source: Source) -> int:
        key = (conn.host.config.ext_id, source.id)
        existing = self.sources.get(key)
        if existing is None:
            mine = sum(1 for r in self.sources.values() if r.conn is conn)
            if mine >= MAX_PER_EXTENSION:
                raise DomainErr("too_many", f"at most {MAX_PER_EXTENSION} sources an extension")
            if len(self.sources) >= MAX_IN_VROS:
                raise DomainErr("too_many", f"vrOS holds at most {MAX_IN_VROS} sources")
        generation = self.generations.get(key, 0) + 1
        self.generations[key] = generation
        self.sources[key] = Registered(conn, key[0], source, generation)
        for part in PARTS:
            if self.selection[part] == key and not source.claims.claims(part):
                self.selection[part] = None
        self.participants.add(conn)
        return generation

    def owned(self, conn: Connection, source_id: str) -> Registered:
        found = self.sources.get((conn.host.config.ext_id, source_id))
        if found is None or found.conn is not conn:
            raise DomainErr("no_such_source", f"no source {source_id!r} registered here")
        return found

    def unregister(self, conn: Connection, source_id: str) -> None:
        found = self.owned(conn, source_id)
        self._remove((found.ext_id, source_id))
        if not any(r.conn is conn for r in self.sources.values()) and conn not in self.readers:
            self.participants.discard(conn)
            self.last_sent.pop(conn, None)

    def _remove(self, key: Key) -> None:
        self.sources.pop(key, None)
        for part in PARTS:
            if self.selection[part] == key:
                self.selection[part] = None

    def publish(self, conn: Connection, source_id: str, generation: int, sample: Sample) -> None:
        """The checks after the sample's own, in docs/face.md's order."""
        found = self.check_generation(conn, source_id, generation)
        key = (found.ext_id, source_id)
        wanted = [p for p in PARTS if p in sample.parts and self.demanded(key, p)]
        if not wanted:
            raise DomainErr("not_demanded", f"nobody asks for {source_id} now (FACE-19)")
        if found.last_sequence is not None and sample.sequence <= found.last_sequence:
            raise DomainErr(
                "out_of_order",
                f"sequence {sample.sequence} after {found.last_sequence} (FACE-21)",
            )
        found.last_sequence = sample.sequence
        now = time.monotonic()
        for part in wanted:
            found.latest[part] = Latest(sample.sequence, sample.age_ms, now, sample.parts[part])

    def check_generation(self, conn: Connection, source_id: str, generation: int) -> Registered:
        found = self.owned(conn, source_id)
        if generation != found.generation:
            raise DomainErr("stale_generation", f"{source_id} is at generation {found.generation}")
        return found

    # -- readers ------------------------------------------------------------------------------

    def subscribe(self, conn: Connection, eyes: bool, mouth: bool) -> None:
        self.readers[conn] = {"eyes": eyes, "mouth": mouth}
        self.participants.add(conn)
        self.last_sent.pop(conn, None)  # a subscribe is always answered with the state

    def unsubscribe(self, conn: Connection) -> None:
        self.readers.pop(conn, None)
        if not any(r.conn is conn for r in self.sources.values()):
            self.participants.discard(conn)
            self.last_sent.pop(conn, None)

    def demanded(self, key: Key, part: str) -> bool:
        """Selected for ``part``, and some reader that can be sent samples wants it."""
        if self.selection[part] != key:
            return False
        return any(
            wants[part] and self.grants(c)["read"] and c.state == "ready"
            for c, wants in self.readers.items()
            if c.client_version.at_least("1.5")
        )

    # -- the user (script steps) -------------------------------------------------------------

    def select(self, part: str, spec: str) -> Key | None:
        """``spec`` is ``none``, ``ID`` or ``EXTENSION/ID``; raises ValueError with the reason."""
        if spec == "none":
            self.selection[part] = None
            return None
        ext_id, _, source_id = spec.rpartition("/")
        matches = [k for k in self.sources if k[1] == source_id and (not ext_id or k[0] == ext_id)]
        if not matches:
            raise ValueError(f"no registered source {spec!r}")
        if len(matches) > 1:
            raise ValueError(f"{source_id!r} is registered by several extensions: name one")
        key = matches[0]
        if not self.sources[key].source.claims.claims(part):
            raise ValueError(f"{spec} claims nothing for the {part}")
        self.selection[part] = key
        return key

    # -- connections ----------------------------------------------------------------------------

    def closed(self, conn: Connection) -> None:
        for key in [k for k, r in self.sources.items() if r.conn is conn]:
            self._remove(key)
        self.readers.pop(conn, None)
        self.participants.discard(conn)
        self.last_sent.pop(conn, None)

    # -- face_update ----------------------------------------------------------------------------

    def snapshot(self, conn: Connection) -> dict[str, Any]:
        """docs/face.md "face_update": what ``conn`` sees now."""
        grants = self.grants(conn)
        wants = self.readers.get(conn, {}) if grants["read"] else {}
        state: dict[str, Any] = {"granted": dict(grants)}
        now = time.monotonic()
        for part in PARTS:
            state[part] = self._part(part, wants.get(part, False), now)
        state["demands"] = [
            {
                "source_id": r.source.id,
                "generation": r.generation,
                "eyes": self.demanded(k, "eyes"),
                "mouth": self.demanded(k, "mouth"),
            }
            for k, r in self.sources.items()
            if r.conn is conn
        ]
        return state

    def _part(self, part: str, reads: bool, now: float) -> dict[str, Any]:
        if not reads:
            return {"kind": "off"}
        key = self.selection[part]
        if key is None:
            return {"kind": "none"}
        out: dict[str, Any] = {"kind": "waiting", "extension": key[0], "source_id": key[1]}
        latest = self.sources[key].latest.get(part)
        if latest is None:
            return out
        age = latest.age_ms + (now - latest.received) * 1000
        if age >= MAX_AGE_MS:
            return out
        out.update(
            kind="sample", sequence=latest.sequence, age_ms=round(age, 1), sample=latest.data
        )
        return out

    def due(self) -> list[tuple[Connection, dict[str, Any]]]:
        """Each participant whose snapshot changed since the last one sent, with it."""
        out: list[tuple[Connection, dict[str, Any]]] = []
        for conn in list(self.participants):
            if conn.state != "ready":
                self.closed(conn)
                continue
            state = self.snapshot(conn)
            key = _without_ages(state)
            if self.last_sent.get(conn) != key:
                self.last_sent[conn] = key
                out.append((conn, state))
            providing = any(r.conn is conn for r in self.sources.values())
            if not providing and conn not in self.readers:
                self.participants.discard(conn)  # the update after a revocation was its last
                self.last_sent.pop(conn, None)
        return out


def _without_ages(state: dict[str, Any]) -> Any:
    return {k: {**v, "age_ms": None} if isinstance(v, dict) else v for k, v in state.items()}
