"""No launch token and no media URL a test handed out appears in anything the suite left behind.

Runs after every other collected test (tests/conftest.py orders it last), so under ``make test``
it sweeps the whole suite's leftovers and on a subset what that subset left. What it reads and
where the credentials come from: tests/leaks.py. The positive control puts a registered canary in
a file in the swept folder and in the captured output, and the same sweep must find both.
"""

from __future__ import annotations

import secrets
from pathlib import Path

import pytest

from tests import leaks
from vrosdev.cli import default_state_dir


def _roots(tmp_path_factory: pytest.TempPathFactory) -> list[Path]:
    roots = [tmp_path_factory.getbasetemp()]
    state_kv = default_state_dir() / "kv"  # a `vrosdev run` without --state writes here
    if state_kv.exists():
        roots.append(state_kv)
    return roots


def test_the_sweep_finds_a_registered_canary_in_a_file_and_in_captured_output(
    tmp_path_factory: pytest.TempPathFactory,
) -> None:
    canary = "canary-" + secrets.token_hex(12)
    folder = tmp_path_factory.mktemp("leak-canary") / "deep" / "er"
    folder.mkdir(parents=True)
    (folder / "state.jsonl").write_bytes(b'{"k": "prefix ' + canary.encode() + b' suffix"}\n')
    texts = [*leaks.captured, ("control [Captured stderr call]", f"log line {canary}\n")]
    hits = leaks.sweep(_roots(tmp_path_factory), texts, {canary: "canary"})
    assert sorted(hit.where for hit in hits) == sorted(
        [str(folder / "state.jsonl"), "control [Captured stderr call]"]
    )


def test_no_registered_credential_in_anything_the_suite_left_behind(
    tmp_path_factory: pytest.TempPathFactory,
) -> None:
    registered = leaks.registered()
    hits = leaks.sweep(_roots(tmp_path_factory), leaks.captured, registered)
    assert hits == [], "\n".join(f"{hit.kind} in {hit.where}" for hit in hits)
