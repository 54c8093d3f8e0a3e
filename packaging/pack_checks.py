"""What must hold before anything is packed: a bundle vrOS would refuse is never written.

Each problem is one line naming the file and the rule, like the manifest schema's messages:
``panels/overlay.slint: does not compile with the Slint compiler (PAN-1): ...``.
"""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

from vxp.manifest import Manifest, ManifestError, parse_manifest

# vrOS's asset limit on one image (AST-12), applied to icons shipped in assets/ before decoding.
MAX_ICON_BYTES = 2 * 1024 * 1024
ICON_SUFFIXES = (".png", ".gif", ".webp", ".jpg", ".jpeg", ".apng")
_COMMAND_LINE_RE = re.compile(r"^command\s*=.*$", re.MULTILINE)


class CheckFailed(Exception):
    """Problems that stop the build; ``str()`` is one line each."""

    def __init__(self, problems: list[str]) -> None:
        super().__init__("\n".join(problems))
        self.problems = problems


def project_version(root: Path) -> str:
    with (root / "pyproject.toml").open("rb") as file:
        return str(tomllib.load(file)["project"]["version"])


def bundle_manifest_text(text: str, command: list[str], source: str) -> str:
    """The manifest with only its top-level ``command`` line replaced (comments are kept)."""
    lines = _COMMAND_LINE_RE.findall(text)
    if len(lines) != 1:
        raise CheckFailed(
            [
                f"{source}: command: must be written on one line as command = [...] to be "
                f"rewritten for the bundle (found {len(lines)} such lines)"
            ]
        )
    rendered = "command = [" + ", ".join(f'"{part}"' for part in command) + "]"
    return _COMMAND_LINE_RE.sub(lambda _: rendered, text, count=1)


def check_manifest(root: Path, command: list[str]) -> tuple[Manifest, str]:
    """The repository's manifest, valid, and its bundle form (also valid, same everywhere else)."""
    path = root / "manifest.toml"
    source = "manifest.toml"
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise CheckFailed([f"{source}: cannot read: {exc}"]) from None
    try:
        manifest = parse_manifest(text, source)
    except ManifestError as exc:
        raise CheckFailed(str(exc).splitlines()) from None
    problems: list[str] = []
    version = project_version(root)
    if manifest.version != version:
        problems.append(
            f"{source}: version: {manifest.version!r} differs from pyproject.toml "
            f"[project].version {version!r} (docs/manifest.md: they are equal)"
        )
    bundled_text = bundle_manifest_text(text, command, source)
    try:
        bundled = parse_manifest(bundled_text, f"{source} (bundle)")
    except ManifestError as exc:
        raise CheckFailed([*problems, *str(exc).splitlines()]) from None
    if (
        list(bundled.command) != command
        or bundled.model_copy(update={"command": manifest.command}) != manifest
    ):
        problems.append(f"{source}: command: rewriting it changed more than the command")
    if problems:
        raise CheckFailed(problems)
    return manifest, bundled_text


def bundled_panels(root: Path, manifest: Manifest) -> list[Path]:
    """The manifest's panels and every other .slint file in panels/ (runtime panels)."""
    files = set(manifest.panel_files(root).values())
    files.update((root / "panels").glob("*.slint"))
    return sorted(files)


def check_panels(root: Path, manifest: Manifest) -> list[str]:
    from vrosdev.panels import CompilerUnavailable, compile_source

    problems: list[str] = []
    declared = {path: role for role, path in manifest.panel_files(root).items()}
    for path in bundled_panels(root, manifest):
        rel = path.relative_to(root).as_posix()
        try:
            source = path.read_text(encoding="utf-8")
        except FileNotFoundError:
            role = declared.get(path, "?")
            problems.append(f"{rel}: missing (manifest.toml panels.{role} names it; PAN-1)")
            continue
        except (OSError, UnicodeDecodeError) as exc:
            problems.append(f"{rel}: cannot read: {exc}")
            continue
        try:
            result = compile_source(source)
        except CompilerUnavailable as exc:
            problems.append(f"{rel}: cannot be checked, the Slint compiler is missing: {exc}")
            continue
        if not result.ok:
            first, *rest = result.message.strip().splitlines() or ["(no message)"]
            detail = "".join(f"\n    {line}" for line in rest)
            problems.append(
                f"{rel}: does not compile with the Slint compiler (PAN-1): {first}{detail}"
            )
    return problems


def asset_files(root: Path) -> list[Path]:
    folder = root / "assets"
    if not folder.is_dir():
        return []
    return sorted(
        path
        for path in folder.rglob("*")
        if path.is_file() and not any(part.startswith(".") for part in path.parts[-1:])
    )


def check_assets(root: Path) -> list[str]:
    """Icons must fit vrOS's asset limits: at most 2 MiB (AST-12) and decodable by Cueboard's
    thumbnail pipeline, which enforces the size, frame and delay limits (AST-9..11)."""
    from cueboard.workers.thumbnails import ThumbnailError, decode_file

    problems: list[str] = []
    for path in asset_files(root):
        rel = path.relative_to(root).as_posix()
        if path.suffix.lower() not in ICON_SUFFIXES:
            continue
        size = path.stat().st_size
        if size > MAX_ICON_BYTES:
            problems.append(f"{rel}: {size} bytes is over the 2 MiB asset limit (AST-12)")
            continue
        try:
            decode_file(path, max_bytes=MAX_ICON_BYTES)
        except ThumbnailError as exc:
            problems.append(f"{rel}: not a usable icon: {exc.reason} (AST-9..12)")
    return problems


def check_sources(root: Path, command: list[str]) -> tuple[Manifest, str]:
    """Every check; raises CheckFailed with all the problems found."""
    manifest, bundled_text = check_manifest(root, command)
    problems = check_panels(root, manifest) + check_assets(root)
    if problems:
        raise CheckFailed(problems)
    return manifest, bundled_text
