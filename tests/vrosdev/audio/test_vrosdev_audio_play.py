"""pre_arm, play, stop, stop_all, status, list_channels, list_devices (AUD-8 … AUD-13,
AUD-18 … AUD-23)."""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Callable
from pathlib import Path

import pytest

from vrosdev.audio import (
    AudioEngine,
    AudioError,
    ChannelInfo,
    Devices,
    Endpoint,
    Loaded,
    LoadFailed,
    LoadStarted,
    Played,
    StatusRow,
    Target,
)

from .audio_support import MakeEngine, ManualClock, Outcomes

type LoadOk = Callable[..., tuple[str, Loaded]]


@pytest.fixture
def engine(make_engine: MakeEngine) -> AudioEngine:
    return make_engine()


@pytest.fixture
def sound(engine: AudioEngine, write_tone: Callable[..., Path], load_ok: LoadOk) -> str:
    """A loaded 1 s tone."""
    return load_ok(engine, write_tone("tone.wav", seconds=1.0))[0]


def code_of(result: object) -> str:
    assert isinstance(result, AudioError), result
    return result.code


def test_list_channels_names_the_three_channels(engine: AudioEngine) -> None:
    """AUD-3, AUD-4, AUD-5, AUD-12: soundboard, mic, ui, each with its device; none armed yet."""
    assert engine.list_channels() == [
        ChannelInfo("soundboard", True, False, "soundboard-out"),
        ChannelInfo("mic", True, False, "cable-in"),
        ChannelInfo("ui", True, False, "speakers"),
    ]


def test_list_devices_has_endpoints_and_default(engine: AudioEngine) -> None:
    """AUD-13; ui follows the default output (AUD-5), so the default is the ui device."""
    devices = engine.list_devices()
    assert [e.id for e in devices.endpoints] == ["soundboard-out", "cable-in", "speakers"]
    assert devices.default_endpoint == "speakers"
    assert dataclasses.asdict(devices)["endpoints"][1] == {
        "id": "cable-in",
        "name": "CABLE Input (virtual cable)",
    }


def test_no_device_removes_the_channels_device(make_engine: MakeEngine) -> None:
    engine = make_engine(no_device={"mic", "ui"})
    assert engine.list_devices() == Devices(
        endpoints=(Endpoint("soundboard-out", "Soundboard Output"),), default_endpoint=None
    )
    rows = {c.channel: c for c in engine.list_channels()}
    assert rows["mic"] == ChannelInfo("mic", False, False, None)
    assert rows["soundboard"].available


def test_no_device_rejects_unknown_channel_names() -> None:
    with pytest.raises(ValueError, match="speaker"):
        AudioEngine(lambda s, o: None, no_device={"speaker"})


def test_pre_arm_opens_a_channel(engine: AudioEngine) -> None:
    """AUD-8: pre_arm → ok, and the channel shows armed."""
    assert engine.pre_arm("mic") is None
    armed = {c.channel: c.armed for c in engine.list_channels()}
    assert armed == {"soundboard": False, "mic": True, "ui": False}


def test_pre_arm_errors(make_engine: MakeEngine) -> None:
    """AUD-23: unknown_channel for a name the spec lacks; no_endpoint for a deviceless channel."""
    engine = make_engine(no_device={"mic"})
    assert code_of(engine.pre_arm("speakers")) == "unknown_channel"
    assert code_of(engine.pre_arm("mic")) == "no_endpoint"
    assert engine.pre_arm("soundboard") is None


def test_play_to_two_channels_lists_both_targets(engine: AudioEngine, sound: str) -> None:
    """AUD-9, AUD-11, AUD-19: play → ok; the status row carries the targets and looping."""
    result = engine.play(sound, [("soundboard", 80), ("mic", 40)], False)
    assert result == Played((Target("soundboard", 80), Target("mic", 40)), ())
    assert engine.status() == [
        StatusRow(sound, (Target("soundboard", 80), Target("mic", 40)), False)
    ]
    # The wire shape of docs/protocol-notes.md#shapes-the-page-does-not-give, once serialized.
    assert json.loads(json.dumps(dataclasses.asdict(engine.status()[0]))) == {
        "sound": sound,
        "targets": [{"channel": "soundboard", "gain_pct": 80}, {"channel": "mic", "gain_pct": 40}],
        "looping": False,
    }
    assert all(c.armed for c in engine.list_channels() if c.channel != "ui")


def test_target_without_device_is_skipped(
    make_engine: MakeEngine, write_tone: Callable[..., Path], load_ok: LoadOk
) -> None:
    """AUD-20, AUD-21: the mic target is skipped, the play succeeds, the row lists soundboard."""
    engine = make_engine(no_device={"mic"})
    sound, _ = load_ok(engine, write_tone("t.wav"))
    played = engine.play(sound, [Target("soundboard", 80), Target("mic", 40)], False)
    assert isinstance(played, Played)
    assert played.accepted == (Target("soundboard", 80),)
    assert [(s.channel, s.gain_pct) for s in played.skipped] == [("mic", 40)]
    assert engine.status() == [StatusRow(sound, (Target("soundboard", 80),), False)]


def test_play_with_no_playable_target_is_no_valid_targets(
    make_engine: MakeEngine, write_tone: Callable[..., Path], load_ok: LoadOk
) -> None:
    """AUD-20: fails only when no target can play; nothing starts, a running play continues."""
    engine = make_engine(no_device={"mic"})
    sound, _ = load_ok(engine, write_tone("t.wav"))
    assert code_of(engine.play(sound, [("mic", 40)], False)) == "no_valid_targets"
    assert code_of(engine.play(sound, [], False)) == "no_valid_targets"
    assert engine.status() == []
    engine.play(sound, [("soundboard", 10)], True)
    assert code_of(engine.play(sound, [("mic", 40)], False)) == "no_valid_targets"
    assert engine.status() == [StatusRow(sound, (Target("soundboard", 10),), True)]


def test_a_channel_the_host_lacks_is_a_skipped_target(engine: AudioEngine, sound: str) -> None:
    """AUD-20, AUD-21: an unknown channel among playable ones is skipped, the play is ``ok``."""
    played = engine.play(sound, [("headset", 50), ("soundboard", 70)], False)
    assert isinstance(played, Played)
    assert played.accepted == (Target("soundboard", 70),)
    assert [(s.channel, s.reason) for s in played.skipped] == [("headset", "no such channel")]
    assert engine.status() == [StatusRow(sound, (Target("soundboard", 70),), False)]


def test_unknown_names_beside_a_deviceless_channel_are_no_valid_targets(
    make_engine: MakeEngine, write_tone: Callable[..., Path], load_ok: LoadOk
) -> None:
    """AUD-20: not every target names a missing channel, so the failure is no_valid_targets."""
    engine = make_engine(no_device={"mic"})
    sound, _ = load_ok(engine, write_tone("t.wav"))
    assert code_of(engine.play(sound, [("headset", 5), ("mic", 5)], False)) == "no_valid_targets"
    assert engine.status() == []


def test_duplicate_channel_and_out_of_range_gain_are_skipped(
    engine: AudioEngine, sound: str
) -> None:
    """AUD-19: gain 0-100, one target per channel; the others cannot play, so are skipped."""
    played = engine.play(
        sound, [("ui", 0), ("ui", 50), ("mic", 101), ("soundboard", -1), ("soundboard", 100)], False
    )
    assert isinstance(played, Played)
    assert played.accepted == (Target("ui", 0), Target("soundboard", 100))
    assert len(played.skipped) == 3


def test_play_errors(
    engine: AudioEngine, sound: str, write_tone: Callable[..., Path], outcomes: Outcomes
) -> None:
    """AUD-18, AUD-23: unknown_sound, unknown_channel, sample_not_cached for a failed sound."""
    assert code_of(engine.play("s-99999999", [("ui", 50)], False)) == "unknown_sound"
    only_unknown = [("headset", 50), ("speakers", 20)]
    assert code_of(engine.play(sound, only_unknown, False)) == "unknown_channel"
    assert engine.status() == []
    bad = write_tone("bad.wav")
    bad.write_bytes(b"no audio here")
    started = engine.load(str(bad), False)
    assert isinstance(started, LoadStarted)
    assert isinstance(outcomes.wait(started.sound), LoadFailed)
    assert code_of(engine.play(started.sound, [("ui", 50)], False)) == "sample_not_cached"


def test_play_while_loading_is_sample_not_cached(
    make_engine: MakeEngine, write_tone: Callable[..., Path], outcomes: Outcomes
) -> None:
    """AUD-18: the play path never decodes; a sound still loading cannot play.

    One worker held in the first callback keeps the second load queued (state: loading).
    """
    engine = make_engine(decode_workers=1)
    release = outcomes.hold()
    path = str(write_tone("t.wav"))
    engine.load(path, False)
    queued = engine.load(path, False)
    assert isinstance(queued, LoadStarted)
    try:
        assert code_of(engine.play(queued.sound, [("ui", 50)], False)) == "sample_not_cached"
    finally:
        release.set()
    assert isinstance(outcomes.wait(queued.sound), Loaded)
    assert isinstance(engine.play(queued.sound, [("ui", 50)], False), Played)


def test_non_looping_play_ends_by_itself(
    engine: AudioEngine, sound: str, clock: ManualClock
) -> None:
    """AUD-11: a 1 s sound is listed until its length has elapsed, then no more."""
    clock.now = 2.0
    engine.play(sound, [("ui", 50)], False)
    clock.now = 2.999
    assert len(engine.status()) == 1
    clock.now = 3.0
    assert engine.status() == []


def test_looping_play_lasts_until_stopped(
    engine: AudioEngine, sound: str, clock: ManualClock
) -> None:
    """AUD-10: a looping play is listed long after its length, until stop."""
    engine.play(sound, [("soundboard", 50)], True)
    clock.now = 100.0
    assert engine.status() == [StatusRow(sound, (Target("soundboard", 50),), True)]
    assert engine.stop(sound) is None
    assert engine.status() == []
    assert engine.stop(sound) is None  # not playing, still known: ok
    assert code_of(engine.stop("s-12345678")) == "unknown_sound"


def test_replay_replaces_the_earlier_playback(
    engine: AudioEngine, sound: str, clock: ManualClock
) -> None:
    """AUD-22: one row per sound, with the newest targets and looping flag."""
    engine.play(sound, [("soundboard", 80), ("mic", 40)], True)
    clock.now = 0.5
    engine.play(sound, [("ui", 30)], False)
    assert engine.status() == [StatusRow(sound, (Target("ui", 30),), False)]
    clock.now = 1.6  # the replay is 1 s long from 0.5: over; the looping first play is gone
    assert engine.status() == []


def test_stop_all_stops_every_sound(
    engine: AudioEngine, write_tone: Callable[..., Path], load_ok: LoadOk, clock: ManualClock
) -> None:
    """AUD-10: stop_all → ok, nothing listed; rows come oldest first before it."""
    a, _ = load_ok(engine, write_tone("a.wav"))
    b, _ = load_ok(engine, write_tone("b.wav"))
    engine.play(b, [("ui", 10)], True)
    clock.now = 0.1
    engine.play(a, [("mic", 20)], False)
    assert [row.sound for row in engine.status()] == [b, a]
    engine.stop_all()
    assert engine.status() == []
