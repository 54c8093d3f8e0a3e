"""Native player controls: media_control events (MED-21, MED-22, MED-23, MED-25, EVT-15,
docs/protocol-notes.md#r16)."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

import pytest

from vrosdev.media import ControlEvent, ControlRefused, control_allowed

if TYPE_CHECKING:
    from conftest import Harness

# The media_control lines of docs/protocol-notes.md#shapes-the-page-does-not-give, verbatim.
READINGS = [
    json.loads(line)
    for line in (
        '{"event":"media_control","key":"deck-1","session":"m-00000001","source_generation":2,'
        '"action":{"kind":"set_paused","paused":true}}',
        '{"event":"media_control","key":"deck-1","session":"m-00000001","source_generation":2,'
        '"action":{"kind":"set_volume","volume_pct":35}}',
        '{"event":"media_control","key":"deck-1","session":"m-00000001","source_generation":2,'
        '"action":{"kind":"stop"}}',
    )
]


@pytest.fixture
def native(h: Harness) -> Harness:
    """deck-1 with native controls, reloaded once (source_generation 2), snapshots taken."""
    sid = h.open(native_controls=True)["session"]
    h.req("a", "reload", session=sid, url="https://h/next")
    h.host.take_snapshot("a")
    return h


def event(outcome: ControlEvent | ControlRefused) -> dict[str, Any]:
    assert isinstance(outcome, ControlEvent), outcome
    assert outcome.connection == "a"
    return outcome.params


def test_script_steps_give_the_readings_events_med22_evt15(native: Harness) -> None:
    """MED-22, EVT-15: media-pause KEY, media-volume KEY 35, media-stop KEY."""
    host = native.host
    got = [
        event(host.control("deck-1", "set_paused")),
        event(host.control("deck-1", "set_volume", 35)),
        event(host.control("deck-1", "stop")),
    ]
    assert got == READINGS


@pytest.mark.parametrize(
    ("action", "value", "expected"),
    [
        ("pause", None, {"kind": "set_paused", "paused": True}),
        ("resume", None, {"kind": "set_paused", "paused": False}),
        ("set_paused", "false", {"kind": "set_paused", "paused": False}),
        ("set_paused", False, {"kind": "set_paused", "paused": False}),
        ("volume", "0", {"kind": "set_volume", "volume_pct": 0}),
        ("set_volume", 100, {"kind": "set_volume", "volume_pct": 100}),
    ],
)
def test_actions_are_absolute_med22(
    native: Harness, action: str, value: object, expected: dict[str, Any]
) -> None:
    """MED-22: each control arrives as an absolute action, never a toggle."""
    assert event(native.host.control("deck-1", action, value))["action"] == expected


def test_media_control_step_sends_a_chosen_stale_generation(native: Harness) -> None:
    """media-control KEY ACTION [VALUE] generation=N."""
    params = event(native.host.control("deck-1", "set_volume", "35", generation=1))
    assert params["source_generation"] == 1
    assert native.row("a", "m-00000001")["source_generation"] == 2


def test_generation_follows_reloads(native: Harness) -> None:
    native.req("a", "reload", session="m-00000001", url="https://h/again")
    assert event(native.host.control("deck-1", "stop"))["source_generation"] == 3


def test_a_control_does_not_change_the_session_med23(native: Harness) -> None:
    """MED-23: a player control leaves the session as it was until the extension sets it."""
    before = native.row("a", "m-00000001")
    for action, value in (("set_paused", True), ("set_volume", 5), ("stop", None)):
        event(native.host.control("deck-1", action, value))
    assert native.row("a", "m-00000001") == before
    assert native.host.take_snapshot("a") is None
    # The extension applies it with its own set (MED-23), which does change the session.
    native.req("a", "set", session="m-00000001", paused=True)
    assert native.row("a", "m-00000001")["paused"] is True


@pytest.mark.parametrize(
    ("action", "value", "reason"),
    [
        ("set_volume", None, "0-100"),
        ("set_volume", 101, "0-100"),
        ("set_volume", "loud", "0-100"),
        ("set_volume", True, "0-100"),
        ("set_paused", "maybe", "true or false"),
        ("seek", 10, "unknown player action"),
    ],
)
def test_malformed_steps_are_refused_with_a_reason(
    native: Harness, action: str, value: object, reason: str
) -> None:
    outcome = native.host.control("deck-1", action, value)
    assert isinstance(outcome, ControlRefused)
    assert reason in outcome.reason


def test_no_event_without_native_controls_med21(h: Harness) -> None:
    """MED-21: without native_controls the player has no controls, so a control is refused."""
    h.open()
    outcome = h.host.control("deck-1", "stop")
    assert isinstance(outcome, ControlRefused)
    assert "native_controls" in outcome.reason


def test_no_event_for_an_unknown_key(h: Harness) -> None:
    outcome = h.host.control("nope", "stop")
    assert isinstance(outcome, ControlRefused)
    assert "nope" in outcome.reason


def test_no_event_in_unsupported_mode(unsupported: Harness) -> None:
    assert isinstance(unsupported.host.control("deck-1", "stop"), ControlRefused)


def test_no_event_for_a_1_5_client_r16(harness: type[Harness]) -> None:
    """A 1.5 client cannot turn native controls on (docs/protocol-notes.md#r23), so it never gets
    media_control."""
    h = harness()
    h.connect("old", "1.5")
    h.open("old", native_controls=True)
    assert isinstance(h.host.control("deck-1", "stop"), ControlRefused)


@pytest.mark.parametrize(("version", "allowed"), [("1.5", False), ("1.6", True), ("1.7", True)])
def test_control_allowed_helper_r16(version: str, allowed: bool) -> None:
    assert control_allowed(version) is allowed


def test_the_same_key_on_two_connections_needs_a_connection(harness: type[Harness]) -> None:
    h = harness()
    h.connect("a")
    h.connect("b")
    h.open("a", native_controls=True)
    h.open("b", native_controls=True)
    outcome = h.host.control("deck-1", "stop")
    assert isinstance(outcome, ControlRefused)
    assert "several" in outcome.reason
    chosen = h.host.control("deck-1", "stop", conn="b")
    assert isinstance(chosen, ControlEvent)
    assert (chosen.connection, chosen.params["session"]) == ("b", "m-00000002")


def test_controls_on_player_is_reported_med25(h: Harness) -> None:
    """MED-25: controls_on_player is kept on the session, and set can change it."""
    sid = h.open(native_controls=True, controls_on_player=True)["session"]
    assert h.row("a", sid)["controls_on_player"] is True
    h.req("a", "set", session=sid, controls_on_player=False)
    assert h.row("a", sid)["controls_on_player"] is False
