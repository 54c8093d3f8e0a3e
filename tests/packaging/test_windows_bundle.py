"""The Windows bundle, built here from PyPI's win_amd64 wheels and checked structurally
(it cannot run on this machine). Slow: it downloads (or reads from pip's cache) about 40 MB."""

from __future__ import annotations

import socket
import zipfile
from pathlib import Path

import pytest
from pack_verify import verify_bundle, wheel_tags

from tests.packaging.conftest import run_build
from vxp.manifest import parse_manifest

pytestmark = pytest.mark.slow


def pypi_reachable() -> bool:
    try:
        socket.create_connection(("pypi.org", 443), timeout=3).close()
    except OSError:
        return False
    return True


@pytest.fixture(scope="module")
def windows_bundle(tmp_path_factory: pytest.TempPathFactory) -> Path:
    if not pypi_reachable():
        pytest.skip("PyPI is not reachable: the Windows wheels cannot be downloaded")
    out = tmp_path_factory.mktemp("dist-win")
    done = run_build(
        "--platform", "win_amd64", "--python", "3.12", "--python", "3.13", "--out", out
    )
    assert done.returncode == 0, done.stderr
    return out / "cueboard-0.1.0-win_amd64.vrosext"


def test_windows_bundle_passes_the_structural_check(windows_bundle: Path) -> None:
    assert verify_bundle(windows_bundle) == []


def test_every_vendored_wheel_is_win_amd64_or_pure(windows_bundle: Path) -> None:
    with zipfile.ZipFile(windows_bundle) as archive:
        names = archive.namelist()
        tags = {
            name.split("/")[2]: wheel_tags(archive.read(name).decode())
            for name in names
            if name.endswith(".dist-info/WHEEL")
        }
    platforms = {tag[2] for dist_tags in tags.values() for tag in dist_tags}
    assert platforms == {"win_amd64", "any"}
    binaries = [name for name in names if name.endswith((".pyd", ".so", ".dylib"))]
    assert binaries and all(name.endswith(".pyd") for name in binaries)
    for folder in ("cp312", "cp313"):
        assert any(n.startswith(f"vendor/{folder}/pydantic_core/") for n in binaries)
        assert any(n.startswith(f"vendor/{folder}/numpy/") for n in binaries)
        assert any(n.startswith(f"vendor/{folder}/PIL/") for n in binaries)
    assert any(n.startswith("vendor/shared/pydantic/") for n in names)


def test_windows_manifest_starts_the_launcher_through_py(windows_bundle: Path) -> None:
    with zipfile.ZipFile(windows_bundle) as archive:
        manifest = parse_manifest(archive.read("manifest.toml").decode())
    assert manifest.command == ["py", "-3", "launcher/cueboard_launcher.py"]
