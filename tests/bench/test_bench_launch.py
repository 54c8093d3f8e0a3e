"""``bench/bench_launch.py --quick`` runs Cueboard under vrosdev and prints its table."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]


@pytest.mark.slow
def test_quick_run_prints_the_table() -> None:
    """The bench finds page 1 in the stored order in a real transcript: it exits 0 (it exits
    non-zero when no props carries page 1 in that order) and prints its rows and targets."""
    done = subprocess.run(
        [sys.executable, str(REPO / "bench" / "bench_launch.py"), "--quick"],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    assert "bare SDK hello under vrosdev" in done.stdout
    assert "60 sounds, 5 folders" in done.stdout
    assert "page 1 names ms" in done.stdout
    assert "targets (issue 23, goal 2)" in done.stdout
