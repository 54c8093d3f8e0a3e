"""Cueboard's runtime: the only part of ``cueboard`` that holds a :class:`vxp.Client`.

It connects first and builds the core after the welcome: hello needs only the SDK, so the core,
its models and the libraries behind them (the shell's imports) load once the host has answered,
and the host hears from Cueboard as soon as it would from a bare SDK extension. It serves one
connection at a time with :class:`~cueboard.runtime.shell.Shell`, and reconnects. A connection
that drops without ``shutting_down`` is tried again with backoff for up to
:data:`RECONNECT_FOR_S`; then Cueboard exits 1 with one clear line. The process also ends on
``rejected`` (one line, exit 1) and after ``shutting_down`` (kv flushed, exit 0); nothing the
host answers ends it otherwise.
"""

from __future__ import annotations

import logging
import os
import sys
import time
from pathlib import Path
from typing import TYPE_CHECKING

import anyio

import vxp

if TYPE_CHECKING:
    from .shell import Shell

__all__ = ["RECONNECT_FOR_S", "main", "run"]

log = logging.getLogger("cueboard")

PYDANTIC_PLUGINS_ENV = "PYDANTIC_DISABLE_PLUGINS"
RECONNECT_FOR_S = float(os.environ.get("CUEBOARD_RECONNECT_S", "10"))
PANELS_DIR = Path(__file__).resolve().parents[3] / "panels"


def data_home() -> Path:
    """Where the sounds folder lives without a vrOS content folder."""
    if sys.platform.startswith("win"):
        return Path(os.environ.get("APPDATA", Path.home() / "AppData" / "Roaming"))
    return Path(os.environ.get("XDG_DATA_HOME", Path.home() / ".local" / "share"))


def _toast_source() -> str:
    try:
        return (PANELS_DIR / "now-playing.slint").read_text(encoding="utf-8")
    except OSError:
        return ""  # no toast panel shipped: no toast


def _build_shell() -> Shell:
    """The core and its shell, built once for every connection to come.

    Imported here, after the welcome: the core's imports are most of Cueboard's start-up, and
    they live as long as the process (``lasting_imports``).
    """
    import random

    from cueboard.workers.lasting import lasting_imports

    with lasting_imports():
        from cueboard.core.app import CueboardCore

        from .shell import Shell

        home = data_home()
        core = CueboardCore(rng=random.Random(), data_home=home, toast_source=_toast_source())
        return Shell(core, home)


async def run() -> int:
    shell: Shell | None = None
    connected_once = False
    lost_at: float | None = None
    delay = 0.1
    while True:
        try:
            async with vxp.connect() as client:
                connected_once, lost_at, delay = True, None, 0.1
                if shell is None:
                    shell = _build_shell()
                await shell.serve(client)
            if shell.exit_code is not None:
                log.info("shutting down")
                return shell.exit_code
        except vxp.MissingEnvironment as exc:
            print(f"cueboard: {exc}", file=sys.stderr)
            return 2
        except vxp.HelloRejected as exc:
            print(f"cueboard: {exc}", file=sys.stderr)
            return 1
        except (vxp.ConnectionClosed, vxp.EndpointUnavailable, OSError, TimeoutError) as exc:
            if not connected_once or shell is None:
                print(f"cueboard: cannot reach vrOS: {exc}", file=sys.stderr)
                return 1
            if shell.exit_code is not None:
                return shell.exit_code
            lost_at = lost_at or time.monotonic()
            if time.monotonic() - lost_at > RECONNECT_FOR_S:
                print(
                    f"cueboard: lost vrOS and could not reconnect within {RECONNECT_FOR_S:g} s",
                    file=sys.stderr,
                )
                return 1
            log.warning("connection lost (%s); reconnecting", exc)
            from cueboard.core.inputs import Disconnected  # loaded with the core: no cost

            shell.feed(Disconnected())
            await anyio.sleep(delay)
            delay = min(delay * 2, 2.0)


async def _run_then_end_workers() -> int:
    try:
        return await run()
    finally:
        # Worker processes start only from the shell's modules: not imported, no pool to end.
        workers = sys.modules.get("cueboard.runtime.workers")
        if workers is not None:
            await workers.end_worker_processes()


def main() -> int:
    # Cueboard uses no pydantic plugin. Looking for them reads the metadata of every installed
    # distribution when the first model is built: on the way to the first page, and again in
    # the icon worker, which inherits this environment.
    os.environ.setdefault(PYDANTIC_PLUGINS_ENV, "__all__")
    logging.basicConfig(
        level=os.environ.get("CUEBOARD_LOG", "INFO"),
        format="cueboard %(levelname)s %(message)s",
        stream=sys.stderr,
    )
    try:
        return anyio.run(_run_then_end_workers)
    except KeyboardInterrupt:
        return 130
