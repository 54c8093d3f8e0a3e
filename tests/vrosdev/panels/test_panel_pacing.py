"""The pace at which a panel's window takes its props (PAN-7), on a clock the test moves."""

from __future__ import annotations

import itertools

from vrosdev.panels.pacing import PropPacing


class Clock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def _applications(
    pacing: PropPacing, clock: Clock, sends: list[float], until: float
) -> list[float]:
    """When the window applies props, given when they are sent (the window's timer fires a
    scheduled application at its time, before a send at the same moment)."""
    applied: list[float] = []
    due: float | None = None
    for t in [*sends, until]:
        if due is not None and due <= t:
            clock.now = due
            pacing.applied()
            applied.append(due)
            due = None
        clock.now = t
        if t == until:
            break
        wait = pacing.submitted()
        if wait is not None:
            assert due is None  # one application is scheduled at a time
            due = t + wait
    return applied


def test_props_sent_every_millisecond_are_applied_about_30_times_a_second() -> None:
    """PAN-7: a thousand props updates in one second reach the window about 30 times, each
    application at least 33 ms after the one before; the first is not held back."""
    clock = Clock()
    pacing = PropPacing(clock=clock)
    applied = _applications(pacing, clock, [n / 1000 for n in range(1000)], until=1.0)
    assert applied[0] == 0.0
    assert 29 <= len(applied) <= 31
    gaps = [b - a for a, b in itertools.pairwise(applied)]
    assert min(gaps) >= 0.033 - 1e-9


def test_a_lone_update_after_a_quiet_spell_is_applied_at_once() -> None:
    """PAN-7: the pacing merges bursts; it never delays a panel that has been quiet."""
    clock = Clock()
    pacing = PropPacing(clock=clock)
    assert _applications(pacing, clock, [0.0, 0.5, 0.9], until=1.0) == [0.0, 0.5, 0.9]
