"""The bus API in memory: each command's payload is checked, a refusal is answered on the
error topic with the reason, and a ``request_id`` comes back in whatever answers it."""

from __future__ import annotations

from typing import Any

import pytest

from cueboard.core.bus_api import LIST_PAGE_SIZE
from vxp.models import events

from .fakehost import Driver, library
from .test_soundboard import _plays, _targets

PREFIX = "ext.com.cueboard.soundboard."


def _send(d: Driver, verb: str, payload: Any) -> None:
    d.event(events.BusMessage(event="bus", topic=f"{PREFIX}cmd.{verb}", payload=payload))


def _published(d: Driver, kind: str) -> list[Any]:
    return [p.payload for p in d.host.of("bus.publish") if p.topic == PREFIX + kind]


def test_play_with_its_own_mode_and_gains_applies_to_that_press_only() -> None:
    d = Driver()
    d.connect()
    _send(d, "play", {"path": "01 Beep.wav", "mode": "loop", "gain": 50, "mic_gain": 0})
    once = _plays(d)[-1]
    assert once.looping and _targets(once) == [("soundboard", 40), ("mic", 0)]
    d.core.board.playing.clear()
    _send(d, "play", {"path": "01 Beep.wav"})
    after = _plays(d)[-1]
    assert not after.looping and _targets(after) == [("soundboard", 80), ("mic", 40)]


def test_a_request_id_is_echoed_in_played_and_stopped() -> None:
    d = Driver()
    d.connect()
    _send(d, "play", {"path": "01 Beep.wav", "request_id": "r1"})
    _send(d, "stop", {"path": "01 Beep.wav", "request_id": 7})
    assert _published(d, "played")[-1]["request_id"] == "r1"
    assert _published(d, "stopped")[-1]["request_id"] == 7


@pytest.mark.parametrize(
    ("verb", "payload", "code", "field"),
    [
        ("play", {"path": "nope.wav", "request_id": "a"}, "not_found", None),
        ("play", {"request_id": "a"}, "invalid", "path and favourite"),
        ("play", {"path": "01 Beep.wav", "favourite": "x", "request_id": "a"}, "invalid", None),
        ("play", {"path": "01 Beep.wav", "gain": 101, "request_id": "a"}, "invalid", "gain"),
        ("play", {"path": "01 Beep.wav", "gain": "50", "request_id": "a"}, "invalid", "gain"),
        ("play", {"path": "01 Beep.wav", "mode": "shuffle", "request_id": "a"}, "invalid", "mode"),
        ("play", {"path": "01 Beep.wav", "volume": 3, "request_id": "a"}, "invalid", "volume"),
        ("stop", {"favourite": "unbound", "request_id": "a"}, "not_found", None),
        ("set", {"path": "01 Beep.wav", "mic_gain": -1, "request_id": "a"}, "invalid", "mic_gain"),
        ("set", {"path": "gone.wav", "gain": 5, "request_id": "a"}, "not_found", None),
        ("list", {"page": -1, "request_id": "a"}, "invalid", "page"),
        ("dance", {"request_id": "a"}, "unknown_command", None),
    ],
)
def test_a_bad_request_is_answered_on_the_error_topic_with_why(
    verb: str, payload: dict[str, Any], code: str, field: str | None
) -> None:
    d = Driver()
    d.connect()
    _send(d, verb, payload)
    [error] = _published(d, "error")
    assert error["topic"] == f"cmd.{verb}" and error["code"] == code
    assert error["request_id"] == "a"
    if field is not None:
        assert field in error["reason"]
    assert not _plays(d)


def test_a_refusal_never_repeats_the_value_it_was_sent() -> None:
    d = Driver()
    d.connect()
    secret = "https://example.invalid/stream?token=hunter2"
    _send(d, "play", {"path": "01 Beep.wav", "mode": secret})
    [error] = _published(d, "error")
    assert "hunter2" not in str(error) and "hunter2" not in str(d.logs)


def test_a_payload_that_is_not_an_object_is_refused_and_nothing_plays() -> None:
    d = Driver()
    d.connect()
    _send(d, "play", ["not", "a", "dict"])
    assert _published(d, "error")[0]["code"] == "invalid"
    assert not _plays(d)
    _send(d, "stop-all", None)
    assert len(d.host.of("audio.stop_all")) == 1


def test_set_changes_only_the_fields_given_and_replies_with_the_whole_setting() -> None:
    d = Driver()
    d.connect()
    _send(d, "set", {"path": "01 Beep.wav", "gain": 60, "mode": "toggle", "request_id": 1})
    _send(d, "set", {"path": "01 Beep.wav", "mic_gain": 20})
    prefs = d.core.prefs.get("01 Beep.wav")
    assert (prefs.gain, prefs.mic_gain, prefs.mode) == (60, 20, "toggle")
    replies = _published(d, "sound")
    assert replies[0] == {
        "path": "01 Beep.wav", "gain": 60, "mic_gain": 60, "linked": True, "mode": "toggle",
        "targets": "both", "trim_start_ms": 0, "trim_end_ms": None, "fade_in_ms": 0,
        "fade_out_ms": 0, "plays": 0, "last_played": None, "request_id": 1,
    }  # fmt: skip
    assert replies[1]["linked"] is False and replies[1]["mic_gain"] == 20
    _send(d, "set", {"path": "01 Beep.wav", "mic_gain": None, "mode": "default"})
    prefs = d.core.prefs.get("01 Beep.wav")
    assert (prefs.gain, prefs.mic_gain, prefs.mode) == (60, None, None)
    assert _published(d, "sound")[-1]["mode"] == "mix"  # the overlap setting's mode


def test_list_pages_the_library_with_names_folders_durations_and_favourites() -> None:
    names = [f"Folder {n % 3}/Sound {n:03d}.wav" for n in range(LIST_PAGE_SIZE + 5)]
    d = Driver(lib=library(*names))
    d.connect()
    d.click("dash-tab", "set-sound-favourite", "Folder 0/Sound 000.wav", True)
    _send(d, "list", {"request_id": "p0"})
    _send(d, "list", {"page": 1})
    first, second = _published(d, "sounds")
    assert (first["page"], first["pages"], first["total"]) == (0, 2, LIST_PAGE_SIZE + 5)
    assert first["request_id"] == "p0" and "request_id" not in second
    assert len(first["sounds"]) == LIST_PAGE_SIZE and len(second["sounds"]) == 5
    rows = {row["path"]: row for row in first["sounds"] + second["sounds"]}
    assert set(rows) == set(names)
    beep = rows["Folder 0/Sound 000.wav"]
    assert beep["name"] == "Sound 000" and beep["folder"] == "Folder 0"
    assert beep["favourite"] is not None and beep["duration_ms"] is not None
    _send(d, "list", {"page": 2})
    assert _published(d, "sounds")[-1]["sounds"] == []
