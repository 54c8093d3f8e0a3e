"""Trim, fades, targets and play counts everywhere a setting goes (issue 26, item 8): a backup
carries them and a restore gives them back; the bus API's ``cmd.set`` takes them within their
ranges and ``cmd.list`` returns them."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from cueboard.core.backup import BACKUP_NAME, EDIT_MS_MAX, PLAYS_MAX
from cueboard.core.records import SoundPrefs
from vxp.models import events

from .fakehost import Driver

PREFIX = "ext.com.cueboard.soundboard."
BACKUP = Path("/content/Cueboard") / BACKUP_NAME
EDITED = SoundPrefs(
    targets="me", trim_start_ms=120, trim_end_ms=550, fade_in_ms=30, fade_out_ms=200,
    plays=7, last_played=1_780_000_123,
)  # fmt: skip
# The in-memory host reports every sound 600 ms long.
EDIT_FIELDS = ("targets", "trim_start_ms", "trim_end_ms", "fade_in_ms", "fade_out_ms")
COUNT_FIELDS = ("plays", "last_played")


def _send(d: Driver, verb: str, payload: Any) -> None:
    d.event(events.BusMessage(event="bus", topic=f"{PREFIX}cmd.{verb}", payload=payload))


def _published(d: Driver, kind: str) -> list[Any]:
    return [p.payload for p in d.host.of("bus.publish") if p.topic == PREFIX + kind]


def _fields(p: SoundPrefs) -> dict[str, Any]:
    return {name: getattr(p, name) for name in EDIT_FIELDS + COUNT_FIELDS}


def test_a_backup_carries_every_new_field_and_a_restore_gives_each_back() -> None:
    old = Driver()
    old.connect()
    old.core.prefs.update("01 Beep.wav", old.now, **_fields(EDITED))
    old.core.prefs.update("Memes/Vine.wav", old.now, targets="mic", plays=2)
    _send(old, "export", {})
    entry = json.loads(old.files[BACKUP])["sounds"]["01 Beep.wav"]
    assert {k: entry[k] for k in _fields(EDITED)} == _fields(EDITED)
    new = Driver()
    new.files = dict(old.files)
    new.connect()
    _send(new, "import", {})
    assert new.core.prefs.get("01 Beep.wav") == EDITED
    assert new.core.prefs.get("Memes/Vine.wav") == SoundPrefs(targets="mic", plays=2)
    assert new.core.board.history.most == ["01 Beep.wav", "Memes/Vine.wav"]


def test_a_restored_trim_that_cannot_play_leaves_the_sound_whole_and_keeps_the_rest() -> None:
    d = Driver()
    d.files[BACKUP] = json.dumps(
        {
            "format": "cueboard-backup",
            "version": 1,
            "sounds": {
                "01 Beep.wav": {
                    "gain": 50, "targets": "sideways", "trim_start_ms": 900, "trim_end_ms": 100,
                    "fade_in_ms": 10, "plays": -3, "last_played": "yesterday",
                }
            },
        }
    )  # fmt: skip
    d.connect()
    _send(d, "import", {})
    assert d.core.prefs.get("01 Beep.wav") == SoundPrefs(gain=50)


def test_cmd_set_takes_the_new_fields_and_replies_with_them() -> None:
    d = Driver()
    d.connect()
    _send(d, "set", {"path": "01 Beep.wav", **_fields(EDITED), "request_id": "s1"})
    assert d.core.prefs.get("01 Beep.wav") == EDITED
    reply = _published(d, "sound")[-1]
    assert {k: reply[k] for k in _fields(EDITED)} == _fields(EDITED)
    assert reply["request_id"] == "s1"
    # null: to the sound's end again; plays 0 and no time: the count is reset
    _send(d, "set", {"path": "01 Beep.wav", "trim_end_ms": None, "plays": 0, "last_played": None})
    own = d.core.prefs.get("01 Beep.wav")
    assert (own.trim_end_ms, own.plays, own.last_played) == (None, 0, None)
    assert own.trim_start_ms == 120  # a field not given is kept


@pytest.mark.parametrize(
    ("payload", "field"),
    [
        ({"targets": "speakers"}, "targets"),
        ({"trim_start_ms": -1}, "trim_start_ms"),
        ({"trim_end_ms": EDIT_MS_MAX + 1}, "trim_end_ms"),
        ({"fade_in_ms": "100"}, "fade_in_ms"),
        ({"fade_out_ms": 1.5}, "fade_out_ms"),
        ({"plays": PLAYS_MAX + 1}, "plays"),
        ({"last_played": -5}, "last_played"),
        ({"trim_start_ms": 500, "trim_end_ms": 505}, "trim_start_ms"),  # under 10 ms left
        ({"trim_end_ms": 500, "fade_in_ms": 300, "fade_out_ms": 201}, "fade_in_ms"),
    ],
)
def test_cmd_set_refuses_a_value_out_of_range_and_changes_nothing(
    payload: dict[str, Any], field: str
) -> None:
    d = Driver()
    d.connect()
    _send(d, "set", {"path": "01 Beep.wav", **payload, "request_id": "bad"})
    error = _published(d, "error")[-1]
    assert (error["code"], error["request_id"]) == ("invalid", "bad")
    assert field in error["reason"]
    assert d.core.prefs.get("01 Beep.wav") == SoundPrefs()


def test_cmd_set_refuses_a_trim_end_past_the_loaded_sounds_length() -> None:
    d = Driver()
    d.connect()
    length = d.core.board.states["01 Beep.wav"].duration_ms
    assert length is not None  # loaded ahead: the host said how long it is
    _send(d, "set", {"path": "01 Beep.wav", "trim_end_ms": length + 1})
    assert "trim_end_ms" in _published(d, "error")[-1]["reason"]
    _send(d, "set", {"path": "01 Beep.wav", "trim_end_ms": length})
    assert d.core.prefs.get("01 Beep.wav").trim_end_ms == length


def test_cmd_list_returns_targets_trim_fades_and_counts() -> None:
    d = Driver()
    d.connect()
    d.core.prefs.update("02 Boop.wav", d.now, **_fields(EDITED))
    _send(d, "list", {})
    rows = {row["path"]: row for row in _published(d, "sounds")[-1]["sounds"]}
    assert {k: rows["02 Boop.wav"][k] for k in _fields(EDITED)} == _fields(EDITED)
    assert {k: rows["01 Beep.wav"][k] for k in _fields(EDITED)} == _fields(SoundPrefs())
