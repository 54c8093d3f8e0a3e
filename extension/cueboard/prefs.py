"""Per-sound preferences in vrOS's kv store: one key per sound, written coalesced.

A record is keyed by the sound's path relative to the library (``s:<rel path>``), or, when that
would pass kv's 256-byte key limit, by a hash of it (``h:<sha1>``, with the path inside the
value). Values hold only what differs from the defaults, in short field names, so a library of
10,000 sounds each with a custom gain stays far under the 1 MiB soft quota (see the test that
prints the byte count). One key per record means a crash mid-save loses at most that record.
"""

from __future__ import annotations

import hashlib
import logging
from dataclasses import dataclass, replace
from typing import Any, Protocol

import anyio

log = logging.getLogger("cueboard.prefs")

SCHEMA_KEY = "schema"
SCHEMA_VERSION = 1
PATH_PREFIX = "s:"
HASH_PREFIX = "h:"
MAX_KEY_BYTES = 256
FLUSH_DELAY_S = 0.5
DEFAULT_GAIN = 100


@dataclass(frozen=True, slots=True)
class SoundPrefs:
    gain: int = DEFAULT_GAIN  # the sound's own gain, multiplied with the channel's setting
    loop: bool = False
    favourite: str | None = None  # the slug of its fav-<slug> command
    slot: int | None = None  # a fixed slot binding on its page, if any

    @property
    def is_default(self) -> bool:
        return self == SoundPrefs()

    def to_record(self, rel_path: str | None = None) -> dict[str, Any]:
        rec: dict[str, Any] = {}
        if self.gain != DEFAULT_GAIN:
            rec["g"] = self.gain
        if self.loop:
            rec["l"] = 1
        if self.favourite is not None:
            rec["f"] = self.favourite
        if self.slot is not None:
            rec["b"] = self.slot
        if rel_path is not None:
            rec["p"] = rel_path
        return rec

    @classmethod
    def from_record(cls, rec: Any) -> SoundPrefs:
        if not isinstance(rec, dict):
            return cls()
        gain = rec.get("g", DEFAULT_GAIN)
        fav = rec.get("f")
        slot = rec.get("b")
        return cls(
            gain=gain if type(gain) is int and 0 <= gain <= 100 else DEFAULT_GAIN,
            loop=bool(rec.get("l", 0)),
            favourite=fav if isinstance(fav, str) else None,
            slot=slot if type(slot) is int else None,
        )


def key_for(rel_path: str) -> str:
    key = PATH_PREFIX + rel_path
    if len(key.encode("utf-8")) <= MAX_KEY_BYTES:
        return key
    return HASH_PREFIX + hashlib.sha1(rel_path.encode("utf-8")).hexdigest()


class KvStore(Protocol):
    async def get_value(self, key: str) -> Any: ...
    async def set_value(self, key: str, value: Any) -> bool: ...  # returns over_quota
    async def delete(self, key: str) -> None: ...
    async def keys(self) -> list[str]: ...


class PrefsStore:
    """The in-memory view of every record, and a coalescing writer to kv."""

    def __init__(self, kv: KvStore) -> None:
        self.kv = kv
        self.prefs: dict[str, SoundPrefs] = {}
        self._dirty: set[str] = set()
        self._wake = anyio.Event()
        self.over_quota = False
        self.writes = 0

    async def load(self) -> None:
        """Read every record (and migrate, when the schema says so)."""
        keys = await self.kv.keys()
        version = await self.kv.get_value(SCHEMA_KEY) if SCHEMA_KEY in keys else None
        if version is None:
            await self.kv.set_value(SCHEMA_KEY, SCHEMA_VERSION)
        elif version != SCHEMA_VERSION:
            log.warning("prefs schema %r is newer than this Cueboard; reading what it can", version)
        for key in keys:
            if not (key.startswith(PATH_PREFIX) or key.startswith(HASH_PREFIX)):
                continue
            rec = await self.kv.get_value(key)
            rel = key[len(PATH_PREFIX) :] if key.startswith(PATH_PREFIX) else None
            if rel is None and isinstance(rec, dict):
                path = rec.get("p")  # pyright: ignore[reportUnknownMemberType]
                rel = path if isinstance(path, str) else None
            if rel is not None:
                self.prefs[rel] = SoundPrefs.from_record(rec)

    def get(self, rel_path: str) -> SoundPrefs:
        return self.prefs.get(rel_path, SoundPrefs())

    def update(self, rel_path: str, **changes: Any) -> SoundPrefs:
        new = replace(self.get(rel_path), **changes)
        self.prefs[rel_path] = new
        self._dirty.add(rel_path)
        self._wake.set()
        return new

    @property
    def pending(self) -> int:
        return len(self._dirty)

    async def flush(self) -> None:
        """Write every dirty record now, one key each."""
        while self._dirty:
            rel = self._dirty.pop()
            prefs = self.get(rel)
            key = key_for(rel)
            try:
                if prefs.is_default:
                    await self.kv.delete(key)
                else:
                    hashed = key.startswith(HASH_PREFIX)
                    self.over_quota = await self.kv.set_value(
                        key, prefs.to_record(rel if hashed else None)
                    )
            except BaseException:
                self._dirty.add(rel)  # not written: it goes with the next flush
                raise
            self.writes += 1

    async def run(self) -> None:
        """Coalesce: after a change, wait :data:`FLUSH_DELAY_S` for more, then write."""
        while True:
            await self._wake.wait()
            self._wake = anyio.Event()
            await anyio.sleep(FLUSH_DELAY_S)
            await self.flush()

    def kv_bytes(self) -> int:
        """What the records take in kv, measured as the host does (readings R8, R30)."""
        import json

        total = 0
        for rel, prefs in self.prefs.items():
            if prefs.is_default:
                continue
            key = key_for(rel)
            rec = prefs.to_record(rel if key.startswith(HASH_PREFIX) else None)
            total += len(key.encode()) + len(json.dumps(rec, separators=(",", ":")).encode())
        return total

    def favourites(self) -> dict[str, str]:
        """slug -> rel path."""
        return {p.favourite: rel for rel, p in self.prefs.items() if p.favourite}
