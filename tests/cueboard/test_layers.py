"""Cueboard's floors hold, and the checks that hold them can fail.

import-linter (``pyproject.toml``) keeps the imports in order: runtime above workers above core,
and the core without a clock, files, sockets, threads, anyio, httpx, Pillow or a client. The
core may still hold ``pathlib`` paths as values, so imports alone cannot tell a path from a
read: :func:`io_calls` walks the core's syntax trees for file access and clock reads. The last
test plants one violation of each kind in a copy of the tree and shows both checks fail on it.
"""

from __future__ import annotations

import ast
import os
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
EXTENSION = REPO / "extension"
CORE = Path("cueboard") / "core"

# Methods of pathlib.Path (and of os / shutil by the same names) that touch the file system.
FILE_ACCESS = frozenset(
    {
        "open", "read_text", "read_bytes", "write_text", "write_bytes", "exists", "is_file",
        "is_dir", "is_symlink", "is_mount", "iterdir", "stat", "lstat", "glob", "rglob", "walk",
        "mkdir", "rmdir", "unlink", "touch", "chmod", "lchmod", "resolve", "samefile",
        "readlink", "symlink_to", "hardlink_to", "expanduser", "absolute", "cwd", "home",
        "scandir", "listdir", "copyfile", "rmtree",
    }
)  # fmt: skip
# Names the core's own classes define (the browser opens a folder, the asset table's LRU is
# touched): called on the core's objects they read nothing. test_the_core_earns_its_exceptions
# keeps this list no longer than the core's methods.
CORE_METHODS = frozenset({"open", "touch"})
# Calls that read a clock, whatever module they come from.
CLOCK = frozenset(
    {
        "now", "utcnow", "today", "monotonic", "monotonic_ns", "perf_counter", "perf_counter_ns",
        "time", "time_ns", "process_time", "sleep",
    }
)  # fmt: skip
# Builtins that reach a file or import behind import-linter's back.
BUILTINS = frozenset({"open", "input", "__import__", "import_module", "exec", "eval"})


def io_calls(source: str, name: str) -> list[str]:
    """``name:line what`` for every file access, clock read or hidden import in ``source``.

    A method is judged by its name alone: the core has no other method by these names, and a
    false alarm is a rename away where a missed read is a hidden dependency on the disk.
    """
    found: list[tuple[int, int, str]] = []
    for node in ast.walk(ast.parse(source, name)):
        where = (getattr(node, "lineno", 0), getattr(node, "col_offset", 0))
        if isinstance(node, ast.Attribute) and node.attr in FILE_ACCESS - CORE_METHODS:
            found.append((*where, f"file access .{node.attr}"))
        elif isinstance(node, ast.Call):
            func = node.func
            if isinstance(func, ast.Name) and func.id in BUILTINS:
                found.append((*where, f"{func.id}()"))
            elif isinstance(func, ast.Attribute) and func.attr in CLOCK:
                found.append((*where, f"clock .{func.attr}()"))
            elif isinstance(func, ast.Attribute) and func.attr == "import_module":
                found.append((*where, "import_module()"))
    return [f"{name}:{line} {what}" for line, _, what in sorted(found)]


def core_io(extension: Path) -> list[str]:
    core = extension / CORE
    return [
        hit
        for path in sorted(core.rglob("*.py"))
        for hit in io_calls(path.read_text(encoding="utf-8"), str(path.relative_to(extension)))
    ]


MAX_MODULE_LINES = 400


def test_no_module_is_over_400_lines() -> None:
    """A module a person can read whole: past 400 lines it holds more than one idea."""
    long = {
        str(path.relative_to(EXTENSION)): n
        for path in sorted((EXTENSION / "cueboard").rglob("*.py"))
        if (n := len(path.read_text(encoding="utf-8").splitlines())) > MAX_MODULE_LINES
    }
    assert long == {}


def test_the_core_reads_no_file_and_no_clock() -> None:
    assert core_io(EXTENSION) == []


def test_the_core_earns_its_exceptions() -> None:
    defined = {
        node.name
        for path in (EXTENSION / CORE).rglob("*.py")
        for cls in ast.walk(ast.parse(path.read_text(encoding="utf-8")))
        if isinstance(cls, ast.ClassDef)
        for node in cls.body
        if isinstance(node, ast.FunctionDef)
    }
    assert defined >= CORE_METHODS


def test_the_check_sees_each_kind_of_access() -> None:
    source = textwrap.dedent(
        """
        from pathlib import Path
        from datetime import datetime
        def f(p: Path) -> None:
            open(p)
            p.read_text(); p.write_bytes(b""); p.exists(); list(p.iterdir()); p.stat()
            p.mkdir(); p.unlink(); list(p.glob("*"))
            read = Path.read_bytes
            datetime.now()
        """
    )
    hits = io_calls(source, "m.py")
    assert [h.split(" ", 1)[1] for h in hits] == [
        "open()",
        *(f"file access .{m}" for m in ("read_text", "write_bytes", "exists", "iterdir", "stat")),
        *(f"file access .{m}" for m in ("mkdir", "unlink", "glob", "read_bytes")),
        "clock .now()",
    ]
    # Paths as values stay allowed.
    assert io_calls("from pathlib import Path\nP = Path('a') / 'b'\nN = P.name\n", "v.py") == []


# What each plant adds, and what the checks must then report.
PLANTS: dict[str, str] = {
    # The issue's own example: a clock read in the policy table.
    "cueboard/core/policy.py": "import time\n\n_PLANTED = time.monotonic()\n",
    "cueboard/core/names.py": "from cueboard.runtime import catalogs as _planted  # noqa: F401\n",
    "cueboard/core/prefs.py": (
        "def _planted(p: object) -> object:\n    return p.read_text()  # type: ignore\n"
    ),
    "cueboard/core/reasons.py": (
        "def _planted() -> bytes:\n    with open('x', 'rb') as f:\n        return f.read()\n"
    ),
    "cueboard/workers/scan.py": "import vxp.client as _planted  # noqa: F401\n",
    "cueboard/workers/http_logs.py": "from cueboard.runtime import files as _planted  # noqa\n",
}
FORBIDDEN_IN_CORE = (
    "time", "os", "io", "socket", "threading", "asyncio", "anyio", "httpx", "PIL", "vxp.client",
)  # fmt: skip


def _plant(copy: Path) -> None:
    for rel, code in PLANTS.items():
        with (copy / "extension" / rel).open("a", encoding="utf-8") as f:
            f.write("\n" + code)
    for module in FORBIDDEN_IN_CORE:
        name = module.replace(".", "_").lower()
        (copy / "extension" / CORE / f"planted_{name}.py").write_text(
            f"import {module}  # noqa: F401\n", encoding="utf-8"
        )


def test_planted_violations_fail_both_checks(tmp_path: Path) -> None:
    copy = tmp_path / "repo"
    shutil.copytree(
        EXTENSION,
        copy / "extension",
        ignore=shutil.ignore_patterns("__pycache__", "*.egg-info"),
    )
    shutil.copy(REPO / "pyproject.toml", copy / "pyproject.toml")
    # The unplanted copy keeps every contract: what breaks below is the plants.
    lint = [str(Path(sys.executable).with_name("lint-imports")), "--no-cache"]
    env = {**os.environ, "PYTHONPATH": str(copy / "extension")}
    clean = subprocess.run(lint, cwd=copy, env=env, capture_output=True, text=True, check=False)
    assert clean.returncode == 0, clean.stdout
    assert core_io(copy / "extension") == []

    _plant(copy)
    done = subprocess.run(lint, cwd=copy, env=env, capture_output=True, text=True, check=False)
    report = " ".join(done.stdout.split())  # import-linter wraps long lines
    assert done.returncode == 1, report
    assert "Cueboard stands on floors: runtime, then workers, then core BROKEN" in report
    assert "cueboard.core.names -> cueboard.runtime.catalogs" in report
    assert "cueboard.workers.http_logs -> cueboard.runtime.files" in report
    assert "Only Cueboard's runtime holds a client BROKEN" in report
    assert "cueboard.workers.scan -> vxp.client" in report
    assert "cueboard.core.policy -> time" in report
    for module in FORBIDDEN_IN_CORE:
        planted = f"cueboard.core.planted_{module.replace('.', '_').lower()}"
        assert f"{planted} -> {module}" in report, module

    assert core_io(copy / "extension") == [
        f"cueboard/core/policy.py:{_line(copy, 'core/policy.py', '_PLANTED')} clock .monotonic()",
        f"cueboard/core/prefs.py:{_line(copy, 'core/prefs.py', 'read_text')} file access "
        ".read_text",
        f"cueboard/core/reasons.py:{_line(copy, 'core/reasons.py', 'open(')} open()",
    ]


def _line(copy: Path, rel: str, needle: str) -> int:
    lines = (copy / "extension" / "cueboard" / rel).read_text(encoding="utf-8").splitlines()
    return max(n for n, line in enumerate(lines, 1) if needle in line)
