"""A props storm through the overlay model, in real time: frames sent and the CPU it costs.

    .venv/bin/python bench/bench_overlay.py [--changes 10000] [--runs 5] [--quick]

``--changes`` updates of two overlay props (a page index and a gain), in batches of 100 spread
evenly over about a second (``--quick``: 1,000 over a quarter of a second, one run); after each
change the model is asked what is due, as the core asks it after each input, and its
:class:`Wake` is kept as the runtime's timer would keep it. Each frame it sends goes to a
stand-in for the host that serializes it as the wire line would be (``json.dumps``) and
answers ``applied``.
Measured: the frames that reached the panel, the storm's length (first change to the last
frame), frames per second, and the process CPU time over the storm. The baseline, in the same
run and interleaved with it: the same model with the rate limit lifted (a frame as soon as the
loop gets to it), which is what pacing saves. Target: at most one frame at once and then one
per 1/30 s (``ceil(seconds * 30) + 1``), with the panel left in the final state. The test
(tests/cueboard/test_overlay.py) checks the pacing on a virtual clock; this measures it on
the machine's. Median of ``--runs``; nothing is asserted.
"""

from __future__ import annotations

import argparse
import json
import math
import random
import statistics
import time
from dataclasses import dataclass
from typing import Any

import anyio

from cueboard.core.effects import Effect, Reply, Send, Tickets, Wake
from cueboard.core.props import MAX_FRAMES_PER_SECOND, PropsModel
from cueboard.core.tracker import Tracker
from vxp.models import panel as vp

UNLIMITED_FPS = 1e9


@dataclass
class Storm:
    frames: int
    seconds: float
    cpu_s: float
    final_ok: bool


class Panel:
    """The props sink: each frame serialized as a line, the shown state kept (last wins)."""

    def __init__(self, tracker: Tracker) -> None:
        self.frames = 0
        self.shown: dict[str, Any] = {}
        self.wake_at: float | None = None
        self._tracker = tracker

    def carry(self, effects: list[Effect], now: float) -> None:
        for effect in effects:
            if isinstance(effect, Wake):
                self.wake_at = effect.at
            elif isinstance(effect, Send):
                props = effect.params.model_dump(mode="json")["props"]
                json.dumps(
                    {"jsonrpc": "2.0", "id": self.frames, "method": "panel", "params": props}
                )
                self.frames += 1
                self.shown.update(dict(props))
                applied = vp.PanelApplied(result="applied")
                self.carry(self._tracker.on_reply(Reply(effect.ticket, applied), now), now)


async def storm(changes: int, fps: float, seconds: float = 1.0) -> Storm:
    tracker = Tracker(Tickets(), random.Random(0))
    panel = Panel(tracker)
    model = PropsModel(tracker, max_frames_per_second=fps)

    def due() -> None:
        now = anyio.current_time()
        if panel.wake_at is not None and panel.wake_at <= now:
            panel.wake_at = None
        panel.carry(model.due(now), now)

    started, cpu = anyio.current_time(), time.process_time()
    for i in range(changes):
        model.set("overlay", "page-index", i)
        model.set("overlay", "soundboard-gain", i % 101)
        due()
        if i % 100 == 99:
            await anyio.sleep_until(started + (i + 1) / changes * seconds)
    with anyio.fail_after(10):
        while model.pending("overlay"):
            if panel.wake_at is not None:
                await anyio.sleep_until(panel.wake_at)
            due()
    seconds, cpu_s = anyio.current_time() - started, time.process_time() - cpu
    final = {
        "page-index": {"t": "i64", "v": changes - 1},
        "soundboard-gain": {"t": "i64", "v": (changes - 1) % 101},
    }
    return Storm(panel.frames, seconds, cpu_s, panel.shown == final)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--changes", type=int, default=10_000)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--quick", action="store_true", help="one run, small sizes")
    args = parser.parse_args()
    seconds = 0.25 if args.quick else 1.0  # the storm's length
    if args.quick:
        args.changes, args.runs = 1000, 1
    results: dict[str, list[Storm]] = {"paced": [], "unlimited": []}
    for _ in range(args.runs):  # interleaved: the machine's load falls on both alike
        results["paced"].append(anyio.run(storm, args.changes, MAX_FRAMES_PER_SECOND, seconds))
        results["unlimited"].append(anyio.run(storm, args.changes, UNLIMITED_FPS, seconds))

    def med(name: str, field: str) -> float:
        return statistics.median(getattr(s, field) for s in results[name])

    print(f"{args.changes} changes of two props in about {seconds:g} s, median of {args.runs} runs")
    header = f"{'variant':<28} {'frames':>7} {'seconds':>8} {'frames/s':>9} {'CPU ms':>8}  final"
    print(header)
    print("-" * len(header))
    for name, label in (
        ("paced", "overlay model, 30 frames/s"),
        ("unlimited", "baseline: no limit"),
    ):
        frames, seconds = med(name, "frames"), med(name, "seconds")
        final = all(s.final_ok for s in results[name])
        print(
            f"{label:<28} {frames:>7.0f} {seconds:>8.3f} {frames / seconds:>9.1f} "
            f"{med(name, 'cpu_s') * 1000:>8.1f}  {'ok' if final else 'WRONG'}"
        )
    paced = results["paced"]
    bound_met = all(s.frames <= math.ceil(s.seconds * MAX_FRAMES_PER_SECOND) + 1 for s in paced)
    ratio = med("paced", "frames") / med("unlimited", "frames")
    print(
        f"paced frames / baseline frames: {ratio:.2f}; "
        f"target (<= ceil(seconds * 30) + 1 in every run, final state shown): "
        f"{'met' if bound_met and all(s.final_ok for s in paced) else 'MISSED'}"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
