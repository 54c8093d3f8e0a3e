"""Per-sound play modes and separate gains, in memory: what a press does to what plays, and
what each channel's gain is. A press while a sound plays starts it again for mix and stop
others (vrOS replaces a sound's playback, AUD-22) and stops it for toggle and loop."""

from __future__ import annotations

from typing import Any

import pytest

from cueboard.core.prefs import MODES

from .fakehost import Driver
from .test_soundboard import _plays, _setting, _targets

BEEP, BOOP = "01 Beep.wav", "02 Boop.wav"


def _mode(d: Driver, rel: str, mode: str | None) -> None:
    d.core.prefs.update(rel, d.now, mode=mode)


def _stops(d: Driver) -> list[Any]:
    return [p.sound for p in d.host.of("audio.stop")]


def _sound_id(d: Driver, rel: str) -> str:
    sid = d.core.board.states[rel].sound_id
    assert sid is not None
    return sid


@pytest.mark.parametrize(
    ("mode", "plays", "stops", "playing"),
    [
        ("mix", 2, 0, True),
        ("stop_others", 2, 0, True),
        ("toggle", 1, 1, False),
        ("loop", 1, 1, False),
    ],
)
def test_a_second_press_starts_over_or_stops_by_mode(
    mode: str, plays: int, stops: int, playing: bool
) -> None:
    d = Driver()
    d.connect()
    _mode(d, BEEP, mode)
    d.invoke("play-slot-1")
    d.invoke("play-slot-1")
    assert len(_plays(d)) == plays
    assert len(_stops(d)) == stops
    assert (BEEP in d.core.board.playing) is playing


def test_stop_others_stops_every_other_sound_before_it_plays() -> None:
    d = Driver()
    d.connect()
    d.invoke("play-slot-2")
    _mode(d, BEEP, "stop_others")
    d.invoke("play-slot-1")
    kinds = [s.kind for s in d.host.sent if s.kind in ("audio.stop", "audio.play")]
    assert kinds[-2:] == ["audio.stop", "audio.play"]
    assert _stops(d) == [_sound_id(d, BOOP)]
    assert set(d.core.board.playing) == {BEEP}


def test_loop_mode_plays_looping_and_other_modes_do_not() -> None:
    d = Driver()
    d.connect()
    for mode in MODES:
        _mode(d, BEEP, mode)
        d.core.board.playing.clear()
        d.invoke("play-slot-1")
        assert _plays(d)[-1].looping is (mode == "loop"), mode


@pytest.mark.parametrize(
    ("overlap", "second_press_stops"),
    [("overlap", False), ("stop_others", False), ("toggle", True)],
)
def test_a_sound_without_its_own_mode_follows_the_overlap_setting(
    overlap: str, second_press_stops: bool
) -> None:
    d = Driver()
    d.connect()
    _setting(d, "overlap", overlap)
    d.invoke("play-slot-2")
    d.invoke("play-slot-1")
    d.invoke("play-slot-1")
    assert (BEEP in d.core.board.playing) is not second_press_stops
    assert (BOOP in d.core.board.playing) is (overlap != "stop_others")


def test_a_sounds_own_mode_wins_over_the_overlap_setting() -> None:
    d = Driver()
    d.connect()
    _setting(d, "overlap", "toggle")
    _mode(d, BEEP, "mix")
    d.invoke("play-slot-1")
    d.invoke("play-slot-1")
    assert len(_plays(d)) == 2 and not _stops(d)


def test_linked_gains_scale_both_channels_and_separate_gains_each_its_own() -> None:
    d = Driver()
    d.connect()  # soundboard 80 %, mic 40 % (the settings' defaults)
    d.core.prefs.update(BEEP, d.now, gain=50)
    d.invoke("play-slot-1")
    assert _targets(_plays(d)[-1]) == [("soundboard", 40), ("mic", 20)]
    d.core.prefs.update(BEEP, d.now, mic_gain=100)
    d.invoke("play-slot-1")
    assert _targets(_plays(d)[-1]) == [("soundboard", 40), ("mic", 40)]
    d.core.prefs.update(BEEP, d.now, mic_gain=0)
    d.invoke("play-slot-1")
    assert _targets(_plays(d)[-1]) == [("soundboard", 40), ("mic", 0)]


def test_the_dash_tab_loop_switch_sets_and_clears_loop_mode() -> None:
    d = Driver()
    d.connect()
    d.click("dash-tab", "set-sound-mode", BEEP, 4)
    assert d.core.prefs.get(BEEP).mode == "loop"
    d.click("dash-tab", "set-sound-mode", BEEP, 0)
    assert d.core.prefs.get(BEEP).mode is None


def test_a_tile_marks_a_sounds_own_mode_and_only_its_own() -> None:
    d = Driver()
    d.connect()
    _setting(d, "overlap", "toggle")  # a global mode is no sound's own
    d.click("dash-tab", "set-sound-mode", BOOP, 4)
    d.advance(0.1)
    rows = d.core.props.desired("overlay")["slots"]["v"]
    modes = {row[0]["v"]: row[7]["v"] for row in rows}
    assert modes == {BEEP: 0, BOOP: 4}
