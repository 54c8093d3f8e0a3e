"""The dash-tab editor's trim, fades, targets and play count (issue 26, items 3 and 4): each
control writes through the one edit path into the sound's record in kv, and what an edit may
set keeps the sound playable (start before end, the end within the sound, the fades within the
trimmed length)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pytest
import soundfile

from cueboard.core.browse import MOST_PLAYED, RECENT
from cueboard.core.editor import MIN_LENGTH_MS, field_changes, nearest_trim_changes
from cueboard.core.prefs import FLUSH_DELAY_S
from cueboard.core.records import SoundPrefs, read_records
from vxp.models import events

from .fakehost import Driver, FakeHost, library

BEEP = "01 Beep.wav"
START, END, FADE_IN, FADE_OUT = range(4)


def _driver(tmp_path: Path, locale: str = "en-US") -> Driver:
    """The editor's trim page on a 3 s sound: its length is its file's, read for its waveform
    (an edited sound's loaded length is its render's)."""
    t = np.arange(3 * 48_000) / 48_000
    soundfile.write(str(tmp_path / BEEP), 0.5 * np.sin(2 * np.pi * 440 * t), 48_000)
    d = Driver(FakeHost(), library(BEEP, root=tmp_path), locale=locale)
    d.connect()
    folder = events.SettingsChanged(
        event="settings_changed", key="sounds_folder", value=str(tmp_path)
    )
    d.event(folder, settle=1.0)
    d.click("dash-tab", "select-sound", BEEP)
    d.click("dash-tab", "show-editor-page", 1)
    d.advance(0.5)
    return d


def _dash(d: Driver) -> dict[str, Any]:
    d.advance(0.5)
    return {k: v["v"] for k, v in d.core.props.desired("dash-tab").items()}


def _rows(d: Driver) -> list[tuple[str, int, str]]:
    return [(r[0]["v"], r[1]["v"], r[2]["v"]) for r in _dash(d)["selected-edits"]]


def _stored(d: Driver) -> SoundPrefs:
    d.advance(FLUSH_DELAY_S)
    return read_records(d.host.kv)[BEEP]


def test_trim_and_fades_go_through_the_edit_path_into_kv_and_back_into_the_rows(
    tmp_path: Path,
) -> None:
    d = _driver(tmp_path)
    d.click("dash-tab", "set-sound-edit", BEEP, START, 250)
    d.click("dash-tab", "set-sound-edit", BEEP, END, 2500)
    d.click("dash-tab", "set-sound-edit", BEEP, FADE_IN, 100)
    d.click("dash-tab", "set-sound-edit", BEEP, FADE_OUT, 400)
    assert _stored(d) == SoundPrefs(
        trim_start_ms=250, trim_end_ms=2500, fade_in_ms=100, fade_out_ms=400
    )
    assert _rows(d) == [
        ("Start", 250, "0.25 s"),
        ("End", 2500, "2.50 s"),
        ("Fade in", 100, "0.10 s"),
        ("Fade out", 400, "0.40 s"),
    ]
    assert _dash(d)["selected-duration-ms"] == 3000


def test_an_end_at_or_past_the_sounds_length_is_the_sounds_end_again(tmp_path: Path) -> None:
    d = _driver(tmp_path)
    d.click("dash-tab", "set-sound-edit", BEEP, END, 2000)
    d.click("dash-tab", "set-sound-edit", BEEP, END, 3000 + 1000)
    d.advance(FLUSH_DELAY_S)
    assert BEEP not in read_records(d.host.kv)  # every field at its default again: no record
    assert _rows(d)[END] == ("End", 3000, "3.00 s")


def test_a_touch_on_the_waveform_moves_the_nearer_of_start_and_end(tmp_path: Path) -> None:
    d = _driver(tmp_path)
    d.click("dash-tab", "trim-sound-at", BEEP, 600)  # nearer the start (0) than the end (3000)
    d.click("dash-tab", "trim-sound-at", BEEP, 2700)
    assert (d.core.prefs.get(BEEP).trim_start_ms, d.core.prefs.get(BEEP).trim_end_ms) == (
        600,
        2700,
    )


def test_targets_and_the_count_reset_are_written_and_shown(tmp_path: Path) -> None:
    d = _driver(tmp_path)
    d.carry(d.core.prefs.update(BEEP, d.now, plays=7, last_played=1_700_000_000))
    d.click("dash-tab", "select-sound", BEEP)
    assert _dash(d)["selected-plays"] == "Plays: 7"
    d.click("dash-tab", "set-sound-targets", BEEP, 1)
    d.click("dash-tab", "reset-sound-plays", BEEP)
    stored = _stored(d)
    assert (stored.targets, stored.plays, stored.last_played) == ("me", 0, None)
    assert (_dash(d)["selected-targets"], _dash(d)["selected-plays"]) == (1, "Plays: 0")
    d.click("dash-tab", "set-sound-targets", BEEP, 3)  # no such choice: nothing changes
    assert d.core.prefs.get(BEEP).targets == "me"


def test_the_editor_page_turns_and_its_words_are_localised(tmp_path: Path) -> None:
    d = _driver(tmp_path, locale="ja-JP")
    d.click("dash-tab", "show-editor-page", 0)
    assert _dash(d)["editor-page"] == 0
    d.click("dash-tab", "show-editor-page", 1)
    values = _dash(d)
    assert values["editor-page"] == 1
    assert [row[0] for row in _rows(d)] == ["開始", "終了", "フェードイン", "フェードアウト"]
    assert values["label-targets-me"] == "自分だけ"


def test_an_edit_of_a_sound_no_longer_in_the_library_writes_nothing(tmp_path: Path) -> None:
    d = _driver(tmp_path)
    d.click("dash-tab", "set-sound-edit", "gone.wav", START, 100)
    d.click("dash-tab", "reset-sound-plays", "gone.wav")
    d.advance(FLUSH_DELAY_S)
    assert "gone.wav" not in read_records(d.host.kv)


# -- the rules, value by value --------------------------------------------------------------


@pytest.mark.parametrize(
    ("prefs", "field", "ms", "expected"),
    [
        (SoundPrefs(), START, -50, {}),  # not before the sound's start
        (SoundPrefs(trim_end_ms=1000), START, 5000, {"trim_start_ms": 1000 - MIN_LENGTH_MS}),
        (SoundPrefs(trim_start_ms=900), END, 100, {"trim_end_ms": 900 + MIN_LENGTH_MS}),
        (SoundPrefs(), FADE_IN, 9000, {"fade_in_ms": 3000}),  # within the trimmed length
        (SoundPrefs(fade_in_ms=2000), FADE_OUT, 2500, {"fade_out_ms": 2500, "fade_in_ms": 500}),
        (SoundPrefs(fade_in_ms=2000), END, 1000, {"trim_end_ms": 1000, "fade_in_ms": 1000}),
        (SoundPrefs(), 4, 100, {}),  # no such row
    ],
)
def test_an_edit_keeps_the_sound_playable(
    prefs: SoundPrefs, field: int, ms: int, expected: dict[str, object]
) -> None:
    assert field_changes(prefs, 3000, field, ms) == expected


def test_before_the_length_is_known_only_the_start_and_a_set_end_move() -> None:
    assert nearest_trim_changes(SoundPrefs(), None, 500) == {}
    assert field_changes(SoundPrefs(), None, END, -100) == {}  # "-" on "to the end"
    assert field_changes(SoundPrefs(), None, START, 500) == {"trim_start_ms": 500}
    set_end = SoundPrefs(trim_end_ms=900)
    assert field_changes(set_end, None, END, 800) == {"trim_end_ms": 800}


def test_the_editors_count_reset_takes_the_sound_out_of_recent_and_most_played() -> None:
    d = Driver(FakeHost(), library("A/a1.wav", "A/a2.wav"))
    d.connect()
    d.click("overlay", "play-sound", "A/a1.wav")
    d.advance(1.0)

    def places() -> set[str]:
        d.advance(0.1)
        return {row[0]["v"] for row in d.core.props.desired("overlay")["folders"]["v"]}

    assert {RECENT, MOST_PLAYED} <= places()
    d.click("dash-tab", "reset-sound-plays", "A/a1.wav")
    assert not {RECENT, MOST_PLAYED} & places()  # hidden once empty
    assert (d.core.prefs.get("A/a1.wav").plays, d.core.prefs.get("A/a1.wav").last_played) == (
        0,
        None,
    )
