"""The icon worker process runs at a lower CPU priority than the extension, from its warm-up
and from its first decode alike, so that on two cores a decode does not take the core a press
needs (bench/bench_latency.py)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from PIL import Image

from cueboard.workers.priority import WORKER_NICENESS

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(not hasattr(os, "getpriority"), reason="POSIX priorities"),
]

PROGRAM = """
import os, sys
from pathlib import Path
import anyio
from anyio.to_process import _process_pool_workers
from cueboard.core.effects import DecodeIcons
from cueboard.core.inputs import IconsDecoded
from cueboard.runtime.workers import Workers, end_worker_processes

def niceness() -> list[int]:
    pids = [process.pid for process in _process_pool_workers.get(set())]
    return sorted(os.getpriority(os.PRIO_PROCESS, pid) for pid in pids)

def policies() -> list[int]:
    pids = [process.pid for process in _process_pool_workers.get(set())]
    return [os.sched_getscheduler(pid) for pid in pids]

async def main() -> None:
    fed = []
    workers = Workers(fed.append, in_process=True)
    if sys.argv[2] == "warm":
        await workers._warm_up()
    else:
        await workers.decode(DecodeIcons((("a.wav", Path(sys.argv[1])),)))
        assert [type(item) for item in fed] == [IconsDecoded], fed
    print(os.getpriority(os.PRIO_PROCESS, 0), niceness())
    if hasattr(os, "SCHED_OTHER"):
        print(os.sched_getscheduler(0) == os.SCHED_OTHER, policies() == [os.SCHED_OTHER])
    await end_worker_processes()

anyio.run(main)
"""


@pytest.mark.parametrize("first", ["warm", "decode"])
def test_the_icon_worker_runs_below_the_extension(tmp_path: Path, first: str) -> None:
    icon = tmp_path / "a.gif"
    Image.new("RGB", (8, 8), "red").save(icon)
    done = subprocess.run(
        [sys.executable, "-c", PROGRAM, str(icon), first],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    own, workers = lines[0].split(maxsplit=1)
    assert int(own) < 19, "the test's own process already runs at the lowest priority"
    assert workers.strip() == f"[{min(int(own) + WORKER_NICENESS, 19)}]"
    assert WORKER_NICENESS > 0
    if hasattr(os, "SCHED_OTHER"):  # niced, not the idle policy: that starves on busy cores
        assert lines[1] == "True True", "the worker keeps the ordinary policy"


MAIN_AS_WORKER = """
import os, runpy, sys
import cueboard
main = os.path.join(os.path.dirname(cueboard.__file__), "__main__.py")
before = os.getpriority(os.PRIO_PROCESS, 0)
runpy.run_path(main, run_name="__mp_main__")  # what anyio's worker does first, at "init"
print(before, os.getpriority(os.PRIO_PROCESS, 0))
print("cueboard.runtime" in sys.modules, "pydantic" in sys.modules)
"""


def test_a_worker_is_lowered_as_it_loads_the_main_module_before_any_job() -> None:
    """anyio's worker runs the parent's main module as ``__mp_main__`` before its first job:
    Cueboard's lowers the worker there, and imports neither the runtime nor the models, so
    nothing the worker does competes with a press at the extension's priority."""
    done = subprocess.run(
        [sys.executable, "-c", MAIN_AS_WORKER], capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 0, done.stderr
    priorities, imported = done.stdout.splitlines()
    before, after = (int(x) for x in priorities.split())
    assert after == min(before + WORKER_NICENESS, 19)
    assert imported == "False False"
