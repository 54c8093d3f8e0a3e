"""A board in one file: every per-sound setting and the deck's options, to move to a new PC.

The file is ``cueboard-backup.json`` in ``Cueboard/`` under the vrOS content folder, or in the
sounds folder itself when there is no content folder. It is the only file a restore reads: a
bus message asks for a backup or a restore, never names a path. Deck URLs are credentials and
are never written; the deck's slot titles and options are, for the user's reference, and its
defaults are restored. Sounds are matched by their path relative to the sounds folder; what
did not match is reported, not dropped silently. The file carries a format name and a version:
a file from a newer Cueboard, or one that is not a backup, gets a clear answer, never a crash.

The core decides; the runtime writes the file whole (a temporary file renamed over it) and
reads it back, as :class:`WriteFile` and :class:`ReadFile` jobs.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Callable, Mapping
from dataclasses import replace
from pathlib import Path
from typing import Any, Protocol

from cueboard.core.commands import MAX_FAVOURITES, SLUG_RE, favourite_command
from cueboard.core.contract import StatusLevel

from .effects import Effect, Log, Notice, ReadFile, WriteFile
from .inputs import FileRead, FileWritten
from .link import HostLink
from .prefs import MODES, TARGETS, Prefs, SoundPrefs

__all__ = [
    "BACKUP_NAME",
    "EDIT_MS_MAX",
    "FORMAT",
    "PLAYS_MAX",
    "UNIX_MAX",
    "VERSION",
    "Backup",
    "edit_problem",
]

BACKUP_NAME = "cueboard-backup.json"
FORMAT = "cueboard-backup"
VERSION = 1
UNMATCHED_LISTED = 100  # in a bus reply; the count is always whole
EXPORT, IMPORT = "backup.export", "backup.import"
# What a backup or a bus message may set: a trim point or a fade (ms) within a day, a count and
# a Unix time far beyond any real one, so that a typo is refused rather than stored.
EDIT_MS_MAX = 24 * 3600 * 1000
PLAYS_MAX = 10**9
UNIX_MAX = 2**33  # the year 2242
MIN_TRIMMED_MS = 10  # the shortest trimmed sound, as the dash-tab's editor keeps it


class DeckBackup(Protocol):
    """What a backup reads of the deck, and hands back to it."""

    def backup(self) -> dict[str, Any]: ...

    def restore(self, backup: dict[str, Any]) -> list[Effect]: ...


class Backup:
    """A feature object: its context is the preferences and the deck it saves and restores,
    the connection's facts, and as callables: whether a path is a sound of the library, where
    a bus reply goes, ``register_command``, ``sounds_folder`` and ``changed``."""

    def __init__(
        self,
        prefs: Prefs,
        deck: DeckBackup,
        link: HostLink,
        *,
        has_sound: Callable[[str], bool],
        publish: Callable[[str, dict[str, Any]], None],
        register_command: Callable[..., list[Effect]],
        sounds_folder: Callable[[], Path],
        changed: Callable[[], None],
    ) -> None:
        self._prefs = prefs
        self._has_sound = has_sound
        self._publish = publish
        self._deck = deck
        self._link = link
        self._register_command = register_command
        self._sounds_folder = sounds_folder
        self._changed = changed

    def path(self) -> Path:
        if self._link.content_root:
            return Path(self._link.content_root) / "Cueboard" / BACKUP_NAME
        return self._sounds_folder() / BACKUP_NAME

    def export(self, request_id: str | int | None = None) -> list[Effect]:
        sounds: dict[str, dict[str, Any]] = {}
        for rel, prefs in sorted(self._prefs.prefs.items()):
            if not prefs.is_default:
                sounds[rel] = _sound_entry(prefs)
        deck = self._deck.backup()
        document = {"format": FORMAT, "version": VERSION, "sounds": sounds, "deck": deck}
        text = json.dumps(document, ensure_ascii=False, indent=1, sort_keys=True) + "\n"
        return [WriteFile(self.path(), text, EXPORT, request_id)]

    def restore(self, request_id: str | int | None = None) -> list[Effect]:
        return [ReadFile(self.path(), IMPORT, request_id)]

    def export_pressed(self, now: float) -> list[Effect]:
        return self.export()

    def restore_pressed(self, now: float) -> list[Effect]:
        return self.restore()

    def on_file(self, item: FileWritten | FileRead, now: float) -> list[Effect]:
        if isinstance(item, FileWritten):
            return self._written(item)
        return self._read(item, now)

    def _written(self, item: FileWritten) -> list[Effect]:
        name = BACKUP_NAME
        if item.error is not None:
            self._reply("error", item.request_id, topic="cmd.export", code="io", reason=item.error)
            return [Notice("backup.write_failed", StatusLevel.ERROR, {"file": name})]
        count = sum(1 for p in self._prefs.prefs.values() if not p.is_default)
        self._reply("exported", item.request_id, file=name, sounds=count)
        return [Notice("backup.written", StatusLevel.INFO, {"file": name, "count": count})]

    def _read(self, item: FileRead, now: float) -> list[Effect]:
        name = BACKUP_NAME
        problem = _problem(item)
        document: dict[str, Any] = {}
        if problem is None:
            document, problem = _document(item.text or "")
        if problem is not None:
            key, code = problem
            self._reply("error", item.request_id, topic="cmd.import", code=code, reason=key)
            return [Notice(key, StatusLevel.ERROR, {"file": name})]
        restored, unmatched, out = self._restore(document, now)
        self._reply(
            "imported", item.request_id, restored=restored, unmatched=len(unmatched),
            unmatched_paths=unmatched[:UNMATCHED_LISTED],
        )  # fmt: skip
        level = StatusLevel.WARN if unmatched else StatusLevel.INFO
        params = {"count": restored, "missing": len(unmatched)}
        key = "backup.restored_some" if unmatched else "backup.restored"
        return [*out, Notice(key, level, params), Log(logging.INFO, f"restored {restored} sounds")]

    def _restore(self, document: dict[str, Any], now: float) -> tuple[int, list[str], list[Effect]]:
        sounds: Any = document.get("sounds")
        entries: dict[str, Any] = sounds if isinstance(sounds, dict) else {}  # pyright: ignore[reportUnknownVariableType]
        restored, unmatched, out = 0, list[str](), list[Effect]()
        prefs = self._prefs
        for rel, entry in entries.items():
            if not self._has_sound(rel):
                unmatched.append(rel)
                continue
            wanted = _prefs_of(entry)
            favourite = _free_favourite(prefs.favourites(), wanted.favourite)
            before = prefs.get(rel).favourite
            out += prefs.update(
                rel, now, gain=wanted.gain, mic_gain=wanted.mic_gain, mode=wanted.mode,
                order=wanted.order, favourite=before or favourite, targets=wanted.targets,
                trim_start_ms=wanted.trim_start_ms, trim_end_ms=wanted.trim_end_ms,
                fade_in_ms=wanted.fade_in_ms, fade_out_ms=wanted.fade_out_ms,
                plays=wanted.plays, last_played=wanted.last_played,
            )  # fmt: skip
            if before is None and favourite is not None and self._link.connected:
                name = favourite_command(favourite)
                out += self._register_command(name, now, user_asked=True)
            restored += 1
        deck: Any = document.get("deck")
        if isinstance(deck, dict):
            out += self._deck.restore(deck)  # pyright: ignore[reportUnknownArgumentType]
        self._changed()
        return restored, unmatched, out

    def _reply(self, kind: str, request_id: str | int | None, **payload: Any) -> None:
        if request_id is not None:
            payload["request_id"] = request_id
        self._publish(kind, payload)


def _problem(item: FileRead) -> tuple[str, str] | None:
    if item.error == "missing":
        return "backup.missing", "not_found"
    if item.error is not None:
        return "backup.read_failed", "io"
    return None


def _document(text: str) -> tuple[dict[str, Any], tuple[str, str] | None]:
    try:
        data: Any = json.loads(text)
    except ValueError:
        return {}, ("backup.not_a_backup", "invalid")
    if not isinstance(data, dict):
        return {}, ("backup.not_a_backup", "invalid")
    document: dict[str, Any] = data  # pyright: ignore[reportUnknownVariableType]
    version = document.get("version")
    if document.get("format") != FORMAT or type(version) is not int or version < 1:
        return {}, ("backup.not_a_backup", "invalid")
    if version > VERSION:
        return {}, ("backup.too_new", "unsupported_version")
    return document, None


def _free_favourite(favourites: Mapping[str, str], slug: str | None) -> str | None:
    """The backup's slug, when it is still free and a binding is left: users bound it."""
    if slug is None or not SLUG_RE.match(slug):
        return None
    if slug in favourites or len(favourites) >= MAX_FAVOURITES:
        return None
    return slug


def _sound_entry(prefs: SoundPrefs) -> dict[str, Any]:
    entry: dict[str, Any] = {"gain": prefs.gain}
    if prefs.mic_gain is not None:
        entry["mic_gain"] = prefs.mic_gain
    if prefs.mode is not None:
        entry["mode"] = prefs.mode
    if prefs.favourite is not None:
        entry["favourite"] = prefs.favourite
    if prefs.order is not None:
        entry["order"] = prefs.order
    for name, value in _edit_fields(prefs).items():
        if value != getattr(SoundPrefs(), name):
            entry[name] = value
    return entry


def edit_problem(prefs: SoundPrefs, duration_ms: int | None) -> str | None:
    """Why a trim and fades cannot play as set ("field: rule"), or None. The end is within the
    sound when its length is known, the start before the end by :data:`MIN_TRIMMED_MS`, and
    the two fades together within the trimmed length."""
    start, end = prefs.trim_start_ms, prefs.trim_end_ms
    if end is not None and duration_ms is not None and end > duration_ms:
        return "trim_end_ms: past the end of the sound"
    last = end if end is not None else duration_ms
    if last is None:  # an untrimmed end of a sound not loaded yet: the render checks it
        return None
    if last - start < MIN_TRIMMED_MS:
        return f"trim_start_ms: must stay {MIN_TRIMMED_MS} ms before the end"
    if prefs.fade_in_ms + prefs.fade_out_ms > last - start:
        return "fade_in_ms: the fades together are longer than the trimmed sound"
    return None


def _edit_fields(prefs: SoundPrefs) -> dict[str, Any]:
    return {
        "targets": prefs.targets,
        "trim_start_ms": prefs.trim_start_ms,
        "trim_end_ms": prefs.trim_end_ms,
        "fade_in_ms": prefs.fade_in_ms,
        "fade_out_ms": prefs.fade_out_ms,
        "plays": prefs.plays,
        "last_played": prefs.last_played,
    }


def _count(value: Any, high: int) -> int | None:
    """A whole number in 0..``high`` (never a bool), else None."""
    return value if type(value) is int and 0 <= value <= high else None


def _prefs_of(entry: Any) -> SoundPrefs:
    """A backup entry read as kv's record is: a field of the wrong type is its default."""
    if not isinstance(entry, dict):
        return SoundPrefs()
    data: dict[str, Any] = entry  # pyright: ignore[reportUnknownVariableType]
    mode = data.get("mode")
    record = {
        "g": data.get("gain"),
        "k": data.get("mic_gain"),
        "m": MODES.index(mode) if mode in MODES else None,
        "f": data.get("favourite"),
        "o": data.get("order"),
    }
    base = SoundPrefs.from_record({k: v for k, v in record.items() if v is not None})
    targets = data.get("targets")
    edited = replace(
        base,
        targets=targets if targets in TARGETS else "both",
        trim_start_ms=_count(data.get("trim_start_ms"), EDIT_MS_MAX) or 0,
        trim_end_ms=_count(data.get("trim_end_ms"), EDIT_MS_MAX),
        fade_in_ms=_count(data.get("fade_in_ms"), EDIT_MS_MAX) or 0,
        fade_out_ms=_count(data.get("fade_out_ms"), EDIT_MS_MAX) or 0,
        plays=_count(data.get("plays"), PLAYS_MAX) or 0,
        last_played=_count(data.get("last_played"), UNIX_MAX),
    )
    if edit_problem(edited, None) is None:
        return edited
    # A trim or fades that cannot play (an edited file): the sound plays whole, as before.
    return replace(edited, trim_start_ms=0, trim_end_ms=None, fade_in_ms=0, fade_out_ms=0)
