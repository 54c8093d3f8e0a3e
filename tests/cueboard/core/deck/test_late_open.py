"""An ``open`` whose timeout was delivered, and that the host applies after the next snapshot
(issue 21, item 5): the slot adopts the session if it still wants it, and closes it if it has
moved on; the key is never ``busy`` until the next connection."""

from __future__ import annotations

from dataclasses import replace

import pytest

from cueboard.core import policy
from cueboard.core.effects import HostFailure, Send
from vxp.models import media

from .harness import Deck, facts, op

URL = "https://cam.example.test/live/TOKENPATH-1/index.m3u8?k=QUERY-1"
URL_B = "https://cam.example.test/live/TOKENPATH-2/index.m3u8?k=QUERY-2"


def _timed_out_and_shown_without_it() -> Deck:
    deck = Deck()
    deck.connect(facts())
    deck.feed(deck.core.open(URL, "Stage"))
    deck.fail(HostFailure("timeout"))  # the host has not applied it yet
    deck.feed(deck.core.event(deck.host.snapshot()))  # a snapshot without it
    assert not deck.core.unsettled("deck-1") and deck.core.session_of("deck-1") is None
    deck.host.apply_open("deck-1")  # and now the host applies it
    return deck


def test_a_late_open_the_slot_still_wants_is_adopted() -> None:
    deck = _timed_out_and_shown_without_it()
    mark = len(deck.said)
    deck.feed(deck.core.event(deck.host.snapshot()))
    deck.settle()
    assert deck.core.session_of("deck-1") == ("m-00000001", 1)
    assert [op(e) for e in deck.said[mark:] if isinstance(e, Send)] == ["secrets.set", "kv.set"]
    assert [s.title for s in deck.core.view().slots] == ["Stage"]


def test_a_late_open_the_slot_moved_on_from_is_closed_and_the_key_is_free_again() -> None:
    deck = _timed_out_and_shown_without_it()
    deck.feed(deck.core.open(URL_B, "Other", "deck-1"))  # the person tries again meanwhile
    deck.settle()  # the host answers busy: the late session holds the key
    assert deck.core.session_of("deck-1") is None
    deck.feed(deck.core.event(deck.host.snapshot()))
    close = deck.next_send()
    assert isinstance(close.params, media.MediaClose) and close.params.session == "m-00000001"
    deck.settle()
    assert deck.host.by_key("deck-1") is None
    deck.feed(deck.core.open(URL_B, "Other", "deck-1"))
    deck.settle()
    assert deck.core.session_of("deck-1") == ("m-00000002", 1)


def test_whether_a_late_open_may_still_land_is_the_policy_rows_word(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The deck reads the row's ``gone``, never the code: a timeout row that said the
    connection is gone would make the late session one no slot wants, closed, not adopted."""
    row = policy.TABLE[("media.open", "timeout")]
    assert not row.gone and policy.TABLE[("media.open", "closed")].gone
    table = {**policy.TABLE, ("media.open", "timeout"): replace(row, gone=True)}
    monkeypatch.setattr(policy, "TABLE", table)
    deck = _timed_out_and_shown_without_it()
    deck.feed(deck.core.event(deck.host.snapshot()))
    close = deck.next_send()
    assert isinstance(close.params, media.MediaClose) and close.params.session == "m-00000001"
    assert deck.core.session_of("deck-1") is None
