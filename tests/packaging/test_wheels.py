"""Which wheels fit a bundle's platform and CPython version, and the bundle's own check."""

from __future__ import annotations

import json
import zipfile
from pathlib import Path

import pytest
from pack_verify import verify_bundle
from pack_wheels import Target, WheelError, fits, import_names, parse_wheel, select

LINUX_313 = Target("linux_x86_64", 13)
WIN_313 = Target("win_amd64", 13)


@pytest.mark.parametrize(
    ("filename", "linux", "windows"),
    [
        ("pydantic-2.14.4-py3-none-any.whl", True, True),
        ("numpy-2.5.5-cp313-cp313-win_amd64.whl", False, True),
        ("numpy-2.5.5-cp312-cp312-win_amd64.whl", False, False),  # another CPython's ABI
        ("numpy-2.5.5-cp314-cp314-win_amd64.whl", False, False),
        ("numpy-2.5.5-cp313-cp313-win32.whl", False, False),  # 32-bit
        ("numpy-2.5.5-cp313-cp313-manylinux_2_27_x86_64.manylinux_2_28_x86_64.whl", True, False),
        (
            "pydantic_core-2.50.5-cp313-cp313-manylinux2014_x86_64.manylinux_2_17_x86_64.whl",
            True,
            False,
        ),
        ("numpy-2.5.5-cp313-cp313-manylinux_2_34_x86_64.whl", False, False),  # glibc too new
        ("numpy-2.5.5-cp313-cp313-musllinux_1_2_x86_64.whl", False, False),
        ("numpy-2.5.5-cp313-cp313-manylinux_2_28_aarch64.whl", False, False),
        ("numpy-2.5.5-cp313-cp313t-manylinux_2_28_x86_64.whl", False, False),  # free-threaded
        ("watchfiles-1.3.0-cp310-abi3-win_amd64.whl", False, True),  # stable ABI from 3.10 up
        ("watchfiles-1.3.0-cp314-abi3-win_amd64.whl", False, False),  # needs 3.14
        ("six-1.17.0-py2.py3-none-any.whl", True, True),
        ("legacy-1.0-py27-none-any.whl", False, False),
        ("tool-1.0-py3-none-win_amd64.whl", False, True),
    ],
)
def test_wheel_fits_target(filename: str, linux: bool, windows: bool) -> None:
    wheel = parse_wheel(Path(filename))
    assert (fits(wheel, LINUX_313), fits(wheel, WIN_313)) == (linux, windows)


def test_select_prefers_the_version_specific_binary() -> None:
    wheels = [
        parse_wheel(Path(name))
        for name in (
            "watchfiles-1.3.0-cp310-abi3-win_amd64.whl",
            "watchfiles-1.3.0-cp313-cp313-win_amd64.whl",
            "watchfiles-1.3.0-py3-none-any.whl",
            "numpy-2.5.5-cp313-cp313-manylinux_2_28_x86_64.whl",
        )
    ]
    assert [w.filename for w in select(wheels, WIN_313)] == [
        "watchfiles-1.3.0-cp313-cp313-win_amd64.whl"
    ]


def test_select_refuses_two_versions_of_a_distribution() -> None:
    wheels = [parse_wheel(Path(f"anyio-{v}-py3-none-any.whl")) for v in ("4.15.0", "4.16.0")]
    with pytest.raises(WheelError, match=r"anyio: versions 4\.15\.0, 4\.16\.0 all fit"):
        select(wheels, WIN_313)


def test_bad_wheel_name_is_refused() -> None:
    with pytest.raises(WheelError, match="not a wheel file name"):
        parse_wheel(Path("pydantic.zip"))


def test_import_names_are_public_top_level_packages_and_modules() -> None:
    paths = [
        "numpy/__init__.py",
        "numpy/core/x.so",
        "numpy.libs/libopenblas.so",
        "numpy-2.5.5.dist-info/WHEEL",
        "typing_extensions.py",
        "_cffi_backend.cpython-313-x86_64-linux-gnu.so",
        "ns/only_a_module.py",
    ]
    assert import_names(paths) == ["numpy", "typing_extensions"]


def _rewrite(bundle: Path, out: Path, **changes: object) -> Path:
    """A copy of ``bundle`` with bundle.json fields changed."""
    with zipfile.ZipFile(bundle) as source, zipfile.ZipFile(out, "w") as target:
        for info in source.infolist():
            data = source.read(info)
            if info.filename == "bundle.json":
                data = json.dumps(json.loads(data) | changes).encode()
            target.writestr(info, data)
    return out


def test_verify_accepts_the_built_bundle(linux_bundle: Path) -> None:
    assert verify_bundle(linux_bundle) == []


def test_verify_catches_linux_wheels_in_a_windows_bundle(
    linux_bundle: Path, tmp_path: Path
) -> None:
    """The structural check that the Windows bundle must pass can fail."""
    relabelled = _rewrite(linux_bundle, tmp_path / "x.vrosext", platform="win_amd64")
    problems = "\n".join(verify_bundle(relabelled))
    assert "pydantic_core" in problems and "do not fit win_amd64" in problems
    assert "a binary for another platform than win_amd64" in problems
    assert "typing_extensions" not in problems  # pure wheels fit every platform


def test_verify_catches_a_vendor_folder_for_an_undeclared_python(
    linux_bundle: Path, tmp_path: Path
) -> None:
    relabelled = _rewrite(linux_bundle, tmp_path / "x.vrosext", pythons=["3.99"])
    assert any(
        "not in a vendor folder of bundle.json's pythons" in p for p in verify_bundle(relabelled)
    )
