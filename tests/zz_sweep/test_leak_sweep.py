"""No launch token and no media URL a test handed out appears in anything the suite left behind.

Runs after every other collected test (tests/conftest.py orders it last), so a plain
``pytest tests`` sweeps the whole suite's leftovers and a subset what that subset left. Under
``make test`` the suite runs on several workers, and the sweep is a pytest run of its own after
them that reads every worker's share from the ledger folder both runs are given
(``--leak-ledger``). What it reads and where the credentials come from: tests/leaks.py.

The positive control writes a worker's share to a ledger of its own, with a registered canary in
a file under that worker's folder and in its captured output, and the same reading and the same
sweep must find both.
"""

from __future__ import annotations

import os
import secrets
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

from tests import leaks
from vrosdev.cli import default_state_dir

REPO = Path(__file__).resolve().parents[2]


def _sources(
    tmp_path_factory: pytest.TempPathFactory, ledger: Path | None
) -> tuple[list[Path], list[tuple[str, str]], dict[str, str]]:
    """The folders, captured texts and credentials to sweep: this process's, and every share
    the ledger holds."""
    roots = [tmp_path_factory.getbasetemp()]
    texts = list(leaks.captured)
    registered = leaks.registered()
    if ledger is not None:
        shares = leaks.read_ledger(ledger)
        roots += [root for root in shares.roots if root not in roots]
        texts += shares.captured
        registered |= shares.secrets
    state_kv = default_state_dir() / "kv"  # a `vrosdev run` without --state writes here
    if state_kv.exists():
        roots.append(state_kv)
    return roots, texts, registered


def _ledger(request: pytest.FixtureRequest) -> Path | None:
    folder: Path | None = request.config.getoption("--leak-ledger")
    return folder.resolve() if folder is not None else None


def test_the_sweep_finds_a_registered_canary_in_a_file_and_in_captured_output(
    tmp_path_factory: pytest.TempPathFactory,
) -> None:
    with tempfile.TemporaryDirectory() as elsewhere:  # a share the suite's own sweep never sees
        _canary_in_a_share(tmp_path_factory, Path(elsewhere))


def _canary_in_a_share(tmp_path_factory: pytest.TempPathFactory, elsewhere: Path) -> None:
    canary = "canary-" + secrets.token_hex(12)
    ledger, worker_root = elsewhere / "ledger", elsewhere / "popen-gw7"
    folder = worker_root / "test_x0" / "deep"
    folder.mkdir(parents=True)
    (folder / "state.jsonl").write_bytes(b'{"k": "prefix ' + canary.encode() + b' suffix"}\n')
    # The worker's share, written by the code every worker runs, in a process of its own.
    share = (
        "from pathlib import Path\n"
        "from tests import leaks\n"
        f"leaks.register({canary!r}, 'canary')\n"
        f"leaks.open_ledger(Path({str(ledger)!r}), Path({str(worker_root)!r}))\n"
        f"leaks.capture('control [Captured stderr call]', 'log line {canary}')\n"
    )
    env = {**os.environ, "PYTEST_XDIST_WORKER": "gw7"}
    subprocess.run([sys.executable, "-c", share], check=True, env=env, cwd=REPO)
    roots, texts, registered = _sources(tmp_path_factory, ledger)
    assert registered[canary] == "canary"
    hits = leaks.sweep(roots, texts, {canary: registered[canary]})
    assert sorted(hit.where for hit in hits) == sorted(
        [str(folder / "state.jsonl"), "control [Captured stderr call]"]
    )


def test_no_registered_credential_in_anything_the_suite_left_behind(
    tmp_path_factory: pytest.TempPathFactory, request: pytest.FixtureRequest
) -> None:
    ledger = _ledger(request)
    if ledger is not None:
        shares = leaks.read_ledger(ledger)
        others = [root for root in shares.roots if root != tmp_path_factory.getbasetemp()]
        assert others, f"no run before this one wrote to the ledger {ledger}"
        assert all(root.is_dir() for root in others), f"a share's folder is gone: {others}"
    roots, texts, registered = _sources(tmp_path_factory, ledger)
    if ledger is not None:
        inside = [root for root in roots if ledger.is_relative_to(root)]
        assert not inside, f"the ledger (credentials in clear) lies in a swept folder: {inside}"
    hits = leaks.sweep(roots, texts, registered)
    assert hits == [], "\n".join(f"{hit.kind} in {hit.where}" for hit in hits)
