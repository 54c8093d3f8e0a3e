"""Start-up against a host that answers the first request of one kind wrong (issue 13): the
wiring, on the real process.

Every start-up kind x its namespace's documented codes, -32603, -32602, a code no version knows
and a result tag from a newer host is decided in memory against the core
(tests/cueboard/core/test_fault_decisions.py, ``fault_matrix.startup_cases``). Here a sample,
one case per way a first answer can be wrong (a domain code on the first request after welcome,
a verdict on slot 1's own command, a newer host's result tag, a retried read, paced props),
faults on different kinds sharing a launch, all launched together with a healthy start-up:
Cueboard must print no traceback, stay up (the run ends with ``shutting_down`` and exit 0),
send that request at most 3 more times than a healthy start-up does, and play slot 1 when the
user presses it afterwards (unless the fault was a verdict on slot 1's own file or command).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import Any

import pytest

from cueboard.core.loading import RETRY_FAILED_AFTER_S

from .fault_matrix import (
    MAX_RETRIES,
    PACED,
    SLOT_1_VERDICTS,
    STARTUP,
    concurrently,
    run_vrosdev,
    startup_cases,
)
from .harness import tone
from .matrix_checks import Transcript, pair_of

pytestmark = [pytest.mark.slow, pytest.mark.timeout(600)]

# Quiet for RETRY_FAILED_AFTER_S: start-up is over, and a press no longer answers at once with
# the failure its sound's load just met (core/loading.py).
SCRIPT = f"settle {RETRY_FAILED_AFTER_S:g} 30\ninvoke play-slot-1\nsleep 0.5\n"
# Each group is one launch: faults on different kinds, each judged on its own kind; a verdict
# on slot 1's own command runs alone (slot 1 does not play after it).
SAMPLE: list[list[tuple[str, str, str]]] = [
    [
        ("settings", "list", "no_such_key"),  # the first request after welcome
        ("audio", "load", "result:from_a_newer_host"),  # a result tag this SDK does not know
        ("kv", "list", "-32603"),  # a read, retried
        ("panel", "props", "internal"),  # paced props
    ],
    [("commands", "register", "invalid_name")],  # a verdict on slot 1's own command
]
CASES = [case for group in SAMPLE for case in group]
JOBS = 1 + len(SAMPLE)  # all at once (each a vrosdev and a Cueboard process, mostly waiting)

type Result = tuple[int, str, Counter[tuple[str, str]], list[str]]


@pytest.fixture(scope="module")
def content(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("startup-content")
    sounds = root / "Cueboard" / "Sounds"
    tone(sounds / "01 Beep.wav")
    tone(sounds / "02 Boop.wav", freq=500)
    return root


def _counts(transcript: Transcript) -> Counter[tuple[str, str]]:
    return Counter(pair_of(frame) for _, frame in transcript.requests())


def _run(folder: Path, content: Path, options: list[str]) -> Result:
    rc, output, transcript = run_vrosdev(folder, SCRIPT, content, options)
    return rc, output, _counts(transcript), transcript.named_before_put()


@pytest.fixture(scope="module")
def results(
    content: Path, tmp_path_factory: pytest.TempPathFactory
) -> tuple[Result, dict[tuple[str, str, str], Result]]:
    """The healthy start-up and every sampled fault, :data:`JOBS` at a time."""
    work = tmp_path_factory.mktemp("startup-faults")  # short: sockets live under it
    jobs: list[Callable[[], Result]] = [partial(_run, work / "h", content, [])]
    for n, group in enumerate(SAMPLE):
        faults = [x for m, o, code in group for x in ("--fault", f"{m}.{o}={code}@1")]
        jobs.append(partial(_run, work / str(n), content, faults))
    healthy, *faulted = concurrently(jobs, JOBS)
    pairs = zip(SAMPLE, faulted, strict=True)
    return healthy, {case: run for group, run in pairs for case in group}


@pytest.fixture(scope="module")
def healthy(results: tuple[Result, Any]) -> Counter[tuple[str, str]]:
    rc, output, counts, unput = results[0]
    assert rc == 0 and "Traceback" not in output, output[-2000:]
    assert not unput  # docs/protocol-notes.md#r33
    return counts


def test_every_start_up_request_kind_is_covered(healthy: Counter[tuple[str, str]]) -> None:
    """A request kind added to start-up shows up here, so it gets its faults too (in memory)."""
    assert set(healthy) - {("audio", "play"), ("bus", "publish")} <= set(STARTUP)
    assert set(STARTUP) - {("kv", "get")} <= set(healthy)  # kv.get: only with stored records
    assert set(CASES) <= set(startup_cases())


@pytest.mark.parametrize(
    ("method", "op", "code"), [pytest.param(*c, id=f"{c[0]}.{c[1]}={c[2]}") for c in CASES]
)
def test_a_wrong_first_answer_at_start_up_neither_crashes_nor_storms(
    method: str,
    op: str,
    code: str,
    results: tuple[Result, dict[tuple[str, str, str], Result]],
    healthy: Counter[tuple[str, str]],
) -> None:
    rc, output, counts, unput = results[1][(method, op, code)]
    assert "Traceback" not in output, output[-3000:]
    assert not unput, f"props named asset keys before their put answered ok: {unput[:3]}"
    assert rc == 0, output[-3000:]
    slack = PACED.get((method, op), MAX_RETRIES)
    assert counts[(method, op)] <= healthy[(method, op)] + slack, counts
    if code in SLOT_1_VERDICTS.get((method, op), ()):
        return
    assert counts[("audio", "play")] >= 1, f"slot 1 did not play after {code}: {counts}"
