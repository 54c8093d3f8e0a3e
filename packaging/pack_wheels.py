"""Wheels for a bundle: which fit a platform and CPython version, and what they install.

A bundle carries its dependencies "installed" the way ``pip install --target`` would, but by
plain extraction: a wheel is a zip whose files go to site-packages as they are, apart from
``<name>.data/purelib|platlib`` (moved to the root) and scripts, headers and data (not needed
to import anything, so left out). Extraction is deterministic; pip's is not (it compiles .pyc
files and writes INSTALLER/RECORD with local paths).
"""

from __future__ import annotations

import re
import zipfile
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

# The newest glibc a vendored Linux wheel may need: 2.28 (Debian 10, Ubuntu 20.04, Fedora 29,
# SteamOS 3). numpy and Pillow's recent wheels are manylinux_2_27/2_28. pip does not expand
# manylinux_2_28 to the older tags itself, so every tag down to manylinux1 is listed.
GLIBC_MINOR = 28
_LINUX_TAGS = (
    *(f"manylinux_2_{minor}_x86_64" for minor in range(GLIBC_MINOR, 4, -1)),
    "manylinux2014_x86_64",
    "manylinux2010_x86_64",
    "manylinux1_x86_64",
)
PLATFORM_TAGS: dict[str, tuple[str, ...]] = {
    "linux_x86_64": _LINUX_TAGS,
    "win_amd64": ("win_amd64",),
}
# Extension modules per platform: a bundle for one must not carry the other's.
BINARY_SUFFIXES: dict[str, tuple[str, ...]] = {
    "linux_x86_64": (".so",),
    "win_amd64": (".pyd", ".dll"),
}
_WHEEL_NAME_RE = re.compile(
    r"^(?P<dist>[A-Za-z0-9_.]+)-(?P<version>[^-]+)(?:-(?P<build>\d[^-]*))?"
    r"-(?P<py>[^-]+)-(?P<abi>[^-]+)-(?P<plat>[^-]+)\.whl$"
)
_PY3_RE = re.compile(r"^(?:py|cp)3(\d+)$")


class WheelError(Exception):
    """A wheel that cannot be vendored; the message names the file and the rule."""


@dataclass(frozen=True, order=True)
class Target:
    """One platform and CPython minor version that a bundle carries wheels for."""

    platform: str
    minor: int  # CPython 3.<minor>

    @property
    def tag(self) -> str:
        """``cp312``: the vendor folder's name and the interpreter/ABI tag."""
        return f"cp3{self.minor}"

    @property
    def version(self) -> str:
        return f"3.{self.minor}"


@dataclass(frozen=True)
class Wheel:
    path: Path
    dist: str  # normalized (PEP 503): "pydantic-core"
    version: str
    tags: frozenset[tuple[str, str, str]]  # (interpreter, abi, platform)

    @property
    def filename(self) -> str:
        return self.path.name

    @property
    def is_pure(self) -> bool:
        return all(plat == "any" for _, _, plat in self.tags)


def normalize(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def parse_wheel(path: Path) -> Wheel:
    match = _WHEEL_NAME_RE.match(path.name)
    if match is None:
        raise WheelError(f"{path.name}: not a wheel file name (PEP 427)")
    tags = frozenset(
        (py, abi, plat)
        for py in match["py"].split(".")
        for abi in match["abi"].split(".")
        for plat in match["plat"].split(".")
    )
    return Wheel(path, normalize(match["dist"]), match["version"], tags)


def tag_fits(tag: tuple[str, str, str], target: Target) -> bool:
    """Whether CPython 3.<minor> on the target platform accepts one wheel tag (PEP 425)."""
    interpreter, abi, plat = tag
    if plat != "any" and plat not in PLATFORM_TAGS[target.platform]:
        return False
    if abi == target.tag:
        return interpreter == target.tag
    match = _PY3_RE.match(interpreter)
    if abi == "abi3":  # the stable ABI: built for cp3Y, loads on every 3.X with X >= Y
        return interpreter.startswith("cp") and match is not None and int(match[1]) <= target.minor
    if abi == "none":
        return interpreter == "py3" or (match is not None and int(match[1]) <= target.minor)
    return False


def fits(wheel: Wheel, target: Target) -> bool:
    return any(tag_fits(tag, target) for tag in wheel.tags)


def _preference(wheel: Wheel, target: Target) -> tuple[int, int]:
    """Lower is better: a version-specific binary over abi3 over pure."""
    abis = {abi for py, abi, plat in wheel.tags if tag_fits((py, abi, plat), target)}
    rank = 0 if target.tag in abis else 1 if "abi3" in abis else 2
    return (rank, 1 if wheel.is_pure else 0)


def select(wheels: Iterable[Wheel], target: Target) -> list[Wheel]:
    """One wheel per distribution, the best that fits; raises if versions are mixed."""
    by_dist: dict[str, list[Wheel]] = {}
    for wheel in wheels:
        if fits(wheel, target):
            by_dist.setdefault(wheel.dist, []).append(wheel)
    chosen: list[Wheel] = []
    for dist, options in sorted(by_dist.items()):
        versions = sorted({wheel.version for wheel in options})
        if len(versions) > 1:
            raise WheelError(
                f"{dist}: versions {', '.join(versions)} all fit {target.platform} "
                f"{target.tag}; keep one (a bundle vendors one version of each distribution)"
            )
        chosen.append(min(options, key=lambda w: (_preference(w, target), w.filename)))
    return chosen


def unfit_dists(wheels: Iterable[Wheel], target: Target) -> list[str]:
    """Distributions in a wheel set with no wheel for the target."""
    wheels = list(wheels)
    fitting = {wheel.dist for wheel in wheels if fits(wheel, target)}
    return sorted({wheel.dist for wheel in wheels} - fitting)


def safe_member(name: str, source: str) -> PurePosixPath:
    """A zip member's path, refused when it could land outside the target folder."""
    path = PurePosixPath(name)
    if (
        not name
        or "\\" in name
        or "\0" in name
        or path.is_absolute()
        or ".." in path.parts
        or re.match(r"^[A-Za-z]:", name)
    ):
        raise WheelError(f"{source}: member {name!r} is not a safe relative path")
    return path


def installed_files(wheel: Wheel) -> Iterator[tuple[str, zipfile.ZipInfo]]:
    """``(path relative to site-packages, member)`` for each file the wheel installs."""
    with zipfile.ZipFile(wheel.path) as archive:
        infos = archive.infolist()
    for info in infos:
        if info.is_dir():
            continue
        parts = safe_member(info.filename, wheel.filename).parts
        if parts[0].endswith(".data"):
            if len(parts) < 3 or parts[1] not in ("purelib", "platlib"):
                continue  # scripts, headers, data: nothing imports them
            parts = parts[2:]
        if "__pycache__" in parts or parts[-1].endswith((".pyc", ".pyo")):
            continue
        yield "/".join(parts), info


def import_names(paths: Iterable[str]) -> list[str]:
    """Public top-level packages and pure modules among installed paths (for ``--check``)."""
    paths = set(paths)
    names: set[str] = set()
    for path in paths:
        top, sep, _ = path.partition("/")
        if not sep:
            if top.endswith(".py"):
                names.add(top.removesuffix(".py"))
        elif f"{top}/__init__.py" in paths:
            names.add(top)
    return sorted(name for name in names if name.isidentifier() and not name.startswith("_"))
