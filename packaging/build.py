"""Build an installable Cueboard bundle for vrOS: ``dist/cueboard-<version>-<platform>.vrosext``.

    python packaging/build.py --platform linux_x86_64|win_amd64 [--out dist]
        [--python 3.12 ...] [--wheel-dir DIR] [--with-video] [--plain]

The bundle is a zip: manifest.toml (the repository's, its command rewritten to the bundle's
launcher), bundle.json, launcher/, panels/, assets/, the extension's code in lib/ (vxp and
cueboard) and its runtime dependencies as extracted wheels in vendor/cpXY/ per CPython version
(vendor/shared/ for wheels that are the same file for every version). See docs/packaging.md.

Run it with the development environment (.venv): it validates with the SDK's manifest schema,
vrosdev's Slint compiler and Cueboard's thumbnail pipeline before packing anything.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import sys
import tempfile
import time
import tomllib
import zipfile
from pathlib import Path

from pack_archive import Content, write_checksum, write_zip
from pack_checks import CheckFailed, asset_files, bundled_panels, check_sources
from pack_download import DownloadError, VersionUnavailable, download
from pack_progress import Progress, make_progress
from pack_verify import CODE_PACKAGES, LAUNCHER_PATH, verify_bundle
from pack_wheels import (
    PLATFORM_TAGS,
    Target,
    Wheel,
    WheelError,
    import_names,
    installed_files,
    normalize,
    parse_wheel,
    select,
    unfit_dists,
)

from vxp.manifest import Manifest

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
LAUNCHER = HERE / "launcher" / "cueboard_launcher.py"
BUNDLE_FORMAT = 1
# The manifest command of each bundle. A bare program name is looked up on PATH (docs/manifest.md):
# any python3 (or the Windows py launcher's newest 3.x) can run the launcher, which then picks
# a CPython the bundle has wheels for. vrOS starts the command in the extension's folder.
COMMANDS: dict[str, list[str]] = {
    "linux_x86_64": ["python3", LAUNCHER_PATH],
    "win_amd64": ["py", "-3", LAUNCHER_PATH],
}
MIN_MINOR = 12  # CPython 3.12 is the oldest the project supports (pyproject requires-python)
REQUIRED_MINORS = (12, 13)  # a bundle without these is not worth shipping
MAX_MINOR = 20  # where automatic probing for newer CPythons gives up
# Video icons (imageio + PyAV) add about 35 MB per bundle; without them Cueboard refuses
# video clips as icons with a clear reason and everything else works.
VIDEO_DISTS = frozenset({"imageio", "av"})
EXIT_CHECKS = 2
EXIT_FAILED = 1


class BuildError(Exception):
    """A failure with a message for the user (no traceback)."""


def parse_args(argv: list[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        prog="packaging/build.py", description="Build a Cueboard bundle (.vrosext) for vrOS."
    )
    parser.add_argument("--platform", required=True, choices=sorted(PLATFORM_TAGS))
    parser.add_argument("--out", type=Path, default=Path("dist"), help="default: dist")
    parser.add_argument(
        "--python",
        action="append",
        metavar="3.X",
        help="a CPython version to vendor wheels for (repeatable); default: every version "
        "from 3.12 up that the dependencies publish wheels for",
    )
    parser.add_argument(
        "--wheel-dir",
        type=Path,
        help="vendor exactly the wheels in this folder (offline) instead of resolving the "
        "requirements on PyPI",
    )
    parser.add_argument(
        "--with-video", action="store_true", help="also vendor imageio and av (video icons)"
    )
    parser.add_argument("--source-root", type=Path, default=REPO, help=argparse.SUPPRESS)
    parser.add_argument("--plain", action="store_true", help="plain progress lines, no bar")
    args = parser.parse_args(argv)
    if args.python:
        args.minors = sorted({_minor(parser, value) for value in args.python})
    else:
        args.minors = None
    return args


def _minor(parser: argparse.ArgumentParser, value: str) -> int:
    match = re.fullmatch(r"3\.(\d+)", value)
    if match is None or int(match[1]) < MIN_MINOR:
        parser.error(f"--python {value}: give a CPython version 3.{MIN_MINOR} or newer, as 3.X")
    return int(match[1])


def runtime_requirements(root: Path, with_video: bool) -> list[str]:
    """[project].dependencies and the ``media`` extra: what cueboard imports at run time.

    The ``host``, ``preview`` and ``dev`` extras are vrosdev's and the tests'."""
    with (root / "pyproject.toml").open("rb") as file:
        project = tomllib.load(file)["project"]
    requirements = [*project["dependencies"], *project["optional-dependencies"]["media"]]
    if not with_video:
        requirements = [r for r in requirements if _requirement_name(r) not in VIDEO_DISTS]
    return requirements


def _requirement_name(requirement: str) -> str:
    match = re.match(r"[A-Za-z0-9._-]+", requirement)
    return normalize(match[0]) if match else requirement


# --- gathering wheels ------------------------------------------------------------------------


def gather_from_pypi(
    args: argparse.Namespace, root: Path, work: Path, progress: Progress
) -> dict[Target, list[Wheel]]:
    requirements = runtime_requirements(root, args.with_video)
    constraints = root / "constraints.txt"
    cache = root / ".cache" / "pip"
    minors: list[int] = args.minors or list(range(MIN_MINOR, MAX_MINOR + 1))
    progress.start(f"wheels for {args.platform}", len(args.minors) if args.minors else None)
    wheelsets: dict[Target, list[Wheel]] = {}
    for minor in minors:
        target = Target(args.platform, minor)

        def on_package(name: str, tag: str = target.tag) -> None:
            progress.update(f"{tag}: {name}")

        try:
            files = download(
                target,
                requirements,
                constraints=constraints,
                dest=work / target.tag,
                cache_dir=cache,
                on_package=on_package,
            )
        except VersionUnavailable as exc:
            if args.minors or minor in REQUIRED_MINORS:
                raise BuildError(f"no wheels for CPython {target.version}: {exc}") from None
            progress.note(f"CPython {target.version}: no wheels on PyPI yet, not vendored")
            break
        except DownloadError as exc:
            raise BuildError(str(exc)) from None
        wheelsets[target] = select([parse_wheel(path) for path in files], target)
        progress.advance(f"{target.tag}: {len(files)} wheels")
    return wheelsets


def gather_from_folder(args: argparse.Namespace, progress: Progress) -> dict[Target, list[Wheel]]:
    folder: Path = args.wheel_dir
    wheels = [parse_wheel(path) for path in sorted(folder.glob("*.whl"))]
    if not wheels:
        raise BuildError(f"--wheel-dir {folder}: no .whl files")
    minors: list[int] = args.minors or list(range(MIN_MINOR, _newest_minor(wheels) + 1))
    wheelsets: dict[Target, list[Wheel]] = {}
    progress.start(f"wheels for {args.platform} from {folder}", len(minors))
    for minor in minors:
        target = Target(args.platform, minor)
        missing = unfit_dists(wheels, target)
        if missing:
            if args.minors:
                raise BuildError(
                    f"--wheel-dir {folder}: no wheel of {', '.join(missing)} fits "
                    f"{args.platform} {target.tag}"
                )
            progress.note(f"CPython {target.version}: no wheel of {', '.join(missing)}, skipped")
            continue
        wheelsets[target] = select(wheels, target)
        progress.advance(f"{target.tag}: {len(wheelsets[target])} wheels")
    if not wheelsets:
        raise BuildError(f"--wheel-dir {folder}: no CPython version has all its wheels")
    return wheelsets


def _newest_minor(wheels: list[Wheel]) -> int:
    """The newest CPython a version-specific wheel exists for (pure wheels fit any)."""
    newest = MIN_MINOR
    for wheel in wheels:
        for interpreter, abi, _ in wheel.tags:
            match = re.fullmatch(r"cp3(\d+)", interpreter)
            if match and abi == interpreter:
                newest = max(newest, int(match[1]))
    return newest


# --- the bundle's contents --------------------------------------------------------------------


def vendor_plan(wheelsets: dict[Target, list[Wheel]]) -> dict[str, list[Wheel]]:
    """Vendor folder -> wheels. A wheel chosen for every version (the same file: pure or
    abi3) goes once into ``shared``; the rest into the version's ``cpXY``."""
    sets = {
        target.tag: {wheel.filename: wheel for wheel in wheels}
        for target, wheels in wheelsets.items()
    }
    common = (
        set.intersection(*(set(chosen) for chosen in sets.values())) if len(sets) > 1 else set()
    )
    plan: dict[str, list[Wheel]] = {}
    if common:
        first = next(iter(sets.values()))
        plan["shared"] = [first[name] for name in sorted(common)]
    for tag, chosen in sets.items():
        plan[tag] = [chosen[name] for name in sorted(chosen) if name not in common]
    return plan


def _file(path: Path) -> Content:
    return path.read_bytes


def _constant(data: bytes) -> Content:
    return lambda: data


class WheelReader:
    """Keeps each wheel open while the bundle is written (a numpy wheel has a thousand
    members; reopening it for each one would read its central directory a thousand times)."""

    def __init__(self) -> None:
        self._open: dict[Path, zipfile.ZipFile] = {}

    def member(self, wheel: Path, member: str) -> Content:
        def read() -> bytes:
            archive = self._open.get(wheel)
            if archive is None:
                archive = self._open[wheel] = zipfile.ZipFile(wheel)
            return archive.read(member)

        return read

    def __enter__(self) -> WheelReader:
        return self

    def __exit__(self, *exc_info: object) -> None:
        for archive in self._open.values():
            archive.close()
        self._open.clear()


def _skipped(path: Path) -> bool:
    return (
        "__pycache__" in path.parts
        or path.suffix in (".pyc", ".pyo")
        or path.name.startswith(".")
        or path.name.endswith("~")
    )


def bundle_entries(
    root: Path,
    manifest: Manifest,
    manifest_text: str,
    plan: dict[str, list[Wheel]],
    info: dict[str, object],
    reader: WheelReader,
) -> dict[str, Content]:
    entries: dict[str, Content] = {}

    def add(name: str, content: Content, origin: str) -> None:
        if name in entries:
            raise BuildError(f"{origin}: {name} is also written by another source")
        entries[name] = content

    add("manifest.toml", _constant(manifest_text.encode("utf-8")), "manifest.toml")
    add(LAUNCHER_PATH, _file(LAUNCHER), "launcher")
    for path in [*bundled_panels(root, manifest), *asset_files(root)]:
        add(path.relative_to(root).as_posix(), _file(path), "panels/assets")
    for package in CODE_PACKAGES:
        folder = root / "extension" / package
        if not (folder / "__init__.py").is_file():
            raise BuildError(f"extension/{package}/__init__.py: missing; cannot bundle {package}")
        for path in sorted(folder.rglob("*")):
            if path.is_file() and not _skipped(path.relative_to(folder)):
                add(f"lib/{path.relative_to(root / 'extension').as_posix()}", _file(path), package)
    check_modules: set[str] = set()
    for folder_name, wheels in plan.items():
        for wheel in wheels:
            paths = []
            for name, info_ in installed_files(wheel):
                add(
                    f"vendor/{folder_name}/{name}",
                    reader.member(wheel.path, info_.filename),
                    wheel.filename,
                )
                paths.append(name)
            check_modules.update(import_names(paths))
    info["check_modules"] = [*CODE_PACKAGES, *sorted(check_modules)]
    text = json.dumps(info, indent=2, sort_keys=True) + "\n"
    add("bundle.json", _constant(text.encode("utf-8")), "bundle.json")
    return entries


# --- the build --------------------------------------------------------------------------------


def build(args: argparse.Namespace, progress: Progress) -> Path:
    root: Path = args.source_root.resolve()
    command = COMMANDS[args.platform]
    progress.note(f"checking manifest.toml, panels and assets in {root}")
    manifest, manifest_text = check_sources(root, command)
    with tempfile.TemporaryDirectory(prefix="cueboard-wheels-") as work:
        if args.wheel_dir is not None:
            wheelsets = gather_from_folder(args, progress)
        else:
            wheelsets = gather_from_pypi(args, root, Path(work), progress)
        plan = vendor_plan(wheelsets)
        info: dict[str, object] = {
            "format": BUNDLE_FORMAT,
            "id": manifest.id,
            "version": manifest.version,
            "platform": args.platform,
            "pythons": [target.version for target in sorted(wheelsets)],
            "video": args.with_video,
            "vendor": {folder: [w.filename for w in wheels] for folder, wheels in plan.items()},
        }
        args.out.mkdir(parents=True, exist_ok=True)
        bundle = args.out / f"cueboard-{manifest.version}-{args.platform}.vrosext"
        with WheelReader() as reader:
            entries = bundle_entries(root, manifest, manifest_text, plan, info, reader)
            progress.start(f"writing {bundle.name}", len(entries))
            write_zip(bundle, entries, on_entry=lambda _: progress.advance())
    problems = verify_bundle(bundle)
    if problems:
        bundle.unlink()
        raise CheckFailed(problems)
    return bundle


def main(argv: list[str] | None = None) -> int:
    args = parse_args(sys.argv[1:] if argv is None else argv)
    started = time.perf_counter()
    try:
        with make_progress(args.plain) as progress:
            bundle = build(args, progress)
    except CheckFailed as exc:
        for line in exc.problems:
            print(f"build: {line}", file=sys.stderr)
        print("build: nothing was packed", file=sys.stderr)
        return EXIT_CHECKS
    except (BuildError, WheelError, OSError, ValueError) as exc:
        print(f"build: {exc}", file=sys.stderr)
        return EXIT_FAILED
    digest = write_checksum(bundle)
    size = bundle.stat().st_size
    elapsed = time.perf_counter() - started
    print(f"{bundle}  {size / 2**20:.1f} MiB  built in {elapsed:.1f} s")
    print(f"sha256 {digest}  (also in {bundle.name}.sha256)")
    return 0


if __name__ == "__main__":
    os.environ.setdefault("PIP_CACHE_DIR", str(REPO / ".cache" / "pip"))
    raise SystemExit(main())
