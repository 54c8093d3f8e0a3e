"""Launching an extension exactly as vrOS does on Linux (T-1, T-3).

The endpoint ``$XDG_RUNTIME_DIR/vros/ext-<id>.sock`` (a private runtime folder when the variable
is unset) is listening *before* the process starts; the process gets ``VROS_EXT_ENDPOINT``,
``VROS_EXT_TOKEN`` (fresh per launch) and ``VROS_EXT_ID``; its stdout and stderr pass through.
vrosdev ends when the extension exits, or after a script: ``shutting_down``, up to 2 s, then a
kill (docs/protocol-notes.md#r26). Without a hello within 5 s of launch the process is stopped
(docs/protocol-notes.md#r5). ``--endpoint-delay S`` (a test's fault) starts listening S seconds
after the process, so the extension first finds no socket; with ``--chaos`` the end of a script
sends the oversized last frame before shutting down (vrosdev.host.chaos).
"""

from __future__ import annotations

import logging
import os
import signal
import subprocess
import tempfile
from collections.abc import Awaitable, Callable, Sequence
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any

import anyio
import anyio.abc

from .host.config import HostConfig
from .host.core import ExtensionHost
from .host.log import Recorder
from .script import ScriptError, ScriptRunner, Step, parse_line

if TYPE_CHECKING:
    from .companions import Companion

log = logging.getLogger("vrosdev")
SHUTDOWN_GRACE_S = 2.0
STRICT_VIOLATION_EXIT = 3


def runtime_dir() -> Path:
    base = os.environ.get("XDG_RUNTIME_DIR")
    root = Path(base) if base else Path(tempfile.mkdtemp(prefix="vrosdev-"))
    path = root / "vros"
    path.mkdir(mode=0o700, parents=True, exist_ok=True)
    return path


async def run_extension(
    config: HostConfig,
    argv: list[str],
    *,
    cwd: Path | None = None,
    script: list[Step] | None = None,
    interactive: bool = False,
    renderer_factory: object | None = None,
    record: Path | None = None,
    driver: Callable[[ExtensionHost], Awaitable[None]] | None = None,
    also: Sequence[Companion] = (),
    output: tuple[IO[bytes], IO[bytes]] | None = None,
) -> int:
    """``driver`` (``vrosdev screenshot``) plays the user instead of a script; when it returns,
    the extension is shut down as after a script. ``also``: more extensions in the same vrOS
    (vrosdev.companions), shut down before this one. ``output`` (stdout, stderr) takes the
    extension's output instead of passing it through (tests read and sweep it)."""
    from . import companions

    shared: dict[str, Any] = {}
    host = ExtensionHost(config, Recorder(config.token, record), shared)
    others: list[companions.Running] = []
    companion_violations = 0
    endpoint = runtime_dir() / f"ext-{config.ext_id}.sock"
    endpoint.unlink(missing_ok=True)
    listening: list[anyio.abc.Listener[Any]] = []
    if config.endpoint_delay_s <= 0:
        listening.append(await anyio.create_unix_listener(endpoint))
    env = dict(os.environ)
    env.update(
        VROS_EXT_ENDPOINT=str(endpoint), VROS_EXT_TOKEN=config.token, VROS_EXT_ID=config.ext_id
    )
    exit_code: int | None = None
    try:
        process = await anyio.open_process(
            argv,
            env=env,
            cwd=cwd,
            stdin=subprocess.DEVNULL,
            stdout=output[0] if output else None,
            stderr=output[1] if output else None,
            start_new_session=True,
        )
    except OSError as exc:
        for listener in listening:
            await listener.aclose()
        endpoint.unlink(missing_ok=True)
        log.error("cannot start the extension %s: %s", argv[0], exc.strerror or exc)
        return 127
    log.info("launched %s (pid %d) on %s", config.ext_id, process.pid, endpoint)
    host.services["kill_extension"] = lambda: _kill_group(process.pid)
    host.services["extension_pid"] = process.pid

    async def stop_process(reason: str) -> None:
        if process.returncode is not None:
            return
        log.info("%s: waiting up to %g s for the extension to exit", reason, SHUTDOWN_GRACE_S)
        with anyio.move_on_after(SHUTDOWN_GRACE_S):
            await process.wait()
            return
        host.violation(
            "docs/protocol-notes.md#r26",
            f"the extension did not exit within {SHUTDOWN_GRACE_S:g} s: killed",
        )
        _kill_group(process.pid)

    async def shutdown() -> None:
        await companions.shut_down(others)
        sent = await host.emit({"event": "shutting_down"})
        await stop_process("shutting_down sent" if sent else "shutdown")

    async def watch_hello() -> None:
        with anyio.move_on_after(config.hello_deadline_s):
            await host.ready.wait()
            return
        host.violation("H-2", f"no hello within {config.hello_deadline_s:g} s of launch: stopping")
        _kill_group(process.pid, signal.SIGTERM)

    async def drive() -> None:
        runner = ScriptRunner(host)
        try:
            if driver is not None:
                await driver(host)
                await shutdown()
            elif script is not None:
                await runner.run(script)
                await end_chaos(host)
                await shutdown()
            elif interactive:
                await _prompt(runner, shutdown)
        except ScriptError as exc:
            log.error("script: %s", exc)
            host.violation("script", str(exc))
            await shutdown()

    async def serve() -> None:
        if not listening:
            await anyio.sleep(config.endpoint_delay_s)
            host.hook.injected("endpoint_delay", seconds=config.endpoint_delay_s)
            listening.append(await anyio.create_unix_listener(endpoint))
        await host.serve(listening[0])

    try:
        async with anyio.create_task_group() as tg:
            tg.start_soon(serve)
            others.extend(await companions.start(list(also), shared, host.recorder, record, tg))
            tg.start_soon(watch_hello)
            tg.start_soon(drive)
            if renderer_factory is not None:
                tg.start_soon(renderer_factory, host)  # type: ignore[arg-type]
            exit_code = await process.wait()
            tg.cancel_scope.cancel()
    finally:
        with anyio.CancelScope(shield=True):
            for listener in listening:
                await listener.aclose()
            endpoint.unlink(missing_ok=True)
            if process.returncode is None:
                _kill_group(process.pid)
                await process.wait()
            companion_violations = await companions.close(others)
            await _finish_services(host)
            host.recorder.close()
    code = exit_code if exit_code is not None else 1
    if code < 0:
        log.info("the extension was ended by signal %d", -code)
    violations = len(host.recorder.violations) + companion_violations
    if config.strict and violations:
        log.warning("%d spec violation(s) (strict mode)", violations)
        if code == 0:
            code = STRICT_VIOLATION_EXIT
    return code


async def end_chaos(host: ExtensionHost, wait_s: float = 5.0) -> bool:
    """Send ``--chaos``'s oversized last frame, then wait (bounded) for the extension to end
    that connection and say hello again; False when chaos is off or already ended."""
    conn = host.connection
    line = host.hook.end_chaos()
    if line is None or conn is None:
        return False
    host.ready = anyio.Event()
    await conn.send_raw(line)
    with anyio.move_on_after(wait_s):
        await host.ready.wait()
    return True


async def _finish_services(host: ExtensionHost) -> None:
    finish = host.services.get("on_exit")
    for fn in finish or []:
        try:
            await fn()
        except Exception:
            log.exception("finishing a service failed")


def _kill_group(pid: int, sig: signal.Signals = signal.SIGKILL) -> None:
    try:
        os.killpg(pid, sig)
    except (ProcessLookupError, PermissionError):
        pass


async def _prompt(runner: ScriptRunner, shutdown: object) -> None:
    """Steps typed at a terminal prompt, one per line (read in a thread: input() blocks)."""
    print("vrosdev: type steps (invoke, click, show, setting, …); 'shutdown' to stop.")
    n = 0
    while True:
        try:
            line = await anyio.to_thread.run_sync(input, "vrosdev> ", abandon_on_cancel=True)
        except EOFError:
            return
        n += 1
        try:
            step = parse_line(line, n)
            if step is None:
                continue
            if step.verb == "shutdown":
                await shutdown()  # type: ignore[operator]
                return
            await runner.run_step(step)
        except ScriptError as exc:
            print(f"vrosdev: {exc}")


kill_group = _kill_group  # for vrosdev.companions
