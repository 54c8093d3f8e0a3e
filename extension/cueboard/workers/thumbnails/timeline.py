"""Fitting an animation's timeline into the host's delays (AST-11) and frame budget.

vrOS shows each frame for 20 to 1000 ms, and an asset holds at most a budget of frames (60,
fewer for large icons: AST-10, AST-12). A frame longer than 1000 ms is shown as repeats of
itself, each of at most 1000 ms, so the animation keeps its exact length whenever the repeats
fit the budget. When they do not, every frame keeps its share of the timeline and the whole
is shortened to about the smaller of the source's length and 1000 ms per frame of budget
(within `TOTAL_TOLERANCE`), with a warning that gives both lengths.
"""

from __future__ import annotations

import bisect
import heapq
import itertools
import math

from .limits import MAX_DELAY_MS, MIN_DELAY_MS

STILL_DELAY_MS = 100  # a one-frame asset still needs a delay within 20-1000 ms
# How far the fitted total may stray from its target when the repeats do not fit the budget.
TOTAL_TOLERANCE = 0.10

Entry = tuple[int, int]  # (index of the frame shown, delay in ms)


def fit_timeline(delays: list[int], budget: int) -> tuple[list[Entry], list[str]]:
    """The entries to send, in order, each showing one of the frames (by index) for a delay
    within 20-1000 ms, at most `budget` of them; and the warnings about changed timing.

    `delays` holds at most `budget` frames, each frame's time in the source.
    """
    if not delays:
        return [], []
    if len(delays) > budget:
        raise ValueError("more frames than the budget: merge them first")
    if len(delays) == 1:
        return [(0, min(MAX_DELAY_MS, max(MIN_DELAY_MS, delays[0] or STILL_DELAY_MS)))], []
    floored = [max(MIN_DELAY_MS, d) for d in delays]
    pieces = [math.ceil(d / MAX_DELAY_MS) for d in floored]
    if sum(pieces) <= budget:
        return _split_all(floored, pieces), []
    source_total = sum(delays)
    total = sum(floored)
    target = min(total, MAX_DELAY_MS * budget)
    entries = _proportional(floored, budget, target)
    if entries is None:
        entries = _time_slots(floored, budget, target)
    played = sum(d for _, d in entries)
    warning = (
        f"the animation lasts {source_total} ms, more than {budget} frames of at most "
        f"{MAX_DELAY_MS} ms can show exactly: it plays in {played} ms, every frame keeping "
        "its share of the timeline"
    )
    return entries, [warning]


def _split(delay: int, parts: int) -> list[int]:
    """`delay` in `parts` near-equal pieces, the longer ones first."""
    base, extra = divmod(delay, parts)
    return [base + 1] * extra + [base] * (parts - extra)


def _split_all(delays: list[int], pieces: list[int]) -> list[Entry]:
    pairs = enumerate(zip(delays, pieces, strict=True))
    return [(i, part) for i, (d, n) in pairs for part in _split(d, n)]


def _within_tolerance(played: int, target: int) -> bool:
    return abs(played - target) <= TOTAL_TOLERANCE * target


def _proportional(delays: list[int], budget: int, target: int) -> list[Entry] | None:
    """Every frame scaled by one factor, as long a factor as the budget allows.

    Each frame gets one entry, and the spare entries go one at a time to the frame with the
    most time per entry (highest averages, as seats are apportioned): that allows the largest
    common factor. None when the result strays from `target` by more than the tolerance (many
    short frames beside a long one: each short frame would cost a whole entry).
    """
    entries_of = [1] * len(delays)
    heap: list[tuple[float, int]] = [(-d, i) for i, d in enumerate(delays)]
    heapq.heapify(heap)
    for _ in range(budget - len(delays)):
        _, i = heapq.heappop(heap)
        entries_of[i] += 1
        heapq.heappush(heap, (-delays[i] / entries_of[i], i))
    total = sum(delays)
    factor = min(
        target / total,
        min(MAX_DELAY_MS * n / d for d, n in zip(delays, entries_of, strict=True)),
    )
    scaled = [max(MIN_DELAY_MS, math.floor(d * factor)) for d in delays]
    if not _within_tolerance(sum(scaled), target):
        return None
    return _split_all(scaled, [math.ceil(d / MAX_DELAY_MS) for d in scaled])


def _time_slots(delays: list[int], budget: int, target: int) -> list[Entry]:
    """`budget` equal slots over the timeline scaled to `target`, each showing the frame on
    screen where it starts (so the first frame stays first: the still variant shows it), then
    neighbouring slots of the same frame joined up to 1000 ms.

    A frame's share is kept to within one slot; the total is `target`.
    """
    scale = sum(delays) / target
    starts = list(itertools.accumulate(delays, initial=0))
    bounds = [round(k * target / budget) for k in range(budget + 1)]
    entries: list[Entry] = []
    for left, right in itertools.pairwise(bounds):
        frame = bisect.bisect_right(starts, left * scale) - 1
        delay = max(MIN_DELAY_MS, right - left)
        if entries and entries[-1][0] == frame and entries[-1][1] + delay <= MAX_DELAY_MS:
            entries[-1] = (frame, entries[-1][1] + delay)
        else:
            entries.append((frame, delay))
    return entries
