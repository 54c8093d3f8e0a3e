"""Cueboard's behaviour as one sans-IO object: :meth:`CueboardCore.handle` takes an input and
the clock, and returns the effects for the runtime to carry out.

``handle`` is the one router: it matches the closed union of inputs exhaustively and hands
each to the feature that owns it (panel callbacks through the one table in
:mod:`cueboard.core.routes`).
The features are objects built here, each handed a narrow context; none imports this module.

Start-up after hello, in this order: read the settings; then send the overlay its first props
(it says it is scanning the sounds folder), register the commands, pre-arm the soundboard (and
mic) channel and put the blank icon; then subscribe, and scan the library while the preferences
are read; the visible page and the favourites are loaded ahead as each arrives. Nothing waits
for ``pre_arm`` (a slow host answers it after seconds): the grid shows once the scan is in.
Nothing the host answers ends the process: every outcome passes the request tracker and its
policy. Only ``shutting_down`` ends it here (with :class:`Exit` once kv is flushed).
"""

from __future__ import annotations

import logging
from functools import cached_property
from pathlib import Path
from random import Random
from typing import TYPE_CHECKING, assert_never

from cueboard.core.contract import StatusLevel
from cueboard.core.settings import Settings
from vxp.models import assets, bus, events, settings

from .backup import Backup
from .controls import Controls
from .deck import DeckCore, HostFacts
from .editing import WAITS, Editing, SoundRendered
from .effects import Effect, Exit, LoadCatalog, Log, Tickets, Wake
from .folder import SoundsFolder
from .icons import IconsModel
from .importing import Importer
from .inputs import (
    CatalogLoaded,
    Connected,
    Disconnected,
    Failure,
    FetchFailed,
    FetchProgress,
    FileRead,
    FileWritten,
    FolderChanged,
    IconsDecoded,
    Input,
    Reply,
    Scanned,
    SoundFetched,
    TaskCounts,
    Tick,
    WaveformDrawn,
)
from .link import HostLink
from .overlay import blank_icon_asset
from .panels import PanelEvents
from .prefs import WAKE as PREFS_WAKE
from .prefs import Prefs
from .props import WAKE as PROPS_WAKE
from .props import PropsModel
from .routes import panel_routes
from .screen import BRIEF, STATUS, VIEWS, Screen
from .soundboard import Soundboard
from .toast import PANEL as TOAST_PANEL
from .toast import Toast
from .tracker import RETRY_WAKE, Outcome, Tracker

if TYPE_CHECKING:
    from .bus_api import BusApi

__all__ = ["CueboardCore"]

LIFECYCLE = "vr.lifecycle"
EXIT_GRACE_S = 0.8  # shutting_down: flush, then exit well within the host's grace
EXIT = "exit"


class CueboardCore:
    """The router, and the features it routes to (state that outlives a connection)."""

    def __init__(self, *, rng: Random, data_home: Path, toast_source: str = "") -> None:
        self.now = 0.0  # the clock value of the input being handled
        self.exiting = False
        self.link = HostLink()
        self.tickets = Tickets()
        self.tracker = Tracker(self.tickets, rng)
        self.prefs = Prefs(self.tracker, self._prefs_loaded)
        self.board = Soundboard(self.tracker, self.prefs)
        self.editing = Editing(self.tracker, self.board)
        self.props = PropsModel(self.tracker, start_hidden=[TOAST_PANEL])
        self.toast = Toast(self.tracker, self.props, toast_source)
        self.icons = IconsModel(self.tracker)
        self.deck = DeckCore(self.tracker, lambda: self.now)
        self.host_facts: HostFacts | None = None
        self.importer = Importer(
            self.tickets, self.link, self.board,
            rescan=self._rescan, changed=self.changed,
        )  # fmt: skip
        self.screen = Screen(
            self.tracker, self.board, self.prefs, self.props, self.toast, self.icons,
            self.deck, self.link, import_progress=self.importer.progress_text,
        )  # fmt: skip
        self.folder = SoundsFolder(
            self.board, self.icons, self.link, data_home,
            after_scan=self.importer.after_scan, changed=self.changed,
        )  # fmt: skip
        self.controls = Controls(
            self.tracker, self.board, self.prefs, self.link, rng,
            rescan=self.folder.rescan, load_ahead=self.folder.load_ahead, changed=self.changed,
            landed=self.screen.show_place, moved=self.screen.follow,
        )  # fmt: skip
        self.backup = Backup(
            self.prefs, self.deck, self.link,
            has_sound=lambda rel: rel in self.board.states,
            publish=lambda kind, payload: self.board.published.append((kind, payload)),
            register_command=self.controls.register_command,
            sounds_folder=self.folder.path, changed=self.changed,
        )  # fmt: skip
        self.panel_events = PanelEvents()
        routes = panel_routes(
            self.controls, self.screen, self.board, self.folder, self.editing, self.importer,
            self.backup, self.deck, import_link=self._import_link, changed=self.changed,
        )  # fmt: skip
        for (panel, callback), handler in routes.items():
            self.panel_events.on(panel, callback)(handler)

    @cached_property
    def bus(self) -> BusApi:
        from .bus_api import BusApi  # other extensions' requests: none before the first props

        return BusApi(self.tracker, self.board, self.prefs, self.backup, self.link,
                      changed=self.changed)  # fmt: skip

    @property
    def connected(self) -> bool:
        return self.link.connected

    def sounds_folder(self) -> Path:
        """Where the runtime puts an imported sound."""
        return self.folder.path()

    def _rescan(self, reason: str) -> list[Effect]:  # the folder is built after the importer
        return self.folder.rescan(reason)

    def changed(self) -> None:
        self.screen.changed()

    # -- the one router -------------------------------------------------------------------

    def handle(self, item: Input, now: float) -> list[Effect]:
        """Everything the runtime feeds in; never raises on what the host says."""
        self.now = now
        match item:
            case events.CommandInvoked(command=command):  # a press: the first thing looked at
                out = self.controls.on_command(command, now)
            case Reply():
                out = self.tracker.on_reply(item, now)
                if self.importer.waiting:  # a load's reply may apply an audio_loaded it overtook
                    out += self.importer.after_load()
            case Failure():
                out = self.tracker.on_failure(item, now)
            case Tick():
                out = self._tick(item, now)
            case events.PanelEvent(panel=panel, callback=callback, args=args):
                values = [a.model_dump() for a in args]
                out = self.panel_events.dispatch(panel, callback, values, now)
            case events.AudioLoaded(sound=sound, outcome=outcome):
                out = self.editing.audio_loaded(sound, outcome, now) + self.importer.after_load()
            case events.MediaSnapshot() | events.MediaControl():
                out = self.deck.event(item) or []
                self.changed()
            case events.PanelShown(panel=panel):
                out = self._panel_shown(panel, now)
            case events.PanelHidden(panel=panel):
                self.props.panel_hidden(panel)
                out = []
            case events.SettingsChanged(key=key, value=value):
                out = self.controls.on_setting(key, value, now)
            case events.LocaleChanged(locale=locale):
                out = list[Effect]([LoadCatalog(locale)])
            case events.BusMessage(topic=topic, payload=payload):
                out = self.bus.on_message(topic, payload, now)
            case events.VrLifecycle(state=state):
                out = self._lifecycle(state, now)
            case events.ShuttingDown():
                out = self._shutting_down(now)
            case events.FaceUpdate() | events.UnknownEvent():
                out = list[Effect]([Log(logging.DEBUG, f"skipped event {item.event}")])
            case Connected():
                out = self._connected(item, now)
            case Disconnected():
                out = self._disconnected(now)
            case Scanned():
                out = self.folder.on_scanned(item, now)
            case FolderChanged():
                out = self.folder.rescan("files changed")
            case IconsDecoded() | WaveformDrawn():
                out = self.screen.on_drawn(item, now)
            case FileWritten() | FileRead():
                out = self.backup.on_file(item, now)
            case FetchProgress() | SoundFetched() | FetchFailed():
                out = self.importer.on_input(item)
            case SoundRendered():
                out = self.editing.on_rendered(item, now)
            case CatalogLoaded(catalog=catalog):
                self.link.catalog = catalog
                self.props.set_texts(catalog)
                self.changed()
                out = []
            case TaskCounts(tasks=tasks, timers=timers):
                out = self.bus.publish_debug(tasks, timers, now)
            case _:
                assert_never(item)
        return self._after(out, now)

    def _import_link(self, link: str, now: float) -> list[Effect]:
        folder = self.screen.dash.view(self.board.shelf).folder
        category = folder.category if folder is not None and folder.category else ""
        return self.importer.start(link, category)

    def _after(self, out: list[Effect], now: float) -> list[Effect]:
        """Notices go to the status line; what a play tells others goes out; a change
        schedules one refresh of the views; the exit waits for kv."""
        self.board.sync_played()
        kept = self.screen.show_notices(out, now)
        if self.board.published:
            published, self.board.published = self.board.published, []
            kept += self.bus.publish(published, now)
            if self.link.connected:
                for kind, payload in published:
                    if kind == "played":
                        rel, name = str(payload["path"]), str(payload["name"])
                        kept += self.screen.show_toast(rel, name, now)
        kept += self.screen.schedule(now)
        if self.exiting and self.prefs.pending == 0:
            kept.append(Exit(0))
        return kept

    def _tick(self, tick: Tick, now: float) -> list[Effect]:
        key = tick.key
        if key.startswith(RETRY_WAKE):
            return self.tracker.on_tick(tick)
        if key.startswith(WAITS):  # a press waiting for its pace or its render
            return self.editing.waited(key, now)
        if key == VIEWS:
            return self.screen.on_views(now)
        if key == PROPS_WAKE:
            return self.props.due(now)
        if key == PREFS_WAKE:
            return self.prefs.on_tick(now)
        if key == STATUS:
            return self.screen.on_status(now)
        if key == BRIEF:
            return self.screen.on_brief()
        if key == EXIT and self.exiting:
            return [Log(logging.WARNING, "could not save every change in time"), Exit(0)]
        return []

    def _panel_shown(self, panel: str, now: float) -> list[Effect]:
        if not self.props.panel_shown(panel):
            return [Log(logging.DEBUG, f"panel_shown for {panel!r}, not in the contract")]
        self.changed()
        if panel == "overlay":
            return self.folder.load_ahead(now)
        if panel == "dash-tab":
            return self.screen.refresh_devices(now)
        return []

    def _lifecycle(self, state: str, now: float) -> list[Effect]:
        if state == "quitting":
            return self.prefs.flush(now)
        if state == "detached":
            return self.board.stop_looping(now)
        return []

    # -- the connection's life ------------------------------------------------------------

    def _connected(self, c: Connected, now: float) -> list[Effect]:
        granted, link = c.welcome.granted, self.link
        link.connected, link.ext_id, link.catalog = True, c.ext_id, c.catalog
        link.overlays, link.network = granted.overlays, granted.network
        link.bus = tuple(granted.bus)
        link.content_root = c.welcome.content_root
        self.board.audio_granted = granted.audio
        if c.unix_s is not None:
            self.board.history.set_wall_clock(c.unix_s, now)
        self.host_facts = HostFacts(c.version, granted.media, granted.secrets, now)
        self.toast.connected()
        if self.board.status is not None and self.board.status.key == "status.reconnecting":
            self.board.status = None
        return self.tracker.request(
            now, "settings", settings.SettingsList, expect=settings.SettingsValues,
            done=self._settings_read,
        )  # fmt: skip

    def _settings_read(self, outcome: Outcome) -> list[Effect]:
        now, board = outcome.now, self.board
        out: list[Effect] = []
        if outcome.ok:
            entries = [(e.key, e.value) for e in outcome.result.entries]
            board.settings = Settings.from_entries(entries)
        else:
            out.append(Log(logging.INFO, f"settings: {outcome.code}; using defaults"))
        if not board.audio_granted:
            board.set_status("status.no_audio_grant", StatusLevel.ERROR)
        if self.folder.scanned_root != self.folder.path():
            board.scanning = str(self.folder.path())
        if self.link.catalog is not None:
            self.props.set_texts(self.link.catalog)
        self.props.resend_all()
        out += self.screen.refresh(now, flush=True)
        out += self.controls.register_all(now)
        if board.audio_granted:
            out += self.controls.pre_arm(now)
        out += self.tracker.request(
            now, "assets", assets.AssetPut, expect=assets.AssetOk, done=self.icons.blank_put,
            **blank_icon_asset(),
        )  # fmt: skip
        out += self._subscribe(now)
        if self.host_facts is not None:
            out += self.deck.connected(self.host_facts)
            self.changed()
        out += self.folder.rescan("start")  # beside the preferences' read: waits for neither
        return out + self.prefs.load(now)

    def _prefs_loaded(self, now: float) -> list[Effect]:
        """Favourites and the folders' order are known now: sort, bind the favourites and load
        them ahead (the scan may be in or not; when it comes in, it loads what is visible and
        the favourites too)."""
        out = self.folder.prefs_settled(now)
        self.board.prefs_loaded()
        return out + self.controls.register_favourites(now) + self.folder.load_ahead(now)

    def _subscribe(self, now: float) -> list[Effect]:
        patterns = [f"ext.{self.link.ext_id}.cmd.*"]
        if LIFECYCLE in self.link.bus:
            patterns.append(LIFECYCLE)
        out: list[Effect] = []
        for pattern in patterns:
            out += self.tracker.request(
                now, "bus", bus.BusSubscribe, expect=bus.BusOk, pattern=pattern
            )
        return out

    def _disconnected(self, now: float) -> list[Effect]:
        self.link.connected = False
        out = self.tracker.connection_lost(now)
        self.board.connection_lost()
        self.screen.connection_lost()
        self.importer.connection_lost()
        self.board.set_status("status.reconnecting", StatusLevel.WARN)
        return out

    def _shutting_down(self, now: float) -> list[Effect]:
        """Flush what the user changed, then exit 0 (EVT-2): within the host's grace."""
        self.exiting = True
        out = self.prefs.flush(now) + self.screen.refresh(now, flush=True)
        return [*out, Wake(EXIT, now + EXIT_GRACE_S)]
