"""The icon worker process is started and warmed by the first scan that finds icons, and by no
other: a library of sounds alone never pays for a decoder process (its memory, its imports)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from PIL import Image

from tests.e2e.harness import tone

pytestmark = pytest.mark.slow

PROGRAM = """
import sys
from pathlib import Path
import anyio
from anyio.to_process import _process_pool_workers
from cueboard.core.effects import Scan
from cueboard.core.inputs import Scanned
from cueboard.runtime.workers import Workers, end_worker_processes

async def main() -> None:
    fed = []
    workers = Workers(fed.append, in_process=True)
    await workers.scan(Scan(Path(sys.argv[1]), "start"))
    await workers.scan(Scan(Path(sys.argv[1]), "files changed"))
    assert [type(item) for item in fed] == [Scanned, Scanned], fed
    print("workers", len(_process_pool_workers.get(set())))
    await end_worker_processes()

anyio.run(main)
"""


def _workers_after_scans(folder: Path) -> str:
    done = subprocess.run(
        [sys.executable, "-c", PROGRAM, str(folder)], capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 0, done.stderr
    return done.stdout.strip()


def test_a_library_with_icons_starts_one_warmed_worker(tmp_path: Path) -> None:
    tone(tmp_path / "Memes" / "airhorn.wav", seconds=0.1)
    Image.new("RGB", (8, 8), "red").save(tmp_path / "Memes" / "airhorn.gif")
    assert _workers_after_scans(tmp_path) == "workers 1"


def test_a_library_without_icons_starts_no_worker(tmp_path: Path) -> None:
    tone(tmp_path / "Memes" / "airhorn.wav", seconds=0.1)
    assert _workers_after_scans(tmp_path) == "workers 0"
