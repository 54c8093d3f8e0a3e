"""Per-sound preferences in vrOS's kv store: kept in memory, written coalesced, by folder.

The records' shape in kv is :mod:`.records`': a folder's sounds share a few keys (its pages),
so 10,000 sounds with every setting stay under the 1 MiB soft quota. A change is written
:data:`FLUSH_DELAY_S` after it (a :class:`Wake`), together with whatever changed meanwhile: one
write per changed page, however many of its sounds changed. A page is written whole, so a crash
mid-save loses at most the changes not yet written. Records of the first schema are read, written
again as pages, and their keys deleted once the pages are written.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import replace
from typing import Any

from vxp.models import kv

from .effects import Effect, Log, Wake
from .records import (
    HASH_PREFIX,
    MODES,
    NO_PREFS,
    PATH_PREFIX,
    TARGETS,
    SoundPrefs,
    folder_of,
    key_for,
    kv_bytes_of,
    page_key,
    pages_for,
    parse_page_key,
    read_page,
    rel_of,
)
from .tracker import Outcome, Tracker

__all__ = ["MODES", "TARGETS", "Prefs", "SoundPrefs", "key_for"]

SCHEMA_KEY = "schema"
SCHEMA_VERSION = 2
FLUSH_DELAY_S = 0.5
LOAD_WINDOW = 16  # kv gets in flight at once while loading
WAKE = "prefs.flush"
RENDERED = ("trim_start_ms", "trim_end_ms", "fade_in_ms", "fade_out_ms", "mode")
"""The fields a sound's rendered file depends on (core/render.py); the mode last."""


class Prefs:
    """Every record in memory, read from kv once, and a coalescing writer back to it."""

    def __init__(self, tracker: Tracker, on_loaded: Callable[[float], list[Effect]]) -> None:
        self._tracker = tracker
        self._on_loaded = on_loaded
        self.prefs: dict[str, SoundPrefs] = {}
        self._dirty: set[str] = set()  # folders whose pages are to be written
        self._pages: dict[str, int] = {}  # folder -> how many of its pages kv may hold
        self._legacy: dict[str, set[str]] = {}  # folder -> first-schema keys to delete
        self._from_legacy: set[str] = set()  # sounds read from a first-schema key
        self._bytes: dict[str, int] = {}  # folder -> what its pages take in kv
        self._measure: set[str] = set()  # folders whose pages changed since they were measured
        self._writing = 0
        self._flush_at: float | None = None
        self._to_read: list[str] = []
        self._reading = 0
        self.loaded = False
        self.loading = False
        self.over_quota = False
        # Told when a record's play count or last-played time changed, with the record before.
        self.counts_changed: Callable[[str, SoundPrefs], None] | None = None
        # Told when a field the rendered file depends on changes: it renders and loads again.
        self.edited: Callable[[str, float], list[Effect]] | None = None

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
        legacy = [k for k in keys if k.startswith((PATH_PREFIX, HASH_PREFIX))]
        if SCHEMA_KEY not in keys or legacy:
            out += self._tracker.request(
                now, "kv", kv.KvSet, expect=kv.KvWritten, key=SCHEMA_KEY, value=SCHEMA_VERSION
            )
        pages: list[str] = []
        for key in keys:
            parsed = parse_page_key(key)
            if parsed is None:
                continue
            pages.append(key)
            folder, n = parsed
            if folder is not None:  # so that it is deleted when no longer needed, read or not
                self._pages[folder] = max(self._pages.get(folder, 0), n + 1)
        self._to_read = legacy + pages  # popped from the end: pages are read first
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
            self._from_legacy.clear()
            if self._dirty and self._flush_at is None:  # records read in the first schema
                self._flush_at = now + FLUSH_DELAY_S
                out.append(Wake(WAKE, self._flush_at))
            out += self._edits_read(now) + self._on_loaded(now)
        return out

    def _got(self, key: str) -> Callable[[Outcome], list[Effect]]:
        def done(outcome: Outcome) -> list[Effect]:
            self._reading -= 1
            if outcome.ok:
                self._adopt(key, outcome.result.value)
            return self._read_more(outcome.now)

        return done

    def _adopt(self, key: str, value: Any) -> None:
        """A change made while loading wins over what is read; a page over a first-schema key."""
        parsed = parse_page_key(key)
        if parsed is not None:
            page = read_page(parsed[0], value)
            if page is None:
                return
            folder, records = page
            self._pages[folder] = max(self._pages.get(folder, 0), parsed[1] + 1)
            self._measure.add(folder)
            for name, prefs in records.items():
                rel = rel_of(folder, name)
                if rel not in self.prefs or rel in self._from_legacy:
                    self.prefs[rel] = prefs
                    self._from_legacy.discard(rel)
            return
        rel = key[len(PATH_PREFIX) :] if key.startswith(PATH_PREFIX) else None
        if rel is None and isinstance(value, dict):
            record: dict[str, Any] = value  # pyright: ignore[reportUnknownVariableType]
            path = record.get("p")
            rel = path if isinstance(path, str) else None
        if rel is None:
            return
        folder = folder_of(rel)[0]
        self._measure.add(folder)
        self._legacy.setdefault(folder, set()).add(key)
        self._dirty.add(folder)
        if rel not in self.prefs:
            self.prefs[rel] = SoundPrefs.from_record(value)
            self._from_legacy.add(rel)

    def _edits_read(self, now: float) -> list[Effect]:
        """A sound loaded before its edit was read is loaded again as edited."""
        if self.edited is None:
            return []
        out: list[Effect] = []
        for rel, prefs in self.prefs.items():
            if any(getattr(prefs, name) != getattr(NO_PREFS, name) for name in RENDERED[:-1]):
                out += self.edited(rel, now)
        return out

    # -- the records ----------------------------------------------------------------------

    def get(self, rel_path: str) -> SoundPrefs:
        return self.prefs.get(rel_path, NO_PREFS)

    def update(self, rel_path: str, now: float, **changes: Any) -> list[Effect]:
        before = self.get(rel_path)
        self.prefs[rel_path] = after = replace(before, **changes)
        if self.counts_changed is not None and ("plays" in changes or "last_played" in changes):
            self.counts_changed(rel_path, before)
        self._from_legacy.discard(rel_path)
        self._dirty.add(folder_of(rel_path)[0])
        self._measure.add(folder_of(rel_path)[0])
        out: list[Effect] = []
        if self._flush_at is None:
            self._flush_at = now + FLUSH_DELAY_S
            out.append(Wake(WAKE, self._flush_at))
        if self.edited is not None and any(
            getattr(before, name) != getattr(after, name) for name in RENDERED
        ):
            out += self.edited(rel_path, now)
        return out

    @property
    def pending(self) -> int:
        """Folders changed and writes not yet answered."""
        return len(self._dirty) + self._writing

    def on_tick(self, now: float) -> list[Effect]:
        self._flush_at = None
        return self.flush(now)

    def flush(self, now: float) -> list[Effect]:
        """Write every dirty folder now: its pages (the last first, so that page 0, rewritten
        last, still holds a record until the page taking it over is written), then delete the
        pages it no longer needs and, once all is written, its first-schema keys."""
        out: list[Effect] = []
        dirty, self._dirty = self._dirty, set()  # a write refused at once is dirty again
        if not dirty:
            return out
        by_folder: dict[str, dict[str, SoundPrefs]] = {f: {} for f in dirty}
        for rel, prefs in self.prefs.items():
            folder, name = folder_of(rel)
            if folder in by_folder:
                by_folder[folder][name] = prefs
        for folder in sorted(dirty):
            out += self._write_folder(folder, by_folder[folder], now)
        return out

    def _write_folder(
        self, folder: str, records: dict[str, SoundPrefs], now: float
    ) -> list[Effect]:
        pages = pages_for(folder, records)
        stale = range(len(pages), self._pages.get(folder, 0))
        self._pages[folder] = max(len(pages), self._pages.get(folder, 0))
        batch = _Batch(self, folder, len(pages) + len(stale), len(pages))
        out: list[Effect] = []
        for n in reversed(range(len(pages))):
            out += self._send(now, batch, kv.KvSet, kv.KvWritten, key=page_key(folder, n),
                              value=pages[n])  # fmt: skip
        for n in stale:
            out += self._send(now, batch, kv.KvDelete, kv.KvDeleted, key=page_key(folder, n))
        if not pages and not stale:
            out += batch.settled(now)  # nothing of it is in kv: only first-schema keys
        return out

    def _send(self, now: float, batch: _Batch, op: Any, expect: Any, **params: Any) -> list[Effect]:
        self._writing += 1
        return self._tracker.request(now, "kv", op, expect=expect, done=batch.done, **params)

    def _wrote(self, outcome: Outcome) -> Log | None:
        self._writing -= 1
        if outcome.ok:
            if isinstance(outcome.result, kv.KvWritten):
                self.over_quota = outcome.result.over_quota
            return None
        return Log(logging.WARNING, f"a preference was not saved ({outcome.code})")

    def _settled(self, folder: str, ok: bool, pages: int, now: float) -> list[Effect]:
        """A folder's batch answered: on success its first-schema keys go."""
        if not ok:
            self._dirty.add(folder)  # not written: it goes with the next flush
            return []
        if folder not in self._dirty:  # else a later write settles it
            self._pages[folder] = pages
        out: list[Effect] = []
        for key in sorted(self._legacy.pop(folder, set())):
            self._writing += 1
            out += self._tracker.request(
                now, "kv", kv.KvDelete, expect=kv.KvDeleted, done=self._deleted(folder, key),
                key=key,
            )  # fmt: skip
        return out

    def _deleted(self, folder: str, key: str) -> Callable[[Outcome], list[Effect]]:
        def done(outcome: Outcome) -> list[Effect]:
            self._writing -= 1
            if outcome.ok:
                return []
            self._legacy.setdefault(folder, set()).add(key)
            self._dirty.add(folder)
            return [Log(logging.WARNING, f"an old preference was not deleted ({outcome.code})")]

        return done

    def kv_bytes(self) -> int:
        """What the records take in kv, measured as the host does (docs/protocol-notes.md#r30).
        Only the folders changed since the last call are measured again: the dash-tab asks on
        every refresh."""
        if self._measure:
            changed, self._measure = self._measure, set()
            for folder in changed:
                self._bytes[folder] = 0
            for folder, size in kv_bytes_of(
                (rel, p) for rel, p in self.prefs.items() if folder_of(rel)[0] in changed
            ).items():
                self._bytes[folder] = size
        return sum(self._bytes.values())

    def favourites(self) -> dict[str, str]:
        """slug -> rel path."""
        return {p.favourite: rel for rel, p in self.prefs.items() if p.favourite}


class _Batch:
    """One folder's writes of one flush: settled when every one is answered."""

    def __init__(self, prefs: Prefs, folder: str, requests: int, pages: int) -> None:
        self._prefs, self._folder, self._left, self._pages = prefs, folder, requests, pages
        self._ok = True
        self._logged = False

    def done(self, outcome: Outcome) -> list[Effect]:
        self._left -= 1
        out: list[Effect] = []
        log = self._prefs._wrote(outcome)  # pyright: ignore[reportPrivateUsage]
        if log is not None:
            self._ok = False
            if not self._logged:
                self._logged = True
                out.append(log)
        if self._left == 0:
            out += self.settled(outcome.now)
        return out

    def settled(self, now: float) -> list[Effect]:
        return self._prefs._settled(self._folder, self._ok, self._pages, now)  # pyright: ignore[reportPrivateUsage]
