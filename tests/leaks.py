"""The registry of credentials the tests hand out, and the sweep that looks for them afterwards.

Launch tokens and media URLs are credentials (README, "What is kept, and where"): none may end
up in a log, a transcript, kv, a state file or anything a process prints. Harnesses register
each one where they create it (``register``); tests/zz_sweep/test_leak_sweep.py, run last,
greps what the suite left behind for every one of them. What it reads: every file under
pytest's base temporary folder (every test's ``tmp_path``, so every transcript, state and kv
file, the processes' output files), the output pytest captured of every test (``captured``,
filled by tests/conftest.py), and vrosdev's default state folder where a run wrote into it.
"""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

_registered: dict[str, str] = {}
captured: list[tuple[str, str]] = []  # (where, text): pytest's captured output of each test
SWEPT_BYTES = 64 * 1024 * 1024  # a larger file (a mixed WAV) is read up to this much


def register(value: str, kind: str) -> str:
    """Remember a credential a test hands to a process; returns it."""
    if len(value) < 8:
        raise ValueError("a credential this short would match by chance")
    _registered[value] = kind
    return value


def registered() -> dict[str, str]:
    return dict(_registered)


def capture(where: str, text: str) -> None:
    if text:
        captured.append((where, text))


@dataclass(frozen=True)
class Hit:
    where: str
    kind: str


def files_under(roots: Iterable[Path]) -> Iterator[Path]:
    for root in roots:
        if not root.exists():
            continue
        for folder, _, names in os.walk(root):
            for name in names:
                path = Path(folder) / name
                if path.is_file() and not path.is_symlink():
                    yield path


def sweep(
    roots: Iterable[Path], texts: Sequence[tuple[str, str]], secrets: dict[str, str]
) -> list[Hit]:
    """Every (place, kind) where a registered value occurs: in files, as UTF-8 bytes, and in the
    captured texts."""
    needles = [(value.encode(), kind) for value, kind in secrets.items()]
    hits: list[Hit] = []
    for path in files_under(roots):
        try:
            with path.open("rb") as f:
                data = f.read(SWEPT_BYTES)
        except OSError:
            continue
        hits += [Hit(str(path), kind) for needle, kind in needles if needle in data]
    for where, text in texts:
        hits += [Hit(where, kind) for value, kind in secrets.items() if value in text]
    return hits


def run_vrosdev_cli(argv: list[str], **kwargs: Any) -> tuple[subprocess.CompletedProcess[str], str]:
    """``python -m vrosdev.cli ARGV`` with the launch token it makes learnt through a pipe
    (``--token-fd``) and registered; returns the completed process and the token."""
    read_fd, write_fd = os.pipe()
    try:
        full = [sys.executable, "-m", "vrosdev.cli", *argv, "--token-fd", str(write_fd)]
        done = subprocess.run(full, pass_fds=(write_fd,), **kwargs)
    finally:
        os.close(write_fd)
    with open(read_fd, encoding="utf-8") as pipe:
        token = pipe.read().strip()
    if token:
        register(token, "launch token (vrosdev run)")
    for name, text in (("stdout", done.stdout), ("stderr", done.stderr)):
        if isinstance(text, str):  # captured as text: swept like pytest's own captures
            capture(f"vrosdev {' '.join(argv[:1])} [{name}]", text)
    return done, token
