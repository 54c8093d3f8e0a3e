"""Cueboard as a vrOS extension: connect, wire the features to the client, run, reconnect.

Start-up after hello, in this order (issue 6): read the settings, register the commands,
pre-arm the soundboard (and mic) channel, send the overlay its first props; only then scan the
library, load sounds ahead and import anything heavy (Pillow, httpx) for the icons.
A connection that drops without ``shutting_down`` is retried with backoff for up to
:data:`RECONNECT_FOR_S`; then Cueboard exits non-zero with one clear line.
"""

from __future__ import annotations

import logging
import os
import sys
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import anyio
import anyio.abc

import vxp

from .commands import STATIC_COMMANDS, favourite_command, slot_of, slugify
from .contract import StatusLevel
from .i18n import Catalog
from .icons import IconManager, close_decode_workers
from .library import Library, scan
from .media_deck import MediaDeck, Notice, deck_props
from .overlay import BLANK_ICON_KEY, OverlayModel, PanelEvents, blank_icon_asset
from .prefs import PrefsStore
from .settings import Settings
from .soundboard import STATUS_RECONCILE_S, Soundboard
from .views import dash_values, overlay_values, usage_values

log = logging.getLogger("cueboard")

EXT_ID = "com.cueboard.soundboard"
RECONNECT_FOR_S = float(os.environ.get("CUEBOARD_RECONNECT_S", "10"))  # issue 6: 10 s
LIFECYCLE = "vr.lifecycle"
TOAST_PANEL = "now-playing"
TOAST_SHOW_S = 2.5
PANELS_DIR = Path(__file__).resolve().parent.parent.parent / "panels"


def default_sounds_folder(content_root: str | None) -> Path:
    if content_root:
        return Path(content_root) / "Cueboard" / "Sounds"
    if sys.platform.startswith("win"):
        base = Path(os.environ.get("APPDATA", Path.home() / "AppData" / "Roaming"))
    else:
        base = Path(os.environ.get("XDG_DATA_HOME", Path.home() / ".local" / "share"))
    return base / "Cueboard" / "Sounds"


class Cueboard:
    """State that outlives a connection: settings, library, prefs, what the panels show."""

    def __init__(self) -> None:
        self.prefs = PrefsStore(_NoKv())
        self.board = Soundboard(self.prefs, on_change=self.changed)
        self.overlay = OverlayModel(self._send_props, start_hidden=[TOAST_PANEL])
        self.panel_events = PanelEvents()
        self.catalog = Catalog.load("en-US")
        self.client: vxp.Client | None = None
        self.shutting_down = False
        self.icons = IconManager(self.changed)
        self.deck: MediaDeck | None = None
        self.dash_page = 0
        self.selected: str | None = None
        self.library_folder: Path | None = None
        self._dirty = anyio.Event()
        self._playing_changed = anyio.Event()
        self._scan_lock = anyio.Lock()
        self._folder_changed = anyio.Event()
        self._toast_until = 0.0
        self._toast_defined = False
        self._prefs_loaded = False
        self._register_panel_handlers()

    # -- plumbing ---------------------------------------------------------------------------

    def changed(self) -> None:
        self._dirty.set()
        if self.board.playing:
            self._playing_changed.set()

    async def _send_props(self, panel: str, pairs: list[tuple[str, Any]]) -> None:
        client = self.client
        if client is None or not client.is_open:
            return
        if panel == TOAST_PANEL and not self._toast_defined:
            return
        await client.panel.props(panel, pairs)

    def refresh_views(self) -> None:
        board, cat = self.board, self.catalog
        self.overlay.update("overlay", overlay_values(board, cat, self.icons.shown))
        dash = dash_values(board, cat, library_page=self.dash_page, selected=self.selected)
        if self.overlay.is_visible("dash-tab"):  # diagnostics only while someone looks
            dash.update(
                usage_values(
                    cat,
                    assets=(len(self.icons.table), self.icons.table.used_bytes),
                    kv_bytes=self.prefs.kv_bytes(),
                    toast_note=self._toast_note(),
                )
            )
        self.overlay.update("dash-tab", dash)
        if self.deck is not None:
            for panel, values in deck_props(self.deck.view(), cat).items():
                for name, wire in values.items():
                    self.overlay.set_wire(panel, name, wire)

    def _toast_note(self) -> str:
        client = self.client
        if client is not None and not client.welcome.granted.overlays:
            return self.catalog.t("dash.toast_needs_overlays")
        return ""

    def notice(self, notice: Notice) -> None:
        self.board.set_notice(notice.key, int(notice.level), notice.text)

    async def _views(self) -> None:
        """Recompute props after changes; the overlay model paces what is sent."""
        while True:
            await self._dirty.wait()
            self._dirty = anyio.Event()
            self.refresh_views()
            await self._publish()

    async def _publish(self) -> None:
        client = self.client
        published, self.board.published = self.board.published, []
        if client is None:
            return
        for kind, payload in published:
            try:
                await client.bus.publish(f"ext.{client.ext_id}.{kind}", payload)
            except vxp.VxpError as exc:
                log.debug("bus publish %s: %s", kind, exc)
            if kind == "played":
                await self._toast(payload["name"])

    # -- one connection ---------------------------------------------------------------------

    async def attach(self, client: vxp.Client) -> None:
        """Everything a fresh connection needs, in the order issue 6 asks for."""
        self.client = client
        self.board.client = client
        granted = client.welcome.granted
        self.board.audio_granted = granted.audio
        self._toast_defined = False
        self.catalog = Catalog.load(client.welcome.locale)
        try:
            entries = await client.settings.list()
            self.board.settings = Settings.from_entries([(e.key, e.value) for e in entries])
        except (vxp.DomainError, vxp.ProtocolError) as exc:
            log.info("settings: %s; using defaults", exc)
        async with anyio.create_task_group() as tg:
            for spec in STATIC_COMMANDS:
                tg.start_soon(self._register, spec.name)
            for slug in self.prefs.favourites():
                tg.start_soon(self._register, favourite_command(slug))
        if granted.audio:
            await self._pre_arm()
        else:
            self.board.set_status("status.no_audio_grant", StatusLevel.ERROR)
        await client.assets.put(**blank_icon_asset())
        self.overlay.set_texts(self.catalog)
        self.refresh_views()
        self.overlay.resend_all()
        await self.overlay.flush()
        await self._subscribe(client)
        await self._attach_deck(client)
        if not self._prefs_loaded:
            self.prefs.kv = client.kv
            await self.prefs.load()
            self._prefs_loaded = True
            async with anyio.create_task_group() as tg:  # favourites known now: bind them
                for slug in self.prefs.favourites():
                    tg.start_soon(self._register, favourite_command(slug))
        else:
            self.prefs.kv = client.kv
        await self.rescan(reason="start")

    async def _register(self, name: str) -> None:
        """A command the host refuses is logged, not fatal: the others still bind."""
        assert self.client is not None
        try:
            await self.client.commands.register(name)
        except (vxp.DomainError, vxp.InvalidRequest) as exc:
            log.warning("command %s not registered: %s", name, exc)

    async def _attach_deck(self, client: vxp.Client) -> None:
        if self.deck is None:
            self.deck = MediaDeck(client, on_change=self.changed, on_notice=self.notice)
            notices = await self.deck.start()
        else:
            notices = await self.deck.reconnected(client)
        for n in notices:
            self.notice(n)
        self.changed()

    async def _pre_arm(self) -> None:
        assert self.client is not None
        channels = ["soundboard"] + (["mic"] if self.board.settings.mic_enabled else [])
        for channel in channels:
            try:
                await self.client.audio.pre_arm(channel)
            except vxp.DomainError as exc:
                self.board.set_status("status.no_endpoint", StatusLevel.WARN, channel=channel)
                log.info("pre_arm %s: %s", channel, exc.code)

    async def _subscribe(self, client: vxp.Client) -> None:
        patterns = [f"ext.{client.ext_id}.cmd.*"]
        if LIFECYCLE in client.welcome.granted.bus:
            patterns.append(LIFECYCLE)
        for pattern in patterns:
            try:
                await client.bus.subscribe(pattern)
            except vxp.DomainError as exc:
                log.info("bus subscribe %s: %s", pattern, exc.code)

    async def rescan(self, reason: str) -> None:
        client = self.client
        settings = self.board.settings
        root = (
            Path(settings.sounds_folder)
            if settings.sounds_folder
            else default_sounds_folder(client.welcome.content_root if client else None)
        )
        async with self._scan_lock:
            started = time.perf_counter()
            library: Library = await anyio.to_thread.run_sync(scan, root)
            if root != self.library_folder:
                self.library_folder = root
                self._folder_changed.set()
            changed = self.board.set_library(library)
            log.info(
                "library (%s): %d sounds in %d categories from %s in %.0f ms",
                reason,
                len(library.sounds),
                len(library.categories),
                root,
                (time.perf_counter() - started) * 1000,
            )
            if not root.is_dir():
                self.board.set_status("status.folder_missing", StatusLevel.WARN, folder=str(root))
            for rel in changed:
                st = self.board.states[rel]
                st.status, st.sound_id = "idle", None
            await self.load_ahead()

    async def load_ahead(self) -> None:
        """The visible page changed (or the library): its icons and sounds come first."""
        if self.library_folder is not None:
            self.icons.want(self.library_folder, self.board.visible_sounds())
        for rel in self.board.wanted_ahead():
            await self.board.ensure_loaded(rel)

    # -- events -----------------------------------------------------------------------------

    async def handle(self, event: Any) -> None:
        if self.deck is not None and await self.deck.handle_event(event):
            return
        m = vxp.models
        match event:
            case m.CommandInvoked(command=command):
                await self.on_command(command)
            case m.PanelEvent(panel=panel, callback=callback, args=args):
                await self.panel_events.dispatch(panel, callback, [a.model_dump() for a in args])
            case m.PanelShown(panel=panel):
                self.overlay.panel_shown(panel)
                if panel == "overlay":
                    await self.load_ahead()
                elif panel == "dash-tab":
                    self.changed()
                    await self.refresh_devices()
            case m.PanelHidden(panel=panel):
                self.overlay.panel_hidden(panel)
            case m.AudioLoaded(sound=sound, outcome=outcome):
                await self.board.on_audio_loaded(sound, outcome)
            case m.SettingsChanged(key=key, value=value):
                await self.on_setting(key, value)
            case m.LocaleChanged(locale=locale):
                self.catalog = Catalog.load(locale)
                self.overlay.set_texts(self.catalog)
                self.changed()
            case m.BusMessage(topic=topic, payload=payload):
                await self.on_bus(topic, payload)
            case m.VrLifecycle(state=state):
                if state == "quitting":
                    await self.prefs.flush()
                elif state == "detached":
                    await self.board.stop_looping()
            case m.ShuttingDown():
                self.shutting_down = True
            case _:
                log.debug("skipped event %s", getattr(event, "event", "?"))

    async def on_command(self, command: str) -> None:
        slot = slot_of(command)
        if slot is not None:
            await self.board.play_slot(slot)
            return
        if command.startswith("fav-"):
            rel = self.prefs.favourites().get(command.removeprefix("fav-"))
            if rel is not None:
                await self.board.press(rel)
            return
        match command:
            case "stop-all":
                await self.board.stop_all()
            case "page-next":
                self.board.turn_page(1)
                await self.load_ahead()
            case "page-prev":
                self.board.turn_page(-1)
                await self.load_ahead()
            case "play-random":
                await self.board.play_random()
            case "toggle-mic":
                await self.set_mic_enabled(not self.board.settings.mic_enabled)
            case "rescan":
                await self.rescan(reason="command")
            case _:
                log.debug("unknown command %s", command)

    async def on_setting(self, key: str, value: Any) -> None:
        before = self.board.settings
        self.board.settings = before.with_value(key, value)
        after = self.board.settings
        if after == before:
            return
        log.info("setting %s changed", key)
        if key == "sounds_folder":
            await self.rescan(reason="folder changed")
        elif key == "normalize":
            for st in self.board.states.values():  # loudness changed: load again
                if st.status in ("loaded", "loading"):
                    st.status, st.sound_id = "idle", None
            await self.load_ahead()
        elif key == "mic_enabled" and after.mic_enabled and self.client is not None:
            await self._pre_arm()
        self.changed()

    async def set_mic_enabled(self, on: bool) -> None:
        await self._write_setting("mic_enabled", on)

    async def _write_setting(self, key: str, value: Any) -> None:
        """Our own writes of a setting are ordinary kv sets (SET-18)."""
        self.board.settings = self.board.settings.with_value(key, value)
        client = self.client
        if client is not None:
            try:
                await client.kv.set(key, value)
            except vxp.DomainError as exc:
                log.info("kv set %s: %s", key, exc.code)
        if key == "mic_enabled" and value:
            await self._pre_arm()
        self.changed()

    async def on_bus(self, topic: str, payload: Any) -> None:
        """Remote control from other extensions: ``ext.<id>.cmd.play|stop|stop-all``."""
        client = self.client
        if client is None:
            return
        prefix = f"ext.{client.ext_id}.cmd."
        if not topic.startswith(prefix):
            return
        verb = topic.removeprefix(prefix)
        body: dict[str, Any] = payload if isinstance(payload, dict) else {}
        rel = body.get("path")
        fav = body.get("favourite")
        if isinstance(fav, str):
            rel = self.prefs.favourites().get(fav)
        if verb == "play" and isinstance(rel, str):
            await self.board.press(rel)
        elif verb == "stop" and isinstance(rel, str):
            await self.board.stop(rel)
        elif verb == "stop-all":
            await self.board.stop_all()
        else:
            log.debug("bus %s: ignored", verb)

    # -- the now-playing toast ----------------------------------------------------------------

    async def _toast(self, name: str) -> None:
        client = self.client
        if client is None or not self.board.settings.now_playing_toast:
            return
        if not client.welcome.granted.overlays:
            return
        if not self._toast_defined:
            source = (PANELS_DIR / "now-playing.slint").read_text(encoding="utf-8")
            try:
                await client.panel.define(TOAST_PANEL, source, anchor="hmd")
            except (vxp.DomainError, vxp.NotSupportedByHost) as exc:
                log.info("toast: %s", exc)
                return
            self._toast_defined = True
            self.overlay.panel_shown(TOAST_PANEL)
        self.overlay.update(TOAST_PANEL, {"sound-name": name, "showing": True})
        self._toast_until = time.monotonic() + TOAST_SHOW_S

    # -- panel callbacks --------------------------------------------------------------------

    def _register_panel_handlers(self) -> None:
        on = self.panel_events.on
        board = self.board

        @on("overlay", "play-sound")
        async def play_sound(key: str) -> None:
            await board.press(key)

        @on("overlay", "stop-sound")
        async def stop_sound(key: str) -> None:
            await board.stop(key)

        @on("overlay", "stop-all")
        async def stop_all() -> None:
            await board.stop_all()

        @on("overlay", "page-next")
        async def page_next() -> None:
            board.turn_page(1)
            await self.load_ahead()

        @on("overlay", "page-prev")
        async def page_prev() -> None:
            board.turn_page(-1)
            await self.load_ahead()

        @on("overlay", "search-changed")
        async def search_changed(query: str) -> None:
            board.search(query)
            await self.load_ahead()

        @on("overlay", "set-soundboard-gain")
        async def set_sb_gain(pct: int) -> None:
            await self._write_setting("soundboard_gain", max(0, min(100, pct)))

        @on("overlay", "set-mic-gain")
        async def set_mic_gain(pct: int) -> None:
            await self._write_setting("mic_gain", max(0, min(100, pct)))

        @on("overlay", "set-mic-enabled")
        async def set_mic_enabled(on_: bool) -> None:
            await self.set_mic_enabled(on_)

        @on("overlay", "dismiss-status")
        @on("dash-tab", "dismiss-status")
        async def dismiss() -> None:
            board.set_status(None)

        @on("dash-tab", "library-search")
        async def library_search(query: str) -> None:
            board.search(query)
            self.dash_page = 0

        @on("dash-tab", "library-page-next")
        async def library_next() -> None:
            self.dash_page += 1
            self.changed()

        @on("dash-tab", "library-page-prev")
        async def library_prev() -> None:
            self.dash_page = max(0, self.dash_page - 1)
            self.changed()

        @on("dash-tab", "select-sound")
        async def select(key: str) -> None:
            self.selected = key if key in board.states else None
            self.changed()

        @on("dash-tab", "set-sound-gain")
        async def set_gain(key: str, pct: int) -> None:
            if key in board.states:
                self.prefs.update(key, gain=max(0, min(100, pct)))
                self.changed()

        @on("dash-tab", "set-sound-looping")
        async def set_looping(key: str, on_: bool) -> None:
            if key in board.states:
                self.prefs.update(key, loop=on_)
                self.changed()

        @on("dash-tab", "set-sound-favourite")
        async def set_favourite(key: str, on_: bool) -> None:
            await self.set_favourite(key, on_)

        @on("dash-tab", "rescan")
        async def rescan() -> None:
            await self.rescan(reason="dash-tab")

        @on("dash-tab", "refresh-devices")
        async def refresh() -> None:
            await self.refresh_devices()

        self._register_deck_handlers()

    def _register_deck_handlers(self) -> None:
        on = self.panel_events.on

        async def deck_call(name: str, *args: Any, **kwargs: Any) -> None:
            if self.deck is None:
                return
            result = await getattr(self.deck, name)(*args, **kwargs)
            if isinstance(result, Notice):
                self.notice(result)

        @on("overlay", "media-open")
        async def media_open(url: str, label: str) -> None:
            await deck_call("open", url, label)

        @on("overlay", "media-reload")
        async def media_reload(key: str, url: str, label: str) -> None:
            await deck_call("reload", key, url, label)

        @on("overlay", "media-close")
        async def media_close(key: str) -> None:
            await deck_call("close", key)

        @on("overlay", "media-set-paused")
        async def media_paused(key: str, paused: bool) -> None:
            await deck_call("set_options", key, paused=paused)

        @on("overlay", "media-set-volume")
        async def media_volume(key: str, pct: int) -> None:
            await deck_call("set_options", key, volume_pct=pct)

        @on("overlay", "media-set-muted")
        async def media_muted(key: str, muted: bool) -> None:
            await deck_call("set_options", key, muted=muted)

        @on("dash-tab", "set-media-show-video")
        async def media_show_video(on_: bool) -> None:
            await deck_call("set_defaults", show_video=on_)

        @on("dash-tab", "set-media-max-fps")
        async def media_max_fps(fps: int) -> None:
            await deck_call("set_defaults", max_fps=fps)

        @on("dash-tab", "set-media-native-controls")
        async def media_native(on_: bool) -> None:
            await deck_call("set_defaults", native_controls=on_)

        @on("dash-tab", "set-media-controls-on-player")
        async def media_on_player(on_: bool) -> None:
            await deck_call("set_defaults", controls_on_player=on_)

    async def set_favourite(self, rel: str, on: bool) -> None:
        st = self.board.states.get(rel)
        client = self.client
        if st is None:
            return
        current = self.prefs.get(rel).favourite
        favourites = self.prefs.favourites()
        if on and current is None:
            if len(favourites) >= 16:
                return
            slug = slugify(st.sound.name, set(favourites))
            self.prefs.update(rel, favourite=slug)
            if client is not None:
                await client.commands.register(favourite_command(slug))
            await self.board.ensure_loaded(rel)
        elif not on and current is not None:
            self.prefs.update(rel, favourite=None)
            if client is not None:
                await client.commands.unregister(favourite_command(current))
        self.changed()

    async def refresh_devices(self) -> None:
        client = self.client
        if client is None or not client.welcome.granted.audio:
            return
        try:
            channels = await client.audio.list_channels()
            devices = await client.audio.list_devices()
        except vxp.DomainError as exc:
            log.info("devices: %s", exc.code)
            return
        cat = self.catalog
        self.overlay.update(
            "dash-tab",
            {
                "channels": [
                    (
                        c.channel,
                        c.endpoint or "",
                        cat.t(
                            "channel.armed"
                            if c.armed
                            else "channel.available"
                            if c.available
                            else "channel.unavailable"
                        ),
                        c.available,
                    )
                    for c in channels.channels
                ][:16],
                "devices": [
                    (e.name or e.id, e.id == devices.default_endpoint) for e in devices.endpoints
                ][:64],
            },
        )

    # -- watching the folder ----------------------------------------------------------------

    async def _watch(self) -> None:
        """Rescan when files change under the sounds folder (inotify & co. via watchfiles:
        no polling), debounced so a copy of many files is one rescan."""
        while True:
            folder = self.library_folder
            if folder is None or not folder.is_dir():
                await self._folder_changed.wait()
                self._folder_changed = anyio.Event()
                continue
            from watchfiles import awatch

            stop = self._folder_changed
            async for _ in awatch(folder, debounce=400, stop_event=stop, recursive=True):
                await self.rescan(reason="files changed")
            self._folder_changed = anyio.Event()

    def _stop_watching(self) -> None:
        """awatch waits in a thread that a cancel cannot interrupt: its stop event can."""
        self._folder_changed.set()

    # -- timers -----------------------------------------------------------------------------

    async def _now_playing(self) -> None:
        """Expire one-shots, and reconcile with the host at most once a second, only while
        something plays: an idle soundboard sends nothing."""
        while True:
            if not self.board.playing and time.monotonic() >= self._toast_until:
                await self._playing_changed.wait()
                self._playing_changed = anyio.Event()
            await anyio.sleep(STATUS_RECONCILE_S)
            if self.board.expire(time.monotonic()):
                self.changed()
            if self._toast_until and time.monotonic() >= self._toast_until:
                self._toast_until = 0.0
                self.overlay.update(TOAST_PANEL, {"showing": False})
            try:
                await self.board.reconcile()
            except vxp.VxpError as exc:
                log.debug("reconcile: %s", exc)

    # -- the whole run ----------------------------------------------------------------------

    async def serve(self, client: vxp.Client) -> None:
        """Run one connection until shutting_down or a disconnect."""
        lost: vxp.ConnectionClosed | None = None
        async with anyio.create_task_group() as tg:
            tasks = (self.overlay.run, self._views, self.prefs.run, self._now_playing, self._watch)
            for task in tasks:
                tg.start_soon(_until_disconnected, task)
            tg.start_soon(_until_disconnected, lambda: self.icons.run(client))
            try:
                await self.attach(client)
                async for event in client.events():
                    await self.handle(event)
                    if self.shutting_down:
                        break
                if client.is_open:  # the final state always reaches the panels
                    self.refresh_views()
                    await self.overlay.flush()
            except* vxp.ConnectionClosed as group:  # one, or several from concurrent requests
                lost = _first(group)
            self._stop_watching()
            tg.cancel_scope.cancel()
        if lost is not None:
            raise lost

    async def finish(self) -> None:
        """Flush what the user changed before exiting 0 (EVT-2)."""
        with anyio.CancelScope(shield=True):
            try:
                await self.prefs.flush()
            except vxp.VxpError as exc:
                log.warning("could not save every change: %s", exc)


def _first(group: BaseExceptionGroup[vxp.ConnectionClosed]) -> vxp.ConnectionClosed:
    first = group.exceptions[0]
    return first if isinstance(first, vxp.ConnectionClosed) else _first(first)


async def _until_disconnected(task: Callable[[], Awaitable[None]]) -> None:
    """A background task ends quietly when the connection goes: the event loop notices too,
    and reconnecting is its decision."""
    try:
        await task()
    except vxp.ConnectionClosed:
        return


class _NoKv:
    """Before the first hello there is no kv; prefs are only loaded after it."""

    async def get_value(self, key: str) -> Any:
        return None

    async def set_value(self, key: str, value: Any) -> bool:
        raise vxp.ConnectionClosed("not connected")

    async def delete(self, key: str) -> None:
        raise vxp.ConnectionClosed("not connected")

    async def keys(self) -> list[str]:
        return []


async def run() -> int:
    app = Cueboard()
    connected_once = False
    lost_at: float | None = None
    delay = 0.1
    while True:
        try:
            async with vxp.connect() as client:
                connected_once, lost_at, delay = True, None, 0.1
                try:
                    await app.serve(client)
                finally:
                    if app.shutting_down:
                        await app.finish()
                if app.shutting_down:
                    log.info("shutting down")
                    return 0
        except vxp.MissingEnvironment as exc:
            print(f"cueboard: {exc}", file=sys.stderr)
            return 2
        except vxp.HelloRejected as exc:
            print(f"cueboard: {exc}", file=sys.stderr)
            return 1
        except (vxp.ConnectionClosed, vxp.EndpointUnavailable, OSError, TimeoutError) as exc:
            if not connected_once:
                print(f"cueboard: cannot reach vrOS: {exc}", file=sys.stderr)
                return 1
            lost_at = lost_at or time.monotonic()
            if time.monotonic() - lost_at > RECONNECT_FOR_S:
                print(
                    f"cueboard: lost vrOS and could not reconnect within {RECONNECT_FOR_S:g} s",
                    file=sys.stderr,
                )
                return 1
            app.board.set_status("status.reconnecting", StatusLevel.WARN)
            log.warning("connection lost (%s); reconnecting", exc)
            await anyio.sleep(delay)
            delay = min(delay * 2, 2.0)
        finally:
            app.client = None
            app.board.client = None
            app.icons.connection_lost()


def main() -> int:
    logging.basicConfig(
        level=os.environ.get("CUEBOARD_LOG", "INFO"),
        format="cueboard %(levelname)s %(message)s",
        stream=sys.stderr,
    )
    try:
        return anyio.run(_run_then_end_workers)
    except KeyboardInterrupt:
        return 130


async def _run_then_end_workers() -> int:
    try:
        return await run()
    finally:
        await close_decode_workers()


__all__ = ["BLANK_ICON_KEY", "Cueboard", "main", "run"]
