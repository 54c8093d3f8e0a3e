"""The soundboard under any interleaving of presses, page turns, settings, host failures, lost
caches and reconnects (a Hypothesis state machine over the core and a host in memory).

Invariants: a sound is played only after the host reported it loaded (AUD-18); no request goes
out more than 1 + 3 times; nothing raises; the core's indexes agree with each other; every
status line is a catalog key in both languages.
"""

from __future__ import annotations

from collections import Counter

from hypothesis import settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, invariant, rule

from cueboard.core.effects import HostFailure
from cueboard.core.inputs import Disconnected
from cueboard.core.policy import MAX_RETRIES
from cueboard.runtime.catalogs import load_catalog
from vxp.models import audio, events

from .fakehost import ROOT, Driver, FakeHost, library

NAMES = [f"{n:02d}.wav" for n in range(1, 16)]  # two pages
FAILURES = [
    HostFailure("domain", "internal"),
    HostFailure("protocol", -32603),
    HostFailure("protocol", -32602),
    HostFailure("domain", "unknown_sound"),
    HostFailure("domain", "no_endpoint"),
    HostFailure("domain", "code_from_a_newer_host"),
    HostFailure("timeout"),
    HostFailure("closed"),
]
KINDS = ["audio.play", "audio.load", "audio.stop", "audio.stop_all", "kv.set", "bus.publish"]
EN, JA = load_catalog("en-US"), load_catalog("ja-JP")


class Board(RuleBasedStateMachine):
    def __init__(self) -> None:
        super().__init__()
        self.host = FakeHost()
        self.d = Driver(self.host, library(*NAMES))
        self.d.connect()

    def _settle(self, seconds: float = 0.05) -> None:
        self.d.advance(seconds)

    @rule(slot=st.integers(1, 12))
    def press(self, slot: int) -> None:
        self.d.invoke(f"play-slot-{slot}")
        self._settle()

    @rule(command=st.sampled_from(["stop-all", "page-next", "page-prev", "play-random"]))
    def command(self, command: str) -> None:
        self.d.invoke(command)
        self._settle()

    @rule(overlap=st.sampled_from(["overlap", "stop_others", "toggle"]))
    def overlap(self, overlap: str) -> None:
        self.d.event(events.SettingsChanged(event="settings_changed", key="overlap", value=overlap))

    @rule(name=st.sampled_from(NAMES), on=st.booleans())
    def favourite(self, name: str, on: bool) -> None:
        self.d.click("dash-tab", "set-sound-favourite", name, on)
        self._settle()

    @rule(kind=st.sampled_from(KINDS), failure=st.sampled_from(FAILURES), times=st.integers(1, 5))
    def fail_next(self, kind: str, failure: HostFailure, times: int) -> None:
        self.host.faults.setdefault(kind, []).extend([failure] * times)

    @rule(name=st.sampled_from(NAMES))
    def cache_full_next(self, name: str) -> None:
        full = audio.LoadFailed(kind="failed", code="cache_full")
        self.host.load_outcomes.setdefault(str(ROOT / name), []).append(full)

    @rule()
    def host_forgets_its_sounds(self) -> None:
        self.host.cache.clear()
        self.host.playing.clear()

    @rule()
    def reconnect(self) -> None:
        self.d.feed(Disconnected())
        self.d.connect(settle=0.1)

    @rule(seconds=st.floats(0.01, 5.0))
    def time_passes(self, seconds: float) -> None:
        self._settle(seconds)

    @invariant()
    def plays_only_what_was_loaded(self) -> None:
        for params in self.host.of("audio.play"):
            sound = audio.AudioPlay.model_validate_json(params.params_json).sound
            assert sound in self.host.reported_loaded, sound

    @invariant()
    def retries_are_bounded(self) -> None:
        sends = Counter(s.ticket for s in self.host.sent)
        assert max(sends.values(), default=0) <= 1 + MAX_RETRIES

    @invariant()
    def indexes_agree(self) -> None:
        board = self.d.core.board
        for rel, st_ in board.states.items():
            if st_.sound_id is not None:
                assert board.by_id.get(st_.sound_id) == rel
        assert set(board.playing) <= set(board.states)

    @invariant()
    def the_status_line_is_in_both_catalogs(self) -> None:
        key = self.d.status_key()
        assert key is None or (key in EN and key in JA), key


Board.TestCase.settings = settings(max_examples=60, stateful_step_count=30, deadline=None)
TestBoard = Board.TestCase
