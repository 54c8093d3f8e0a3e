"""An ``audio_loaded`` that reaches the core before the ``load`` reply naming its sound id is
kept and applied with that reply: both orders end the same (issue 21, item 5)."""

from __future__ import annotations

from typing import Any

import pytest

from cueboard.core.contract import SlotState
from vxp.models import audio, events

from .fakehost import ROOT, Driver, FakeHost, library


def _tile(d: Driver, name: str) -> tuple[int, str]:
    rows = d.core.props.desired("overlay")["slots"]["v"]
    row = next(r for r in rows if r[1]["v"] == name)
    return row[3]["v"], row[4]["v"]


def _run(events_first: bool, outcome: Any) -> Driver:
    host = FakeHost(load_outcomes={str(ROOT / "01 Beep.wav"): [outcome]})
    d = Driver(host, library("01 Beep.wav", "02 Boop.wav"))
    d.events_first = events_first
    d.connect()
    return d


FAILED = audio.LoadFailed(kind="failed", code="undecodable")
LOADED = audio.Loaded(kind="loaded", duration_ms=1200)


@pytest.mark.parametrize("outcome", [FAILED, LOADED], ids=["failed", "loaded"])
def test_both_orders_of_a_load_reply_and_its_audio_loaded_end_the_same(outcome: Any) -> None:
    reply_first, event_first = _run(False, outcome), _run(True, outcome)
    for d in (reply_first, event_first):
        assert d.core.board.states["02 Boop.wav"].status == "loaded"
    assert _tile(event_first, "01 Beep") == _tile(reply_first, "01 Beep")
    st = event_first.core.board.states["01 Beep.wav"]
    assert st.status == ("failed" if outcome is FAILED else "loaded")
    if outcome is FAILED:
        assert _tile(event_first, "01 Beep") == (int(SlotState.BROKEN), "Can't decode")
    else:
        assert _tile(event_first, "01 Beep")[0] == int(SlotState.READY)
        assert st.duration_ms == 1200
        event_first.invoke("play-slot-1")
        assert len(event_first.host.of("audio.play")) == 1
    assert not event_first.core.board.early


def test_an_event_for_an_id_no_load_waits_for_is_not_kept() -> None:
    d = _run(False, LOADED)
    d.event(events.AudioLoaded(event="audio_loaded", sound="s-99999999", outcome=LOADED))
    assert not d.core.board.early
