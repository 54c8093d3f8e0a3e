"""The deck core under every interleaving Hypothesis finds: user actions, replies in any order,
final failures of every kind, snapshots (current, stale, out of order), reloads and the
player's own controls, against a host model that does what it is asked.

Invariants, checked after every step:

* a control whose source_generation is lower than the newest the deck was told for that session
  never applies (MED-24);
* no URL, nor any part of one after the host name, reaches props, a kv value, a notice, a log
  line or a repr (MED-12);
* a slot has at most one ``open`` in flight, counting an open whose outcome is unknown until
  the snapshot that settles it;
* a session's source_generation, as the deck holds it, never decreases;
* after ``unsupported`` no media request is sent until the next connection (MED-2);
* the core never fails inside (no "a step failed" log).

The host may also apply an ``open`` late: after its timeout was delivered, even after a
snapshot without it. Once the host is quiet (every request answered, a snapshot, and again),
every session on a deck key is held by its slot: adopted if the slot still wanted it, closed if
not; never a key left ``busy`` until the next connection.
"""

from __future__ import annotations

import json
from collections import deque
from typing import Any

from hypothesis import settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, initialize, invariant, precondition, rule

from cueboard.core.contract import MediaMode
from cueboard.core.deck import DECK_KEYS, deck_props, notice_text
from cueboard.core.effects import Failure, HostFailure, Log, Notice, Reply, Send
from cueboard.runtime.catalogs import load_catalog
from vxp import Secret
from vxp.models import events, kv, media

from .harness import Deck, control, facts

EN = load_catalog("en-US")
MARKERS = ("LEAKPATH", "LEAKTOKEN", "LEAKKEY", "LEAKUSER")
URLS = (
    "https://cam1.example.test/LEAKPATH-1/live.m3u8?token=LEAKTOKEN-1",
    "https://LEAKUSER:pw@cam2.example.test:8443/LEAKPATH-2/x#LEAKTOKEN-2",
    "rtmp://cam3.example.test/app/LEAKKEY-3",
    "https://long.example.test/LEAKPATH-long/" + "k" * 2100,  # too long to keep in secrets
    "ftp://cam4.example.test/LEAKPATH-ftp",
    "https://cam5.example.test/LEAKPATH with a space",
    "https://cam6.example.test/LEAKPATH-huge/" + "h" * 9000,
)
GOOD = URLS[:4]
KEYS = (*DECK_KEYS, "deck-9")
FAILURES = (
    *(HostFailure("domain", c) for c in ("busy", "unsupported", "no_such_session", "too_many")),
    *(HostFailure("domain", c) for c in ("open_failed", "internal", "too_large", "from_1_9")),
    *(HostFailure("protocol", c) for c in (-32603, -32602, -32001, -32099)),
    HostFailure("unreadable"),
    HostFailure("invalid", None),
    HostFailure("invalid", "invalid_url"),
    HostFailure("timeout"),
    HostFailure("closed"),
)
ACTIONS = (
    {"kind": "set_paused", "paused": True},
    {"kind": "set_paused", "paused": False},
    {"kind": "set_volume", "volume_pct": 35},
    {"kind": "stop"},
    {"kind": "rewind"},
)


def _leaks(text: str) -> list[str]:
    return [m for m in MARKERS if m in text]


def _may_have_happened(failure: HostFailure) -> bool:
    """No answer, or one that does not say: the host may have done what was asked."""
    if failure.kind in ("timeout", "closed", "unreadable"):
        return True
    return failure.kind == "protocol" and failure.code == -32603


class DeckMachine(RuleBasedStateMachine):
    def __init__(self) -> None:
        super().__init__()
        self.deck = Deck()
        self.scanned = 0
        self.history: list[events.MediaSnapshot] = []
        self.opens: dict[str, int] = {}  # key -> ticket of the open in flight
        self.unknown: set[str] = set()  # keys whose open has an unknown outcome
        self.learned: dict[str, int] = {}  # session -> newest generation told to the deck
        self.held: dict[tuple[str, str], int] = {}  # (key, session) -> generation held
        self.controls: deque[events.MediaControl] = deque()
        self.processed: dict[int, Reply | Failure] = {}  # ticket -> the host's answer, not yet in
        self.unsupported = False
        self.late: dict[int, str] = {}  # ticket -> key: opens given up on, the host may apply

    # -- inputs --------------------------------------------------------------------------------

    @initialize(
        version=st.sampled_from(["1.7", "1.7", "1.7", "1.6", "1.5", "1.3"]),
        granted=st.sampled_from([True, True, True, False]),
        secrets=st.booleans(),
    )
    def connect_first(self, version: str, granted: bool, secrets: bool) -> None:
        self.deck.feed(self.deck.core.connected(facts(version, media=granted, secrets=secrets)))
        self.after()
        self.host_answers_everything()  # a started deck: the races begin with the user

    @rule(version=st.sampled_from(["1.7", "1.6", "1.4"]), secrets=st.booleans())
    def reconnect(self, version: str, secrets: bool) -> None:
        for _ in range(200):  # the old connection's requests all end as closed
            if not self.deck.outstanding:
                break
            send = self.deck.take()
            self.processed.pop(send.ticket, None)
            self._deliver(send, Failure(send.ticket, HostFailure("closed")))
            self.after()
        assert not self.deck.outstanding
        self.deck.host.sessions.clear()  # docs/protocol-notes.md#r21
        self.late.clear()
        self.unknown.clear()
        self.opens.clear()
        self.unsupported = False
        self.deck.feed(self.deck.core.connected(facts(version, secrets=secrets)))
        self.after()

    @rule(
        url=st.sampled_from(GOOD * 3 + URLS),
        secret=st.booleans(),
        title=st.sampled_from(["", "Stage", "夜の配信"]),
        key=st.sampled_from((None, *KEYS)),
    )
    def open(self, url: str, secret: bool, title: str, key: str | None) -> None:
        self.deck.feed(self.deck.core.open(Secret(url) if secret else url, title, key))
        self.after()

    @rule(key=st.sampled_from(KEYS), url=st.sampled_from(URLS), title=st.sampled_from(["", "B"]))
    def reload(self, key: str, url: str, title: str) -> None:
        self.deck.feed(self.deck.core.reload(key, url, title))
        self.after()

    @precondition(lambda self: any(s.source_generation for s in self.deck.core.view().slots))
    @rule(pick=st.integers(0, 3), url=st.sampled_from(GOOD))
    def reload_live(self, pick: int, url: str) -> None:
        live = [s.key for s in self.deck.core.view().slots if s.source_generation is not None]
        self.reload(live[pick % len(live)], url, "")

    @rule(key=st.sampled_from(KEYS))
    def close(self, key: str) -> None:
        self.deck.feed(self.deck.core.close(key))
        self.after()

    @rule(
        key=st.sampled_from(KEYS),
        paused=st.none() | st.booleans(),
        volume=st.none() | st.integers(-5, 105),
    )
    def set_options(self, key: str, paused: bool | None, volume: int | None) -> None:
        self.deck.feed(self.deck.core.set_options(key, paused=paused, volume_pct=volume))
        self.after()

    @rule(fps=st.none() | st.integers(0, 121), native=st.none() | st.booleans())
    def set_defaults(self, fps: int | None, native: bool | None) -> None:
        self.deck.feed(self.deck.core.set_defaults(max_fps=fps, native_controls=native))
        self.after()

    @precondition(lambda self: len(self.processed) < len(self.deck.outstanding))
    @rule(pick=st.integers(0, 7))
    def host_processes(self, pick: int) -> None:
        """The host does what one request asks; its answer is still on the way (a snapshot
        may overtake it)."""
        waiting = [s for s in self.deck.outstanding if s.ticket not in self.processed]
        send = waiting[pick % len(waiting)]
        self.processed[send.ticket] = self.deck.host.answer(send)
        self.after()

    @precondition(lambda self: bool(self.deck.outstanding))
    @rule(pick=st.integers(0, 7))
    def answer(self, pick: int) -> None:
        send = self.deck.outstanding[pick % len(self.deck.outstanding)]
        self.deck.take(send.ticket)
        outcome = self.processed.pop(send.ticket, None) or self.deck.host.answer(send)
        self._deliver(send, outcome)
        self.after()

    @precondition(lambda self: bool(self.deck.outstanding))
    @rule()
    def host_answers_everything(self) -> None:
        """Every request answered in order, and what it leads to, until the deck waits for
        nothing (the common case, in one step)."""
        for _ in range(100):
            if not self.deck.outstanding:
                break
            self.answer(0)

    @precondition(lambda self: bool(self.deck.outstanding))
    @rule(pick=st.integers(0, 7), failure=st.sampled_from(FAILURES), happened=st.booleans())
    def fail(self, pick: int, failure: HostFailure, happened: bool) -> None:
        send = self.deck.outstanding[pick % len(self.deck.outstanding)]
        done = self.processed.pop(send.ticket, None) is not None
        if done and not _may_have_happened(failure):
            failure = HostFailure("timeout")  # the host did it: only its answer can be lost
        self.deck.take(send.ticket)
        if _may_have_happened(failure) and happened and not done:
            self.deck.host.answer(send)  # the host did it; the answer was lost
        elif _may_have_happened(failure) and not done and isinstance(send.params, media.MediaOpen):
            self.late[send.ticket] = send.params.key  # the host may still do it, later
        self._deliver(send, Failure(send.ticket, failure))
        self.after()

    @precondition(lambda self: bool(self.late))
    @rule(pick=st.integers(0, 7))
    def host_applies_a_late_open(self, pick: int) -> None:
        """The host applies an open whose timeout was delivered (perhaps after a snapshot
        without it): a session appears on the key, unless the key is taken."""
        ticket = sorted(self.late)[pick % len(self.late)]
        key = self.late.pop(ticket)
        if self.deck.host.by_key(key) is None:
            self.deck.host.apply_open(key)
        self.after()

    @rule()
    def host_goes_quiet(self) -> None:
        """Every request answered, a current snapshot, and again: then every session on a
        deck key is its slot's (adopted, or closed as unwanted)."""
        for _ in range(3):
            self.host_answers_everything()
            self.snapshot(stale=False, back=1)
        self.host_answers_everything()
        if self.deck.core.mode is not MediaMode.READY or self.unsupported:
            return  # nothing may be sent: the deck cannot close what it does not want
        for s in self.deck.host.sessions.values():
            if s.key in DECK_KEYS:
                held = self.deck.core.session_of(s.key)
                assert held is not None and held[0] == s.session, (
                    f"{s.key}: the host has {s.session}, the deck holds {held}"
                )

    @rule(stale=st.booleans(), back=st.integers(1, 6))
    def snapshot(self, stale: bool, back: int) -> None:
        if stale and self.history:
            shot = self.history[max(0, len(self.history) - back)]
        else:
            shot = self.deck.host.snapshot()
        for row in shot.sessions:
            self.learned[row.session] = max(self.learned.get(row.session, 0), row.source_generation)
        self.deck.feed(self.deck.core.event(shot))
        for key in self.unknown:
            self.opens.pop(key, None)
        self.unknown.clear()
        self.after()

    @precondition(lambda self: bool(self.deck.host.sessions))
    @rule(
        pick=st.integers(0, 7),
        delta=st.sampled_from([0, 0, -1, 1]),
        action=st.sampled_from(ACTIONS),
    )
    def player_control(self, pick: int, delta: int, action: dict[str, Any]) -> None:
        sessions = list(self.deck.host.sessions.values())
        s = sessions[pick % len(sessions)]
        self._control(control(s.key, s.session, max(0, s.generation + delta), action))

    @rule(key=st.sampled_from(KEYS), generation=st.integers(0, 3))
    def stray_control(self, key: str, generation: int) -> None:
        self._control(control(key, "m-99999999", generation, {"kind": "stop"}))

    @precondition(lambda self: bool(self.deck.host.sessions))
    @rule(pick=st.integers(0, 7), kind=st.sampled_from(["playing", "paused", "failed", "gone"]))
    def player_changes(self, pick: int, kind: str) -> None:
        sessions = list(self.deck.host.sessions.values())
        s = sessions[pick % len(sessions)]
        if kind == "gone":  # the player restarted
            del self.deck.host.sessions[s.session]
        else:
            s.kind = kind if kind != "failed" else "ended"
        self.after()

    # -- plumbing ------------------------------------------------------------------------------

    def _control(self, event: events.MediaControl) -> None:
        self.controls.append(event)
        self.deck.feed(self.deck.core.event(event))
        self.after()

    def _deliver(self, send: Send, outcome: Reply | Failure) -> None:
        """Tell the deck the outcome of ``send`` (the model learns what the deck is told)."""
        if isinstance(outcome, Reply):
            result = outcome.result
            if isinstance(result, media.MediaOpened | media.MediaStatusReply):
                self._learn(result.session, result.source_generation)
            elif isinstance(result, media.MediaApplied):
                self._learn(getattr(send.params, "session", ""), result.source_generation)
        failure = outcome.failure if isinstance(outcome, Failure) else None
        key = getattr(send.params, "key", None)
        if isinstance(send.params, media.MediaOpen) and isinstance(key, str):
            if failure is not None and _may_have_happened(failure):
                self.unknown.add(key)
            else:
                self.opens.pop(key, None)
        if send.namespace == "media" and failure == HostFailure("domain", "unsupported"):
            self.unsupported = True
        if failure is not None:
            outcome = Failure(send.ticket, failure)
        self.deck.deliver(outcome)

    def _learn(self, session: str, generation: int) -> None:
        self.learned[session] = max(self.learned.get(session, 0), generation)

    def after(self) -> None:
        """Every check on what the deck said since the last step."""
        new = self.deck.said[self.scanned :]
        self.scanned = len(self.deck.said)
        for effect in new:
            text = repr(effect)
            if isinstance(effect, Notice):
                text += notice_text(effect, EN) + json.dumps([effect.params, effect.refs])
            if isinstance(effect, Log):
                text += effect.message
                assert "a step failed" not in effect.message, effect.message
                self._judged(effect.message)
            if isinstance(effect, Send):
                self._sent(effect)
                if isinstance(effect.params, kv.KvSet):
                    text += json.dumps(effect.params.value)
            assert _leaks(text) == [], text
        view = self.deck.core.view()
        shown = repr(view) + repr(self.deck.core) + json.dumps(deck_props(view, EN))
        assert _leaks(shown) == []
        assert _leaks(json.dumps(self.deck.host.kv)) == []
        for key in DECK_KEYS:
            held = self.deck.core.session_of(key)
            if held is not None:
                before = self.held.get((key, held[0]), 0)
                assert held[1] >= before, f"{key}: generation {before} -> {held[1]}"
                self.held[(key, held[0])] = held[1]
        self.history.append(self.deck.host.snapshot())
        del self.history[:-8]

    def _sent(self, send: Send) -> None:
        if send.namespace == "media":
            assert not self.unsupported, f"{send!r} after unsupported"
        if isinstance(send.params, media.MediaOpen):
            key = send.params.key
            assert key not in self.opens, f"a second open for {key} while one is in flight"
            self.opens[key] = send.ticket

    def _judged(self, message: str) -> None:
        if not message.startswith("media_control "):
            return
        event = self.controls.popleft()
        if message.startswith("media_control applied"):
            newest = self.learned.get(event.session)
            assert event.source_generation == newest, (
                f"a control of generation {event.source_generation} applied; "
                f"the deck was told {newest}"
            )

    @invariant()
    def every_outstanding_request_is_the_decks(self) -> None:
        assert all(self.deck.tracker.owns(s.ticket) for s in self.deck.outstanding)


DeckMachine.TestCase.settings = settings(max_examples=200, stateful_step_count=50)
test_deck_machine = DeckMachine.TestCase
