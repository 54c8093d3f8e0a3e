"""Every ``bench/bench_*.py`` runs in its ``--quick`` mode, exits 0 and prints its table.

A bench exits non-zero when what it measures is broken (no page 1 in a transcript, a soak that
did not finish), so a product change that breaks a bench fails here, not on the day someone
runs ``make bench``. The benches are found by glob: a new one is covered without an edit here.
Nothing is timed: the figures of a quick run are not read, only that the run went through.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
BENCHES = sorted((REPO / "bench").glob("bench_*.py"))
# A table: a header line, a rule under it (dashes, or a Markdown table's |---|), then a row.
RULE = re.compile(r"^[\s|:+-]*-{8,}[\s|:+-]*$")
# What a bench's output must name beyond a table's header and row.
EXPECTED = {
    "bench_launch": (
        "bare SDK hello under vrosdev",
        "60 sounds, 5 folders",
        "page 1 names ms",
        "targets (issue 23, goal 2)",
    ),
}


def tables(out: str) -> list[tuple[str, str]]:
    """(header, first row) of each table printed in ``out``."""
    lines = out.splitlines()
    return [
        (lines[i - 1], lines[i + 1])
        for i in range(1, len(lines) - 1)
        if RULE.match(lines[i]) and lines[i - 1].strip() and lines[i + 1].strip()
    ]


def test_tables_finds_a_header_its_rule_and_a_row_and_nothing_else() -> None:
    out = "title\n\nname   ms\n---------\nfirst  1.0\n\n| a | b |\n|----|--------|\n| 1 | 2 |\n"
    assert tables(out) == [("name   ms", "first  1.0"), ("| a | b |", "| 1 | 2 |")]
    assert tables("name   ms\n---------\n\nno row under the rule\n") == []
    assert tables("no rule\nfirst  1.0\n") == []


def test_every_bench_takes_quick() -> None:
    """The glob finds the benches, and each declares the flag (argparse would exit 2 anyway)."""
    assert len(BENCHES) >= 10
    assert [b.name for b in BENCHES if '"--quick"' not in b.read_text()] == []


@pytest.mark.parametrize("bench", BENCHES, ids=[b.stem for b in BENCHES])
def test_quick_run_exits_0_and_prints_its_table(bench: Path, tmp_path: Path) -> None:
    # Temporary files and vrosdev's sockets in a folder of this test's own (xdist-safe), with a
    # short path: a Unix socket's path is limited to 107 bytes. The bench runs from tmp_path so
    # anything it writes beside itself stays out of the repository.
    with tempfile.TemporaryDirectory(prefix="bq-") as own:
        env = {**os.environ, "TMPDIR": own, "XDG_RUNTIME_DIR": own}
        done = subprocess.run(
            [sys.executable, str(bench), "--quick"],
            cwd=tmp_path,
            env=env,
            capture_output=True,
            text=True,
            timeout=110,
        )
    tail = f"stdout:\n{done.stdout[-3000:]}\nstderr:\n{done.stderr[-3000:]}"
    assert done.returncode == 0, tail
    # A crash in a process the bench runs (an extension, a worker) is printed, not returned.
    assert "Traceback" not in done.stderr, tail
    assert tables(done.stdout), tail
    for text in EXPECTED.get(bench.stem, ()):
        assert text in done.stdout, tail
