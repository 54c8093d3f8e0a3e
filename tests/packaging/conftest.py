"""Fixtures for the packaging scripts: a small real wheelhouse and a bundle built from it.

The wheels are the development environment's own installed distributions, packed back into
wheel files (a wheel is a zip of exactly what pip installed plus its .dist-info). They are
real wheels, pydantic_core's binary included, so the tests need no network; the full download
from PyPI is exercised by ``make bundle`` and by the slow Windows test.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from tests.packaging.wheelhouse import RUNTIME_CORE, repack

REPO = Path(__file__).resolve().parents[2]
PACKAGING = REPO / "packaging"
BUILD = PACKAGING / "build.py"
THIS_PYTHON = f"3.{sys.version_info.minor}"

if str(PACKAGING) not in sys.path:
    sys.path.insert(0, str(PACKAGING))  # the pack_* modules are scripts' siblings, not a package


def base_interpreter() -> str:
    """This CPython without the venv: it cannot import the repository's packages."""
    return str(getattr(sys, "_base_executable", None) or sys.executable)


def run_build(*args: str | Path, cwd: Path = REPO) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, str(BUILD), "--plain", *map(str, args)],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )


@pytest.fixture(scope="session")
def wheelhouse(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("wheelhouse")
    for name in RUNTIME_CORE:
        repack(name, folder)
    return folder


def build_linux(wheelhouse: Path, out: Path) -> Path:
    done = run_build(
        "--platform",
        "linux_x86_64",
        "--wheel-dir",
        wheelhouse,
        "--python",
        THIS_PYTHON,
        "--out",
        out,
    )
    assert done.returncode == 0, done.stderr
    (bundle,) = out.glob("*.vrosext")
    return bundle


@pytest.fixture(scope="session")
def linux_bundle(wheelhouse: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_linux(wheelhouse, tmp_path_factory.mktemp("dist"))
