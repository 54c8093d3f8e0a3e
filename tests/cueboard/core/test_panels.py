"""panel_event dispatch against the contract: Python values to the handler, anything the
contract does not declare ignored with a debug line that never holds an argument's value."""

from __future__ import annotations

import logging
from typing import Any

import pytest

from cueboard.core.effects import Effect, Log
from cueboard.core.panels import PanelEvents

type Calls = list[tuple[str, tuple[Any, ...]]]


def _events(calls: Calls) -> PanelEvents:
    events = PanelEvents()

    @events.on("overlay", "play-sound")
    def play_sound(key: str, now: float) -> list[Effect]:
        calls.append(("play-sound", (key,)))
        return []

    @events.on("overlay", "media-set-volume")
    def set_volume(key: str, pct: int, now: float) -> list[Effect]:
        calls.append(("media-set-volume", (key, pct)))
        return []

    @events.on("overlay", "media-open")
    def media_open(url: str, label: str, now: float) -> list[Effect]:
        calls.append(("media-open", (url, label)))
        return []

    return events


def test_panel_event_dispatch_calls_the_handler_with_python_values() -> None:
    calls: Calls = []
    events = _events(calls)
    assert events.dispatch("overlay", "play-sound", [{"t": "str", "v": "memes/bruh.ogg"}], 0) == []
    events.dispatch(
        "overlay", "media-set-volume", [{"t": "str", "v": "deck-1"}, {"t": "i64", "v": 35}], 0
    )
    assert calls == [("play-sound", ("memes/bruh.ogg",)), ("media-set-volume", ("deck-1", 35))]


@pytest.mark.parametrize(
    ("panel", "callback", "args"),
    [
        ("overlay", "no-such-callback", []),
        ("overlay", "field-focus", [{"t": "bool", "v": True}]),  # the host's, never ours
        ("nowhere", "play-sound", [{"t": "str", "v": "x"}]),
        ("overlay", "play-sound", []),
        ("overlay", "play-sound", [{"t": "i64", "v": 1}]),
        ("overlay", "play-sound", [{"t": "str"}]),
        ("overlay", "play-sound", "not a list"),
        ("overlay", "media-set-volume", [{"t": "str", "v": "deck-1"}, {"t": "f64", "v": 35.0}]),
        ("overlay", "media-set-volume", [{"t": "str", "v": "deck-1"}, {"t": "i64", "v": True}]),
        ("overlay", "stop-all", []),  # declared, but no handler registered
    ],
)
def test_invalid_panel_events_are_ignored_with_a_debug_line(
    panel: str, callback: str, args: Any
) -> None:
    calls: Calls = []
    events = _events(calls)
    effects = events.dispatch(panel, callback, args, 0)
    assert calls == []
    assert events.ignored == 1
    assert [(e.level, callback in e.message) for e in effects if isinstance(e, Log)] == [
        (logging.DEBUG, True)
    ]


def test_a_bad_media_open_never_logs_the_url() -> None:
    """URLs are credentials: not even an ignored event may log one."""
    events = _events([])
    secret = "https://example.test/live?token=hunter2"
    lines = events.dispatch("overlay", "media-open", [{"t": "str", "v": secret}], 0)
    lines += events.dispatch("overlay", "media-open", [{"t": "str", "v": secret}, {"t": "i64"}], 0)
    messages = [e.message for e in lines if isinstance(e, Log)]
    assert len(messages) == 2
    assert all("hunter2" not in m and "example.test" not in m for m in messages)


def test_registration_is_checked_against_the_contract() -> None:
    events = PanelEvents()
    with pytest.raises(KeyError):
        events.on("overlay", "no-such-callback")
    with pytest.raises(TypeError, match="2 arguments"):

        @events.on("overlay", "media-set-volume")
        def wrong(key: str) -> list[Effect]: ...

    assert ("overlay", "stop-all") in events.unhandled()


def test_the_core_handles_every_callback_of_the_contract() -> None:
    from .fakehost import Driver

    assert Driver().core.panel_events.unhandled() == []
