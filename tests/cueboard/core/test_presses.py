"""A person's press always goes to the host; a storm of presses is bounded by pacing, at most
10 a second for one sound, the presses beyond coalesced into one (issue 21, item 5). What the
core plans by itself keeps the memory of a failure for good."""

from __future__ import annotations

import random

from cueboard.core.effects import Failure, HostFailure, Send, Tickets, Wake
from cueboard.core.pacing import PRESSES_PER_S, WAKE, Pacer
from cueboard.core.tracker import Tracker
from vxp.models import audio

from .fakehost import Driver, FakeHost

UNKNOWN = HostFailure("domain", "code_from_a_newer_host")


def test_a_press_right_after_a_play_failed_for_good_goes_out() -> None:
    d = Driver(FakeHost(faults={"audio.play": [UNKNOWN]}))
    d.connect()
    d.invoke("play-slot-1")
    assert d.status_key() == "status.play_failed"
    d.advance(0.1)
    d.invoke("play-slot-1")  # the person asks again: the host is asked again, and plays it
    assert len(d.host.of("audio.play")) == 2
    assert d.host.playing


def test_a_request_the_core_plans_again_keeps_the_memory_of_its_failure() -> None:
    tracker = Tracker(Tickets(), random.Random(1))
    target = audio.PlayTarget(channel="soundboard", gain_pct=80)
    play = audio.AudioPlay(sound="s-00000001", targets=[target])
    send = tracker.request(0.0, "audio", play)[0]
    assert isinstance(send, Send)
    tracker.on_failure(Failure(send.ticket, UNKNOWN), 0.0)
    planned = tracker.request(0.5, "audio", play)
    asked = tracker.request(0.5, "audio", play, user_asked=True)
    assert not any(isinstance(e, Send) for e in planned)
    assert [e for e in asked if isinstance(e, Send)]


def test_presses_past_ten_a_second_coalesce_into_one_at_the_next_free_moment() -> None:
    d = Driver()
    d.connect()
    for _ in range(PRESSES_PER_S + 5):  # a held binding: all within the same instant
        d.invoke("play-slot-1")
    assert len(d.host.of("audio.play")) == PRESSES_PER_S
    assert any(k.startswith(WAKE) for k in d.timers)
    d.advance(0.99)
    assert len(d.host.of("audio.play")) == PRESSES_PER_S
    d.advance(0.02)
    assert len(d.host.of("audio.play")) == PRESSES_PER_S + 1  # the five waiting, as one
    d.invoke("play-slot-2")  # another sound has a pace of its own
    plays = [audio.AudioPlay.model_validate_json(p.params_json) for p in d.host.of("audio.play")]
    assert len({p.sound for p in plays}) == 2


def test_a_press_past_the_pace_is_replaced_by_the_next_one() -> None:
    pacer: Pacer[str] = Pacer(per_s=2)
    assert pacer.admit("a", 0.0) and pacer.admit("a", 0.1)
    assert not pacer.admit("a", 0.2)
    assert pacer.hold("a", "first") == [Wake(WAKE + "a", 1.0)]
    assert not pacer.admit("a", 0.3)
    assert pacer.hold("a", "second") == []
    assert pacer.due(WAKE + "a") == ("a", "second")
    assert pacer.due(WAKE + "a") is None


def test_the_waiting_press_goes_out_at_the_moment_its_wake_names() -> None:
    pacer: Pacer[str] = Pacer(per_s=1)
    start = 7.5806694126546725  # start + 1.0 - 1.0 < start in floating point
    assert pacer.admit("a", start)
    assert not pacer.admit("a", start)
    (wake,) = pacer.hold("a", "later")
    assert isinstance(wake, Wake)
    assert pacer.due(wake.key) == ("a", "later")
    assert pacer.admit("a", wake.at)  # not held again at the same moment, for ever
