"""More extensions in the same vrosdev run (``--also-command``): one vrOS, several extensions.

Each companion is launched as the first one is (its own endpoint, token and variables, its own
host with its own grants and kv), and they all share the vrOS-wide state (the face hub), so a
face provider and a face reader meet. The first extension leads: the run ends when it exits,
and a script's end shuts the companions down first. Their transcript lines carry ``"ext"``.
"""

from __future__ import annotations

import logging
import os
import signal
import subprocess
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import anyio
import anyio.abc

from .host.config import HostConfig
from .host.core import ExtensionHost
from .host.log import Recorder
from .launcher import SHUTDOWN_GRACE_S, kill_group, runtime_dir

log = logging.getLogger("vrosdev")


@dataclass(frozen=True)
class Companion:
    config: HostConfig
    argv: list[str]
    cwd: Path


@dataclass
class Running:
    host: ExtensionHost
    listener: anyio.abc.Listener[Any]
    endpoint: Path
    process: anyio.abc.Process | None


async def start(
    companions: list[Companion],
    shared: dict[str, Any],
    lead: Recorder,
    record: Path | None,
    tg: anyio.abc.TaskGroup,
) -> list[Running]:
    running: list[Running] = []
    for comp in companions:
        cfg = comp.config
        recorder = Recorder(cfg.token, record, ext=cfg.ext_id, start=lead.start)
        host = ExtensionHost(cfg, recorder, shared)
        endpoint = runtime_dir() / f"ext-{cfg.ext_id}.sock"
        endpoint.unlink(missing_ok=True)
        listener = await anyio.create_unix_listener(endpoint)
        env = dict(os.environ)
        env.update(
            VROS_EXT_ENDPOINT=str(endpoint), VROS_EXT_TOKEN=cfg.token, VROS_EXT_ID=cfg.ext_id
        )
        entry = Running(host, listener, endpoint, None)
        running.append(entry)
        tg.start_soon(host.serve, listener)
        try:
            entry.process = await anyio.open_process(
                comp.argv,
                env=env,
                cwd=comp.cwd,
                stdin=subprocess.DEVNULL,
                stdout=None,
                stderr=None,
                start_new_session=True,
            )
        except OSError as exc:
            host.violation("launch", f"cannot start {cfg.ext_id}: {exc.strerror or exc}")
            continue
        pid = entry.process.pid
        host.services["kill_extension"] = lambda pid=pid: kill_group(pid)
        log.info("launched %s (pid %d) on %s", cfg.ext_id, pid, endpoint)
        tg.start_soon(_watch_hello, entry)
    return running


async def _watch_hello(entry: Running) -> None:
    deadline = entry.host.config.hello_deadline_s
    with anyio.move_on_after(deadline):
        await entry.host.ready.wait()
        return
    entry.host.violation("H-2", f"no hello within {deadline:g} s of launch: stopping")
    if entry.process is not None:
        kill_group(entry.process.pid, signal.SIGTERM)


async def shut_down(running: list[Running]) -> None:
    """``shutting_down`` to each, up to the grace period together, then a kill
    (docs/protocol-notes.md#r26)."""
    for entry in running:
        await entry.host.emit({"event": "shutting_down"})
    with anyio.move_on_after(SHUTDOWN_GRACE_S):
        for entry in running:
            if entry.process is not None:
                await entry.process.wait()
    for entry in running:
        if entry.process is not None and entry.process.returncode is None:
            entry.host.violation(
                "docs/protocol-notes.md#r26", f"did not exit within {SHUTDOWN_GRACE_S:g} s: killed"
            )
            kill_group(entry.process.pid)


async def close(running: list[Running]) -> int:
    """Stop what is left; the number of violations the companions' hosts logged."""
    count = 0
    for entry in running:
        await entry.listener.aclose()
        entry.endpoint.unlink(missing_ok=True)
        if entry.process is not None and entry.process.returncode is None:
            kill_group(entry.process.pid)
            await entry.process.wait()
        entry.host.recorder.close()
        count += len(entry.host.recorder.violations)
    return count
