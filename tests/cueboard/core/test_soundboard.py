"""The soundboard's behaviour in memory: presses, loads, cache_full, unknown_sound, overlap
policies, favourites, settings, the bus remote control, coalesced prefs and the exit."""

from __future__ import annotations

from typing import Any

from cueboard.core.effects import HostFailure
from cueboard.core.library import Library, Sound
from cueboard.core.loading import RETRY_FAILED_AFTER_S
from cueboard.core.prefs import FLUSH_DELAY_S
from cueboard.core.records import SoundPrefs, read_records
from cueboard.core.settings import Settings
from cueboard.core.soundboard import Playing
from vxp.models import audio, events

from .fakehost import ROOT, Driver, FakeHost, library


def _targets(play: Any) -> list[tuple[str, int]]:
    return [(t.channel, t.gain_pct) for t in play.targets]


def _plays(d: Driver) -> list[Any]:
    return [audio.AudioPlay.model_validate_json(p.params_json) for p in d.host.of("audio.play")]


def _setting(d: Driver, key: str, value: Any) -> None:
    d.event(events.SettingsChanged(event="settings_changed", key=key, value=value))


def test_start_up_shows_registers_arms_then_loads_the_visible_page() -> None:
    d = Driver()
    d.connect()
    kinds = [s.kind for s in d.host.sent]
    assert kinds[0] == "settings.list"
    assert kinds.index("commands.register") < kinds.index("audio.pre_arm")
    assert kinds.index("panel.props") < kinds.index("audio.pre_arm") < kinds.index("audio.load")
    names = {p.name for p in d.host.of("commands.register")}
    assert {f"play-slot-{n}" for n in range(1, 13)} | {"stop-all", "rescan"} <= names
    loads = [p.path for p in d.host.of("audio.load")]
    assert loads == [str(ROOT / "01 Beep.wav"), str(ROOT / "02 Boop.wav")]  # page 1 only


def test_a_press_plays_at_the_channel_gains_times_the_sounds_own() -> None:
    d = Driver()
    d.connect()
    d.invoke("play-slot-1")
    assert _targets(_plays(d)[0]) == [("soundboard", 80), ("mic", 40)]
    d.click("dash-tab", "set-sound-gain", "01 Beep.wav", 50)
    d.invoke("play-slot-1")
    assert _targets(_plays(d)[1]) == [("soundboard", 40), ("mic", 20)]
    _setting(d, "mic_enabled", False)
    d.invoke("play-slot-1")
    assert _targets(_plays(d)[2]) == [("soundboard", 40)]


def test_a_press_before_audio_loaded_plays_when_it_arrives_and_never_before() -> None:
    host = FakeHost()
    d = Driver(host, library(*(f"{n:02d}.wav" for n in range(1, 15))))
    d.connect()
    d.invoke("page-next")  # page 2: 13.wav and 14.wav load ahead now
    assert not _plays(d)
    d.invoke("play-slot-1")
    plays = _plays(d)
    assert len(plays) == 1
    assert host.sounds[plays[0].sound].endswith("13.wav")
    assert d.core.board.states["13.wav"].status == "loaded"


def test_a_press_right_after_a_failed_load_says_so_and_a_later_one_tries_once_more() -> None:
    bad = str(ROOT / "01 Beep.wav")
    failed = audio.LoadFailed(kind="failed", code="undecodable")
    d = Driver(FakeHost(load_outcomes={bad: [failed]}))
    d.connect()
    d.invoke("play-slot-1")
    d.invoke("play-slot-1")
    assert [p.path for p in d.host.of("audio.load")].count(bad) == 1  # no retry storm
    assert not _plays(d)
    assert d.status_key() == "status.load_failed"
    d.advance(0.1)  # the views' refresh
    text = d.core.props.desired("overlay")["status-text"]["v"]
    assert text == "01 Beep cannot be loaded: Can't decode."  # words, never vrOS's code
    d.advance(RETRY_FAILED_AFTER_S)
    d.invoke("play-slot-1")  # the host decodes it this time
    assert [p.path for p in d.host.of("audio.load")].count(bad) == 2
    assert len(_plays(d)) == 1


def test_cache_full_unloads_the_least_recently_played_and_loads_again_once() -> None:
    names = [f"{n:02d}.wav" for n in range(1, 14)]  # 13.wav is alone on page 2
    last = str(ROOT / "13.wav")
    full = audio.LoadFailed(kind="failed", code="cache_full")
    d = Driver(FakeHost(load_outcomes={last: [full]}), library(*names))
    d.connect()
    for slot in range(1, 13):  # every sound of page 1 played, 02 first of all
        d.invoke(f"play-slot-{2 if slot == 1 else 1 if slot == 2 else slot}")
        d.advance(0.1)
    d.advance(1.0)  # all over
    d.invoke("page-next")
    unloaded = [d.host.sounds[p.sound] for p in d.host.of("audio.unload")]
    assert unloaded == [str(ROOT / "02.wav")]
    assert [p.path for p in d.host.of("audio.load")].count(last) == 2
    assert d.core.board.states["13.wav"].status == "loaded"
    assert d.status_key() == "status.cache_full"


def test_cache_full_twice_shows_broken_and_a_later_press_makes_room_again() -> None:
    third = str(ROOT / "03.wav")
    full = audio.LoadFailed(kind="failed", code="cache_full")
    host = FakeHost(load_outcomes={third: [full, full]})
    d = Driver(host, library("01.wav", "02.wav", "03.wav"))
    d.connect()
    assert d.core.board.states["03.wav"].status == "failed"
    assert [p.path for p in host.of("audio.load")].count(third) == 2
    d.invoke("play-slot-3")  # the slot is not silent for ever: a press tries once more
    assert [p.path for p in host.of("audio.load")].count(third) == 3
    assert len(_plays(d)) == 1


def test_unknown_sound_after_a_host_restart_loads_again_and_plays_once() -> None:
    host = FakeHost()
    d = Driver(host)
    d.connect()
    host.cache.clear()  # the host lost every decoded sound (docs/protocol-notes.md#r21)
    d.invoke("play-slot-1")
    plays = _plays(d)
    assert len(plays) == 2 and plays[0].sound != plays[1].sound
    assert host.playing == {plays[1].sound}
    host.cache.clear()
    host.load_outcomes[str(ROOT / "01 Beep.wav")] = [audio.Loaded(kind="loaded", duration_ms=1)]
    host.faults["audio.play"] = [HostFailure("domain", "unknown_sound")] * 2
    d.invoke("play-slot-1")  # unknown again right after the reload: said once, not looped
    assert len(host.of("audio.play")) == 4
    assert d.status_key() == "status.play_failed"


def test_stop_others_stops_the_rest_and_toggle_stops_a_playing_sound() -> None:
    d = Driver()
    d.connect()
    _setting(d, "overlap", "stop_others")
    d.invoke("play-slot-1")
    d.invoke("play-slot-2")
    stops = [p.sound for p in d.host.of("audio.stop")]
    assert stops == [_plays(d)[0].sound]
    _setting(d, "overlap", "toggle")
    d.invoke("play-slot-2")
    assert len(_plays(d)) == 2
    assert [p.sound for p in d.host.of("audio.stop")][-1] == _plays(d)[1].sound


def test_favourites_bind_a_command_that_plays_and_unbinding_unregisters_it() -> None:
    d = Driver()
    d.connect()
    d.click("dash-tab", "set-sound-favourite", "Memes/Vine.wav", True)
    assert [p.name for p in d.host.of("commands.register")][-1] == "fav-vine"
    d.invoke("fav-vine")
    assert d.host.sounds[_plays(d)[0].sound].endswith("Vine.wav")
    d.click("dash-tab", "set-sound-favourite", "Memes/Vine.wav", False)
    assert [p.name for p in d.host.of("commands.unregister")] == ["fav-vine"]
    d.advance(FLUSH_DELAY_S)
    kept = read_records(d.host.kv)["Memes/Vine.wav"]
    assert (kept.favourite, kept.plays) == (None, 1)  # its play count stays


def test_prefs_changes_are_written_coalesced_one_page_a_folder() -> None:
    d = Driver()
    d.connect()
    before = len(d.host.of("kv.set"))
    for gain in (10, 20, 30):
        d.click("dash-tab", "set-sound-gain", "01 Beep.wav", gain)
    d.click("dash-tab", "set-sound-mode", "02 Boop.wav", 4)
    assert len(d.host.of("kv.set")) == before
    d.advance(FLUSH_DELAY_S)
    assert len(d.host.of("kv.set")) == before + 1  # both are in the library's top folder
    stored = read_records(d.host.kv)
    assert stored["01 Beep.wav"] == SoundPrefs(gain=30)
    assert stored["02 Boop.wav"] == SoundPrefs(mode="loop")


def test_toggle_mic_writes_the_setting_to_kv_and_arms_the_mic() -> None:
    d = Driver()
    d.connect()
    _setting(d, "mic_enabled", False)
    d.invoke("toggle-mic")
    assert d.host.kv["mic_enabled"] is True
    assert [p.channel for p in d.host.of("audio.pre_arm")][-1] == "mic"


def test_normalize_changed_loads_the_loaded_sounds_again() -> None:
    d = Driver()
    d.connect()
    loads = len(d.host.of("audio.load"))
    _setting(d, "normalize", False)
    assert len(d.host.of("audio.load")) == loads + 2
    assert all(p.normalize is False for p in d.host.of("audio.load")[loads:])


def test_bus_remote_control_plays_stops_and_publishes() -> None:
    d = Driver()
    d.connect()
    topic = "ext.com.cueboard.soundboard.cmd."
    d.event(events.BusMessage(event="bus", topic=topic + "play", payload={"path": "02 Boop.wav"}))
    published = d.host.of("bus.publish")
    assert published[0].topic == "ext.com.cueboard.soundboard.played"
    assert published[0].payload == {"name": "02 Boop", "path": "02 Boop.wav"}
    d.event(events.BusMessage(event="bus", topic=topic + "stop-all", payload=None))
    assert len(d.host.of("audio.stop_all")) == 1
    assert d.host.of("bus.publish")[-1].topic.endswith(".stopped")
    d.event(events.BusMessage(event="bus", topic=topic + "play", payload=["not", "a", "dict"]))
    assert len(_plays(d)) == 1


def test_without_the_audio_grant_nothing_is_sent_and_the_status_says_so() -> None:
    d = Driver(FakeHost(granted=_no_audio()))
    d.connect()
    d.invoke("play-slot-1")
    assert not [s for s in d.host.sent if s.namespace == "audio"]
    assert d.status_key() == "status.no_audio_grant"


def _no_audio() -> Any:
    from vxp.models.handshake import Granted

    return Granted(audio=False, overlays=True)


def test_shutting_down_flushes_kv_then_exits_zero() -> None:
    d = Driver()
    d.connect()
    d.click("dash-tab", "set-sound-gain", "01 Beep.wav", 33)
    d.event(events.ShuttingDown(event="shutting_down"))
    assert read_records(d.host.kv)["01 Beep.wav"] == SoundPrefs(gain=33)
    assert d.exit == 0


def test_a_changed_file_is_loaded_again_and_an_unchanged_failure_is_not() -> None:
    d = Driver()
    board = d.core.board
    board.set_library(
        Library(ROOT, [Sound("a.wav", "a", "", 10, 1), Sound("b.wav", "b", "", 10, 1)])
    )
    for rel in ("a.wav", "b.wav"):
        st = board.states[rel]
        st.status, st.code, st.fingerprint = "failed", "undecodable", (10, 1)
    changed = board.set_library(
        Library(ROOT, [Sound("a.wav", "a", "", 12, 2), Sound("b.wav", "b", "", 10, 1)])
    )
    assert changed == ["a.wav"]
    assert board.states["a.wav"].status == "idle"
    assert board.states["b.wav"].status == "failed"


def test_one_shots_expire_and_loops_do_not() -> None:
    board = Driver().core.board
    board.playing["a"] = Playing("a", 0.0, False, (("soundboard", 80),), ends=1.0)
    board.playing["b"] = Playing("b", 0.0, True, (("soundboard", 80),), ends=None)
    assert board.expire(2.0)
    assert list(board.playing) == ["b"]


def test_settings_ignore_unknown_keys_and_ill_typed_values() -> None:
    s = Settings().with_value("overlap", "loudest").with_value("mic_gain", "40")
    assert s == Settings()
    assert Settings().with_value("mic_gain", 12).mic_gain == 12
