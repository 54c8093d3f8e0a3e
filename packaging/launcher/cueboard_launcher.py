"""Start Cueboard from an installed bundle with a suitable CPython.

vrOS runs the bundle's manifest command (``python3 launcher/cueboard_launcher.py`` on Linux,
``py -3 launcher/cueboard_launcher.py`` on Windows) in the extension's folder. Whatever
interpreter that names only has to run this file: the launcher then picks a CPython 3.12 or
newer for which the bundle carries wheels (``vendor/cpXY``), puts the bundle's code and those
wheels first on ``sys.path``, and runs the ``cueboard`` package as ``__main__``.

Standard library only, and written so that any Python 3.7+ can read it: an old ``python3`` on
PATH must still be able to say which interpreter to install. Every expected failure is one
line on stderr (vrOS shows it in the extension's pane) and a non-zero exit, never a traceback.

``--check`` imports the bundle's packages, prints where each came from and exits 0, so a test
or a user can tell that the bundle works with this machine's Python without starting a session.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import sysconfig

MIN_VERSION = (3, 12)
# Set in the environment of a re-executed launcher so that a wrong probe cannot loop forever.
REEXEC_ENV = "CUEBOARD_LAUNCHER_REEXEC"
PROBE_TIMEOUT_S = 5.0  # hello is due 5 s after launch (H-1); a hung interpreter must not eat it
EXIT_NO_PYTHON = 3
EXIT_BROKEN_BUNDLE = 4
EXIT_CHECK_FAILED = 5
DOWNLOAD_URL = "https://www.python.org/downloads/"
PROBE_CODE = (
    "import platform, struct, sys, sysconfig;"
    "print(platform.python_implementation(), sys.version_info[0], sys.version_info[1],"
    " struct.calcsize('P') * 8, sysconfig.get_platform())"
)
# sysconfig.get_platform() of an interpreter that can load each bundle platform's wheels.
PLATFORM_NAMES = {"linux_x86_64": "linux-x86_64", "win_amd64": "win-amd64"}
_PYENV_VERSION_RE = re.compile(r"^3\.(\d+)\.(\d+)$")


class LaunchError(Exception):
    """One line for the user; ``code`` is the exit status."""

    def __init__(self, message: str, code: int) -> None:
        super().__init__(message)
        self.code = code


class Bundle:
    """The installed bundle around this file, as described by its ``bundle.json``."""

    def __init__(self, root: str) -> None:
        self.root = root
        path = os.path.join(root, "bundle.json")
        try:
            with open(path, encoding="utf-8") as file:
                info = json.load(file)
            self.platform = str(info["platform"])
            self.versions = sorted(
                (tuple(int(part) for part in v.split(".")) for v in info["pythons"]),
                reverse=True,
            )
            self.check_modules = [str(name) for name in info["check_modules"]]
        except (OSError, ValueError, KeyError, TypeError, AttributeError) as exc:
            raise LaunchError(
                f"cueboard: the bundle is damaged ({path}: {exc}); reinstall it", EXIT_BROKEN_BUNDLE
            ) from None

    def supported(self) -> str:
        return ", ".join(_dotted(v) for v in sorted(self.versions))

    def paths(self, version: tuple[int, ...]) -> list[str]:
        """The entries to put first on sys.path for an interpreter of ``version``."""
        vendor = os.path.join(self.root, "vendor")
        return [
            os.path.join(self.root, "lib"),
            os.path.join(vendor, "cp{}{}".format(*version[:2])),
            os.path.join(vendor, "shared"),
        ]


class Interpreter:
    """What a probe learned about one interpreter."""

    def __init__(self, argv: list[str], fields: list[str], current: bool = False) -> None:
        self.argv = argv
        self.current = current  # the interpreter running this file: no re-exec needed
        self.implementation = fields[0]
        self.version = (int(fields[1]), int(fields[2]))
        self.bits = int(fields[3])
        self.platform = fields[4]

    def describe(self) -> str:
        return f"{' '.join(self.argv)} ({self.implementation} {_dotted(self.version)})"


def _dotted(version: tuple[int, ...]) -> str:
    return ".".join(str(part) for part in version)


def current_interpreter() -> Interpreter:
    import platform
    import struct

    fields = [
        platform.python_implementation(),
        str(sys.version_info[0]),
        str(sys.version_info[1]),
        str(struct.calcsize("P") * 8),
        sysconfig.get_platform(),
    ]
    return Interpreter([sys.executable], fields, current=True)


def probe(argv: list[str]) -> Interpreter | None:
    """Ask an interpreter what it is; None when it does not run or answers nonsense."""
    try:
        done = subprocess.run(
            [*argv, "-c", PROBE_CODE],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            timeout=PROBE_TIMEOUT_S,
            check=False,
        )
    except (OSError, subprocess.SubprocessError):
        return None
    fields = done.stdout.decode("ascii", "replace").split()
    if done.returncode != 0 or len(fields) != 5:
        return None
    try:
        return Interpreter(argv, fields)
    except ValueError:
        return None


def unsuitable(interp: Interpreter, bundle: Bundle) -> str | None:
    """Why this interpreter cannot run the bundle, or None."""
    if interp.implementation != "CPython":
        return f"{interp.implementation} is not CPython"
    if interp.version < MIN_VERSION:
        return f"Python {_dotted(interp.version)} is older than {_dotted(MIN_VERSION)}"
    if interp.version not in bundle.versions:
        return (
            f"Python {_dotted(interp.version)} has no packages in this bundle "
            f"(it carries {bundle.supported()})"
        )
    if interp.bits != 64 or interp.platform != PLATFORM_NAMES.get(bundle.platform):
        return (
            f"this bundle is for {bundle.platform}, but {interp.describe()} is a "
            f"{interp.bits}-bit {interp.platform} interpreter"
        )
    return None


def candidates(bundle: Bundle) -> list[list[str]]:
    """Interpreters to try, best first: newest version the bundle carries wheels for."""
    found: list[list[str]] = []
    if os.name == "nt":
        py = _which("py")
        if py is not None:
            found.extend([py, f"-{_dotted(v)}"] for v in bundle.versions)
        return found
    for version in bundle.versions:
        path = _which(f"python{_dotted(version)}")
        if path is not None:
            found.append([path])
    found.extend([path] for path in _pyenv_interpreters(bundle))
    return found


def _which(name: str) -> str | None:
    import shutil

    return shutil.which(name)


def _pyenv_interpreters(bundle: Bundle) -> list[str]:
    """pyenv's installed CPythons (``$PYENV_ROOT/versions/3.X.Y``), newest first."""
    root = os.environ.get("PYENV_ROOT") or os.path.join(os.path.expanduser("~"), ".pyenv")
    versions_dir = os.path.join(root, "versions")
    try:
        names = os.listdir(versions_dir)
    except OSError:
        return []
    found: list[tuple[tuple[int, int], str]] = []
    for name in names:
        match = _PYENV_VERSION_RE.match(name)
        if match is None:
            continue
        minor, micro = int(match.group(1)), int(match.group(2))
        if (3, minor) not in bundle.versions:
            continue
        exe = os.path.join(versions_dir, name, "bin", f"python3.{minor}")
        if os.access(exe, os.X_OK):
            found.append(((minor, micro), exe))
    return [exe for _, exe in sorted(found, reverse=True)]


def choose(bundle: Bundle) -> Interpreter:
    """The interpreter to run Cueboard with: this one if it fits, else the best probed one."""
    here = current_interpreter()
    if unsuitable(here, bundle) is None:
        return here
    if os.environ.get(REEXEC_ENV):
        # We were chosen by a probe and still do not fit: say why instead of searching again.
        raise LaunchError(f"cueboard: {unsuitable(here, bundle)}", EXIT_NO_PYTHON)
    for argv in candidates(bundle):
        interp = probe(argv)
        if interp is not None and unsuitable(interp, bundle) is None:
            return interp
    raise LaunchError(no_python_message(here, bundle), EXIT_NO_PYTHON)


def no_python_message(here: Interpreter, bundle: Bundle) -> str:
    newest = _dotted(bundle.versions[0])
    if os.name == "nt":
        searched = "and the py launcher knows no other that fits"
        how = f"Install 64-bit CPython {newest} from {DOWNLOAD_URL} (it includes the py launcher)"
    else:
        searched = "and no python3.X on PATH or in pyenv fits"
        how = (
            f"Install CPython {newest} (python{newest}) with your package manager, pyenv "
            f"or from {DOWNLOAD_URL}"
        )
    if here.implementation == "CPython" and here.version > bundle.versions[0]:
        reason = (
            f"Python {_dotted(here.version)} is newer than this bundle supports "
            f"({bundle.supported()})"
        )
    else:
        reason = unsuitable(here, bundle) or "it does not fit"
    return f"cueboard: needs CPython {bundle.supported()}; {reason}, {searched}. {how}"


def reexec(interp: Interpreter, args: list[str]) -> int:
    """Run this launcher again under ``interp``; on POSIX the process is replaced."""
    argv = [*interp.argv, os.path.abspath(__file__), *args]
    env = dict(os.environ)
    env[REEXEC_ENV] = "1"
    if os.name == "nt":
        # os.exec* on Windows starts a new process and ends this one, which vrOS would see as
        # the extension exiting: wait for the child instead and pass its status on.
        return subprocess.call(argv, env=env)
    os.execve(argv[0], argv, env)
    return 0  # not reached


def enter(bundle: Bundle, version: tuple[int, ...]) -> None:
    """Put the bundle's code and this version's wheels first (a vendor folder may be absent
    when every wheel of that version is shared)."""
    paths = bundle.paths(version)
    if not os.path.isdir(paths[0]):
        raise LaunchError(f"cueboard: the bundle is damaged (no {paths[0]})", EXIT_BROKEN_BUNDLE)
    os.environ.pop(REEXEC_ENV, None)
    sys.path[:0] = [path for path in paths if os.path.isdir(path)]


def check(bundle: Bundle) -> int:
    """Import the bundle's packages and print where each came from."""
    import importlib

    print(f"python {sys.version.split()[0]} {sys.executable}")
    root = os.path.normcase(os.path.realpath(bundle.root)) + os.sep
    failures = 0
    for name in bundle.check_modules:
        try:
            module = importlib.import_module(name)
        except Exception as exc:  # any import failure is the answer --check exists to give
            print(f"{name} FAILED {type(exc).__name__}: {exc}")
            failures += 1
            continue
        origin = getattr(module, "__file__", None) or ""
        inside = os.path.normcase(os.path.realpath(origin)).startswith(root)
        print(f"{name} {origin}" + ("" if inside else " OUTSIDE THE BUNDLE"))
        failures += 0 if inside else 1
    return EXIT_CHECK_FAILED if failures else 0


def run_cueboard(args: list[str]) -> None:
    import importlib.util
    import runpy

    if importlib.util.find_spec("cueboard.__main__") is None:
        raise LaunchError("cueboard: the bundle has no cueboard/__main__.py", EXIT_BROKEN_BUNDLE)
    sys.argv = ["cueboard", *args]
    runpy.run_module("cueboard", run_name="__main__", alter_sys=True)


def main(args: list[str]) -> int:
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    try:
        bundle = Bundle(root)
        interp = choose(bundle)
        if not interp.current:
            return reexec(interp, args)
        enter(bundle, interp.version)
        if args[:1] == ["--check"]:
            return check(bundle)
        run_cueboard(args)
    except LaunchError as exc:
        print(exc, file=sys.stderr)
        return exc.code
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
