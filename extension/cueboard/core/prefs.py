"""Per-sound preferences in vrOS's kv store: one key per sound, written coalesced.

A record is keyed by the sound's path relative to the library (``s:<rel path>``), or, when that
would pass kv's 256-byte key limit, by a hash of it (``h:<sha1>``, with the path inside the
value). Values hold only what differs from the defaults, in short field names, so a library of
10,000 sounds each with a custom gain stays far under the 1 MiB soft quota. One key per record
means a crash mid-save loses at most that record. A change is written :data:`FLUSH_DELAY_S`
after it (a :class:`Wake`), together with whatever changed meanwhile.
"""

from __future__ import annotations

import hashlib
import json
import logging
import math
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any

from vxp.models import kv

from .effects import Effect, Log, Wake
from .tracker import Outcome, Tracker

__all__ = ["MODES", "Prefs", "SoundPrefs", "key_for"]

SCHEMA_KEY = "schema"
SCHEMA_VERSION = 1
PATH_PREFIX = "s:"
HASH_PREFIX = "h:"
MAX_KEY_BYTES = 256
FLUSH_DELAY_S = 0.5
DEFAULT_GAIN = 100
LOAD_WINDOW = 16  # kv gets in flight at once while loading
WAKE = "prefs.flush"


MODES = ("mix", "toggle", "stop_others", "loop")
"""A sound's play mode; a sound without one follows the global ``overlap`` setting."""


@dataclass(frozen=True, slots=True)
class SoundPrefs:
    gain: int = DEFAULT_GAIN  # the sound's own gain, multiplied with the channel's setting
    mode: str | None = None  # one of MODES; None follows the global overlap setting
    mic_gain: int | None = None  # the sound's own gain into the mic; None: linked to gain
    favourite: str | None = None  # the slug of its fav-<slug> command
    order: float | None = None  # its place in its folder (core/ordering.py); None: the scan's

    @property
    def is_default(self) -> bool:
        return self == SoundPrefs()

    @property
    def own_mic_gain(self) -> int:
        return self.gain if self.mic_gain is None else self.mic_gain

    def to_record(self, rel_path: str | None = None) -> dict[str, Any]:
        rec: dict[str, Any] = {}
        if self.gain != DEFAULT_GAIN:
            rec["g"] = self.gain
        if self.mode is not None:
            rec["m"] = MODES.index(self.mode)
        if self.mic_gain is not None:
            rec["k"] = self.mic_gain
        if self.favourite is not None:
            rec["f"] = self.favourite
        if self.order is not None:
            rec["o"] = int(self.order) if self.order.is_integer() else self.order
        if rel_path is not None:
            rec["p"] = rel_path
        return rec

    @classmethod
    def from_record(cls, rec: Any) -> SoundPrefs:
        """Anything kv holds gives a record: a field out of range or of the wrong type is
        its default. A record of the first schema's loop flag (``l``) reads as loop mode."""
        if not isinstance(rec, dict):
            return cls()
        data: dict[str, Any] = rec  # pyright: ignore[reportUnknownVariableType]
        gain = data.get("g", DEFAULT_GAIN)
        mic = data.get("k")
        mode = data.get("m")
        fav = data.get("f")
        order = data.get("o")
        if type(mode) is int and 0 <= mode < len(MODES):
            own_mode: str | None = MODES[mode]
        else:
            own_mode = "loop" if data.get("l") else None
        return cls(
            gain=gain if _is_pct(gain) else DEFAULT_GAIN,
            mode=own_mode,
            mic_gain=mic if _is_pct(mic) else None,
            favourite=fav if isinstance(fav, str) else None,
            order=_number(order),
        )


def _number(value: Any) -> float | None:
    if type(value) in (int, float) and math.isfinite(value):
        return float(value)
    return None


def _is_pct(value: Any) -> bool:
    return type(value) is int and 0 <= value <= 100


def is_old_record(rec: Any) -> bool:
    """A record that still holds the first schema's loop flag: it is written again."""
    return isinstance(rec, dict) and "l" in rec


def key_for(rel_path: str) -> str:
    key = PATH_PREFIX + rel_path
    if len(key.encode("utf-8")) <= MAX_KEY_BYTES:
        return key
    return HASH_PREFIX + hashlib.sha1(rel_path.encode("utf-8")).hexdigest()


class Prefs:
    """Every record in memory, read from kv once, and a coalescing writer back to it."""

    def __init__(self, tracker: Tracker, on_loaded: Callable[[float], list[Effect]]) -> None:
        self._tracker = tracker
        self._on_loaded = on_loaded
        self.prefs: dict[str, SoundPrefs] = {}
        self._dirty: set[str] = set()
        self._writing = 0
        self._flush_at: float | None = None
        self._to_read: list[str] = []
        self._reading = 0
        self.loaded = False
        self.loading = False
        self.over_quota = False

    # -- reading --------------------------------------------------------------------------

    def load(self, now: float) -> list[Effect]:
        """Read every record once per process (kv outlives connections)."""
        if self.loaded or self.loading:
            return []
        self.loading = True
        return self._tracker.request(now, "kv", kv.KvList, expect=kv.KvKeys, done=self._listed)

    def _listed(self, outcome: Outcome) -> list[Effect]:
        if not outcome.ok:  # read again with the next connection; go on without them meanwhile
            self.loading = False
            return self._on_loaded(outcome.now)
        keys: list[str] = outcome.result.keys
        now = outcome.now
        out: list[Effect] = []
        if SCHEMA_KEY not in keys:
            out += self._tracker.request(
                now, "kv", kv.KvSet, expect=kv.KvWritten, key=SCHEMA_KEY, value=SCHEMA_VERSION
            )
        self._to_read = [k for k in keys if k.startswith((PATH_PREFIX, HASH_PREFIX))]
        return out + self._read_more(now)

    def _read_more(self, now: float) -> list[Effect]:
        out: list[Effect] = []
        while self._to_read and self._reading < LOAD_WINDOW:
            key = self._to_read.pop()
            self._reading += 1
            out += self._tracker.request(
                now, "kv", kv.KvGet, expect=kv.KvValue, done=self._got(key), key=key
            )
        if not self._reading and not self._to_read and self.loading:
            self.loading, self.loaded = False, True
            if self._dirty and self._flush_at is None:  # records read in an older shape
                self._flush_at = now + FLUSH_DELAY_S
                out.append(Wake(WAKE, self._flush_at))
            out += self._on_loaded(now)
        return out

    def _got(self, key: str) -> Callable[[Outcome], list[Effect]]:
        def done(outcome: Outcome) -> list[Effect]:
            self._reading -= 1
            if outcome.ok:
                self._adopt(key, outcome.result.value)
            return self._read_more(outcome.now)

        return done

    def _adopt(self, key: str, rec: Any) -> None:
        rel = key[len(PATH_PREFIX) :] if key.startswith(PATH_PREFIX) else None
        if rel is None and isinstance(rec, dict):
            record: dict[str, Any] = rec  # pyright: ignore[reportUnknownVariableType]
            path = record.get("p")
            rel = path if isinstance(path, str) else None
        if rel is not None and rel not in self.prefs:  # a change made while loading wins
            self.prefs[rel] = SoundPrefs.from_record(rec)
            if is_old_record(rec):
                self._dirty.add(rel)

    # -- the records ----------------------------------------------------------------------

    def get(self, rel_path: str) -> SoundPrefs:
        return self.prefs.get(rel_path, SoundPrefs())

    def update(self, rel_path: str, now: float, **changes: Any) -> list[Effect]:
        self.prefs[rel_path] = replace(self.get(rel_path), **changes)
        self._dirty.add(rel_path)
        if self._flush_at is None:
            self._flush_at = now + FLUSH_DELAY_S
            return [Wake(WAKE, self._flush_at)]
        return []

    @property
    def pending(self) -> int:
        """Records changed and not yet answered ``written``."""
        return len(self._dirty) + self._writing

    def on_tick(self, now: float) -> list[Effect]:
        self._flush_at = None
        return self.flush(now)

    def flush(self, now: float) -> list[Effect]:
        """Write every dirty record now, one key each."""
        out: list[Effect] = []
        dirty, self._dirty = self._dirty, set()  # a write refused at once is dirty again
        for rel in dirty:
            prefs = self.get(rel)
            key = key_for(rel)
            self._writing += 1
            if prefs.is_default:
                out += self._tracker.request(
                    now, "kv", kv.KvDelete, expect=kv.KvDeleted, done=self._wrote(rel), key=key
                )
            else:
                value = prefs.to_record(rel if key.startswith(HASH_PREFIX) else None)
                out += self._tracker.request(
                    now, "kv", kv.KvSet, expect=kv.KvWritten, done=self._wrote(rel),
                    key=key, value=value,
                )  # fmt: skip
        return out

    def _wrote(self, rel: str) -> Callable[[Outcome], list[Effect]]:
        def done(outcome: Outcome) -> list[Effect]:
            self._writing -= 1
            if outcome.ok:
                self.over_quota = bool(getattr(outcome.result, "over_quota", False))
                return []
            self._dirty.add(rel)  # not written: it goes with the next flush
            return [Log(logging.WARNING, f"a preference was not saved ({outcome.code})")]

        return done

    def kv_bytes(self) -> int:
        """What the records take in kv, measured as the host does (docs/protocol-notes.md#r30)."""
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
