"""Backup and restore in memory: one file beside the sounds, every per-sound setting in it,
no deck URL, matched by path on restore, and a clear answer for a file it cannot use."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from cueboard.core.backup import BACKUP_NAME, FORMAT, VERSION
from cueboard.core.prefs import SoundPrefs
from vxp.models import events
from vxp.models.handshake import Granted

from .fakehost import Driver, FakeHost, library

PREFIX = "ext.com.cueboard.soundboard."
BACKUP = Path("/content/Cueboard") / BACKUP_NAME
SOUNDS = ("01 Beep.wav", "02 Boop.wav", "Memes/Vine.wav")


def _send(d: Driver, verb: str, payload: Any = None) -> None:
    d.event(events.BusMessage(event="bus", topic=f"{PREFIX}cmd.{verb}", payload=payload or {}))


def _published(d: Driver, kind: str) -> list[Any]:
    return [p.payload for p in d.host.of("bus.publish") if p.topic == PREFIX + kind]


def _board(d: Driver) -> dict[str, SoundPrefs]:
    return {rel: d.core.prefs.get(rel) for rel in SOUNDS}


def _customise(d: Driver) -> None:
    d.click("dash-tab", "set-sound-gain", "01 Beep.wav", 35)
    d.click("dash-tab", "set-sound-mode", "02 Boop.wav", 4)
    d.click("dash-tab", "set-sound-favourite", "Memes/Vine.wav", True)
    _send(d, "set", {"path": "01 Beep.wav", "mic_gain": 12, "mode": "toggle"})


def test_backup_then_restore_on_a_new_pc_gives_an_equal_board() -> None:
    old = Driver()
    old.connect()
    _customise(old)
    _send(old, "export", {"request_id": "b1"})
    assert _published(old, "exported") == [{"file": BACKUP_NAME, "sounds": 3, "request_id": "b1"}]
    new = Driver()
    new.files = dict(old.files)
    new.connect()
    _send(new, "import", {"request_id": "r1"})
    assert _board(new) == _board(old)
    reply = _published(new, "imported")[-1]
    assert (reply["restored"], reply["unmatched"], reply["request_id"]) == (3, 0, "r1")
    assert new.status_key() == "backup.restored"
    fav = new.core.prefs.get("Memes/Vine.wav").favourite
    assert fav is not None
    assert f"fav-{fav}" in [p.name for p in new.host.of("commands.register")]


def test_the_file_is_versioned_json_in_cueboard_under_the_content_folder() -> None:
    d = Driver()
    d.connect()
    _customise(d)
    d.click("dash-tab", "set-sound-gain", "02 Boop.wav", 100)
    _send(d, "export")
    document = json.loads(d.files[BACKUP])
    assert (document["format"], document["version"]) == (FORMAT, VERSION)
    assert document["sounds"]["01 Beep.wav"] == {"gain": 35, "mic_gain": 12, "mode": "toggle"}
    assert "options" in document["deck"]


def test_a_deck_url_is_never_written_to_the_backup() -> None:
    granted = Granted(audio=True, media=True, overlays=True, bus=["vr.lifecycle"])
    d = Driver(FakeHost(granted=granted))
    d.connect()
    url = "https://stream.example.invalid/live.m3u8?token=s3cret-token"
    d.click("overlay", "media-open", url, "My stream")
    _send(d, "export")
    text = d.files[BACKUP]
    titles = [slot["title"] for slot in json.loads(text)["deck"]["slots"].values()]
    assert titles == ["My stream"]  # the slot is in the backup, without its URL
    assert "s3cret-token" not in text and "stream.example" not in text


def test_sounds_not_in_this_library_are_reported_not_dropped_silently() -> None:
    old = Driver()
    old.connect()
    _customise(old)
    _send(old, "export")
    new = Driver(lib=library("01 Beep.wav"))
    new.files = dict(old.files)
    new.connect()
    _send(new, "import", {"request_id": 5})
    reply = _published(new, "imported")[-1]
    assert reply["restored"] == 1 and reply["unmatched"] == 2
    assert sorted(reply["unmatched_paths"]) == ["02 Boop.wav", "Memes/Vine.wav"]
    assert new.status_key() == "backup.restored_some"
    assert new.core.board.status is not None and new.core.board.status.params["missing"] == 2


@pytest.mark.parametrize(
    ("text", "key", "code"),
    [
        (None, "backup.missing", "not_found"),
        ("{not json", "backup.not_a_backup", "invalid"),
        ('["a list"]', "backup.not_a_backup", "invalid"),
        ('{"format": "something-else", "version": 1}', "backup.not_a_backup", "invalid"),
        ('{"format": "cueboard-backup", "version": 0}', "backup.not_a_backup", "invalid"),
        ('{"format": "cueboard-backup", "version": 99, "sounds": {}}', "backup.too_new", None),
    ],
)
def test_a_file_it_cannot_use_gets_a_clear_answer_and_changes_nothing(
    text: str | None, key: str, code: str | None
) -> None:
    d = Driver()
    d.connect()
    d.click("dash-tab", "set-sound-gain", "01 Beep.wav", 35)
    if text is not None:
        d.files[BACKUP] = text
    _send(d, "import", {"request_id": "x"})
    assert d.status_key() == key
    [error] = _published(d, "error")
    assert error["topic"] == "cmd.import" and error["request_id"] == "x"
    assert error["code"] == (code or "unsupported_version")
    assert d.core.prefs.get("01 Beep.wav").gain == 35


def test_entries_of_the_wrong_shape_read_as_defaults_and_a_taken_favourite_stays_free() -> None:
    d = Driver()
    d.connect()
    d.click("dash-tab", "set-sound-favourite", "01 Beep.wav", True)
    taken = d.core.prefs.get("01 Beep.wav").favourite
    d.files[BACKUP] = json.dumps(
        {
            "format": FORMAT,
            "version": VERSION,
            "sounds": {
                "02 Boop.wav": {"gain": "loud", "mode": "shuffle", "favourite": taken},
                "Memes/Vine.wav": "not an entry",
            },
        }
    )
    _send(d, "import")
    assert d.core.prefs.get("02 Boop.wav") == SoundPrefs()
    assert d.core.prefs.get("01 Beep.wav").favourite == taken
