"""A sound's own targets in the play path: both channels, the soundboard channel alone ("only
me": no mic target at all) or the mic alone; a mic-only sound while the mic is off is refused
with a notice that says why, never sent to the soundboard instead."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from cueboard.core.routing import MIC_ONLY_OFF
from vxp.models import audio, events
from vxp.models.handshake import Granted

from .fakehost import Driver, FakeHost


def _targets(d: Driver) -> list[list[tuple[str, int]]]:
    plays = [audio.AudioPlay.model_validate_json(p.params_json) for p in d.host.of("audio.play")]
    return [[(t.channel, t.gain_pct) for t in p.targets] for p in plays]


def _setting(d: Driver, key: str, value: Any) -> None:
    d.event(events.SettingsChanged(event="settings_changed", key=key, value=value))


def _own(d: Driver, rel: str, **changes: Any) -> None:
    """Through the bus API's cmd.set, as another extension (or the editor) would."""
    topic = "ext.com.cueboard.soundboard.cmd.set"
    d.event(events.BusMessage(event="bus", topic=topic, payload={"path": rel, **changes}))


def test_only_me_sends_no_mic_target_at_all_and_only_mic_no_soundboard_target() -> None:
    d = Driver()
    d.connect()
    _own(d, "01 Beep.wav", targets="me")
    d.invoke("play-slot-1")
    _own(d, "01 Beep.wav", targets="mic")
    d.invoke("play-slot-1")
    _own(d, "01 Beep.wav", targets="both")
    d.invoke("play-slot-1")
    assert _targets(d) == [
        [("soundboard", 80)],
        [("mic", 40)],
        [("soundboard", 80), ("mic", 40)],
    ]


def test_only_me_keeps_its_own_gain_and_ignores_the_mic_gain() -> None:
    d = Driver()
    d.connect()
    _own(d, "01 Beep.wav", targets="me", gain=50, mic_gain=100)
    d.invoke("play-slot-1")
    assert _targets(d) == [[("soundboard", 40)]]


def test_only_mic_while_the_mic_is_off_is_refused_with_a_notice_then_plays_once_it_is_on() -> None:
    d = Driver()
    d.connect()
    _own(d, "01 Beep.wav", targets="mic")
    _setting(d, "mic_enabled", False)
    d.invoke("play-slot-1")
    assert _targets(d) == []
    assert d.status_key() == MIC_ONLY_OFF
    assert d.core.board.status is not None and d.core.board.status.params["name"] == "01 Beep"
    _setting(d, "mic_enabled", True)
    d.invoke("play-slot-1")
    assert _targets(d) == [[("mic", 40)]]


def test_a_mic_only_press_waiting_for_its_load_is_refused_if_the_mic_went_off_meanwhile() -> None:
    d = Driver()
    d.connect()
    board = d.core.board
    _own(d, "01 Beep.wav", targets="mic")
    assert board.states["01 Beep.wav"].status == "loaded"
    # What a press waiting for its load runs once audio_loaded arrives:
    board.settings = replace(board.settings, mic_enabled=False)
    out = board.play_state(board.states["01 Beep.wav"], d.now)
    assert [getattr(e, "key", None) for e in out] == [MIC_ONLY_OFF]


def test_the_refusal_is_worded_in_both_languages() -> None:
    from cueboard.runtime.catalogs import load_catalog

    for locale in ("en-US", "ja-JP"):
        text = load_catalog(locale).t(MIC_ONLY_OFF, name="Airhorn")
        assert "Airhorn" in text and MIC_ONLY_OFF not in text


# -- the marks: a tile, a now-playing row and the toast say where a sound plays ---------------


def _overlay(d: Driver, name: str) -> Any:
    d.advance(0.1)  # the views' refresh
    return d.core.props.desired("overlay")[name]["v"]


def _tile_marks(d: Driver) -> dict[str, int]:
    return {row[0]["v"]: row[9]["v"] for row in _overlay(d, "slots")}


def test_a_tile_marks_only_me_only_mic_and_a_mic_only_sound_that_cannot_play() -> None:
    d = Driver()
    d.connect()
    _own(d, "01 Beep.wav", targets="me")
    _own(d, "02 Boop.wav", targets="mic")
    assert _tile_marks(d) == {"01 Beep.wav": 1, "02 Boop.wav": 2}
    _setting(d, "mic_enabled", False)
    assert _tile_marks(d) == {"01 Beep.wav": 1, "02 Boop.wav": 3}  # it cannot play now
    labels = {k: _overlay(d, k) for k in ("label-only-me", "label-only-mic", "label-mic-off")}
    assert labels == {
        "label-only-me": "Only me",
        "label-only-mic": "Only mic",
        "label-mic-off": "Mic is off",
    }


def test_the_now_playing_row_and_the_toast_name_the_target() -> None:
    d = Driver(FakeHost(granted=Granted(audio=True, overlays=True, bus=["vr.lifecycle"])))
    d.core.toast.source = "export component NowPlaying {}"
    d.connect()
    _setting(d, "now_playing_toast", True)
    _own(d, "01 Beep.wav", targets="mic")
    _own(d, "02 Boop.wav", targets="me")
    d.invoke("play-slot-1")
    d.invoke("play-slot-2")
    rows = {row[0]["v"]: (row[2]["v"], row[6]["v"]) for row in _overlay(d, "playing")}
    assert rows == {  # the row's mark says which in words: its gains line need not
        "01 Beep.wav": ("Mic 40%", 2),
        "02 Boop.wav": ("Soundboard 80%", 1),
    }
    toast = d.core.props.desired("now-playing")["channels-text"]["v"]
    assert toast == "Only me · Soundboard 80%"  # the toast has no mark: it says it


def test_a_sound_for_both_with_the_mic_off_is_not_marked_only_me() -> None:
    d = Driver()
    d.connect()
    _setting(d, "mic_enabled", False)
    d.invoke("play-slot-1")
    rows = [(row[2]["v"], row[6]["v"]) for row in _overlay(d, "playing")]
    assert rows == [("Soundboard 80%", 0)]
