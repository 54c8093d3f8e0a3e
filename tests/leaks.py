"""The registry of credentials the tests hand out, and the sweep that looks for them afterwards.

Launch tokens and media URLs are credentials (README, "What is kept, and where"): none may end
up in a log, a transcript, kv, a state file or anything a process prints. Harnesses register
each one where they create it (``register``); tests/zz_sweep/test_leak_sweep.py, run last,
greps what the suite left behind for every one of them. What it reads: every file under
pytest's base temporary folder (every test's ``tmp_path``, so every transcript, state and kv
file, the processes' output files), the output pytest captured of every test (``captured``,
filled by tests/conftest.py), and vrosdev's default state folder where a run wrote into it.

With several processes (pytest-xdist workers), each one knows only its own share, and the sweep
must not run on a share. ``make test`` gives every run a ledger folder (``--leak-ledger``): each
process appends its base temporary folder, the credentials it registers and what it captured to
its own file there (``open_ledger``), and the sweep, a second pytest run after the workers, reads
every file (``read_ledger``). The ledger holds the credentials themselves, so it lies outside
every swept folder.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

_registered: dict[str, str] = {}
captured: list[tuple[str, str]] = []  # (where, text): pytest's captured output of each test
_ledger: Path | None = None  # this process's ledger file, once open_ledger ran
SWEPT_BYTES = 64 * 1024 * 1024  # a larger file (a mixed WAV) is read up to this much


def register(value: str, kind: str) -> str:
    """Remember a credential a test hands to a process; returns it."""
    if len(value) < 8:
        raise ValueError("a credential this short would match by chance")
    _registered[value] = kind
    _record({"secret": value, "kind": kind})
    return value


def registered() -> dict[str, str]:
    return dict(_registered)


def capture(where: str, text: str) -> None:
    if text:
        captured.append((where, text))
        _record({"where": where, "text": text})


def _record(entry: dict[str, str]) -> None:
    if _ledger is not None:
        with _ledger.open("a", encoding="utf-8") as f:
            f.write(json.dumps(entry) + "\n")


def open_ledger(folder: Path, root: Path) -> Path:
    """From now on, write this process's share to a file of its own in ``folder``: ``root``
    (its base temporary folder), then what was registered and captured so far, then each new
    credential and capture as it comes. Returns the file."""
    global _ledger
    folder.mkdir(parents=True, exist_ok=True)
    worker = os.environ.get("PYTEST_XDIST_WORKER", "main")
    _ledger = folder / f"{worker}-{os.getpid()}.jsonl"
    _record({"root": str(root)})
    for value, kind in _registered.items():
        _record({"secret": value, "kind": kind})
    for where, text in captured:
        _record({"where": where, "text": text})
    return _ledger


@dataclass(frozen=True)
class Shares:
    """What every process that wrote to a ledger folder recorded."""

    files: list[Path]
    roots: list[Path]
    secrets: dict[str, str]
    captured: list[tuple[str, str]]


def read_ledger(folder: Path) -> Shares:
    files = sorted(folder.glob("*.jsonl"))
    roots: list[Path] = []
    found: dict[str, str] = {}
    texts: list[tuple[str, str]] = []
    for path in files:
        for line in path.read_text(encoding="utf-8").splitlines():
            entry = json.loads(line)
            if "root" in entry:
                roots.append(Path(entry["root"]))
            elif "secret" in entry:
                found[entry["secret"]] = entry["kind"]
            else:
                texts.append((entry["where"], entry["text"]))
    return Shares(files, roots, found, texts)


@dataclass(frozen=True)
class Hit:
    where: str
    kind: str


def files_under(roots: Iterable[Path]) -> Iterator[Path]:
    """Each file once, also where one root lies inside another."""
    seen: set[Path] = set()
    for root in roots:
        if not root.exists():
            continue
        for folder, _, names in os.walk(root):
            for name in names:
                path = Path(folder) / name
                if path not in seen and path.is_file() and not path.is_symlink():
                    seen.add(path)
                    yield path


_WORD = re.compile(rb"[A-Za-z0-9_\-]+")  # the characters of a URL-safe token
_TOKEN_BYTE = np.zeros(256, dtype=np.bool_)
_TOKEN_BYTE[list(b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-")] = True
ANCHOR_MIN = 8


class Finder:
    """Which of many values occur in some bytes, in about one pass.

    Looking for each value in turn reads the suite's leftovers once per launch token (hundreds
    of passes over hundreds of megabytes). Instead each value is known by its anchor, its
    longest run of URL-safe characters (a whole launch token; a URL's longest part): the runs of
    URL-safe bytes at least as long as the shortest anchor are found with numpy, each position
    in them is looked up by the anchors' first characters, and only a value whose anchor starts
    there is looked for in full. A value with no anchor of ``ANCHOR_MIN`` characters is looked
    for in full every time."""

    def __init__(self, values: Iterable[bytes]) -> None:
        anchored: list[tuple[bytes, bytes]] = []
        self._plain: list[bytes] = []
        for value in values:
            anchor = max(_WORD.findall(value), key=len, default=b"")
            if len(anchor) < ANCHOR_MIN:
                self._plain.append(value)
            else:
                anchored.append((anchor, value))
        self._prefix = min((len(anchor) for anchor, _ in anchored), default=0)
        self._by_prefix: dict[bytes, list[bytes]] = {}
        for anchor, value in anchored:
            self._by_prefix.setdefault(anchor[: self._prefix], []).append(value)

    def found(self, data: bytes) -> set[bytes]:
        out = {value for value in self._plain if value in data}
        if not self._by_prefix or len(data) < self._prefix:
            return out
        token = _TOKEN_BYTE[np.frombuffer(data, dtype=np.uint8)].view(np.int8)
        edges = np.diff(token, prepend=np.int8(0), append=np.int8(0))
        starts, ends = np.flatnonzero(edges == 1), np.flatnonzero(edges == -1)
        long_enough = ends - starts >= self._prefix
        for lo, hi in zip(starts[long_enough].tolist(), ends[long_enough].tolist(), strict=True):
            for i in range(lo, hi - self._prefix + 1):
                for value in self._by_prefix.get(data[i : i + self._prefix], ()):
                    if value in data:
                        out.add(value)
        return out


def sweep(
    roots: Iterable[Path], texts: Sequence[tuple[str, str]], secrets: dict[str, str]
) -> list[Hit]:
    """Every (place, kind) where a registered value occurs: in files, as UTF-8 bytes, and in the
    captured texts."""
    kinds = {value.encode(): kind for value, kind in secrets.items()}
    finder = Finder(kinds)
    hits: list[Hit] = []
    for path in files_under(roots):
        try:
            with path.open("rb") as f:
                data = f.read(SWEPT_BYTES)
        except OSError:
            continue
        hits += [Hit(str(path), kinds[value]) for value in sorted(finder.found(data))]
    for where, text in texts:
        found = finder.found(text.encode(errors="surrogateescape"))
        hits += [Hit(where, kinds[value]) for value in sorted(found)]
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
