"""Backup and restore end to end: a board written to the backup file by one vrOS install and
restored into another (a fresh kv store), through bus messages to the real process."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from cueboard.core.records import SoundPrefs, read_records
from vrosdev.host.namespaces.kv import KvStore

from .harness import run_cueboard, tone

pytestmark = pytest.mark.slow

TOPIC = "ext.com.cueboard.soundboard."
CMD = f"bus-publish {TOPIC}cmd."
# Cueboard subscribes to its commands before it asks for its sounds to be loaded; settled, the
# library is scanned. The replies are waited for by their topics; kv is written before the exit.
READY = "wait-for audio.load 60\nsettle\n"


def _content(tmp: Path) -> Path:
    content = tmp / "content"
    sounds = content / "Cueboard" / "Sounds"
    tone(sounds / "01 Beep.wav", freq=1000)
    tone(sounds / "Memes" / "Vine.wav", freq=700)
    return content


def _records(state: Path) -> dict[str, SoundPrefs]:
    store = KvStore(state / "kv" / "com.cueboard.soundboard.jsonl")
    return read_records(store.values)


def test_a_board_moves_to_a_new_install_through_the_backup_file(tmp_path: Path) -> None:
    content = _content(tmp_path)
    first = run_cueboard(
        tmp_path / "old",
        f"{READY}"
        f'{CMD}set {{"path": "01 Beep.wav", "gain": 40, "mic_gain": 10, "mode": "toggle"}}\n'
        'click dash-tab set-sound-mode ["Memes/Vine.wav", 4]\n'
        f'{CMD}export {{"request_id": "b"}}\n'
        f"wait-for bus.publish 60 {TOPIC}exported\n",
        content=content,
    )
    assert first.code == 0
    backup = content / "Cueboard" / "cueboard-backup.json"
    document = json.loads(backup.read_text(encoding="utf-8"))
    assert set(document["sounds"]) == {"01 Beep.wav", "Memes/Vine.wav"}
    assert not list(backup.parent.glob(".*.partial"))
    second = run_cueboard(
        tmp_path / "new",
        f'{READY}{CMD}import {{"request_id": "r"}}\nwait-for bus.publish 60 {TOPIC}imported\n',
        content=content,
    )
    assert second.code == 0
    assert _records(second.state) == _records(first.state)
    assert _records(first.state)["Memes/Vine.wav"] == SoundPrefs(mode="loop")
    replies = [
        f["params"]["payload"]
        for f in second.sent("bus", "publish")
        if f["params"]["topic"].endswith(".imported")
    ]
    assert replies == [{"restored": 2, "unmatched": 0, "unmatched_paths": [], "request_id": "r"}]
