"""media_snapshot: complete, coalesced, per connection, version-gated (MED-17, MED-18, EVT-14,
docs/protocol-notes.md#r16, docs/protocol-notes.md#r21)."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING

import pytest

from vrosdev.media import snapshot_allowed

if TYPE_CHECKING:
    from conftest import Harness

# The media_snapshot line of docs/protocol-notes.md#shapes-the-page-does-not-give, verbatim.
READINGS_SNAPSHOT = json.loads(
    '{"event":"media_snapshot","granted":true,"sessions":[{"key":"deck-1","session":'
    '"m-00000001","source_generation":2,"title":"Stream","playback":{"kind":"failed",'
    '"code":"network"},"video":"recovering","paused":false,"volume_pct":80,"muted":false,'
    '"show_video":true,"max_fps":30,"native_controls":true,"controls_on_player":false}]}'
)
BUFFERED = 3.0


def test_snapshot_has_the_exact_shape_of_readings(h: Harness) -> None:
    sid = h.open(title="Stream", native_controls=True, volume_pct=80)["session"]
    h.req("a", "reload", session=sid, url="https://h/fail-play")
    h.at(10.0)
    snapshot = h.host.take_snapshot("a")
    assert snapshot == READINGS_SNAPSHOT
    assert list(snapshot["sessions"][0]) == list(READINGS_SNAPSHOT["sessions"][0])


def test_status_carries_the_same_row(h: Harness) -> None:
    sid = h.open()["session"]
    row = h.host.snapshot_json("a")["sessions"][0]
    assert h.req("a", "status", session=sid) == {"result": "status", **row}


def test_open_makes_a_snapshot_due_once_med17(h: Harness) -> None:
    """MED-17: an open makes one snapshot due."""
    assert h.host.take_snapshot("a") is None
    h.open()
    assert h.host.due_connections() == {"a"}
    first = h.host.take_snapshot("a")
    assert first is not None
    assert [s["key"] for s in first["sessions"]] == ["deck-1"]
    assert h.host.take_snapshot("a") is None
    assert h.host.due_connections() == frozenset()


def test_changes_coalesce_into_one_snapshot_of_the_final_state_med17(h: Harness) -> None:
    """MED-17: several changes coalesce into one snapshot of the final state."""
    sid = h.open()["session"]
    h.req("a", "set", session=sid, volume_pct=10)
    h.req("a", "set", session=sid, volume_pct=20, muted=True)
    h.at(BUFFERED)
    snapshot = h.host.take_snapshot("a")
    assert snapshot is not None
    (row,) = snapshot["sessions"]
    assert (row["volume_pct"], row["muted"], row["playback"]) == (20, True, {"kind": "playing"})
    assert h.host.take_snapshot("a") is None


def test_snapshot_is_complete_and_lists_every_live_session_med17(h: Harness) -> None:
    """MED-17: after a change to one session, the snapshot still lists every live one."""
    one = h.open(key="one")["session"]
    h.open(key="two")
    h.host.take_snapshot("a")
    h.req("a", "set", session=one, volume_pct=1)
    snapshot = h.host.take_snapshot("a")
    assert snapshot is not None
    assert [s["key"] for s in snapshot["sessions"]] == ["one", "two"]


def test_a_closed_session_is_missing_from_the_next_snapshot(h: Harness) -> None:
    sid = h.open()["session"]
    h.host.take_snapshot("a")
    h.req("a", "close", session=sid)
    assert h.host.take_snapshot("a") == {"event": "media_snapshot", "granted": True, "sessions": []}


def test_no_change_no_snapshot(h: Harness) -> None:
    sid = h.open(volume_pct=50)["session"]
    h.at(BUFFERED)
    h.host.take_snapshot("a")
    h.req("a", "set", session=sid, volume_pct=50)
    h.req("a", "status", session=sid)
    assert h.at(BUFFERED + 100) == frozenset()
    assert h.host.take_snapshot("a") is None


def test_each_timed_transition_makes_a_snapshot_due(h: Harness) -> None:
    h.open()
    h.host.take_snapshot("a")
    seen: list[tuple[str, str]] = []
    for when in (1.0, 3.0):
        assert h.at(when) == {"a"}
        snapshot = h.host.take_snapshot("a")
        assert snapshot is not None
        seen.append((snapshot["sessions"][0]["playback"]["kind"], snapshot["sessions"][0]["video"]))
    assert seen == [("buffering", "warming"), ("playing", "ready")]


def test_snapshots_are_per_connection(harness: type[Harness]) -> None:
    h = harness()
    h.connect("a")
    h.connect("b")
    h.open("a", key="mine")
    h.open("b", key="theirs")
    assert h.host.due_connections() == {"a", "b"}
    a = h.host.take_snapshot("a")
    assert a is not None
    assert [s["key"] for s in a["sessions"]] == ["mine"]
    h.req("b", "set", session="m-00000002", muted=True)
    assert h.host.due_connections() == {"b"}


@pytest.mark.parametrize(("version", "due"), [("1.3", False), ("1.4", True), ("1.9", True)])
def test_snapshots_only_for_clients_at_1_4_or_later_med18(
    harness: type[Harness], version: str, due: bool
) -> None:
    """MED-18: a client that said hello with 1.3 gets no media_snapshot; 1.4 does."""
    h = harness()
    h.connect("c", version)
    h.open("c")
    assert (h.at(BUFFERED) == {"c"}) is due
    assert (h.host.take_snapshot("c") is not None) is due


@pytest.mark.parametrize(
    ("version", "allowed"),
    [("1.0", False), ("1.3", False), ("1.4", True), ("1.7", True), ((2, 0), True), ((0, 9), False)],
)
def test_snapshot_allowed_helper_med18(version: str | tuple[int, int], allowed: bool) -> None:
    """MED-18: which hello versions may receive media_snapshot."""
    assert snapshot_allowed(version) is allowed


def test_bad_version_text_is_a_caller_error() -> None:
    with pytest.raises(ValueError, match="not a VXP version"):
        snapshot_allowed("1")


def test_sessions_end_with_their_connection_r21(harness: type[Harness]) -> None:
    h = harness()
    h.connect("a")
    h.connect("b")
    h.open("a", key="one")
    h.open("a", key="two")
    h.open("b", key="three")
    assert h.host.connection_closed("a") == ["m-00000001", "m-00000002"]
    assert [s.key for s in h.host.sessions()] == ["three"]
    assert "a" not in h.host.due_connections()
    assert h.host.take_snapshot("a") is None
    assert h.host.connection_closed("a") == [], "closing twice is harmless"


def test_a_new_connection_with_the_same_id_starts_empty(harness: type[Harness]) -> None:
    h = harness()
    h.connect("a")
    h.open("a")
    h.host.connection_closed("a")
    h.connect("a", "1.7")
    assert h.host.snapshot_json("a")["sessions"] == []
    assert h.open("a")["session"] == "m-00000002"


def test_granted_is_the_connections_grant(harness: type[Harness]) -> None:
    h = harness()
    h.host.connection_opened("g", "1.7", granted=False)
    assert h.host.snapshot_json("g") == {
        "event": "media_snapshot",
        "granted": False,
        "sessions": [],
    }
