"""Gather wheels from PyPI with pip, for a platform and CPython version other than this one.

``pip download --only-binary=:all: --platform ... --python-version ... --implementation cp
--abi cpXY`` resolves the requirements as that interpreter would, pinned by the project's
constraints, without building anything. Downloads go through pip's cache (``PIP_CACHE_DIR``,
the project's ``.cache/pip``), so a second build needs no network traffic for the wheels.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from collections.abc import Callable, Sequence
from pathlib import Path

from pack_wheels import PLATFORM_TAGS, Target

# pip's words for "this interpreter version has no wheels for one of the requirements".
_UNAVAILABLE_MARKERS = (
    "ResolutionImpossible",
    "No matching distribution found",
    "Could not find a version that satisfies",
)
_COLLECTING_RE = re.compile(r"^Collecting (\S+)")


class DownloadError(Exception):
    """pip failed for a reason other than missing wheels (network, bad constraints, ...)."""


class VersionUnavailable(Exception):
    """The requirements have no wheels for this CPython version on this platform."""


def pip_command(
    target: Target, requirements: Sequence[str], constraints: Path, dest: Path
) -> list[str]:
    command = [
        sys.executable,
        "-m",
        "pip",
        "download",
        "--only-binary=:all:",
        "--implementation",
        "cp",
        "--python-version",
        target.version,
        "--abi",
        target.tag,
        "--progress-bar",
        "off",
        "--no-color",
        "-c",
        str(constraints),
        "-d",
        str(dest),
    ]
    for tag in PLATFORM_TAGS[target.platform]:
        command += ["--platform", tag]
    return [*command, *requirements]


def pip_environment(cache_dir: Path) -> dict[str, str]:
    env = dict(os.environ)
    env.setdefault("PIP_CACHE_DIR", str(cache_dir))
    env["PIP_DISABLE_PIP_VERSION_CHECK"] = "1"
    return env


def download(
    target: Target,
    requirements: Sequence[str],
    *,
    constraints: Path,
    dest: Path,
    cache_dir: Path,
    on_package: Callable[[str], None],
) -> list[Path]:
    """Download the wheels for one target into ``dest``; returns the wheel files."""
    dest.mkdir(parents=True, exist_ok=True)
    process = subprocess.Popen(
        pip_command(target, requirements, constraints, dest),
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        stdin=subprocess.DEVNULL,
        env=pip_environment(cache_dir),
        text=True,
        encoding="utf-8",
        errors="replace",
    )
    assert process.stdout is not None
    output: list[str] = []
    for line in process.stdout:
        output.append(line.rstrip())
        match = _COLLECTING_RE.match(line)
        if match is not None:
            on_package(match[1])
    if process.wait() != 0:
        errors = [line for line in output if line.startswith("ERROR") or line.startswith("    ")]
        summary = "; ".join(line.strip() for line in errors[-4:]) or "pip download failed"
        if any(marker in line for line in output for marker in _UNAVAILABLE_MARKERS):
            raise VersionUnavailable(summary)
        raise DownloadError(f"pip download for {target.platform} {target.tag}: {summary}")
    return sorted(dest.glob("*.whl"))
