"""What the runtime does around the core's build after the welcome (issue 23, goal 2): the
objects the core's imports made are frozen out of the garbage collector's later passes, and the
collector is on again afterwards, and the same for the icon worker's warm-up; pydantic's plugin
discovery is switched off for the process and the icon workers it starts."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

import cueboard.runtime as runtime

PROGRAM = """
import gc, sys
import cueboard.runtime as runtime
before = gc.get_freeze_count()
shell = runtime._build_shell()
print(gc.isenabled(), gc.get_freeze_count() - before > 10000, "cueboard.core.app" in sys.modules)
"""


def test_the_core_build_is_frozen_out_of_the_collector(tmp_path: Path) -> None:
    env = {**os.environ, "XDG_DATA_HOME": str(tmp_path)}
    done = subprocess.run(
        [sys.executable, "-c", PROGRAM], capture_output=True, text=True, timeout=60, env=env
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["True", "True", "True"]


WORKER = """
import gc, sys
from cueboard.workers.icon_job import warm_decoder
before = gc.get_freeze_count()
warm_decoder()
print(gc.isenabled(), gc.get_freeze_count() - before > 10000, "PIL.Image" in sys.modules)
"""


def test_the_icon_workers_warm_up_is_frozen_out_of_the_collector() -> None:
    done = subprocess.run(
        [sys.executable, "-c", WORKER], capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["True", "True", "True"]


def test_main_switches_pydantic_plugins_off_before_connecting(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Read inside ``anyio.run``, where the connection starts: the one stand-in here, since
    the variable is invisible from outside the process."""
    monkeypatch.delenv(runtime.PYDANTIC_PLUGINS_ENV, raising=False)
    seen: list[str | None] = []

    def run(_: object) -> int:
        seen.append(os.environ.get(runtime.PYDANTIC_PLUGINS_ENV))
        return 0

    monkeypatch.setattr(runtime.anyio, "run", run)
    assert runtime.main() == 0
    assert seen == ["__all__"]
