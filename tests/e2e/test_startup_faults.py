"""Start-up against a host that answers the first request of one kind wrong (issue 13).

For each request kind Cueboard sends during start-up, vrosdev (``--fault NS.OP=CODE@1``) answers
its first request of that kind with each domain code documented for the namespace, -32603,
-32602, a code no version knows, and a result tag from a newer host. Cueboard must print no
traceback, stay up (the run ends with ``shutting_down`` and exit 0), send that request at most 3
more times than a healthy start-up does, and play slot 1 when the user presses it afterwards
(unless the fault was a verdict on slot 1's own file).
"""

from __future__ import annotations

from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from cueboard.core.loading import RETRY_FAILED_AFTER_S
from vrosdev.host.codes import DOCUMENTED_CODES

from .fault_matrix import run_vrosdev
from .harness import tone
from .matrix_checks import Transcript, pair_of

pytestmark = [pytest.mark.slow, pytest.mark.timeout(1200)]  # the first case runs them all

# Quiet for RETRY_FAILED_AFTER_S: start-up is over, and a press no longer answers at once with
# the failure its sound's load just met (core/loading.py).
SCRIPT = f"settle {RETRY_FAILED_AFTER_S:g} 30\ninvoke play-slot-1\nsleep 0.5\n"
STARTUP = [
    ("settings", "list"),
    ("commands", "register"),
    ("audio", "pre_arm"),
    ("assets", "put"),
    ("panel", "props"),
    ("bus", "subscribe"),
    ("kv", "list"),
    ("kv", "get"),
    ("kv", "set"),
    ("audio", "load"),
]
EXTRA = ("-32603", "-32602", "startup_unknown_code", "result:from_a_newer_host")
# Final verdicts on slot 1 itself: its file (the first load) or its command's name (the first
# register): it is rightly not played, until the file changes or the next connection.
SLOT_1_VERDICTS = {
    ("audio", "load"): {"not_found", "undecodable", "too_long", "-32602"},
    ("commands", "register"): {"invalid_name", "-32602"},
}
MAX_RETRIES = 3
# Props are paced diffs, not one request per cause: how many frames carry them depends on
# timing as much as on retries, so their bound is the fault matrix's slack, not a retry count.
PACED = {("panel", "props"): 10}
JOBS = 2  # runs at once (each is a vrosdev and a Cueboard process)

type Case = tuple[str, str, str]
type Result = tuple[int, str, Counter[tuple[str, str]], list[str]]


def _cases() -> list[object]:
    return [
        pytest.param(method, op, code, id=f"{method}.{op}={code}")
        for method, op in STARTUP
        for code in (*DOCUMENTED_CODES.get(method, ()), *EXTRA)
    ]


@pytest.fixture(scope="module")
def content(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("startup-content")
    sounds = root / "Cueboard" / "Sounds"
    tone(sounds / "01 Beep.wav")
    tone(sounds / "02 Boop.wav", freq=500)
    return root


@pytest.fixture(scope="module")
def healthy(content: Path, tmp_path_factory: pytest.TempPathFactory) -> Counter[tuple[str, str]]:
    work = tmp_path_factory.mktemp("startup-healthy")
    rc, output, transcript = run_vrosdev(work, SCRIPT, content)
    assert rc == 0 and "Traceback" not in output, output[-2000:]
    assert not transcript.named_before_put()  # docs/protocol-notes.md#r33
    return _counts(transcript)


def _counts(transcript: Transcript) -> Counter[tuple[str, str]]:
    return Counter(pair_of(frame) for _, frame in transcript.requests())


@pytest.fixture(scope="module")
def results(
    request: pytest.FixtureRequest, content: Path, tmp_path_factory: pytest.TempPathFactory
) -> dict[Case, Result]:
    """Every selected case, run :data:`JOBS` at a time."""
    selected: list[Case] = [
        (item.callspec.params["method"], item.callspec.params["op"], item.callspec.params["code"])
        for item in request.session.items
        if item.module is request.module and hasattr(item, "callspec")
    ]
    work = tmp_path_factory.mktemp("startup-faults")

    def run(numbered: tuple[int, Case]) -> Result:
        n, (method, op, code) = numbered
        folder = work / str(n)  # short: the endpoint's socket path lives under it
        rc, output, transcript = run_vrosdev(
            folder, SCRIPT, content, ["--fault", f"{method}.{op}={code}@1"]
        )
        return rc, output, _counts(transcript), transcript.named_before_put()

    with ThreadPoolExecutor(JOBS) as pool:
        return dict(zip(selected, pool.map(run, enumerate(selected)), strict=True))


def test_every_start_up_request_kind_is_covered(healthy: Counter[tuple[str, str]]) -> None:
    """A request kind added to start-up shows up here, so it gets its faults too."""
    assert set(healthy) - {("audio", "play"), ("bus", "publish")} <= set(STARTUP)
    assert set(STARTUP) - {("kv", "get")} <= set(healthy)  # kv.get: only with stored records


@pytest.mark.parametrize(("method", "op", "code"), _cases())
def test_a_wrong_first_answer_at_start_up_neither_crashes_nor_storms(
    method: str,
    op: str,
    code: str,
    results: dict[Case, Result],
    healthy: Counter[tuple[str, str]],
) -> None:
    rc, output, counts, unput = results[(method, op, code)]
    assert "Traceback" not in output, output[-3000:]
    assert not unput, f"props named asset keys before their put answered ok: {unput[:3]}"
    assert rc == 0, output[-3000:]
    slack = PACED.get((method, op), MAX_RETRIES)
    assert counts[(method, op)] <= healthy[(method, op)] + slack, counts
    if code in SLOT_1_VERDICTS.get((method, op), ()):
        return
    assert counts[("audio", "play")] >= 1, f"slot 1 did not play after {code}: {counts}"
