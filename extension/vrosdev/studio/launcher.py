"""Launching an extension as Studio does, and ending it as Studio does.

The listener (127.0.0.1 only, a free port) is open before the process starts; the process gets
``MX_EXTENSION_HOST``, ``MX_EXTENSION_TOKEN`` (fresh per launch), ``MX_EXTENSION_ID`` and
``MX_EXTENSION_PROTOCOL`` on top of our own environment; its stdout and stderr are ours.

The session ends when the extension exits, or when the host ends it (``--end-after``, SIGINT,
SIGTERM): ``extension.v1.shutdown`` on every greeted connection, then up to the shutdown
deadline (2 s) for the process to exit, then a kill of its process group
(docs/protocol-notes.md#m7). The emulator
exits with the extension's exit code (128 + N when signal N ended it).
"""

from __future__ import annotations

import logging
import os
import signal
import subprocess
import threading
from typing import Final

import anyio
import anyio.abc

from mxproto.transport import ENV_HOST, ENV_ID, ENV_PROTOCOL, ENV_TOKEN

from .config import StudioConfig
from .host import StudioHost
from .transcript import Transcript
from .wire import SUPPORTED_PROTOCOL

__all__ = ["LAUNCH_FAILED_EXIT", "LOOPBACK", "run_studio"]

log = logging.getLogger("vrosdev.studio")
LOOPBACK: Final = "127.0.0.1"
LAUNCH_FAILED_EXIT: Final = 127


async def run_studio(config: StudioConfig, argv: list[str], transcript: Transcript) -> int:
    host = StudioHost(config, transcript)
    listener = await anyio.create_tcp_listener(local_host=LOOPBACK, local_port=0)
    port = listener.extra(anyio.abc.SocketAttribute.local_port)
    env = dict(os.environ)
    env.update(
        {
            ENV_HOST: f"{LOOPBACK}:{port}",
            ENV_TOKEN: config.token,
            ENV_ID: config.extension_id,
            ENV_PROTOCOL: str(SUPPORTED_PROTOCOL),
        }
    )
    try:
        process = await anyio.open_process(
            argv,
            env=env,
            stdin=subprocess.DEVNULL,
            stdout=None,
            stderr=None,
            start_new_session=True,
        )
    except OSError as exc:
        await listener.aclose()
        log.error("cannot start the extension %s: %s", argv[0], exc.strerror or exc)
        return LAUNCH_FAILED_EXIT
    transcript.note(f"launched {config.extension_id} (pid {process.pid}) on {LOOPBACK}:{port}")
    ending = False
    code: int | None = None

    async def end_session(reason: str) -> None:
        nonlocal ending
        if ending:
            return
        ending = True
        transcript.note(f"ending the session: {reason}")
        await host.end_session()
        limit = config.shutdown_deadline_s
        with anyio.move_on_after(limit):
            await process.wait()
            return
        transcript.violation(
            "docs/protocol-notes.md#m7", f"the extension did not exit within {limit:g} s: killed"
        )
        _kill_group(process.pid)

    async def end_when_due() -> None:
        if config.end_after == "status":
            await host.status_settled.wait()
        elif config.end_after == "listVms":
            await host.vms_answered.wait()
        else:
            return
        await end_session(f"--end-after {config.end_after}")

    async def end_on_signal(tasks: anyio.abc.TaskGroup) -> None:
        with anyio.open_signal_receiver(signal.SIGINT, signal.SIGTERM) as signals:
            async for signum in signals:
                if ending:
                    _kill_group(process.pid)
                else:
                    tasks.start_soon(end_session, f"signal {signal.Signals(signum).name}")

    try:
        async with anyio.create_task_group() as tasks:
            tasks.start_soon(host.serve, listener)
            tasks.start_soon(end_when_due)
            if threading.current_thread() is threading.main_thread():
                tasks.start_soon(end_on_signal, tasks)
            code = await process.wait()
            tasks.cancel_scope.cancel()
    finally:
        with anyio.CancelScope(shield=True):
            await listener.aclose()
            if process.returncode is None:
                _kill_group(process.pid)
                await process.wait()
    if code is None:
        code = 1
    elif code < 0:
        code = 128 - code
    transcript.note(f"the extension exited with code {code}")
    return code


def _kill_group(pid: int) -> None:
    try:
        os.killpg(pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass
