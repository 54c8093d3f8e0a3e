"""The host's side of a panel preview: a worker process spoken to in JSON lines.

The host (anyio) never runs Slint itself: `PreviewClient.open()` starts
`python -m vrosdev.panels.preview_worker` (with a private Xvfb when there is no DISPLAY), and
turns its output into replies and events. Events are wire-shaped dicts (see preview_worker):
`callback` becomes a panel_event for the extension; `field-focus` is consumed by the host
(PAN-25) and only goes to its transcript.
"""

import contextlib
import json
import logging
import os
import sys
from collections.abc import AsyncIterator, Mapping
from contextlib import asynccontextmanager
from dataclasses import asdict
from pathlib import Path
from typing import Any

import anyio
from anyio.abc import Process, TaskGroup
from anyio.streams.buffered import BufferedByteReceiveStream
from anyio.streams.memory import MemoryObjectReceiveStream, MemoryObjectSendStream

from vrosdev.panels.window import PanelHookError, PanelLoadError, ThemeSettings
from vrosdev.panels.xvfb import VirtualDisplay

log = logging.getLogger("vrosdev.panels.preview")

MAX_LINE_BYTES = 8 * 1024 * 1024  # a screenshot reply or event is far smaller
REQUEST_TIMEOUT_S = 20.0
OPEN_TIMEOUT_S = 30.0
QUIT_TIMEOUT_S = 5.0
EVENT_BUFFER = 1024
_STDERR_NOISE = ("Error watching for xdg desktop settings",)


class PreviewError(RuntimeError):
    """A command the worker refused or could not carry out, or a worker that died."""


def _worker_env(display: str) -> dict[str, str]:
    env = dict(os.environ)
    env["DISPLAY"] = display
    env.setdefault("SLINT_BACKEND", "winit-skia-software")
    env.setdefault("SLINT_SCALE_FACTOR", "1")
    return env


@asynccontextmanager
async def _unwrapped_errors() -> AsyncIterator[None]:
    """A task group wraps even a single error in an ExceptionGroup; callers of open() should
    see PanelLoadError or their own exception as it was raised."""
    try:
        yield
    except BaseExceptionGroup as group:
        if len(group.exceptions) == 1:
            raise group.exceptions[0] from None
        raise


class PreviewClient:
    def __init__(self, process: Process, stdout: BufferedByteReceiveStream) -> None:
        self._process = process
        self._stdout = stdout
        self._next_id = 0
        self._waiting: dict[int, tuple[anyio.Event, list[dict[str, Any]]]] = {}
        send, receive = anyio.create_memory_object_stream[dict[str, Any]](EVENT_BUFFER)
        self._event_send: MemoryObjectSendStream[dict[str, Any]] = send
        # The host must keep reading this: when it is full, replies wait behind events.
        self.events: MemoryObjectReceiveStream[dict[str, Any]] = receive
        self.field_focus_edges: list[bool] = []  # consumed here, never forwarded (PAN-25)
        self.width = 0
        self.height = 0
        self.warnings: list[str] = []
        self.closed = False

    @classmethod
    @asynccontextmanager
    async def open(
        cls,
        source: str,
        *,
        name: str = "panel",
        width: int | None = None,
        height: int | None = None,
        theme: ThemeSettings | None = None,
        display: str | None = None,
        margin: int = 0,
    ) -> AsyncIterator["PreviewClient"]:
        """Start a preview; raises PanelLoadError with the compile_failed text. ``margin``:
        pixels around the panel where the mouse clicks away from it (the live preview)."""
        server: VirtualDisplay | None = None
        display = display or os.environ.get("DISPLAY")
        if not display:
            server = VirtualDisplay()
            display = await anyio.to_thread.run_sync(server.start)
        try:
            process = await anyio.open_process(
                [sys.executable, "-m", "vrosdev.panels.preview_worker"],
                env=_worker_env(display),
            )
            assert process.stdout is not None
            assert process.stderr is not None
            client = cls(process, BufferedByteReceiveStream(process.stdout))
            try:
                async with _unwrapped_errors(), anyio.create_task_group() as tasks:
                    tasks.start_soon(client._drain_stderr, process.stderr)
                    await client._handshake(
                        {
                            "cmd": "open",
                            "source": source,
                            "name": name,
                            "width": width,
                            "height": height,
                            "margin": margin,
                            "theme": asdict(theme or ThemeSettings()),
                        }
                    )
                    tasks.start_soon(client._read_stdout)
                    yield client
                    await client._shutdown(tasks)
            finally:
                with anyio.CancelScope(shield=True):
                    await client._reap()
        finally:
            if server is not None:
                await anyio.to_thread.run_sync(server.stop)

    # -- plumbing -------------------------------------------------------------------------

    async def _line(self) -> dict[str, Any] | None:
        try:
            raw = await self._stdout.receive_until(b"\n", MAX_LINE_BYTES)
        except (anyio.EndOfStream, anyio.IncompleteRead):
            return None
        return json.loads(raw)

    async def _handshake(self, command: dict[str, Any]) -> None:
        await self._write(command)
        with anyio.fail_after(OPEN_TIMEOUT_S):
            first = await self._line()
        if first is None:
            raise PreviewError("the preview worker exited before it was ready")
        if first.get("event") == "failed":
            raise PanelLoadError(first.get("message", ""))
        self.width, self.height = int(first["width"]), int(first["height"])
        self.warnings = list(first.get("warnings", []))

    async def _read_stdout(self) -> None:
        while (message := await self._line()) is not None:
            if "reply" in message:
                waiting = self._waiting.pop(int(message["reply"]), None)
                if waiting is not None:
                    waiting[1].append(message)
                    waiting[0].set()
                continue
            if message.get("event") == "field-focus":
                self.field_focus_edges.append(bool(message["focused"]))
            if message.get("event") == "closed":
                self.closed = True
            await self._event_send.send(message)
        self.closed = True
        for event, _ in self._waiting.values():
            event.set()  # wakes requests whose reply will never come
        await self._event_send.aclose()

    async def _drain_stderr(self, stream: Any) -> None:
        buffered = BufferedByteReceiveStream(stream)
        while True:
            try:
                raw = await buffered.receive_until(b"\n", MAX_LINE_BYTES)
            except (anyio.EndOfStream, anyio.IncompleteRead):
                return
            text = raw.decode("utf-8", "replace")
            if not text.startswith(_STDERR_NOISE):
                log.debug("preview worker: %s", text)

    async def _write(self, command: Mapping[str, Any]) -> None:
        assert self._process.stdin is not None
        await self._process.stdin.send((json.dumps(command) + "\n").encode("utf-8"))

    async def _shutdown(self, tasks: TaskGroup) -> None:
        if not self.closed and self._process.returncode is None:
            try:
                with anyio.move_on_after(QUIT_TIMEOUT_S):
                    await self.request("quit")
            except (PreviewError, anyio.BrokenResourceError, anyio.ClosedResourceError):
                pass
        tasks.cancel_scope.cancel()

    async def _reap(self) -> None:
        if self._process.stdin is not None:
            with contextlib.suppress(OSError, anyio.BrokenResourceError):
                await self._process.stdin.aclose()  # EOF: the worker quits its event loop
        with anyio.move_on_after(QUIT_TIMEOUT_S) as waited:
            await self._process.wait()
        if waited.cancelled_caught:
            self._process.kill()
            await self._process.wait()
        await self._process.aclose()

    async def request(self, cmd: str, **fields: Any) -> dict[str, Any]:
        """Send a command and wait for its reply; raises PreviewError when it failed."""
        if self.closed:
            raise PreviewError("the preview window is closed")
        self._next_id += 1
        request_id = self._next_id
        done = anyio.Event()
        slot: list[dict[str, Any]] = []
        self._waiting[request_id] = (done, slot)
        await self._write({"cmd": cmd, "id": request_id, **fields})
        with anyio.fail_after(REQUEST_TIMEOUT_S):
            await done.wait()
        if not slot:
            raise PreviewError(f"the preview worker exited during {cmd}")
        reply = slot[0]
        if not reply.get("ok"):
            error = str(reply.get("error", "failed"))
            if error.startswith("PanelHookError: "):
                raise PanelHookError(error.removeprefix("PanelHookError: "))
            raise PreviewError(f"{cmd}: {error}")
        return reply

    # -- the host's verbs -----------------------------------------------------------------

    async def set_props(self, props: list[Any]) -> list[str]:
        """PAN-3/6: returns the violations (the values named are ignored,
        docs/protocol-notes.md#r29)."""
        reply = await self.request("set-props", props=props)
        return list(reply.get("violations", []))

    async def put_asset(self, asset: Mapping[str, Any]) -> None:
        """An `assets put` request's fields (key, width, height, frames, loop)."""
        await self.request("put-asset", asset=dict(asset))

    async def remove_asset(self, key: str) -> None:
        await self.request("remove-asset", key=key)

    async def clear_assets(self) -> None:
        await self.request("clear-assets")

    async def set_theme(self, theme: ThemeSettings) -> None:
        await self.request("theme", **asdict(theme))

    async def focus(self, element: str) -> None:
        """Script `focus PANEL ELEMENT`: calls the panel's `focus-<element>()`."""
        await self.request("focus", element=element)

    async def blur(self) -> None:
        """Script `blur PANEL`: advances field-blur (PAN-26)."""
        await self.request("blur")

    async def pointer(self, x: int, y: int) -> None:
        """Script `pointer PANEL X Y`: a real click into the panel at (x, y) (PAN-32)."""
        await self.request("pointer", x=x, y=y)

    async def click_away(self) -> None:
        """Script `click-away PANEL`: a click outside the panel (PAN-26)."""
        await self.request("click-away")

    async def type_text(self, text: str) -> None:
        """Script `type PANEL TEXT`: keys of the VR keyboard, which must be up."""
        await self.request("type", text=text)

    async def mouse(self, x: int, y: int) -> None:
        """A bare mouse click at window pixels (margin included), as a person would click."""
        await self.request("mouse", x=x, y=y)

    async def invoke(self, callback: str, args: list[Any]) -> None:
        await self.request("invoke", callback=callback, args=args)

    async def screenshot(self, path: Path) -> tuple[int, int]:
        reply = await self.request("screenshot", path=str(path))
        return int(reply["width"]), int(reply["height"])

    async def flush(self) -> None:
        """Apply pending props now (tests and screenshots; the pacing is PAN-7's)."""
        await self.request("flush")

    async def get(self, name: str) -> Any:
        """A root property's value (in or out), as JSON."""
        return (await self.request("get", name=name))["value"]

    async def state(self) -> dict[str, Any]:
        return await self.request("state")

    async def next_event(self, kind: str) -> dict[str, Any]:
        """The next event of one kind (others are dropped): for scripts and tests. Wrap it in
        anyio.fail_after."""
        async for event in self.events:
            if event.get("event") == kind:
                return event
        raise PreviewError(f"the preview ended before a {kind} event")


async def screenshot_panel(
    source: str,
    out: Path,
    *,
    props: list[Any] | None = None,
    assets: list[Mapping[str, Any]] | None = None,
    theme: ThemeSettings | None = None,
    width: int | None = None,
    height: int | None = None,
) -> tuple[tuple[int, int], list[str]]:
    """One PNG of a panel in a given state (`vrosdev screenshot`): returns its size and the
    prop violations. Starts a private Xvfb when there is no DISPLAY."""
    async with PreviewClient.open(source, width=width, height=height, theme=theme) as preview:
        for asset in assets or []:
            await preview.put_asset(asset)
        violations = await preview.set_props(props or [])
        size = await preview.screenshot(out)
    return size, violations
