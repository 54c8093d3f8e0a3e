"""vrosdev.install: a bundle is checked whole, then unpacked and swapped in."""

from __future__ import annotations

import stat
import zipfile
from pathlib import Path

import pytest

from vrosdev.install import InstallError, install_bundle, installed_folder
from vxp.manifest import load_manifest

EXT_ID = "com.cueboard.soundboard"


def test_install_unpacks_into_the_extensions_folder(linux_bundle: Path, tmp_path: Path) -> None:
    folder = install_bundle(linux_bundle, tmp_path / "state")
    assert (
        folder
        == tmp_path / "state" / "extensions" / EXT_ID
        == installed_folder(tmp_path / "state", EXT_ID)
    )
    with zipfile.ZipFile(linux_bundle) as archive:
        expected = sorted(name for name in archive.namelist() if not name.endswith("/"))
    unpacked = sorted(p.relative_to(folder).as_posix() for p in folder.rglob("*") if p.is_file())
    assert unpacked == expected
    manifest = load_manifest(folder / "manifest.toml")
    assert manifest.resolve_command(folder) == ["python3", "launcher/cueboard_launcher.py"]
    assert all(path.exists() for path in manifest.panel_files(folder).values())
    assert sorted(p.name for p in folder.parent.iterdir()) == [EXT_ID]  # no staging left


def test_reinstall_replaces_the_older_install_whole(linux_bundle: Path, tmp_path: Path) -> None:
    folder = install_bundle(linux_bundle, tmp_path)
    (folder / "lib" / "stale.py").write_text("left over from an older version")
    (folder / "manifest.toml").write_text("broken")
    assert install_bundle(linux_bundle, tmp_path) == folder
    assert not (folder / "lib" / "stale.py").exists()
    assert load_manifest(folder / "manifest.toml").id == EXT_ID
    assert sorted(p.name for p in folder.parent.iterdir()) == [EXT_ID]


def _zip(path: Path, entries: dict[str, bytes], symlink: str | None = None) -> Path:
    with zipfile.ZipFile(path, "w") as archive:
        for name, data in entries.items():
            archive.writestr(name, data)
        if symlink is not None:
            info = zipfile.ZipInfo(symlink)
            info.external_attr = (stat.S_IFLNK | 0o777) << 16
            archive.writestr(info, "/etc/passwd")
    return path


@pytest.fixture
def good_entries(linux_bundle: Path) -> dict[str, bytes]:
    """A minimal valid bundle: the real manifest, panels and launcher."""
    with zipfile.ZipFile(linux_bundle) as archive:
        return {
            name: archive.read(name)
            for name in archive.namelist()
            if name in ("manifest.toml", "launcher/cueboard_launcher.py")
            or name.startswith("panels/")
        }


@pytest.mark.parametrize(
    ("name", "reason"),
    [
        ("../escape.txt", "leaves the folder ('..')"),
        ("lib/../../escape.txt", "leaves the folder ('..')"),
        ("/etc/cron.d/x", "is absolute"),
        ("C:/Windows/x.dll", "is absolute"),
        ("lib\\x.py", "uses '\\'"),
    ],
)
def test_unsafe_paths_are_refused_before_anything_is_written(
    good_entries: dict[str, bytes], tmp_path: Path, name: str, reason: str
) -> None:
    bundle = _zip(tmp_path / "bad.vrosext", {**good_entries, name: b"x"})
    with pytest.raises(InstallError) as caught:
        install_bundle(bundle, tmp_path / "state")
    assert f"bad.vrosext: entry {name!r} {reason}" in str(caught.value)
    assert not (tmp_path / "state").exists()
    assert not (tmp_path / "escape.txt").exists()


def test_symlinks_are_refused(good_entries: dict[str, bytes], tmp_path: Path) -> None:
    bundle = _zip(tmp_path / "b.vrosext", good_entries, symlink="lib/passwd")
    with pytest.raises(InstallError, match="'lib/passwd' is a symbolic link"):
        install_bundle(bundle, tmp_path / "state")


def test_names_equal_but_for_case_are_refused(
    good_entries: dict[str, bytes], tmp_path: Path
) -> None:
    bundle = _zip(tmp_path / "b.vrosext", {**good_entries, "lib/A.py": b"", "lib/a.py": b""})
    with pytest.raises(InstallError, match="name the same file on a case-insensitive disk"):
        install_bundle(bundle, tmp_path / "state")


def test_a_bundle_without_manifest_is_refused(
    good_entries: dict[str, bytes], tmp_path: Path
) -> None:
    entries = {k: v for k, v in good_entries.items() if k != "manifest.toml"}
    with pytest.raises(InstallError, match=r"b\.vrosext: no manifest\.toml at the top"):
        install_bundle(_zip(tmp_path / "b.vrosext", entries), tmp_path / "state")


def test_an_invalid_manifest_is_refused_with_the_schemas_reason(
    good_entries: dict[str, bytes], tmp_path: Path
) -> None:
    text = good_entries["manifest.toml"].decode().replace("audio = true", 'audio = "yes"')
    bundle = _zip(tmp_path / "b.vrosext", {**good_entries, "manifest.toml": text.encode()})
    with pytest.raises(InstallError) as caught:
        install_bundle(bundle, tmp_path / "state")
    assert str(caught.value) == (
        "b.vrosext:manifest.toml: capabilities.audio: must be true or false, not a string"
    )


def test_missing_panel_and_launcher_are_refused(
    good_entries: dict[str, bytes], tmp_path: Path
) -> None:
    entries = {
        k: v
        for k, v in good_entries.items()
        if k not in ("panels/overlay.slint", "launcher/cueboard_launcher.py")
    }
    with pytest.raises(InstallError) as caught:
        install_bundle(_zip(tmp_path / "b.vrosext", entries), tmp_path / "state")
    assert str(caught.value).splitlines() == [
        "b.vrosext: panels/overlay.slint: missing (manifest panels.overlay; PAN-1)",
        "b.vrosext: launcher/cueboard_launcher.py: missing (named by the manifest's command)",
    ]


def test_a_failed_install_keeps_the_older_one(
    linux_bundle: Path, good_entries: dict[str, bytes], tmp_path: Path
) -> None:
    folder = install_bundle(linux_bundle, tmp_path)
    before = sorted(folder.rglob("*"))
    bundle = _zip(tmp_path / "bad.vrosext", {**good_entries, "../x": b""})
    with pytest.raises(InstallError):
        install_bundle(bundle, tmp_path)
    assert sorted(folder.rglob("*")) == before


def test_not_a_zip_is_refused(tmp_path: Path) -> None:
    (tmp_path / "b.vrosext").write_bytes(b"PK\x03\x04 not really")
    with pytest.raises(InstallError, match="not a bundle"):
        install_bundle(tmp_path / "b.vrosext", tmp_path / "state")
    with pytest.raises(InstallError, match="no such file"):
        install_bundle(tmp_path / "missing.vrosext", tmp_path / "state")
