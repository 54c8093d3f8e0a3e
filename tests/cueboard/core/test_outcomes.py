"""One failure vocabulary: a feature reads the policy row's decision for (request, code), never
the host's code. These tests change a row's meaning only through the table."""

from __future__ import annotations

import random

import pytest

from cueboard.core.effects import Effect, Failure, HostFailure, Send, Tick, Tickets, Wake
from cueboard.core.outcomes import Outcome
from cueboard.core.policy import MAX_RETRIES, Action, load_verdict, rule_for
from cueboard.core.tracker import RETRY_WAKE, Tracker
from vxp.models import audio, kv

from .fakehost import ROOT, Driver, FakeHost


def _final(tracker: Tracker, send: Send, failure: HostFailure) -> None:
    """Fail ``send`` each time it goes out, until the tracker gives up."""
    now = 0.0
    out = tracker.on_failure(Failure(send.ticket, failure), now)
    for _ in range(MAX_RETRIES):
        (wake,) = [e for e in out if isinstance(e, Wake) and e.key.startswith(RETRY_WAKE)]
        now = wake.at
        assert tracker.on_tick(Tick(wake.key, now)) == [send]
        out = tracker.on_failure(Failure(send.ticket, failure), now)
    assert not any(isinstance(e, Wake) for e in out)


def test_a_feature_is_told_done_later_or_the_rows_own_action() -> None:
    tracker = Tracker(Tickets(), random.Random(1))
    told: list[Outcome] = []

    def done(outcome: Outcome) -> list[Effect]:
        told.append(outcome)
        return []

    (send,) = tracker.request(0.0, "kv", kv.KvGet, expect=kv.KvValue, done=done, key="a")
    assert isinstance(send, Send)
    _final(tracker, send, HostFailure("domain", "internal"))  # a RETRY row, retries spent
    (send2,) = tracker.request(0.0, "kv", kv.KvSet, done=done, key="b", value=1)
    assert isinstance(send2, Send)
    tracker.on_failure(Failure(send2.ticket, HostFailure("domain", "value_too_large")), 0.0)
    (send3,) = tracker.request(0.0, "audio", audio.AudioLoad, done=done, path="/s/a.wav")
    assert isinstance(send3, Send)
    tracker.on_failure(Failure(send3.ticket, HostFailure("domain", "cache_full")), 0.0)
    assert [o.action for o in told] == [Action.LATER, Action.FINAL, Action.MAKE_ROOM]
    assert told[1].reason == "notice.host_error"


@pytest.mark.parametrize(
    ("code", "action"),
    [("undecodable", Action.FINAL), ("cache_full", Action.MAKE_ROOM), ("new", Action.LATER)],
)
def test_an_audio_loaded_failure_reads_the_load_rows(code: str, action: Action) -> None:
    assert load_verdict(code) is action
    assert rule_for("audio.load", HostFailure("domain", code)).action is action


def test_a_load_answered_with_a_code_this_version_does_not_know_is_tried_again_later() -> None:
    """The row for an unknown code says nothing about the file: the tile is not broken, and
    a later press loads it again."""
    host = FakeHost(faults={"audio.load": [HostFailure("domain", "from_a_newer_host")] * 4})
    d = Driver(host)
    d.connect()
    assert d.core.board.states["01 Beep.wav"].status == "idle"
    d.advance(5.0)
    d.invoke("play-slot-1")
    assert [p.path for p in host.of("audio.load")].count(str(ROOT / "01 Beep.wav")) >= 2


def test_a_load_whose_file_is_refused_is_failed_for_good() -> None:
    host = FakeHost(faults={"audio.load": [HostFailure("domain", "undecodable")] * 4})
    d = Driver(host)
    d.connect()
    assert d.core.board.states["01 Beep.wav"].status == "failed"
