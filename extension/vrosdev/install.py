"""``vrosdev install BUNDLE``: unpack a ``.vrosext`` into vrosdev's extensions folder.

A bundle is a zip built by ``packaging/build.py``. It is checked completely before anything is
written: every entry is a safe relative path (no absolute path, drive, ``\\`` or ``..``, no
symlink, no two names that differ only in case), the sizes are bounded, and its
``manifest.toml`` passes the SDK schema with its panel files and launcher present. It is then
unpacked beside the target folder and swapped in, so an older install of the same id is
replaced whole or left as it was, never mixed.
"""

from __future__ import annotations

import os
import secrets
import shutil
import stat
import zipfile
from pathlib import Path, PurePosixPath, PureWindowsPath

from vxp.manifest import Manifest, ManifestError, parse_manifest

__all__ = ["InstallError", "check_bundle", "install_bundle", "installed_folder"]

# Guards against a hostile or broken bundle (a zip bomb, a zip of a home directory). A full
# Cueboard bundle holds about 5,000 files and 300 MiB unpacked.
MAX_ENTRIES = 50_000
MAX_UNPACKED_BYTES = 2 * 1024**3
MANIFEST = "manifest.toml"
_COPY_CHUNK = 1 << 20


class InstallError(Exception):
    """A bundle that is not installed; ``str()`` says why, one line per problem."""


def installed_folder(state_dir: str | os.PathLike[str], ext_id: str) -> Path:
    """Where an extension is installed: ``<state>/extensions/<id>`` (vrosdev run --installed)."""
    return Path(state_dir) / "extensions" / ext_id


def _entry_problem(info: zipfile.ZipInfo) -> str | None:
    name = info.filename
    if not name or "\0" in name:
        return "an empty or NUL-containing name"
    if "\\" in name:
        return "uses '\\'; bundle paths use '/'"
    path = PurePosixPath(name)
    if path.is_absolute() or PureWindowsPath(name).drive or PureWindowsPath(name).root:
        return "is absolute"
    if ".." in path.parts:
        return "leaves the folder ('..')"
    if stat.S_ISLNK(info.external_attr >> 16):
        return "is a symbolic link"
    return None


def check_bundle(archive: zipfile.ZipFile, source: str) -> Manifest:
    """Every rule a bundle must pass before it is unpacked; returns its manifest."""
    infos = archive.infolist()
    problems: list[str] = []
    if len(infos) > MAX_ENTRIES:
        raise InstallError(f"{source}: {len(infos)} entries, more than {MAX_ENTRIES}")
    total = sum(info.file_size for info in infos)
    if total > MAX_UNPACKED_BYTES:
        raise InstallError(f"{source}: unpacks to {total} bytes, more than {MAX_UNPACKED_BYTES}")
    seen: dict[str, str] = {}
    for info in infos:
        problem = _entry_problem(info)
        if problem is not None:
            problems.append(f"{source}: entry {info.filename!r} {problem}")
            continue
        folded = info.filename.rstrip("/").casefold()
        if folded in seen:
            problems.append(
                f"{source}: entries {seen[folded]!r} and {info.filename!r} name the same file "
                "on a case-insensitive disk"
            )
        seen[folded] = info.filename
    if problems:
        raise InstallError("\n".join(problems))
    names = {info.filename for info in infos if not info.is_dir()}
    if MANIFEST not in names:
        raise InstallError(f"{source}: no {MANIFEST} at the top of the bundle")
    try:
        text = archive.read(MANIFEST).decode("utf-8")
    except UnicodeDecodeError as exc:
        raise InstallError(f"{source}:{MANIFEST}: is not UTF-8 (byte {exc.start})") from None
    try:
        manifest = parse_manifest(text, f"{source}:{MANIFEST}")
    except ManifestError as exc:
        raise InstallError(str(exc)) from None
    for role, panel in manifest.panels.items():
        if panel not in names:
            problems.append(f"{source}: {panel}: missing (manifest panels.{role}; PAN-1)")
    program = manifest.command[0]
    files = [program] if "/" in program else []
    files += [arg for arg in manifest.command[1:] if arg.endswith(".py") and "/" in arg]
    for path in files:
        if path not in names:
            problems.append(f"{source}: {path}: missing (named by the manifest's command)")
    if problems:
        raise InstallError("\n".join(problems))
    return manifest


def _unpack(archive: zipfile.ZipFile, folder: Path) -> None:
    for info in archive.infolist():
        target = folder.joinpath(*PurePosixPath(info.filename).parts)
        if info.is_dir():
            target.mkdir(parents=True, exist_ok=True)
            continue
        target.parent.mkdir(parents=True, exist_ok=True)
        with archive.open(info) as source, target.open("wb") as sink:
            shutil.copyfileobj(source, sink, _COPY_CHUNK)
        target.chmod(0o644)


def install_bundle(path: str | os.PathLike[str], state_dir: str | os.PathLike[str]) -> Path:
    """Install a bundle into ``<state_dir>/extensions/<id>/``; returns that folder.

    An existing install of the same id is replaced only once the new one is fully unpacked.
    """
    source = Path(path).name
    try:
        archive = zipfile.ZipFile(path)
    except FileNotFoundError:
        raise InstallError(f"{path}: no such file") from None
    except (zipfile.BadZipFile, OSError) as exc:
        raise InstallError(f"{path}: not a bundle (not a readable zip: {exc})") from None
    with archive:
        manifest = check_bundle(archive, source)
        target = installed_folder(state_dir, manifest.id)
        target.parent.mkdir(parents=True, exist_ok=True)
        token = secrets.token_hex(4)
        staging = target.with_name(f".{manifest.id}.installing-{token}")
        try:
            _unpack(archive, staging)
        except (OSError, zipfile.BadZipFile, EOFError) as exc:
            shutil.rmtree(staging, ignore_errors=True)
            raise InstallError(f"{path}: cannot unpack: {exc}") from None
    _swap_in(staging, target, token)
    return target


def _swap_in(staging: Path, target: Path, token: str) -> None:
    """Put ``staging`` at ``target``; an older install is moved aside first and removed last."""
    old = target.with_name(f".{target.name}.old-{token}")
    had_old = target.exists()
    try:
        if had_old:
            os.replace(target, old)
        os.replace(staging, target)
    except OSError as exc:
        if had_old and old.exists() and not target.exists():
            os.replace(old, target)
        shutil.rmtree(staging, ignore_errors=True)
        raise InstallError(f"cannot replace {target}: {exc}") from None
    if had_old:
        shutil.rmtree(old, ignore_errors=True)
