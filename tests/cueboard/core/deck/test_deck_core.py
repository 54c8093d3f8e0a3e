"""The deck core's transitions, in memory: inputs in, effects out, no event loop, no host.

Each test drives :class:`DeckCore` through one race or refusal with a scripted host
(harness.Host) and checks the requests it sends, the notices it gives and its view.
"""

from __future__ import annotations

from typing import Any

import pytest

from cueboard.core.contract import MediaMode, Playback, StatusLevel
from cueboard.core.deck import kv_slot_key
from cueboard.core.effects import HostFailure, Notice, Send
from vxp.models import media

from .harness import Deck, control, facts, op, row, snapshot

URL = "https://cam.example.test/live/TOKENPATH-1/index.m3u8?k=QUERY-1"
URL_B = "https://cam.example.test/live/TOKENPATH-2/index.m3u8?k=QUERY-2"
PAUSE = {"kind": "set_paused", "paused": True}


def started(**host: Any) -> Deck:
    deck = Deck()
    deck.connect(facts(**host))
    return deck


def opened(title: str = "Stage", **host: Any) -> Deck:
    deck = started(**host)
    deck.feed(deck.core.open(URL, title))
    deck.settle()
    return deck


def ops(deck: Deck, since: int = 0) -> list[str]:
    return [op(e) for e in deck.said[since:] if isinstance(e, Send)]


def test_start_reads_the_options_and_each_slot_record_and_sends_nothing_else() -> None:
    deck = Deck()
    deck.feed(deck.core.connected(facts()))
    deck.settle()
    assert ops(deck) == ["kv.get"] * 5
    assert deck.core.view().mode is MediaMode.READY and deck.core.view().slots == ()


def test_open_then_reply_then_snapshot() -> None:
    deck = started()
    mark = len(deck.said)
    deck.feed(deck.core.open(URL, "Stage"))
    sent = deck.next_send()
    assert isinstance(sent.params, media.MediaOpen) and sent.user_asked
    assert sent.params.key == "deck-1" and sent.params.title == "Stage"
    assert sent.params.native_controls is True and sent.params.url == URL
    deck.settle()
    assert ops(deck, mark) == ["media.open", "secrets.set", "kv.set"]
    assert deck.core.session_of("deck-1") == ("m-00000001", 1)
    [slot] = deck.core.view().slots
    assert slot.playback is Playback.OPENING and deck.core.view().url_clear == 1
    deck.host.sessions["m-00000001"].kind = "playing"
    deck.feed(deck.core.event(deck.host.snapshot()))
    [slot] = deck.core.view().slots
    assert slot.playback is Playback.PLAYING and slot.title == "Stage"
    assert deck.host.secrets["deck-1"] == URL
    assert deck.host.kv[kv_slot_key("deck-1")]["title"] == "Stage"


def test_med16_reload_raises_the_generation_and_an_older_snapshot_row_is_skipped() -> None:
    deck = opened()
    deck.feed(deck.core.event(snapshot(row("deck-1", "m-00000001", 1, "playing"))))
    deck.feed(deck.core.reload("deck-1", URL_B))
    assert op(deck.next_send()) == "media.reload"
    deck.settle()
    assert deck.core.session_of("deck-1") == ("m-00000001", 2)
    assert deck.host.secrets["deck-1"] == URL_B
    deck.feed(deck.core.event(snapshot(row("deck-1", "m-00000001", 1, "paused"))))
    assert deck.core.session_of("deck-1") == ("m-00000001", 2)
    assert deck.core.view().slots[0].playback is not Playback.PAUSED


def test_med24_a_control_of_the_old_generation_is_dropped_the_current_one_applied() -> None:
    deck = opened()
    deck.feed(deck.core.reload("deck-1", URL_B))
    deck.settle()
    mark = len(deck.said)
    deck.feed(deck.core.event(control("deck-1", "m-00000001", 1, PAUSE)))
    assert deck.outstanding == [] and deck.core.controls_dropped == {"stale_generation": 1}
    deck.feed(deck.core.event(control("deck-1", "m-00000001", 2, PAUSE)))
    sent = deck.next_send()
    assert isinstance(sent.params, media.MediaSet) and sent.params.paused is True
    deck.settle()
    assert deck.core.controls_applied == 1 and ops(deck, mark) == ["media.set", "kv.set"]


def test_a_control_that_arrives_during_a_reload_is_judged_after_it() -> None:
    deck = opened()
    deck.feed(deck.core.reload("deck-1", URL_B))
    assert op(deck.next_send()) == "media.reload"
    deck.feed(deck.core.event(control("deck-1", "m-00000001", 1, PAUSE)))  # pressed on the old
    deck.settle()
    assert deck.core.controls_dropped == {"stale_generation": 1}
    assert deck.core.controls_applied == 0


def test_r21_reconnect_reconciles_with_status_and_reopens_with_the_held_url() -> None:
    deck = opened("Keep going")
    deck.feed(deck.core.set_options("deck-1", volume_pct=40))
    deck.settle()
    deck.host.sessions.clear()  # sessions end with their connection
    mark = len(deck.said)
    deck.connect()
    assert ops(deck, mark) == ["media.status", "media.open", "secrets.set", "kv.set"]
    reopened = next(e for e in deck.said[mark:] if isinstance(e, Send) and op(e) == "media.open")
    assert isinstance(reopened.params, media.MediaOpen)
    assert reopened.params.volume_pct == 40 and reopened.params.title == "Keep going"
    assert deck.core.session_of("deck-1") == ("m-00000002", 1)
    assert deck.notices(deck.said[mark:]) == []


@pytest.mark.parametrize(
    "failure",
    [HostFailure("protocol", -32603), HostFailure("timeout"), HostFailure("unreadable")],
    ids=["-32603", "timeout", "unreadable"],
)
def test_an_open_with_an_unknown_outcome_is_settled_by_the_next_snapshot(
    failure: HostFailure,
) -> None:
    deck = started()
    deck.feed(deck.core.open(URL, "Stage"))
    deck.host.apply_open("deck-1")  # the host did open it, then answered badly
    said = deck.fail(failure)
    # the person hears at once that the open is not confirmed; the snapshot settles it
    assert [n.key for n in deck.notices(said)] == ["media.error.unconfirmed"]
    assert deck.core.unsettled("deck-1")
    # Never a second open for that slot meanwhile: an explicit one is refused, a free one
    # goes to the next slot.
    assert deck.notices(deck.feed(deck.core.open(URL_B, key="deck-1")))[0].key == (
        "media.error.pending"
    )
    assert deck.outstanding == []
    deck.feed(deck.core.event(deck.host.snapshot()))
    assert not deck.core.unsettled("deck-1")
    assert deck.core.session_of("deck-1") == ("m-00000001", 1)
    deck.settle()  # the adopted session's URL and record are kept
    assert deck.host.secrets["deck-1"] == URL and kv_slot_key("deck-1") in deck.host.kv
    assert [op(e) for e in deck.said if isinstance(e, Send)].count("media.open") == 1


def test_an_unknown_open_that_the_snapshot_does_not_list_did_not_happen() -> None:
    deck = started()
    deck.feed(deck.core.open(URL, "Stage"))
    deck.fail(HostFailure("protocol", -32603))
    said = deck.feed(deck.core.event(snapshot()))
    [notice] = deck.notices(said)
    assert notice.key == "media.error.code" and dict(notice.params) == {
        "title": "Stage",
        "code": "-32603",
    }
    assert deck.core.view().slots == () and not deck.core.unsettled("deck-1")
    deck.feed(deck.core.open(URL, "Stage", key="deck-1"))  # now the user may try again
    assert op(deck.next_send()) == "media.open"


def test_r15_busy_is_explained_and_never_retried() -> None:
    deck = started()
    deck.host.apply_open("deck-1")  # something already holds the key
    deck.feed(deck.core.open(URL, "Stage"))
    said = deck.answer()
    assert deck.notices(said) == [
        Notice("media.error.busy", StatusLevel.WARN, {"title": "Stage", "code": "busy"})
    ]
    assert deck.outstanding == [] and deck.core.view().slots == ()


def test_a_live_slot_is_never_opened_twice() -> None:
    deck = opened()
    said = deck.feed(deck.core.open(URL_B, key="deck-1"))
    assert [n.key for n in deck.notices(said)] == ["media.error.busy"]
    assert deck.outstanding == []


def test_med2_unsupported_stops_media_requests_until_the_next_connection() -> None:
    deck = started()
    deck.feed(deck.core.open(URL, "X"))
    said = deck.fail(HostFailure("domain", "unsupported"))
    assert [n.key for n in deck.notices(said)] == ["media.unsupported"]
    assert deck.core.mode is MediaMode.UNSUPPORTED
    mark = len(deck.said)
    deck.feed(deck.core.open(URL_B))
    deck.feed(deck.core.set_defaults(show_video=False))
    deck.settle()
    assert ops(deck, mark) == ["kv.set"]  # the options are kept; nothing goes to media
    deck.connect()
    assert deck.core.mode is MediaMode.READY
    deck.feed(deck.core.open(URL))
    assert op(deck.next_send()) == "media.open"


def test_without_the_secrets_grant_the_url_is_not_kept_and_the_record_says_why() -> None:
    deck = opened(secrets=False)
    assert "secrets.set" not in ops(deck)
    assert deck.host.kv[kv_slot_key("deck-1")]["url_reason"] == "media.reason.no_grant"
    again = Deck(host=deck.host)  # the next run
    again.connect(facts(secrets=False))
    assert "secrets.get" not in ops(again)
    [notice] = again.notices()
    assert notice.key == "media.url_not_kept"
    assert dict(notice.refs) == {"reason": "media.reason.no_grant"}
    [slot] = again.core.view().slots
    assert slot.needs_url and slot.playback is Playback.NO_SESSION


def test_kv_restore_reopens_with_the_kept_url_title_and_options() -> None:
    deck = Deck()
    deck.host.kv = {
        "deck:options": {"max_fps": 60, "native_controls": False, "show_video": "no"},
        "deck:2": {"title": "Night", "volume_pct": 40, "native_controls": True, "url_reason": None},
        "deck:3": "not a record",
    }
    deck.host.secrets = {"deck-2": URL}
    deck.connect()
    assert deck.core.view().options.max_fps == 60
    assert deck.core.view().options.native_controls is False
    assert deck.core.view().options.show_video is True  # a wrongly typed field is dropped
    opened = next(e for e in deck.said if isinstance(e, Send) and op(e) == "media.open")
    assert isinstance(opened.params, media.MediaOpen)
    assert (opened.params.key, opened.params.title, opened.params.url) == ("deck-2", "Night", URL)
    assert opened.params.volume_pct == 40 and opened.params.native_controls is True
    assert [s.key for s in deck.core.view().slots] == ["deck-2"]
    assert deck.notices() == []


def test_no_such_session_on_set_reopens_and_says_so() -> None:
    deck = opened("Restarted")
    deck.host.sessions.clear()  # the player restarted without a snapshot saying so
    mark = len(deck.said)
    deck.feed(deck.core.set_options("deck-1", paused=True))
    deck.settle()
    assert ops(deck, mark) == ["media.set", "media.open", "secrets.set", "kv.set", "kv.set"]
    assert [n.key for n in deck.notices(deck.said[mark:])] == ["media.error.session_lost"]
    assert deck.core.session_of("deck-1") == ("m-00000002", 1)


def test_med18_an_old_host_hides_the_deck_and_nothing_is_sent() -> None:
    deck = started(version="1.3")
    assert deck.core.mode is MediaMode.HIDDEN and ops(deck) == []
    assert deck.notices(deck.feed(deck.core.open(URL))) == []
    assert deck.outstanding == []


def test_stop_from_the_player_closes_and_forgets_the_slot() -> None:
    deck = opened()
    deck.feed(deck.core.event(control("deck-1", "m-00000001", 1, {"kind": "stop"})))
    deck.settle()
    assert deck.core.view().slots == () and deck.host.sessions == {}
    assert kv_slot_key("deck-1") not in deck.host.kv and "deck-1" not in deck.host.secrets


@pytest.mark.parametrize(
    ("failure", "code"),
    [
        (HostFailure("domain", "open_failed"), "open_failed"),
        (HostFailure("protocol", -32602), "-32602"),
        (HostFailure("invalid", None), "invalid_request"),
        (HostFailure("domain", "a_code_from_a_newer_host"), "a_code_from_a_newer_host"),
    ],
)
def test_a_final_open_failure_is_shown_with_its_code_and_not_retried(
    failure: HostFailure, code: str
) -> None:
    deck = started()
    deck.feed(deck.core.open(URL, "Clip"))
    said = deck.fail(failure)
    [notice] = deck.notices(said)
    assert notice.key == "media.error.code" and notice.params["code"] == code
    assert deck.outstanding == [] and deck.core.view().slots == ()
