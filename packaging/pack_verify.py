"""Structural checks of a built bundle, without running it.

The build runs them on every bundle it writes (a bundle that fails is deleted), and tests run
them on bundles for platforms this machine cannot execute: a Windows bundle must hold only
win_amd64 or pure wheels, a Linux one only manylinux or pure ones.
"""

from __future__ import annotations

import json
import zipfile
from pathlib import Path, PurePosixPath

from pack_wheels import BINARY_SUFFIXES, PLATFORM_TAGS, Target, WheelError, safe_member, tag_fits

from vxp.manifest import ManifestError, parse_manifest

LAUNCHER_PATH = "launcher/cueboard_launcher.py"
CODE_PACKAGES = ("vxp", "cueboard")


def wheel_tags(text: str) -> list[tuple[str, str, str]]:
    """The ``Tag:`` lines of a ``.dist-info/WHEEL`` file."""
    tags: list[tuple[str, str, str]] = []
    for line in text.splitlines():
        key, _, value = line.partition(":")
        if key.strip() == "Tag":
            interpreter, abi, plat = value.strip().split("-")
            tags.append((interpreter, abi, plat))
    return tags


def verify_bundle(path: Path) -> list[str]:
    """Problems with a bundle, one line each; empty when it is sound."""
    try:
        with zipfile.ZipFile(path) as archive:
            names = archive.namelist()
            texts = {
                name: archive.read(name).decode("utf-8", "replace")
                for name in names
                if name in ("manifest.toml", "bundle.json") or name.endswith(".dist-info/WHEEL")
            }
    except (OSError, zipfile.BadZipFile) as exc:
        return [f"{path.name}: not a readable zip: {exc}"]
    problems: list[str] = []
    for name in names:
        try:
            safe_member(name, path.name)
        except WheelError as exc:
            problems.append(str(exc))
        if "__pycache__" in name.split("/") or name.endswith((".pyc", ".pyo")):
            problems.append(f"{path.name}: {name}: compiled files are not bundled")
    if len(set(names)) != len(names):
        problems.append(f"{path.name}: duplicate entries")
    problems += _check_manifest(path.name, names, texts.get("manifest.toml"))
    info = _bundle_info(path.name, texts.get("bundle.json"))
    if info is None:
        return [*problems, f"{path.name}: bundle.json: missing or not valid JSON"]
    platform, minors = info
    problems += _check_vendor(path.name, names, texts, platform, minors)
    for package in CODE_PACKAGES:
        if f"lib/{package}/__init__.py" not in names:
            problems.append(
                f"{path.name}: lib/{package}/__init__.py: the extension's code is missing"
            )
    return problems


def _check_manifest(bundle: str, names: list[str], text: str | None) -> list[str]:
    if text is None:
        return [f"{bundle}: manifest.toml: missing"]
    try:
        manifest = parse_manifest(text, f"{bundle}:manifest.toml")
    except ManifestError as exc:
        return str(exc).splitlines()
    problems: list[str] = []
    if LAUNCHER_PATH not in manifest.command:
        problems.append(f"{bundle}: manifest.toml: command does not start {LAUNCHER_PATH}")
    if LAUNCHER_PATH not in names:
        problems.append(f"{bundle}: {LAUNCHER_PATH}: missing")
    for role, panel in manifest.panels.items():
        if panel not in names:
            problems.append(f"{bundle}: {panel}: missing (manifest panels.{role}; PAN-1)")
    return problems


def _bundle_info(bundle: str, text: str | None) -> tuple[str, list[int]] | None:
    if text is None:
        return None
    try:
        info = json.loads(text)
        platform = str(info["platform"])
        minors = [int(version.split(".")[1]) for version in info["pythons"]]
    except (ValueError, KeyError, TypeError, IndexError):
        return None
    if platform not in PLATFORM_TAGS or not minors:
        return None
    return platform, minors


def _check_vendor(
    bundle: str, names: list[str], texts: dict[str, str], platform: str, minors: list[int]
) -> list[str]:
    problems: list[str] = []
    folders = {f"cp3{minor}": [minor] for minor in minors} | {"shared": minors}
    foreign = tuple(
        suffix
        for other, suffixes in BINARY_SUFFIXES.items()
        if other != platform
        for suffix in suffixes
        if suffix not in BINARY_SUFFIXES[platform]
    )
    for name in names:
        parts = PurePosixPath(name).parts
        if parts[0] != "vendor":
            continue
        if len(parts) < 3 or parts[1] not in folders:
            problems.append(f"{bundle}: {name}: not in a vendor folder of bundle.json's pythons")
            continue
        if name.endswith(foreign):
            problems.append(f"{bundle}: {name}: a binary for another platform than {platform}")
        if name.endswith(".dist-info/WHEEL"):
            tags = wheel_tags(texts[name])
            for minor in folders[parts[1]]:
                target = Target(platform, minor)
                if not any(tag_fits(tag, target) for tag in tags):
                    shown = ", ".join("-".join(tag) for tag in tags) or "no tags"
                    problems.append(
                        f"{bundle}: {name}: tags {shown} do not fit {platform} {target.tag}"
                    )
    return problems
