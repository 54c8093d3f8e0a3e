"""The panel renderer: the host service that puts each visible panel in a live preview window.

Theory of operation. The panel and assets namespaces only keep state (merged props, the asset
table) and call this service's hooks; the hooks never wait for a window. Each open panel has
one window task that owns its `PreviewClient` (a worker process) and a *sync loop*: a hook
pokes the window, and the loop, paced to ~30 passes a second (PAN-7), sends what differs from
what the window already has: asset frames first (for every key an `assets` prop names), then
the changed props. Pokes that arrive while a pass runs fold into the next one, so a burst of
props frames costs the worker at most one round-trip per pass.

A second task per window drains the worker's events: callbacks become `panel_event`s for the
extension (typed args), field-focus edges are consumed here and only noted in the transcript
(PAN-25), violations are noted, and a window the user closed hides its panel.

Visibility. Manifest panels open when they become visible (the script's `show`, or at start
for `--preview` on a desktop), runtime panels when defined; `hide` and `remove` close them,
a redefine reopens with the new source. The script's `show`/`hide` call `visibility_changed`.
"""

from __future__ import annotations

import logging
import os
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import anyio
import anyio.abc

from vrosdev.panels import (
    PanelHookError,
    PreviewClient,
    PreviewError,
    ThemeSettings,
    VirtualDisplay,
)
from vrosdev.script import ScriptError
from vrosdev.theme import THEME_IDS

from .namespaces.assets import Asset, table
from .namespaces.panel import PanelState, panels

if TYPE_CHECKING:
    from .core import Connection, ExtensionHost

log = logging.getLogger("vrosdev.renderer")

SYNC_INTERVAL_S = 1 / 30  # PAN-7: at most ~30 passes a second per panel
OPEN_WAIT_S = 30.0  # how long focus/blur/screenshot wait for a window that is opening
PROPS_QUIET_S = 0.5  # `wait_props`: no props frame for this long means settled


class RendererError(RuntimeError):
    """A panel that cannot be shown, focused or captured (one clear line)."""


def theme_settings(theme: str, reduced_motion: bool) -> ThemeSettings:
    """The preview's theme from `--theme` / `--reduced-motion`; refuses an unknown theme id."""
    if theme not in THEME_IDS:
        raise ValueError(f"unknown theme {theme!r}; one of {', '.join(THEME_IDS)}")
    return ThemeSettings(theme=theme, reduced_motion=reduced_motion)


@dataclass(eq=False)
class _Window:
    name: str
    wake: anyio.Event = field(default_factory=anyio.Event)
    ready: anyio.Event = field(default_factory=anyio.Event)  # open, or failed to open
    done: anyio.Event = field(default_factory=anyio.Event)
    lock: anyio.Lock = field(default_factory=anyio.Lock)  # one sync (or focus) at a time
    client: PreviewClient | None = None
    failure: str | None = None
    stop_requested: bool = False  # we close it
    ended: bool = False  # the worker went away (the user closed the window, or it died)
    sent_props: dict[str, Any] = field(default_factory=dict[str, Any])
    sent_assets: dict[str, Asset] = field(default_factory=dict[str, Asset])
    focus_edges: list[bool] = field(default_factory=list[bool])
    edge_seen: anyio.Event = field(default_factory=anyio.Event)

    def poke(self) -> None:
        self.wake.set()


class PanelRenderer:
    """`host.services["renderer"]`: live preview windows for the host's panels.

    `display`: the X display to use; None means `$DISPLAY`, or one private Xvfb shared by all
    windows when there is none (or when `private_display` asks for it, as screenshots do).
    `show_manifest_panels`: open the manifest's panels at start (`--preview` on a desktop);
    they count as visible, and `panel_shown` goes out once the extension is welcomed.
    """

    def __init__(
        self,
        host: ExtensionHost,
        *,
        display: str | None = None,
        private_display: bool = False,
        show_manifest_panels: bool = False,
        margin: int = 0,
    ) -> None:
        self.host = host
        self._margin = margin  # the live preview's border where the mouse clicks away
        self.theme = theme_settings(host.config.theme, host.config.reduced_motion)
        self._display = display
        self._private_display = private_display
        self._show_manifest_panels = show_manifest_panels
        self._server: VirtualDisplay | None = None
        self._display_lock = anyio.Lock()
        self._windows: dict[str, _Window] = {}
        self._tasks: anyio.abc.TaskGroup | None = None
        self._props_frames: dict[str, int] = {}
        self._props_seen: dict[str, anyio.Event] = {}
        self.running = anyio.Event()
        host.services["renderer"] = self

    # -- the service --------------------------------------------------------------------------

    async def run(self) -> None:
        """Serve until cancelled; closes every window (and a private Xvfb) on the way out."""
        host = self.host
        host.on_close.append(self._connection_closed)
        try:
            async with anyio.create_task_group() as tasks:
                self._tasks = tasks
                if self._show_manifest_panels:
                    tasks.start_soon(self._show_manifest_panels_now)
                self.running.set()
                await anyio.sleep_forever()
        finally:
            self._tasks = None
            if self._connection_closed in host.on_close:
                host.on_close.remove(self._connection_closed)
            if self._server is not None:
                server, self._server = self._server, None
                with anyio.CancelScope(shield=True):
                    await anyio.to_thread.run_sync(server.stop)

    async def _show_manifest_panels_now(self) -> None:
        shown: list[str] = []
        for name, state in panels(self.host).items():
            if not state.runtime and not state.visible:
                state.visible = True
                shown.append(name)
                self._open(name)
        await self.host.ready.wait()
        for name in shown:
            state = panels(self.host).get(name)
            if state is not None and state.visible:
                await self.host.emit({"event": "panel_shown", "panel": name})

    # -- hooks the namespaces and the script call ------------------------------------------------

    async def props_changed(self, name: str) -> None:
        self._props_frames[name] = self._props_frames.get(name, 0) + 1
        seen = self._props_seen.pop(name, None)
        if seen is not None:
            seen.set()
        window = self._windows.get(name)
        if window is not None:
            window.poke()

    async def asset_changed(self, key: str) -> None:
        for window in self._windows.values():
            if key in window.sent_assets or key in self._asset_keys(window.name):
                window.poke()

    async def panel_defined(self, name: str) -> None:
        """A define or redefine: the window reloads with the new source."""
        await self._close(name)
        self._open(name)

    async def panel_removed(self, name: str) -> None:
        await self._close(name)

    async def visibility_changed(self, name: str) -> None:
        state = panels(self.host).get(name)
        if state is not None and state.visible:
            if name not in self._windows:
                self._open(name)
        else:
            await self._close(name)

    async def focus(self, name: str, element: str) -> None:
        """Script `focus PANEL ELEMENT`: calls the panel's `focus-<element>()` hook."""
        window, client = await self._ready_window(name)
        async with window.lock:
            await self._sync(window, client)
            try:
                await client.focus(element)
            except PanelHookError as exc:
                raise ScriptError(f"panel {name}: {exc}") from None

    async def blur(self, name: str) -> None:
        """Script `blur PANEL`: advances the panel's field-blur (PAN-26)."""
        window, client = await self._ready_window(name)
        async with window.lock:
            await client.blur()

    async def user_input(self, name: str, verb: str, *args: Any) -> None:
        """Script `pointer`, `click-away`, `type`: the user's hand on the panel (PAN-32)."""
        window, client = await self._ready_window(name)
        async with window.lock:
            await self._sync(window, client)
            await client.flush()
            try:
                await getattr(client, verb)(*args)
            except PanelHookError as exc:
                raise ScriptError(f"panel {name}: {exc}") from None

    # -- for screenshots, scripts and tests ---------------------------------------------------

    def client(self, name: str) -> PreviewClient | None:
        """The open window's preview client, if the panel has one."""
        window = self._windows.get(name)
        return window.client if window is not None and not window.ended else None

    def is_open(self, name: str) -> bool:
        return self.client(name) is not None

    async def sync(self, name: str) -> PreviewClient:
        """Waits for the window, applies everything the host holds now, and flushes it into
        the panel (skipping the ~30/s pacing): what a test or a screenshot needs."""
        window, client = await self._ready_window(name)
        async with window.lock:
            await self._sync(window, client)
            await client.flush()
        return client

    async def screenshot(self, name: str, out: Path) -> tuple[int, int]:
        client = await self.sync(name)
        return await client.screenshot(out)

    def focus_edges(self, name: str) -> list[bool]:
        window = self._windows.get(name)
        return list(window.focus_edges) if window is not None else []

    async def wait_focus_edges(self, name: str, count: int) -> list[bool]:
        """Waits until the panel's window consumed `count` field-focus edges (wrap it in
        anyio.fail_after)."""
        while True:
            window = self._windows.get(name)
            if window is None:
                raise RendererError(f"panel {name} has no window")
            if len(window.focus_edges) >= count:
                return list(window.focus_edges)
            await window.edge_seen.wait()

    def props_frames(self, name: str) -> int:
        return self._props_frames.get(name, 0)

    async def wait_props(self, name: str, *, first_within: float, quiet: float) -> bool:
        """Waits for a first props frame to `name` (False if none came within `first_within`
        seconds), then until none arrived for `quiet` seconds."""
        with anyio.move_on_after(first_within):
            while self.props_frames(name) == 0:
                await self._props_event(name).wait()
        if self.props_frames(name) == 0:
            return False
        while True:
            with anyio.move_on_after(quiet) as settled:
                await self._props_event(name).wait()
            if settled.cancelled_caught:
                return True

    def _props_event(self, name: str) -> anyio.Event:
        return self._props_seen.setdefault(name, anyio.Event())

    # -- windows ------------------------------------------------------------------------------

    def _open(self, name: str) -> None:
        if self._tasks is None:
            log.debug("panel %s: the renderer is not running; no window", name)
            return
        window = _Window(name)
        window.poke()  # the first pass applies everything the host already holds
        self._windows[name] = window
        self._tasks.start_soon(self._run_window, window)

    async def _close(self, name: str) -> None:
        window = self._windows.pop(name, None)
        if window is None:
            return
        window.stop_requested = True
        window.poke()
        await window.done.wait()

    async def _ready_window(self, name: str) -> tuple[_Window, PreviewClient]:
        window = self._windows.get(name)
        if window is None:
            raise ScriptError(f"panel {name} is not shown (show it first)")
        with anyio.move_on_after(OPEN_WAIT_S):
            await window.ready.wait()
        if window.client is None or window.ended:
            why = window.failure or "its window is closed"
            if not window.ready.is_set():
                why = f"its window did not open within {OPEN_WAIT_S:g} s"
            raise ScriptError(f"panel {name}: {why}")
        return window, window.client

    async def _run_window(self, window: _Window) -> None:
        name = window.name
        state = panels(self.host).get(name)
        user_closed = False
        try:
            if state is None:
                return
            display = await self._display_for_windows()
            async with PreviewClient.open(
                state.source,
                name=name,
                width=_side(state.width),
                height=_side(state.height),
                theme=self.theme,
                display=display,
                margin=self._margin,
            ) as client:
                for warning in client.warnings:
                    self.host.recorder.note(f"panel {name}: {warning}")
                window.client = client
                window.ready.set()
                log.info("panel %s: preview window open (%dx%d)", name, client.width, client.height)
                async with anyio.create_task_group() as tasks:
                    tasks.start_soon(self._pump_events, window, client)
                    await self._sync_loop(window, client)
                    tasks.cancel_scope.cancel()
                user_closed = window.ended and not window.stop_requested
        except Exception as exc:  # one panel's window must not take the host down
            window.failure = f"{type(exc).__name__}: {exc}" if not str(exc) else str(exc)
            log.error("panel %s: preview window failed: %s", name, window.failure)
            self.host.recorder.note(f"panel {name}: preview window failed: {window.failure}")
        finally:
            window.ended = True
            window.ready.set()
            window.edge_seen.set()
            window.done.set()
            if self._windows.get(name) is window:
                del self._windows[name]
        if user_closed:
            await self._hidden_by_user(name)

    async def _hidden_by_user(self, name: str) -> None:
        state = panels(self.host).get(name)
        if state is not None and state.visible:
            state.visible = False
            self.host.recorder.note(f"panel {name}: the preview window was closed")
            await self.host.emit({"event": "panel_hidden", "panel": name})

    async def _display_for_windows(self) -> str | None:
        if self._display is not None:
            return self._display
        if not self._private_display and os.environ.get("DISPLAY"):
            return None  # PreviewClient uses $DISPLAY
        async with self._display_lock:
            if self._server is None:
                server = VirtualDisplay()
                self._display = await anyio.to_thread.run_sync(server.start)
                self._server = server
        return self._display

    async def _sync_loop(self, window: _Window, client: PreviewClient) -> None:
        last = -SYNC_INTERVAL_S
        while True:
            await window.wake.wait()
            window.wake = anyio.Event()
            if window.stop_requested or window.ended:
                return
            await anyio.sleep(max(0.0, last + SYNC_INTERVAL_S - anyio.current_time()))
            last = anyio.current_time()
            try:
                async with window.lock:
                    await self._sync(window, client)
            except PreviewError as exc:
                if not window.ended:
                    log.error("panel %s: %s", window.name, exc)
                return

    async def _sync(self, window: _Window, client: PreviewClient) -> None:
        """Sends what differs between the host's state and the window's: assets, then props."""
        state = panels(self.host).get(window.name)
        if state is None:
            return
        live = self._live_assets()
        for key in self._asset_keys(window.name):
            asset = live.get(key)
            if asset is not None and window.sent_assets.get(key) is not asset:
                await client.put_asset(_asset_fields(key, asset))
                window.sent_assets[key] = asset
        for key in [k for k in window.sent_assets if k not in live]:
            await client.remove_asset(key)  # gone from the table (removed, or the connection)
            del window.sent_assets[key]
        changed = [[n, v] for n, v in state.props.items() if window.sent_props.get(n) != v]
        if changed:
            await client.set_props(changed)  # violations also arrive as events (noted there)
            window.sent_props.update({n: v for n, v in changed})

    def _asset_keys(self, name: str) -> list[str]:
        state: PanelState | None = panels(self.host).get(name)
        if state is None:
            return []
        keys: list[str] = []
        for value in state.props.values():
            if value.get("t") == "assets":
                keys.extend(k for k in value["v"] if k not in keys)
        return keys

    def _live_assets(self) -> dict[str, Asset]:
        conn = self.host.connection
        return dict(table(conn).entries) if conn is not None else {}

    async def _pump_events(self, window: _Window, client: PreviewClient) -> None:
        name = window.name
        recorder = self.host.recorder
        async for event in client.events:
            match event.get("event"):
                case "callback":
                    await self.host.emit(
                        {
                            "event": "panel_event",
                            "panel": name,
                            "callback": event["callback"],
                            "args": event.get("args", []),
                        }
                    )
                case "field-focus":
                    focused = bool(event["focused"])
                    window.focus_edges.append(focused)
                    window.edge_seen.set()
                    window.edge_seen = anyio.Event()
                    edge = "true" if focused else "false"
                    recorder.note(f"panel {name}: field-focus({edge}) consumed by the host")
                case "keyboard":
                    shown = "shown" if event.get("shown") else "hidden"
                    recorder.note(f"panel {name}: VR keyboard {shown}: {event.get('why', '')}")
                case "violation":
                    recorder.note(f"panel {name}: preview: {event.get('message', '')}")
                case _:
                    pass
        window.ended = True
        window.poke()  # ends the sync loop

    async def _connection_closed(self, conn: Connection) -> None:
        """The asset table ended with the connection; runtime panels may have gone too."""
        del conn
        for name, window in list(self._windows.items()):
            if name not in panels(self.host) and self._tasks is not None:
                self._tasks.start_soon(self._close, name)
            else:
                window.poke()


def _side(value: float | None) -> int | None:
    return None if value is None else round(value)


def _asset_fields(key: str, asset: Asset) -> dict[str, Any]:
    """The host's checked asset back in an `assets put` shape, for the preview worker."""
    return {
        "key": key,
        "width": asset.width,
        "height": asset.height,
        "frames": [{"rgba_base64": text, "delay_ms": delay} for text, delay in asset.frames],
        "loop": asset.loop,
    }


def renderer_service(
    *,
    display: str | None = None,
    private_display: bool = False,
    show_manifest_panels: bool = False,
    margin: int = 0,
) -> Callable[[ExtensionHost], Awaitable[None]]:
    """A `renderer_factory` for `run_extension`: installs a PanelRenderer and serves it."""

    async def serve(host: ExtensionHost) -> None:
        renderer = PanelRenderer(
            host,
            display=display,
            private_display=private_display,
            show_manifest_panels=show_manifest_panels,
            margin=margin,
        )
        await renderer.run()

    return serve
