"""The worker processes' lower CPU priority, in a module that imports nothing else.

On two cores a decode or a render otherwise takes a core that the extension's event loop and
the host need for a press, and the press waits for the scheduler (``bench/bench_latency.py``,
the "hop in" and "hop out" stages). Where the OS has it (Linux), a worker takes the idle
scheduling policy (``SCHED_IDLE``): any ordinary task that wakes, a press being read or
written, takes the core from it at once, where a niced task may first finish its slice. A
worker still gets any core nothing else wants. It is also niced (:data:`WORKER_NICENESS`),
which is what lowers it where the idle policy is missing or refused.

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
    idle = getattr(os, "SCHED_IDLE", None)
    if idle is not None:
        try:
            os.sched_setscheduler(0, idle, os.sched_param(0))
        except OSError:
            pass
