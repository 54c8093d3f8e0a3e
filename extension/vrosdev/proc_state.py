"""Whether a process, or a process it started, is running or runnable right now (Linux /proc).

``settle`` waits for an extension that has sent nothing for a while *and* is waiting: on a busy
machine a process that is still starting (importing, scanning its library) may send nothing for
longer than the quiet time only because it got no CPU, and a quiet wire alone would call it
settled. Where there is no /proc, nothing is known to run, and settle is the quiet wire alone.
"""

from __future__ import annotations

from pathlib import Path

import anyio

PROC = Path("/proc")
_BUSY_STATES = frozenset("RD")  # running or runnable; in uninterruptible I/O
SAMPLES = 5  # looks at the process tree by ``waiting``
SAMPLE_GAP_S = 0.01


def busy(pid: int) -> bool:
    """True when a thread of ``pid`` or of a process under it is running, runnable or in I/O."""
    seen: set[int] = set()
    todo = [pid]
    while todo:
        current = todo.pop()
        if current in seen:
            continue
        seen.add(current)
        for task in _tasks(current):
            if _state(task / "stat") in _BUSY_STATES:
                return True
            todo += _children(task / "children")
    return False


def _tasks(pid: int) -> list[Path]:
    try:
        return list((PROC / str(pid) / "task").iterdir())
    except OSError:  # gone, or no /proc
        return []


def _state(stat: Path) -> str:
    try:
        text = stat.read_text()
    except OSError:
        return ""
    # pid (comm) STATE ...: comm may hold spaces and parentheses, so split after the last ')'.
    rest = text[text.rfind(")") + 1 :].split()
    return rest[0] if rest else ""


def _children(path: Path) -> list[int]:
    try:
        return [int(x) for x in path.read_text().split()]
    except (OSError, ValueError):
        return []


async def waiting(pid: int, samples: int = SAMPLES, gap_s: float = SAMPLE_GAP_S) -> bool:
    """True when ``pid``'s tree is waiting at every one of ``samples`` looks ``gap_s`` apart.

    One look is an instant: a process that works in bursts (imports between reads, a worker
    handing back a result) can be caught between two, so a wait is believed only when it lasts.
    """
    for n in range(samples):
        if busy(pid):
            return False
        if n < samples - 1:
            await anyio.sleep(gap_s)
    return True
