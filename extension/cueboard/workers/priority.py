"""The worker processes' lower CPU priority, in a module that imports nothing else.

On two cores a decode or a render otherwise takes a core that the extension's event loop and
the host need for a press, and the press waits for the scheduler (``bench/bench_latency.py``,
the "hop in" and "hop out" stages). A worker is niced (:data:`WORKER_NICENESS`): a woken
extension or host gets the core first, and the worker still gets a share of a busy machine.
Not the idle scheduling policy (``SCHED_IDLE``): it measured no better once puts went right
behind presses (``cueboard.runtime.outbox``), and an idle-policy worker starves while other
programs keep the cores busy (a game beside the overlay), so a render that a press waits for,
or the editor's waveform, might never come.

A worker lowers itself as it loads the parent's main module (``cueboard.__main__``, which anyio's
worker runs as ``__mp_main__`` before any job), so not even its own imports compete with a press;
each job calls :func:`lower_priority` too, for a worker started some other way.
"""

from __future__ import annotations

import os

__all__ = ["WORKER_NICENESS", "lower_priority"]

WORKER_NICENESS = 10
_lowered = False


def lower_priority() -> None:
    """Once per worker process: lower its CPU priority (POSIX; elsewhere nothing changes)."""
    global _lowered
    if _lowered:
        return
    _lowered = True
    nice = getattr(os, "nice", None)
    if nice is not None:
        try:
            nice(WORKER_NICENESS)
        except OSError:
            pass
