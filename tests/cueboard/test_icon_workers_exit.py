"""Cueboard's icon worker processes end with one wait each, so asyncio never reports a child
"exit status already read" (the line ``make demo`` printed from Cueboard's process).

The race needs a worker that is dead, but not yet reaped, when anyio's exit path kills it:
``Popen.send_signal`` polls first and reaps it, then asyncio's child watcher finds nothing to
wait for. A worker killed and left unreaped (``waitid(WNOWAIT)``) right before the event loop
ends makes that window certain instead of occasional. The tests/e2e tests assert the same line
is absent from the real process's stderr.
"""

from __future__ import annotations

import signal
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow

DOUBLE_WAIT = "exit status already read"
PROGRAM = """
import math, os, signal, sys
import anyio, anyio.to_process
from anyio.to_process import _process_pool_workers
from cueboard.runtime.workers import end_worker_processes, decode_icon

async def main() -> None:
    result = await anyio.to_process.run_sync(decode_icon, sys.argv[1])
    assert not isinstance(result, str), result
    (worker,) = _process_pool_workers.get()
    if sys.argv[2] == "stopped":  # alive, and never to run again on its own
        os.kill(worker.pid, signal.SIGSTOP)
        await end_worker_processes(reap_s=math.inf)
        print("decoded", worker.returncode)
        return
    os.kill(worker.pid, signal.SIGKILL)
    os.waitid(os.P_PID, worker.pid, os.WEXITED | os.WNOWAIT)  # dead, still unreaped
    if sys.argv[2] == "close":
        await end_worker_processes()
    print("decoded")

anyio.run(main)
"""


def _gif(path: Path) -> Path:
    from PIL import Image

    frames = [Image.new("RGBA", (16, 16), (40 * i, 90, 200, 255)) for i in range(3)]
    frames[0].save(path, save_all=True, append_images=frames[1:], duration=80, loop=0)
    return path


def _run(icon: Path, mode: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-c", PROGRAM, str(icon), mode],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )


def test_closing_the_decode_workers_leaves_nothing_reaped_twice(tmp_path: Path) -> None:
    done = _run(_gif(tmp_path / "spin.gif"), "close")
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "decoded"
    assert DOUBLE_WAIT not in done.stderr
    assert "Traceback" not in done.stderr


def test_without_closing_them_anyios_exit_reaps_a_dead_worker_twice(tmp_path: Path) -> None:
    """The control: the same program without the close shows the line the test above rules out,
    so that test can fail (this one fails once anyio or asyncio stop reaping twice)."""
    done = _run(_gif(tmp_path / "spin.gif"), "leave")
    assert done.stdout.strip() == "decoded"
    assert DOUBLE_WAIT in done.stderr


def test_a_worker_that_gets_no_cpu_is_ended_all_the_same(tmp_path: Path) -> None:
    """A stopped worker stands for one that gets no CPU on busy cores: it would read a closed
    stdin, finish its job and tear down only once it runs, and the host ends an extension that
    takes 2 s to exit (docs/protocol-notes.md#r26). Given no time limit to reap it, ending the
    workers returns only because it kills them."""
    done = _run(_gif(tmp_path / "spin.gif"), "stopped")
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["decoded", str(-signal.SIGKILL)]
    assert DOUBLE_WAIT not in done.stderr
