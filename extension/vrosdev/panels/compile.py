"""Compiling a panel source with the real Slint compiler, against vrosdev's theme stub.

Route: the `slint-compiler` CLI from PyPI, source on stdin, `-L vros=<theme dir>`. It needs no
display and no temp file, keeps the compiler out of the host's process, and is the tool vrOS'
own docs name for checking panels. Measured against the in-process compiler of the `slint`
package (see README.md): the CLI costs a process start (~40 ms against ~6 ms) which is nothing
next to a `define` round trip.
"""

import os
import re
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

import anyio

from vrosdev.panels.check import PanelCheck, check_source
from vrosdev.panels.declarations import PanelInterface, describe_type
from vrosdev.theme import THEME_DIR, THEME_LIBRARY

COMPILER_TIMEOUT_S = 30.0
_ANSI = re.compile(r"\x1b\[[0-9;]*m")
_HEADLINE = re.compile(r"^(?P<level>error|warning|note|help): (?P<message>.*)$")
_LOCATION = re.compile(r"^\s*--> (?P<file>.*):(?P<line>\d+):(?P<col>\d+)\s*$")
# Expected for every panel: roots are plain components (docs/protocol-notes.md#r29), so this warning
# is noise here.
_EXPECTED_WARNING = re.compile(r"doesn't inherit Window")


class CompilerUnavailable(RuntimeError):
    """The slint-compiler executable is missing: an installation problem, not a panel error."""


@dataclass(frozen=True)
class Diagnostic:
    level: str  # "error" or "warning"
    line: int  # 0 when the compiler gives no location
    column: int
    message: str

    def __str__(self) -> str:
        return f"{self.line}:{self.column}: {self.message}"


@dataclass(frozen=True)
class CompileResult:
    ok: bool
    message: str  # the compile_failed text: one "line:col: message" per line; "" when ok
    diagnostics: tuple[Diagnostic, ...]
    warnings: tuple[str, ...]
    check: PanelCheck
    seconds: float

    @property
    def interface(self) -> PanelInterface:
        return self.check.interface

    @property
    def root(self) -> str | None:
        return self.check.root

    @property
    def properties(self) -> dict[str, tuple[str, str]]:
        """Root properties the host may set: name -> (access, Slint type as declared)."""
        return {
            name: (decl.access, describe_type(decl.type))
            for name, decl in self.interface.properties.items()
            if decl.settable
        }

    @property
    def callbacks(self) -> dict[str, tuple[str, ...]]:
        """Root callbacks: name -> parameter types."""
        return {
            name: tuple(str(t) for t in decl.params)
            for name, decl in self.interface.callbacks.items()
        }


def compiler_path() -> Path:
    """The slint-compiler beside the running interpreter (the venv's), else the one on PATH."""
    beside = Path(sys.executable).parent / "slint-compiler"
    if beside.exists():
        return beside
    for folder in os.environ.get("PATH", "").split(os.pathsep):
        candidate = Path(folder) / "slint-compiler"
        if candidate.exists():
            return candidate
    raise CompilerUnavailable("slint-compiler is not installed (pip install slint-compiler)")


def compiler_command() -> list[str]:
    return [
        str(compiler_path()),
        "-L",
        f"{THEME_LIBRARY}={THEME_DIR}",
        "-f",
        "python",
        "-o",
        os.devnull,
        "-",
    ]


def parse_diagnostics(stderr: str) -> list[Diagnostic]:
    """Read the CLI's human-readable report (colours stripped) back into diagnostics."""
    found: list[Diagnostic] = []
    level: str | None = None
    message: list[str] = []

    def close(line: int, col: int) -> None:
        nonlocal level, message
        if level is not None:
            found.append(Diagnostic(level, line, col, " ".join(message)))
        level, message = None, []

    for raw in _ANSI.sub("", stderr).splitlines():
        head = _HEADLINE.match(raw)
        if head:
            close(0, 0)
            level, message = head.group("level"), [head.group("message").strip()]
            continue
        where = _LOCATION.match(raw)
        if where and level is not None:
            close(int(where.group("line")), int(where.group("col")))
            continue
        if level is not None and raw.startswith(" ") and not raw.lstrip().startswith("|"):
            message.append(raw.strip())
    close(0, 0)
    return found


def _result(check: PanelCheck, returncode: int, stderr: str, seconds: float) -> CompileResult:
    diagnostics = tuple(
        d
        for d in parse_diagnostics(stderr)
        if not (d.level == "warning" and _EXPECTED_WARNING.search(d.message))
    )
    errors = [str(d) for d in diagnostics if d.level == "error"]
    if returncode != 0 and not errors:
        errors.append(f"0:0: slint-compiler failed (exit code {returncode})")
    warnings = [*check.warnings, *(str(d) for d in diagnostics if d.level == "warning")]
    return CompileResult(
        ok=not errors,
        message="\n".join(errors),
        diagnostics=diagnostics,
        warnings=tuple(warnings),
        check=check,
        seconds=seconds,
    )


def _refused(check: PanelCheck) -> CompileResult:
    return CompileResult(
        ok=False,
        message="\n".join(check.errors),
        diagnostics=(),
        warnings=check.warnings,
        check=check,
        seconds=0.0,
    )


def compile_source(source: str) -> CompileResult:
    """Static rules, then the real compiler. Blocking (~40 ms): call it from a worker thread or
    use `compile_source_async` inside the host's event loop."""
    check = check_source(source)
    if not check.ok:
        return _refused(check)
    started = time.perf_counter()
    done = subprocess.run(
        compiler_command(),
        input=source.encode("utf-8"),
        capture_output=True,
        timeout=COMPILER_TIMEOUT_S,
        check=False,
    )
    elapsed = time.perf_counter() - started
    return _result(check, done.returncode, done.stderr.decode("utf-8", "replace"), elapsed)


async def compile_source_async(source: str) -> CompileResult:
    check = check_source(source)
    if not check.ok:
        return _refused(check)
    started = time.perf_counter()
    with anyio.fail_after(COMPILER_TIMEOUT_S):
        done = await anyio.run_process(compiler_command(), input=source.encode(), check=False)
    elapsed = time.perf_counter() - started
    return _result(check, done.returncode, done.stderr.decode("utf-8", "replace"), elapsed)
