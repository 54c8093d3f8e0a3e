"""packaging/build.py: reproducible bundles, their layout, and refusals before packing."""

from __future__ import annotations

import hashlib
import json
import re
import shutil
import tomllib
import zipfile
from pathlib import Path

import pytest

from tests.packaging.conftest import REPO, THIS_PYTHON, build_linux, run_build
from vxp.manifest import parse_manifest


def test_two_builds_are_byte_identical(source_copy: Path, wheelhouse: Path, tmp_path: Path) -> None:
    """Built from one snapshot of the sources (the same commit), into different folders."""
    assert _build_from(source_copy, wheelhouse, tmp_path / "one")[0] == 0
    assert _build_from(source_copy, wheelhouse, tmp_path / "two")[0] == 0
    (first,) = (tmp_path / "one").glob("*.vrosext")
    (second,) = (tmp_path / "two").glob("*.vrosext")
    assert first.name == second.name == "cueboard-0.1.0-linux_x86_64.vrosext"
    assert first.read_bytes() == second.read_bytes()


def test_checksum_is_written_beside_the_bundle(linux_bundle: Path) -> None:
    digest = hashlib.sha256(linux_bundle.read_bytes()).hexdigest()
    checksum = linux_bundle.with_name(linux_bundle.name + ".sha256")
    assert checksum.read_text(encoding="ascii") == f"{digest}  {linux_bundle.name}\n"


def test_entries_are_sorted_with_fixed_stamps_and_modes(linux_bundle: Path) -> None:
    with zipfile.ZipFile(linux_bundle) as archive:
        infos = archive.infolist()
    names = [info.filename for info in infos]
    assert names == sorted(names)
    assert {info.date_time for info in infos} == {(1980, 1, 1, 0, 0, 0)}
    assert {info.external_attr >> 16 for info in infos} == {0o100644}
    assert not [n for n in names if "__pycache__" in n or n.endswith((".pyc", "/"))]


def test_source_date_epoch_sets_the_stamp(
    wheelhouse: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("SOURCE_DATE_EPOCH", "1700000000")  # 2023-11-14 22:13:20 UTC
    with zipfile.ZipFile(build_linux(wheelhouse, tmp_path)) as archive:
        stamps = {info.date_time for info in archive.infolist()}
    assert stamps == {(2023, 11, 14, 22, 13, 20)}


def test_layout(linux_bundle: Path) -> None:
    with zipfile.ZipFile(linux_bundle) as archive:
        names = set(archive.namelist())
        info = json.loads(archive.read("bundle.json"))
    tops = {name.split("/")[0] for name in names}
    assert tops == {"bundle.json", "launcher", "lib", "manifest.toml", "panels", "vendor"}
    assert {name.split("/")[1] for name in names if name.startswith("lib/")} == {"vxp", "cueboard"}
    assert "panels/overlay.slint" in names and "panels/dash-tab.slint" in names
    assert not [n for n in names if n.startswith("panels/") and not n.endswith(".slint")]
    tag = f"cp3{THIS_PYTHON.split('.')[1]}"
    assert any(n.startswith(f"vendor/{tag}/pydantic_core/") and n.endswith(".so") for n in names)
    assert info["platform"] == "linux_x86_64" and info["pythons"] == [THIS_PYTHON]
    assert (
        info["check_modules"][:2] == ["vxp", "cueboard"]
        and "pydantic_core" in info["check_modules"]
    )


def test_bundled_code_never_imports_vrosdev(linux_bundle: Path) -> None:
    """The emulated host (and the demo, which runs it) stays out of what vrOS installs."""
    with zipfile.ZipFile(linux_bundle) as archive:
        code = {
            name: archive.read(name).decode()
            for name in archive.namelist()
            if name.startswith("lib/") and name.endswith(".py")
        }
    assert any(name.startswith("lib/cueboard/") for name in code)
    importers = [
        n for n, text in code.items() if re.search(r"^\s*(from|import) vrosdev\b", text, re.M)
    ]
    assert not importers


def test_manifest_is_the_repositorys_with_the_launcher_command(linux_bundle: Path) -> None:
    with zipfile.ZipFile(linux_bundle) as archive:
        bundled = parse_manifest(archive.read("manifest.toml").decode(), "bundle")
    original = parse_manifest((REPO / "manifest.toml").read_text(encoding="utf-8"))
    assert bundled.command == ["python3", "launcher/cueboard_launcher.py"]
    assert bundled.model_copy(update={"command": original.command}) == original
    with (REPO / "pyproject.toml").open("rb") as file:
        assert bundled.version == tomllib.load(file)["project"]["version"]


# --- refusals before packing: each names the file and the rule --------------------------------


@pytest.fixture
def source_copy(tmp_path: Path) -> Path:
    """The parts of the repository a build reads, to break one of them."""
    root = tmp_path / "src"
    for name in ("manifest.toml", "pyproject.toml", "constraints.txt"):
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(REPO / name, root / name)
    shutil.copytree(REPO / "panels", root / "panels")
    for package in ("vxp", "cueboard"):
        shutil.copytree(REPO / "extension" / package, root / "extension" / package)
    return root


def _build_from(root: Path, wheelhouse: Path, out: Path) -> tuple[int, str]:
    done = run_build(
        "--platform",
        "linux_x86_64",
        "--wheel-dir",
        wheelhouse,
        "--python",
        THIS_PYTHON,
        "--out",
        out,
        "--source-root",
        root,
    )
    return done.returncode, done.stderr


def test_a_source_copy_builds(source_copy: Path, wheelhouse: Path, tmp_path: Path) -> None:
    """The control for the refusals below: the unbroken copy packs."""
    code, stderr = _build_from(source_copy, wheelhouse, tmp_path / "out")
    assert code == 0, stderr


def test_unknown_manifest_key_is_refused(
    source_copy: Path, wheelhouse: Path, tmp_path: Path
) -> None:
    manifest = source_copy / "manifest.toml"
    manifest.write_text(
        manifest.read_text().replace("[capabilities]\n", "[capabilities]\nmicrophone = true\n")
    )
    code, stderr = _build_from(source_copy, wheelhouse, tmp_path / "out")
    assert code == 2
    assert "manifest.toml: capabilities.microphone: unknown key 'microphone'" in stderr
    assert "docs/protocol-notes.md#r27" in stderr and "Traceback" not in stderr
    assert not list((tmp_path / "out").glob("*"))


def test_version_differing_from_pyproject_is_refused(
    source_copy: Path, wheelhouse: Path, tmp_path: Path
) -> None:
    manifest = source_copy / "manifest.toml"
    manifest.write_text(manifest.read_text().replace('version = "0.1.0"', 'version = "0.1.1"'))
    code, stderr = _build_from(source_copy, wheelhouse, tmp_path / "out")
    assert code == 2
    assert "manifest.toml: version: '0.1.1' differs from pyproject.toml" in stderr


def test_panel_that_does_not_compile_is_refused(
    source_copy: Path, wheelhouse: Path, tmp_path: Path
) -> None:
    panel = source_copy / "panels" / "overlay.slint"
    panel.write_text(panel.read_text() + "\nthis is not slint {\n")
    code, stderr = _build_from(source_copy, wheelhouse, tmp_path / "out")
    assert code == 2
    assert "panels/overlay.slint: does not compile with the Slint compiler (PAN-1)" in stderr
    assert "dash-tab.slint" not in stderr


def test_missing_panel_is_refused(source_copy: Path, wheelhouse: Path, tmp_path: Path) -> None:
    (source_copy / "panels" / "dash-tab.slint").unlink()
    code, stderr = _build_from(source_copy, wheelhouse, tmp_path / "out")
    assert code == 2
    assert (
        "panels/dash-tab.slint: missing (manifest.toml panels.dash-tab names it; PAN-1)" in stderr
    )


def test_icons_over_the_asset_limit_are_refused(
    source_copy: Path, wheelhouse: Path, tmp_path: Path
) -> None:
    from PIL import Image

    assets = source_copy / "assets"
    assets.mkdir()
    Image.new("RGBA", (64, 64), (200, 10, 10, 255)).save(assets / "good.png")
    (assets / "big.png").write_bytes(b"\x89PNG\r\n\x1a\n" + bytes(2 * 1024 * 1024))
    (assets / "broken.gif").write_bytes(b"GIF89a-not-really")
    code, stderr = _build_from(source_copy, wheelhouse, tmp_path / "out")
    assert code == 2
    assert "assets/big.png: 2097160 bytes is over the 2 MiB asset limit (AST-12)" in stderr
    assert "assets/broken.gif: not a usable icon:" in stderr
    assert "good.png" not in stderr


def test_good_icons_are_bundled(source_copy: Path, wheelhouse: Path, tmp_path: Path) -> None:
    from PIL import Image

    (source_copy / "assets" / "icons").mkdir(parents=True)
    Image.new("RGBA", (32, 32), (0, 90, 200, 255)).save(source_copy / "assets/icons/a.png")
    code, stderr = _build_from(source_copy, wheelhouse, tmp_path / "out")
    assert code == 0, stderr
    (bundle,) = (tmp_path / "out").glob("*.vrosext")
    with zipfile.ZipFile(bundle) as archive:
        assert "assets/icons/a.png" in archive.namelist()


def test_wheel_dir_without_a_fitting_wheel_names_it(wheelhouse: Path, tmp_path: Path) -> None:
    """The wheelhouse's pydantic_core is a Linux build: a Windows bundle cannot use it."""
    done = run_build(
        "--platform",
        "win_amd64",
        "--wheel-dir",
        wheelhouse,
        "--python",
        THIS_PYTHON,
        "--out",
        tmp_path,
    )
    assert done.returncode == 1
    tag = f"cp3{THIS_PYTHON.split('.')[1]}"
    assert f"no wheel of pydantic-core fits win_amd64 {tag}" in done.stderr
    assert not list(tmp_path.glob("*.vrosext"))
