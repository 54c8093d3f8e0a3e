"""settle's "the extension is waiting" (vrosdev.proc_state) on real processes: one that waits,
one that spins, and one that waits while the process it started spins."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager, suppress
from pathlib import Path

import anyio
import pytest

from vrosdev.proc_state import busy, waiting

pytestmark = pytest.mark.skipif(not Path("/proc/self/task").is_dir(), reason="needs Linux /proc")

SPIN = [sys.executable, "-c", "while True: pass"]


@contextmanager
def _started(argv: list[str]) -> Iterator[subprocess.Popen[bytes]]:
    """A process in a group of its own, killed with everything it started (an orphaned spinner
    would load the machine for the rest of the suite)."""
    process = subprocess.Popen(argv, start_new_session=True)
    try:
        yield process
    finally:
        with suppress(ProcessLookupError):
            os.killpg(process.pid, signal.SIGKILL)
        process.wait()


def _eventually(check: Callable[[], bool]) -> bool:
    """Whether ``check`` comes true while the process gets going (a bound for a hung test)."""
    limit = time.monotonic() + 60
    while time.monotonic() < limit:
        if check():
            return True
        time.sleep(0.01)
    return False


def test_a_waiting_process_is_not_busy_and_a_spinning_one_always_is() -> None:
    with _started(["sleep", "600"]) as waiting, _started(SPIN) as spinning:
        assert _eventually(lambda: not busy(waiting.pid))
        assert all(busy(spinning.pid) for _ in range(50))


# Waits 20 ms, works 30 ms, in turn: a single look may catch it waiting.
BURSTS = [
    sys.executable, "-c",
    "import time\nwhile True:\n time.sleep(0.02)\n end = time.monotonic() + 0.03\n"
    " while time.monotonic() < end: pass",
]  # fmt: skip


def test_a_process_that_works_in_bursts_is_never_taken_as_waiting() -> None:
    """settle believes a wait only when it lasts over several looks, longer than a pause."""
    with _started(BURSTS) as bursts, _started(["sleep", "600"]) as sleeper:
        assert _eventually(lambda: anyio.run(waiting, sleeper.pid))
        assert _eventually(lambda: busy(bursts.pid))
        for _ in range(20):  # looks spread over many of its pauses
            assert not anyio.run(waiting, bursts.pid)
            time.sleep(0.007)


@contextmanager
def _waiting_on_a_spinner() -> Iterator[tuple[subprocess.Popen[bytes], int]]:
    """A shell that waits while the child it started spins: (the shell, the child's pid)."""
    spin = " ".join(f"'{a}'" for a in SPIN)
    with _started(["sh", "-c", f"{spin} & wait"]) as parent:
        children = Path(f"/proc/{parent.pid}/task/{parent.pid}/children")
        assert _eventually(lambda: children.read_text().strip() != "")
        yield parent, int(children.read_text().split()[0])


def test_a_waiting_process_whose_child_spins_is_busy() -> None:
    with _waiting_on_a_spinner() as (parent, _):
        assert all(busy(parent.pid) for _ in range(50))


def test_no_spinner_outlives_its_test() -> None:
    with _waiting_on_a_spinner() as (_, child):
        pass
    assert _eventually(lambda: not Path(f"/proc/{child}").exists() or _zombie(child))


def _zombie(pid: int) -> bool:
    try:
        return Path(f"/proc/{pid}/stat").read_text().split(") ", 1)[1].startswith("Z")
    except (FileNotFoundError, IndexError):
        return True


def test_a_process_that_is_gone_is_not_busy() -> None:
    with _started(["true"]) as gone:
        gone.wait()
    assert not busy(gone.pid)
