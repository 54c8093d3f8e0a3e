"""The editor's preview: under a sound id of its own, to the soundboard channel alone at the
sound's own gain, never published on the bus, never counted, never cutting a playback."""

from __future__ import annotations

from typing import Any

from vxp.models import audio

from .fakehost import ROOT, Driver, rendered

BEEP = "01 Beep.wav"
PLAYED = "ext.com.cueboard.soundboard.played"


def _plays(d: Driver) -> list[audio.AudioPlay]:
    return [audio.AudioPlay.model_validate_json(p.params_json) for p in d.host.of("audio.play")]


def _topics(d: Driver) -> list[str]:
    return [p.topic for p in d.host.of("bus.publish")]


def _preview(d: Driver, rel: str = BEEP) -> None:
    d.click("dash-tab", "preview-sound", rel)


def _targets(play: audio.AudioPlay) -> list[tuple[str, int]]:
    return [(t.channel, t.gain_pct) for t in play.targets]


def test_a_preview_plays_to_the_soundboard_alone_at_the_sounds_gain() -> None:
    d = Driver()
    d.connect()
    d.carry(d.core.controls.edit(BEEP, d.now, gain=50))
    _preview(d)
    (play,) = _plays(d)
    assert _targets(play) == [("soundboard", 40)]  # soundboard 80 % x the sound's own 50 %
    assert not play.looping
    assert PLAYED not in _topics(d)  # no play on the bus
    assert BEEP not in d.core.board.playing  # not in now-playing
    assert d.core.prefs.get(BEEP).plays == 0  # and not counted


def test_a_preview_has_its_own_sound_id_and_leaves_a_playback_running() -> None:
    """AUD-22: a second play of an id replaces the first, so the preview's is another id."""
    d = Driver()
    d.connect()
    d.invoke("play-slot-1")
    (played,) = _plays(d)
    _preview(d)
    preview = _plays(d)[-1]
    assert preview.sound != played.sound
    assert d.host.sounds[preview.sound] == d.host.sounds[played.sound] == str(ROOT / BEEP)
    assert played.sound in d.host.playing  # nothing stopped it
    assert not d.host.of("audio.stop")
    assert _targets(played)[1][0] == "mic" and len(_targets(preview)) == 1


def test_a_second_preview_plays_again_without_loading_again() -> None:
    d = Driver()
    d.connect()
    _preview(d)
    loads = len(d.host.of("audio.load"))
    _preview(d)
    assert len(d.host.of("audio.load")) == loads
    assert len({p.sound for p in _plays(d)}) == 1 and len(_plays(d)) == 2


def test_previewing_another_sound_unloads_the_previous_preview() -> None:
    d = Driver()
    d.connect()
    _preview(d)
    first = _plays(d)[-1].sound
    _preview(d, "02 Boop.wav")
    unloaded: list[Any] = [p.sound for p in d.host.of("audio.unload")]
    assert unloaded == [first]


def test_a_preview_of_an_edited_sound_waits_for_its_render_and_plays_it() -> None:
    d = Driver()
    d.hold_renders = True
    d.connect()
    d.carry(d.core.controls.edit(BEEP, d.now, trim_start_ms=100))
    _preview(d)
    assert not _plays(d)
    job = d.renders[-1]
    d.feed(rendered(job))
    preview = _plays(d)[-1]
    assert d.host.sounds[preview.sound] == str(rendered(job).path)
    assert _targets(preview) == [("soundboard", 80)]
    d.carry(d.core.controls.edit(BEEP, d.now, trim_start_ms=200))  # edited again
    d.feed(rendered(d.renders[-1]))
    _preview(d)
    assert d.host.sounds[_plays(d)[-1].sound] == str(rendered(d.renders[-1]).path)
