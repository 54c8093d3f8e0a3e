"""A bounded sample of the fault matrix (tests/e2e/fault_matrix.py) on the real Cueboard.

``make chaos`` runs every (request kind, code, mode) and 200 chaos seeds; here a fixed sample
and 20 seeds run two at a time. No host answer to any request may crash Cueboard: each run
checks no traceback, no exit, bounded retries and request counts, slot 1 playing after the
fault window, and a localized status notice when the failed request was the user's.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from . import fault_matrix as fm

pytestmark = [pytest.mark.slow, pytest.mark.fault_matrix]

# The sample: start-up requests (the transient budget_full), user-asked requests, a
# sound refused for good, and both modes.
SAMPLE: list[fm.Case] = [
    ("assets", "put", "budget_full", "1"),
    ("kv", "set", "-32603", "3s"),
    ("commands", "register", fm.UNKNOWN_CODE, "1"),
    ("audio", "play", "no_endpoint", "1"),
    ("media", "open", "open_failed", "1"),
    ("audio", "load", "undecodable", "3s"),
]
SEEDS = list(range(20))


@pytest.fixture(scope="module")
def matrix(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path, fm.Transcript]:
    work = tmp_path_factory.mktemp("fault-matrix")
    content_root = fm.content(work / "content")
    return work, content_root, fm.baseline(work, content_root)


def test_pairs_come_from_the_baseline_session_and_cover_what_a_person_does(
    matrix: tuple[Path, Path, fm.Transcript],
) -> None:
    _, _, base = matrix
    pairs = set(base.pairs())
    for pair in [
        ("commands", "register"),  # start-up
        ("assets", "put"),  # icon puts
        ("panel", "props"),
        ("panel", "define"),  # the now-playing toast, switched on by a settings change
        ("audio", "load"),
        ("audio", "play"),  # commands and callbacks
        ("kv", "set"),  # per-sound settings from the dash tab
        ("media", "open"),  # the media deck
        ("media", "set"),
        ("media", "close"),
    ]:
        assert pair in pairs
    assert {(m, o) for m, o, _, _ in SAMPLE} <= pairs
    cases = fm.cases(base.pairs())
    assert len(cases) == sum(2 * (len(fm.codes_for(m)) + 2) for m, _ in base.pairs())


@pytest.mark.timeout(900)
def test_sampled_faults_and_chaos_seeds_never_break_cueboard(
    matrix: tuple[Path, Path, fm.Transcript],
) -> None:
    work, content_root, base = matrix
    outcomes = fm.run_all(SAMPLE, SEEDS, work, content_root, base, jobs=2)
    failures = [f"{fm.label(o)}: {'; '.join(o.problems)}" for o in outcomes if o.problems]
    assert not failures, "\n".join(failures)
