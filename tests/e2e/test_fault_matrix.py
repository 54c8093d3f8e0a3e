"""The fault matrix's wiring on the real Cueboard: a sample of cells and a few chaos seeds.

Every cell's decision (each request kind x code x mode) is checked in memory against the core
(tests/cueboard/core/test_fault_decisions.py); ``make chaos`` runs every cell and 200 seeds on
the real process. Here one run per path a decision takes through the runtime and vrosdev:
a retry timer at start-up and under a 3 s window, a code no version knows, a press's final
failure and the deck's reaching the overlay as a notice (the deck's after a switch to Japanese),
a file refused for good; and a few chaos seeds on a short session.
Faults on different request kinds share a launch, and every launch runs at once with the
baseline. Each run checks no traceback, no exit, bounded retries and
request counts, slot 1 playing after the fault window, and a localized status notice when the
failed request was the user's, judged on the order of the transcript's events.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from typing import Any

import pytest

from . import fault_matrix as fm

pytestmark = [pytest.mark.slow, pytest.mark.fault_matrix]

# One cell per wiring path (the in-memory test has them all), faults on different kinds
# sharing a launch; a file refused for good has its own (slot 1 does not play after it).
SAMPLE: list[list[fm.Case]] = [
    [
        ("assets", "put", "budget_full", "1"),  # start-up: the runtime's retry timer
        ("kv", "set", "-32603", "3s"),  # every request for 3 s: backoff across the window
        ("commands", "register", fm.UNKNOWN_CODE, "1"),  # a code no version knows
    ],
    [
        ("audio", "play", "no_endpoint", "1"),  # a press's final failure: a notice in the panel
        ("media", "open", "open_failed", "1"),  # the deck's notice
        ("media", "close", "playback_failed", "1"),  # the deck's, after the switch to ja-JP
    ],
    [("audio", "load", "undecodable", "3s")],  # files refused for good: another slot plays
]
SEEDS = list(range(3))
JOBS = 1 + len(SAMPLE) + len(SEEDS)  # all at once: each mostly waits on its script's pauses


@pytest.fixture(scope="module")
def matrix(
    tmp_path_factory: pytest.TempPathFactory,
) -> tuple[fm.Transcript, list[fm.Outcome]]:
    """The baseline, the sample and the seeds, all launched together; each judged after."""
    work = tmp_path_factory.mktemp("fault-matrix")
    content_root = fm.content(work / "content")
    script = fm.session_script() + fm.TAIL
    jobs: list[Callable[[], Any]] = [
        partial(fm.run_vrosdev, work / "baseline", script, content_root)
    ]
    jobs += [partial(fm.launch_together, work, content_root, cases) for cases in SAMPLE]
    jobs += [partial(fm.run_seed, work, content_root, seed, True) for seed in SEEDS]
    results = fm.concurrently(jobs, JOBS)
    base = fm.check_baseline(*results[0])
    outcomes: list[fm.Outcome] = []
    for together in results[1 : 1 + len(SAMPLE)]:
        for out in together:
            fm.check_case(out, out.case, base)  # type: ignore[arg-type]
            outcomes.append(out)
    outcomes += results[1 + len(SAMPLE) :]
    return base, outcomes


def test_pairs_come_from_the_baseline_session_and_cover_what_a_person_does(
    matrix: tuple[fm.Transcript, list[fm.Outcome]],
) -> None:
    """Every kind the real process sends in the session has its cells in memory: the in-memory
    session sends the same kinds."""
    from tests.cueboard.core.matrix_session import healthy, pairs

    base, _ = matrix
    real = set(base.pairs())
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
        assert pair in real
    assert {(m, o) for cases in SAMPLE for m, o, _, _ in cases} <= real
    in_memory = set(pairs(healthy().host.sent))
    assert real <= in_memory, f"kinds with no cells in memory: {real - in_memory}"


@pytest.mark.timeout(900)
def test_sampled_faults_and_chaos_seeds_never_break_cueboard(
    matrix: tuple[fm.Transcript, list[fm.Outcome]],
) -> None:
    _, outcomes = matrix
    assert len(outcomes) == sum(map(len, SAMPLE)) + len(SEEDS)
    failures = [f"{fm.label(o)}: {'; '.join(o.problems)}" for o in outcomes if o.problems]
    assert not failures, "\n".join(failures)
