"""Reading the in-memory host's log of sends (``FakeHost.sent_at``): who asked for a request,
and how many of a kind fall in one window. The fault matrices judge storms and a person's pace
with these."""

from __future__ import annotations

from cueboard.core.effects import Send

type Sent = list[tuple[float, Send]]


def busiest(times: list[float], window: float) -> int:
    """The most of ``times`` that fall within any one ``window`` seconds."""
    counts = [sum(1 for t in times[i:] if t - start <= window) for i, start in enumerate(times)]
    return max(counts, default=0)


def asked(sent: Sent) -> Sent:
    """A person's requests: the first send of each ticket the user asked for."""
    seen: set[int] = set()
    out: Sent = []
    for t, s in sent:
        if s.user_asked and s.ticket not in seen:
            out.append((t, s))
        seen.add(s.ticket)
    return out


def by_itself(sent: Sent) -> Sent:
    """What the extension sends by itself: plans, and every retry (a person's too)."""
    theirs = {(t, s.ticket) for t, s in asked(sent)}
    return [(t, s) for t, s in sent if (t, s.ticket) not in theirs]
