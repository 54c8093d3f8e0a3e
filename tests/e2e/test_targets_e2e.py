"""Targets per sound and what you play most, end to end inside vrosdev (issue 26, items 4 and 6):
the targets set over the bus (``cmd.set``), presses from bound commands, and what vrosdev's real
mixer wrote to the soundboard and mic WAVs; play counts kept in kv across a restart, and the
strip's Recent and Most played places through the overlay and the controller's commands."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from .harness import Run, rms, run_cueboard, tone_library

pytestmark = pytest.mark.slow

PREFIX = "ext.com.cueboard.soundboard."
SET = f"bus-publish {PREFIX}cmd.set"
LIST = f"bus-publish {PREFIX}cmd.list"


def _published(run: Run, kind: str) -> list[Any]:
    return [
        f["params"]["payload"]
        for f in run.sent("bus", "publish")
        if f["params"]["topic"] == PREFIX + kind
    ]


def _overlay(run: Run, prop: str) -> list[Any]:
    """Each value of an overlay prop, in the order sent."""
    return [
        value["v"]
        for frame in run.sent("panel", "props")
        if frame["params"].get("panel") == "overlay"
        for name, value in frame["params"].get("props", [])
        if name == prop
    ]


def _targets_run(tmp: Path, targets: str, extra: str = "") -> Run:
    script = (
        f"wait-for audio.load 60\nsettle\n{extra}"
        f'{SET} {{"path": "01 Beep.wav", "targets": "{targets}"}}\n'
        "sleep 0.2\ninvoke play-slot-1\nsleep 1\n"
    )
    run = run_cueboard(tmp, script, content=tone_library(tmp))
    assert run.code == 0
    assert not _published(run, "error")
    return run


def test_only_me_puts_nothing_in_the_mic_wav(tmp_path: Path) -> None:
    run = _targets_run(tmp_path, "me")
    assert [p["params"]["targets"] for p in run.sent("audio", "play")] == [
        [{"channel": "soundboard", "gain_pct": 80}]
    ]
    assert rms(run.wav("soundboard")) > 0.01
    assert rms(run.wav("mic")) == 0.0


def test_only_mic_puts_nothing_in_the_soundboard_wav(tmp_path: Path) -> None:
    run = _targets_run(tmp_path, "mic")
    assert [p["params"]["targets"] for p in run.sent("audio", "play")] == [
        [{"channel": "mic", "gain_pct": 40}]
    ]
    assert rms(run.wav("mic")) > 0.01
    assert rms(run.wav("soundboard")) == 0.0


def test_only_mic_while_the_mic_is_off_is_refused_with_a_notice(tmp_path: Path) -> None:
    run = _targets_run(tmp_path, "mic", "setting mic_enabled false\n")
    assert run.sent("audio", "play") == []
    assert rms(run.wav("mic")) == 0.0 and rms(run.wav("soundboard")) == 0.0
    assert any("switch the mic on" in text for text in _overlay(run, "status-text"))
    tiles = [{row[0]["v"]: row[9]["v"] for row in rows} for rows in _overlay(run, "slots")]
    assert tiles[-1]["01 Beep.wav"] == 3  # the tile says it cannot play


def test_counts_survive_a_restart_and_make_recent_and_most_played(tmp_path: Path) -> None:
    """Boop twice, then Beep: Recent is Beep, Boop (newest first), Most played Boop, Beep (by
    count). The second launch reads the counts from kv, opens Recent from the overlay's strip
    and steps to Most played with the controller's folder-next."""
    content = tone_library(tmp_path)
    state = tmp_path / "state"
    first = run_cueboard(
        tmp_path / "first",
        "wait-for audio.load 60\nsettle\nshow overlay\n"
        "invoke play-slot-2\nsleep 0.6\ninvoke play-slot-2\nsleep 0.6\ninvoke play-slot-1\n"
        "sleep 1.5\n",  # past the preferences' coalesced write
        content=content,
        state=state,
    )
    assert first.code == 0
    assert len(first.sent("audio", "play")) == 3
    strip = [row[0]["v"] for row in _overlay(first, "folders")[-1]]
    assert strip == ["*recent", "*most", "c:", "c:Memes"]
    again = run_cueboard(
        tmp_path / "again",
        "wait-for audio.load 60\nsettle\nshow overlay\n"
        'click overlay open-folder ["*recent"]\nsleep 0.4\n'
        "invoke folder-next\nsleep 0.4\n"
        f'{LIST} {{"request_id": "l"}}\nsleep 0.4\n',
        content=content,
        state=state,
    )
    assert again.code == 0
    shown = [
        (key, [row[0]["v"] for row in rows])
        for key, rows in zip(_overlay(again, "folder-key"), _overlay(again, "slots"), strict=False)
    ]
    pages = [[row[0]["v"] for row in rows] for rows in _overlay(again, "slots")]
    recent, most = ["01 Beep.wav", "02 Boop.wav"], ["02 Boop.wav", "01 Beep.wav"]
    assert recent in pages and most in pages, shown
    assert pages.index(recent) < pages.index(most)
    assert _overlay(again, "folder-key")[-1] == "*most"
    rows = {r["path"]: r for r in _published(again, "sounds")[-1]["sounds"]}
    assert (rows["01 Beep.wav"]["plays"], rows["02 Boop.wav"]["plays"]) == (1, 2)
    assert rows["Memes/Vine.wav"]["plays"] == 0
    assert rows["01 Beep.wav"]["last_played"] >= rows["02 Boop.wav"]["last_played"] > 0
