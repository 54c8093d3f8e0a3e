"""The bundle's launcher, run as vrOS would: a clean environment, the repository out of reach."""

from __future__ import annotations

import ast
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from tests.packaging.conftest import PACKAGING, THIS_PYTHON, base_interpreter
from vrosdev.install import install_bundle
from vxp.manifest import load_manifest

LAUNCHER = "launcher/cueboard_launcher.py"


@pytest.fixture
def installed(linux_bundle: Path, tmp_path: Path) -> Path:
    return install_bundle(linux_bundle, tmp_path / "state")


@pytest.fixture
def clean_env(tmp_path: Path) -> dict[str, str]:
    """No PYTHONPATH, an empty PATH and pyenv root, a HOME with nothing in it."""
    for name in ("bin", "home", "pyenv"):
        (tmp_path / name).mkdir()
    return {
        "PATH": str(tmp_path / "bin"),
        "HOME": str(tmp_path / "home"),
        "PYENV_ROOT": str(tmp_path / "pyenv"),
    }


def launch(argv: list[str], cwd: Path, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        argv, cwd=cwd, env=env, capture_output=True, text=True, timeout=60, check=False
    )


def module_paths(stdout: str) -> dict[str, str]:
    return dict(line.split(" ", 1) for line in stdout.splitlines())


def older_interpreter() -> str | None:
    """Some CPython 3.7-3.11 on this machine, to start the launcher as an old python3 would."""
    pyenv = Path(os.environ.get("PYENV_ROOT", Path.home() / ".pyenv")) / "versions"
    for minor in range(11, 6, -1):
        for path in [
            *sorted(pyenv.glob(f"3.{minor}.*/bin/python3.{minor}")),
            Path(f"/usr/bin/python3.{minor}"),
        ]:
            if path.is_file() and os.access(path, os.X_OK):
                return str(path)
    return None


def test_check_imports_everything_from_the_bundle(
    installed: Path, clean_env: dict[str, str], tmp_path: Path
) -> None:
    done = launch([base_interpreter(), str(installed / LAUNCHER), "--check"], tmp_path, clean_env)
    assert done.returncode == 0, done.stdout + done.stderr
    paths = module_paths(done.stdout)
    assert paths["python"].startswith(THIS_PYTHON)
    assert paths["vxp"] == str(installed / "lib" / "vxp" / "__init__.py")
    assert paths["cueboard"] == str(installed / "lib" / "cueboard" / "__init__.py")
    tag = f"cp3{THIS_PYTHON.split('.')[1]}"
    assert paths["pydantic_core"] == str(
        installed / "vendor" / tag / "pydantic_core" / "__init__.py"
    )
    assert {"pydantic", "typing_extensions", "annotated_types"} <= paths.keys()
    assert all(str(installed) in path for name, path in paths.items() if name != "python")


def test_the_manifest_command_runs_from_the_installed_folder(
    installed: Path, clean_env: dict[str, str], tmp_path: Path
) -> None:
    """As vrosdev run --installed does: the manifest's argv, in the extension's folder, with
    `python3` found on PATH."""
    (tmp_path / "bin" / "python3").symlink_to(base_interpreter())
    argv = load_manifest(installed / "manifest.toml").resolve_command(installed)
    done = launch([*argv, "--check"], installed, clean_env)
    assert done.returncode == 0, done.stderr
    assert module_paths(done.stdout)["cueboard"].startswith(str(installed))


def _carry(installed: Path, pythons: list[str]) -> None:
    info_path = installed / "bundle.json"
    info = json.loads(info_path.read_text())
    info_path.write_text(json.dumps({**info, "pythons": pythons}))


def test_a_python_without_vendored_wheels_is_refused_in_one_line(
    installed: Path, clean_env: dict[str, str], tmp_path: Path
) -> None:
    _carry(installed, ["3.99"])
    done = launch([base_interpreter(), str(installed / LAUNCHER), "--check"], tmp_path, clean_env)
    assert done.returncode == 3
    assert done.stdout == ""
    assert done.stderr.count("\n") == 1 and "Traceback" not in done.stderr
    assert f"Python {THIS_PYTHON} has no packages in this bundle (it carries 3.99)" in done.stderr
    assert "Install CPython 3.99" in done.stderr


def test_a_python_newer_than_the_bundle_is_told_so(
    installed: Path, clean_env: dict[str, str], tmp_path: Path
) -> None:
    _carry(installed, ["3.11"])
    done = launch([base_interpreter(), str(installed / LAUNCHER)], tmp_path, clean_env)
    assert done.returncode == 3
    assert f"Python {THIS_PYTHON} is newer than this bundle supports (3.11)" in done.stderr


def test_a_damaged_bundle_is_one_line(
    installed: Path, clean_env: dict[str, str], tmp_path: Path
) -> None:
    (installed / "bundle.json").unlink()
    done = launch([base_interpreter(), str(installed / LAUNCHER)], tmp_path, clean_env)
    assert done.returncode == 4
    assert (
        done.stderr.startswith("cueboard: the bundle is damaged") and done.stderr.count("\n") == 1
    )


def test_an_old_python3_finds_a_fitting_one_on_path(
    installed: Path, clean_env: dict[str, str], tmp_path: Path
) -> None:
    old = older_interpreter()
    if old is None:
        pytest.skip("no CPython 3.7-3.11 on this machine to start the launcher with")
    (tmp_path / "bin" / f"python{THIS_PYTHON}").symlink_to(base_interpreter())
    done = launch([old, str(installed / LAUNCHER), "--check"], tmp_path, clean_env)
    assert done.returncode == 0, done.stderr
    assert module_paths(done.stdout)["python"].startswith(THIS_PYTHON)


def test_an_old_python3_finds_a_pyenv_version(
    installed: Path, clean_env: dict[str, str], tmp_path: Path
) -> None:
    old = older_interpreter()
    if old is None:
        pytest.skip("no CPython 3.7-3.11 on this machine to start the launcher with")
    minor = THIS_PYTHON.split(".")[1]
    for name in (f"{THIS_PYTHON}.0", f"{THIS_PYTHON}.7", f"{THIS_PYTHON}t", "pypy3.10-7.3"):
        (tmp_path / "pyenv" / "versions" / name / "bin").mkdir(parents=True)
    good = tmp_path / "pyenv" / "versions" / f"{THIS_PYTHON}.7" / "bin" / f"python3.{minor}"
    good.symlink_to(base_interpreter())
    done = launch([old, str(installed / LAUNCHER), "--check"], tmp_path, clean_env)
    assert done.returncode == 0, done.stderr
    assert module_paths(done.stdout)["python"].startswith(THIS_PYTHON)


def test_an_old_python3_alone_names_what_to_install(
    installed: Path, clean_env: dict[str, str], tmp_path: Path
) -> None:
    old = older_interpreter()
    if old is None:
        pytest.skip("no CPython 3.7-3.11 on this machine to start the launcher with")
    done = launch([old, str(installed / LAUNCHER)], tmp_path, clean_env)
    assert done.returncode == 3
    assert done.stderr.count("\n") == 1
    assert re.match(
        rf"cueboard: needs CPython {THIS_PYTHON}; Python 3\.\d+ is older than 3\.12, and no "
        rf"python3\.X on PATH or in pyenv fits\. Install CPython {THIS_PYTHON} ",
        done.stderr,
    ), done.stderr


def test_the_launcher_parses_as_python_3_7() -> None:
    """Any python3 on a user's PATH must be able to run it far enough to name what to install."""
    source = (PACKAGING / "launcher" / "cueboard_launcher.py").read_text(encoding="utf-8")
    tree = ast.parse(source, feature_version=(3, 7))
    imported = {
        alias.name.split(".")[0]
        for node in ast.walk(tree)
        if isinstance(node, ast.Import | ast.ImportFrom)
        for alias in (
            node.names if isinstance(node, ast.Import) else [ast.alias(node.module or "")]
        )
    }
    assert imported <= sys.stdlib_module_names


def test_the_bundle_wins_over_the_interpreters_own_packages(
    installed: Path, clean_env: dict[str, str], tmp_path: Path
) -> None:
    """This venv's interpreter can import the repository's vxp and cueboard and its own
    pydantic: the bundle's copies must still be the ones imported."""
    done = launch([sys.executable, str(installed / LAUNCHER), "--check"], tmp_path, clean_env)
    assert done.returncode == 0, done.stdout
    assert "OUTSIDE THE BUNDLE" not in done.stdout
    assert module_paths(done.stdout)["pydantic"].startswith(str(installed))
