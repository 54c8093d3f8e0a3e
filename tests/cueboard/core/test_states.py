"""Clear states (issue 16, items 8-11): the overlay at once, no silent failure, now playing,
the media deck's controls; in memory, against the fake host."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from cueboard.core.contract import Playback, SlotState
from cueboard.core.effects import Scan, Send, Wake
from cueboard.core.inputs import Connected, FolderChanged, Scanned
from cueboard.core.library import Library
from cueboard.core.media_urls import DeckInputError, check_url
from cueboard.runtime.catalogs import load_catalog
from vxp.models import audio, events
from vxp.models.handshake import Granted, Welcome
from vxp.version import Version

from .fakehost import EXT_ID, ROOT, Driver, FakeHost, library


def _overlay(d: Driver) -> dict[str, Any]:
    return {k: v["v"] for k, v in d.core.props.desired("overlay").items()}


def _sent_props(sends: list[Send], panel: str = "overlay") -> list[dict[str, Any]]:
    return [
        {name: value.model_dump()["v"] for name, value in s.params.props}
        for s in sends
        if s.kind == "panel.props" and s.params.panel == panel
    ]


def _start_holding_pre_arm(
    d: Driver, hold: tuple[str, ...] = ("audio.pre_arm",)
) -> tuple[list[Send], list[Send], list[Any]]:
    """Connect, answer everything but ``hold`` (``pre_arm``) and hold the scan: (every send in
    order, the held sends still unanswered, the scan jobs)."""
    welcome = Welcome(
        result="welcome", vxp_version="1.7", granted=d.host.granted, locale="en-US",
        content_root="/content",
    )  # fmt: skip
    held: list[Send] = []
    scans: list[Any] = []
    order: list[Send] = []
    queue: list[object] = d.core.handle(
        Connected(welcome, EXT_ID, Version.parse("1.7"), load_catalog("en-US")), 0.0
    )
    while queue:
        effect = queue.pop(0)
        if isinstance(effect, Send):
            order.append(effect)
            if effect.kind in hold:
                held.append(effect)
                continue
            outcome, follow = d.host.answer(effect)
            queue += d.core.handle(outcome, 0.0)
            for event in follow:
                queue += d.core.handle(event, 0.0)
        elif isinstance(effect, Scan):
            scans.append(effect)
        elif isinstance(effect, Wake):
            d.timers[effect.key] = effect.at
    return order, held, scans


def test_start_up_sends_props_before_pre_arm_and_page_one_before_its_answer() -> None:
    d = Driver()
    order, held, scans = _start_holding_pre_arm(d)
    kinds = [s.kind for s in order]
    assert kinds.index("panel.props") < kinds.index("audio.pre_arm")
    assert held and scans, "pre_arm asked and the scan started while pre_arm is unanswered"
    assert _sent_props(order)[0]["empty-text"] == f"Scanning {ROOT}…"
    d.feed(Scanned(Library(ROOT, d.lib.sounds), "start", 1.0, True))
    d.advance(0.1)  # pre_arm is still unanswered: its reply was never fed in
    names = [{row[1]["v"] for row in p["slots"]} for p in _sent_props(d.host.sent) if "slots" in p]
    assert {"01 Beep", "02 Boop"} in names


def test_the_scan_starts_while_the_preferences_are_still_being_read() -> None:
    d = Driver()
    _, held, scans = _start_holding_pre_arm(d, hold=("audio.pre_arm", "kv.list"))
    assert [s.kind for s in held] == ["audio.pre_arm", "audio.pre_arm", "kv.list"]
    assert [scan.root for scan in scans] == [ROOT]


def test_the_grid_says_scanning_until_the_first_scan_is_in_then_what_it_found() -> None:
    d = Driver(lib=library())
    _start_holding_pre_arm(d)
    assert _overlay(d)["empty-text"] == f"Scanning {ROOT}…"
    d.feed(Scanned(Library(ROOT), "start", 1.0, True))
    d.advance(0.1)
    assert _overlay(d)["empty-text"] == f"No sounds yet. Put audio files into {ROOT}."


# -- no silent failures ---------------------------------------------------------------------


def _tiles(d: Driver) -> list[tuple[str, int, str]]:
    return [(row[1]["v"], row[3]["v"], row[4]["v"]) for row in _overlay(d)["slots"]]


def test_a_file_named_like_audio_that_is_not_counts_as_cant_load_with_its_reason() -> None:
    lib = library("01 Beep.wav", "02 Notes.mp3")
    lib.sounds[1] = replace(lib.sounds[1], problem="not_audio")
    d = Driver(lib=Library(ROOT, lib.sounds))
    d.connect()
    assert _tiles(d)[1] == ("02 Notes", int(SlotState.BROKEN), "Not audio")
    assert str(ROOT / "02 Notes.mp3") not in [p.path for p in d.host.of("audio.load")]
    dash = {k: v["v"] for k, v in d.core.props.desired("dash-tab").items()}
    assert dash["library-summary"] == d.core.link.catalog.t(
        "dash.library_summary", count=2, broken=1
    )
    d.invoke("play-slot-2")
    assert _overlay(d)["status-text"] == "02 Notes cannot be loaded: Not audio."


def test_a_rescan_keeps_a_file_that_is_not_audio_failed_with_its_reason() -> None:
    lib = library("01 Beep.wav", "02 Notes.mp3")
    lib.sounds[1] = replace(lib.sounds[1], problem="not_audio")
    d = Driver(lib=Library(ROOT, lib.sounds))
    d.connect()
    d.event(FolderChanged(), settle=0.1)  # the second scan finds the same file
    assert _tiles(d)[1] == ("02 Notes", int(SlotState.BROKEN), "Not audio")


def test_pressing_an_empty_slot_says_so_briefly() -> None:
    d = Driver()
    d.connect()
    d.invoke("play-slot-12")
    assert _overlay_after(d)["status-text"] == "This slot is empty."
    d.advance(3.0)
    assert _overlay(d)["status-text"] == ""
    d.click("overlay", "play-sound", "")
    assert _overlay_after(d)["status-text"] == "This slot is empty."


def _overlay_after(d: Driver) -> dict[str, Any]:
    d.advance(0.1)
    return _overlay(d)


def test_without_the_audio_grant_tiles_are_disabled_and_the_message_says_where_to_grant() -> None:
    d = Driver(FakeHost(granted=Granted(audio=False)))
    d.connect()
    assert {state for _, state, _ in _tiles(d)} == {int(SlotState.DISABLED)}
    assert _tiles(d)[0][2] == "Sound is off"
    assert "permission" in _overlay(d)["status-text"]


def test_a_missing_sounds_folder_is_one_message_naming_the_setting_until_it_is_created() -> None:
    missing = Path("/nowhere/Sounds")
    d = Driver(lib=library("01 Beep.wav", root=Path("/elsewhere")))
    d.connect()
    setting = {"event": "settings_changed", "key": "sounds_folder", "value": str(missing)}
    d.event(events.SettingsChanged.model_validate(setting))
    d.advance(0.1)
    overlay = _overlay(d)
    assert overlay["empty-text"] == (
        f"The folder in the “Sounds folder” setting does not exist: {missing}"
    )
    assert overlay["status-text"] == ""  # one message, not a second one contradicting it
    d.lib = library("01 Beep.wav", root=missing)  # the folder appears; the watcher says so
    d.event(FolderChanged(), 0.1)
    overlay = _overlay(d)
    assert overlay["empty-text"] == ""
    assert [name for name, _, _ in _tiles(d)] == ["01 Beep"]
    assert overlay["status-text"] == ""


# -- now playing ----------------------------------------------------------------------------


def _playing(d: Driver) -> list[tuple[str, bool, str, str]]:
    return [(r[1]["v"], r[3]["v"], r[4]["v"], r[5]["v"]) for r in _overlay(d)["playing"]]


def _long_sounds(d: Driver, seconds: float = 8.0) -> None:
    for rel in ("01 Beep.wav", "02 Boop.wav", "Memes/Vine.wav"):
        loaded = audio.Loaded(kind="loaded", duration_ms=int(seconds * 1000))
        d.host.load_outcomes[str(ROOT / rel)] = [loaded]


def test_now_playing_lists_the_most_recent_first_even_when_played_again() -> None:
    d = Driver()
    _long_sounds(d)
    d.connect()
    d.invoke("play-slot-1", 0.1)
    d.invoke("play-slot-2", 0.1)
    assert [row[0] for row in _playing(d)] == ["02 Boop", "01 Beep"]
    d.invoke("play-slot-1", 0.1)
    assert [row[0] for row in _playing(d)] == ["01 Beep", "02 Boop"]


def test_now_playing_shows_elapsed_and_remaining_and_a_loop_its_place_in_the_loop() -> None:
    d = Driver()
    _long_sounds(d)
    d.connect()
    d.click("dash-tab", "set-sound-mode", "02 Boop.wav", 4)
    d.invoke("play-slot-1")
    d.invoke("play-slot-2")
    d.advance(3.0)
    assert _playing(d) == [("02 Boop", True, "0:03", "-0:05"), ("01 Beep", False, "0:03", "-0:05")]
    d.advance(7.0)  # 10 s: the one-shot is over, the loop is 2 s into its second pass
    assert _playing(d) == [("02 Boop", True, "0:02", "-0:06")]


def test_the_now_playing_toast_gets_the_channels_line_and_the_sounds_icon() -> None:
    host = FakeHost(granted=Granted(audio=True, overlays=True, bus=["vr.lifecycle"]))
    d = Driver(host, library("01 Beep.wav", "02 Boop.wav", icons=True))
    d.core.toast.source = "export component NowPlaying {}"
    d.connect()
    setting = {"event": "settings_changed", "key": "now_playing_toast", "value": True}
    d.event(events.SettingsChanged.model_validate(setting))
    d.invoke("play-slot-1", 0.1)
    toast = {k: v["v"] for k, v in d.core.props.desired("now-playing").items()}
    assert toast["sound-name"] == "01 Beep"
    assert toast["channels-text"] == "Soundboard 80% · Mic 40%"
    assert toast["has-icon"] is True
    assert toast["sound-icon"] == [d.core.icons.shown["01 Beep.wav"]]


# -- the media deck -------------------------------------------------------------------------

STREAM = "https://media.example.test/live/a.m3u8?token=states-secret"


def _deck(d: Driver) -> list[tuple[str, int]]:
    return [(r[0]["v"], r[3]["v"]) for r in _overlay(d)["deck"]]


def _media_host() -> FakeHost:
    return FakeHost(granted=Granted(audio=True, media=True, secrets=True, bus=["vr.lifecycle"]))


def _nowhere_a_url(d: Driver, secret: str) -> None:
    assert all(secret not in log.message for log in d.logs)
    for panel in ("overlay", "dash-tab"):
        assert secret not in str(d.core.props.desired(panel))
    assert secret not in str(d.host.kv)


def test_a_failed_stream_offers_retry_which_opens_it_again_from_the_url_it_holds() -> None:
    d = Driver(_media_host())
    d.connect()
    d.click("overlay", "media-open", STREAM, "Radio")
    d.advance(0.1)
    [session] = d.host.sessions
    d.host.sessions[session]["playback"] = {"kind": "failed", "code": "network"}
    d.event(_snapshot(d.host))
    d.advance(0.1)
    assert _deck(d) == [("deck-1", int(Playback.FAILED))]
    assert d.core.props.desired("overlay")["label-retry"] == {"t": "str", "v": "Retry"}
    d.click("overlay", "media-retry", "deck-1")
    d.advance(0.1)
    [reload] = d.host.of("media.reload")
    assert reload.url == STREAM
    _nowhere_a_url(d, "states-secret")


def _snapshot(host: FakeHost) -> events.MediaSnapshot:
    rows = list(host.sessions.values())
    return events.MediaSnapshot.model_validate(
        {"event": "media_snapshot", "granted": True, "sessions": rows}
    )


def test_a_url_typed_without_a_scheme_is_completed_to_https() -> None:
    d = Driver(_media_host())
    d.connect()
    d.click("overlay", "media-open", "media.example.test/live/b.m3u8?token=typed-secret", "")
    d.advance(0.1)
    [opened] = d.host.of("media.open")
    assert opened.url == "https://media.example.test/live/b.m3u8?token=typed-secret"
    assert _deck(d)[0][0] == "deck-1"
    _nowhere_a_url(d, "typed-secret")


def test_stop_all_says_it_stops_sounds_and_the_deck_has_its_own_stop() -> None:
    d = Driver(_media_host())
    d.connect()
    assert d.core.props.desired("overlay")["label-stop-all"]["v"] == "Stop all sounds"
    d.click("overlay", "media-open", STREAM, "Radio")
    d.advance(0.1)
    d.click("overlay", "stop-all")
    d.advance(0.1)
    assert d.host.of("media.set") == []  # Stop all leaves the deck alone
    d.click("overlay", "media-pause-all")
    d.advance(0.1)
    [paused] = d.host.of("media.set")
    assert paused.paused is True
    assert d.core.props.desired("overlay")["label-pause-all"]["v"] == "Pause all media"


@pytest.mark.parametrize(
    ("typed", "opened"),
    [
        ("media.example.test/a.m3u8", "https://media.example.test/a.m3u8"),
        ("  localhost:8443/live  ", "https://localhost:8443/live"),
        ("192.0.2.7/live", "https://192.0.2.7/live"),
        ("rtmp://media.example.test/app", "rtmp://media.example.test/app"),  # as typed
    ],
)
def test_a_scheme_is_added_only_where_the_rest_parses_as_a_host(typed: str, opened: str) -> None:
    assert check_url(typed).url.reveal() == opened


@pytest.mark.parametrize("typed", ["media/live", "user@media.example.test/x", "rtmp:/x", ".x/y"])
def test_what_https_would_not_make_a_url_is_refused_as_typed(typed: str) -> None:
    with pytest.raises(DeckInputError):
        check_url(typed)
