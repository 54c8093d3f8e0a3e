"""Cueboard's behaviour as one sans-IO object: :meth:`CueboardCore.handle` takes an input and
the clock, and returns the effects for the runtime to carry out.

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
from pathlib import Path
from random import Random

from cueboard.commands import STATIC_COMMANDS, favourite_command
from cueboard.contract import StatusLevel
from cueboard.i18n import Catalog
from cueboard.settings import Settings
from vxp.models import assets, bus, commands, settings

from . import backup, handlers
from .browse import Browser
from .deck import DeckCore, HostFacts, deck_props
from .effects import Effect, Exit, Log, Notice, Scan, Send, Tickets, Wake, Watch
from .icons import IconsModel
from .importing import Importer
from .inputs import (
    CatalogLoaded,
    Connected,
    Disconnected,
    Failure,
    FileRead,
    FileWritten,
    FolderChanged,
    IconsDecoded,
    Input,
    Reply,
    Scanned,
    Tick,
    default_sounds_folder,
)
from .link_import import FetchFailed, FetchProgress, SoundFetched
from .overlay import blank_icon_asset, channels_text
from .panels import PanelEvents
from .prefs import WAKE as PREFS_WAKE
from .prefs import Prefs
from .props import WAKE as PROPS_WAKE
from .props import PropsModel
from .soundboard import EMPTY_SLOT, Soundboard
from .toast import PANEL as TOAST_PANEL
from .toast import Toast
from .tracker import RETRY_WAKE, Outcome, Tracker, outcome_input
from .views import dash_values, overlay_values, usage_values

__all__ = ["CueboardCore"]

LIFECYCLE = "vr.lifecycle"
STATUS_RECONCILE_S = 1.0
EXIT_GRACE_S = 0.8  # shutting_down: flush, then exit well within the host's grace
VIEWS, STATUS, EXIT, BRIEF = "views", "status", "exit", "brief"
BRIEF_S = 2.0  # how long feedback that needs no action stays on the status line
BRIEF_NOTICES = frozenset({EMPTY_SLOT})


class CueboardCore:
    """State that outlives a connection: settings, library, prefs, what the panels show."""

    def __init__(self, *, rng: Random, data_home: Path, toast_source: str = "") -> None:
        self.rng = rng
        self.tickets = Tickets()
        self.tracker = Tracker(self.tickets, rng)
        self.prefs = Prefs(self.tracker, self._prefs_loaded)
        self.board = Soundboard(self.tracker, self.prefs)
        self.props = PropsModel(self.tracker, start_hidden=[TOAST_PANEL])
        self.toast = Toast(self.tracker, self.props, toast_source)
        self.icons = IconsModel(self.tracker)
        self.deck = DeckCore(self.tickets)
        self.host_facts: HostFacts | None = None
        self.panel_events = PanelEvents()
        self.catalog: Catalog | None = None  # the welcome's locale, from Connected
        self.data_home = data_home
        self.connected = False
        self.ext_id = ""
        self.granted_overlays = False
        self.granted_bus: tuple[str, ...] = ()
        self.granted_network = False
        self.importer = Importer()
        self.content_root: str | None = None
        self.library_folder: Path | None = None
        self.dash = Browser()  # the dash-tab's own place and search
        self.selected: str | None = None
        self.exiting = False
        self.now = 0.0  # the clock value of the input being handled
        self._views_at: float | None = None
        self._status_at: float | None = None
        self._dirty = False
        handlers.register(self)

    # -- the one entry point --------------------------------------------------------------

    def handle(self, item: Input, now: float) -> list[Effect]:
        """Everything the runtime feeds in; never raises on what the host says."""
        self.now = now
        match item:
            case Reply():
                out = self.tracker.on_reply(item, now)
            case Failure():
                out = self.tracker.on_failure(item, now)
            case Tick():
                out = self._tick(item, now)
            case Connected():
                out = self._connected(item, now)
            case Disconnected():
                out = self._disconnected(now)
            case Scanned():
                out = self._scanned(item, now)
            case FolderChanged():
                out = self.rescan("files changed")
            case IconsDecoded():
                out = self.icons.on_decoded(item, now)
            case FileWritten() | FileRead():
                out = backup.on_file(self, item, now)
            case FetchProgress() | SoundFetched() | FetchFailed():
                out = self.importer.on_input(self, item)
            case CatalogLoaded(catalog=catalog):
                self.catalog = catalog
                self.props.set_texts(catalog)
                self._dirty = True
                out = []
            case _:
                out = handlers.event(self, item, now)
        return self._after(out, now)

    def _after(self, out: list[Effect], now: float) -> list[Effect]:
        """Notices go to the status line; a change schedules one refresh of the views;
        messages to publish go out; the exit waits for kv."""
        kept: list[Effect] = []
        for effect in out:
            if isinstance(effect, Notice):
                self.board.status = effect
                self._dirty = True
                kept.append(Log(logging.INFO, f"notice {effect.key}"))
                if effect.key in BRIEF_NOTICES:
                    kept.append(Wake(BRIEF, now + BRIEF_S))
            else:
                kept.append(effect)
        if self.board.published:
            kept += self._publish(now)
        if self.board.playing and self._status_at is None:
            self._status_at = now + STATUS_RECONCILE_S
            kept.append(Wake(STATUS, self._status_at))
        if self.board.changed or self.icons.changed or self._dirty or self.props.waiting:
            self.board.changed = self.icons.changed = False
            self._dirty = False
            if self._views_at is None:
                self._views_at = now
                kept.append(Wake(VIEWS, now))
        if self.exiting and self.prefs.pending == 0:
            kept.append(Exit(0))
        return kept

    def changed(self) -> None:
        self._dirty = True

    # -- ticks ----------------------------------------------------------------------------

    def _tick(self, tick: Tick, now: float) -> list[Effect]:
        key = tick.key
        if key.startswith(RETRY_WAKE):
            return self.tracker.on_tick(tick)
        if key == VIEWS:
            self._views_at = None
            return self.refresh(now)
        if key == PROPS_WAKE:
            return self.props.due(now)
        if key == PREFS_WAKE:
            return self.prefs.on_tick(now)
        if key == STATUS:
            self._status_at = None
            out: list[Effect] = []
            self.board.expire(now)
            showing = self.toast.expire(now)
            self._dirty = True
            if self.connected:
                out += self.board.reconcile(now)
            if showing:
                self._status_at = now + STATUS_RECONCILE_S
                out.append(Wake(STATUS, self._status_at))
            return out
        if key == BRIEF:
            if self.board.status is not None and self.board.status.key in BRIEF_NOTICES:
                self.board.set_status(None)
            return []
        if key == EXIT and self.exiting:
            return [Log(logging.WARNING, "could not save every change in time"), Exit(0)]
        return []

    # -- connection -----------------------------------------------------------------------

    def _connected(self, c: Connected, now: float) -> list[Effect]:
        self.connected = True
        self.ext_id = c.ext_id
        granted = c.welcome.granted
        self.board.audio_granted = granted.audio
        self.granted_overlays = granted.overlays
        self.granted_bus = tuple(granted.bus)
        self.granted_network = granted.network
        self.content_root = c.welcome.content_root
        self.catalog = c.catalog
        self.host_facts = HostFacts(c.version, granted.media, granted.secrets, now)
        self.toast.connected()
        if self.board.status is not None and self.board.status.key == "status.reconnecting":
            self.board.status = None
        return self.tracker.request(
            now, "settings", settings.SettingsList, expect=settings.SettingsValues,
            done=self._settings_read,
        )  # fmt: skip

    def _settings_read(self, outcome: Outcome) -> list[Effect]:
        now = outcome.now
        out: list[Effect] = []
        if outcome.ok:
            entries = [(e.key, e.value) for e in outcome.result.entries]
            self.board.settings = Settings.from_entries(entries)
        else:
            out.append(Log(logging.INFO, f"settings: {outcome.code}; using defaults"))
        if not self.board.audio_granted:
            self.board.set_status("status.no_audio_grant", StatusLevel.ERROR)
        if self.library_folder != self.sounds_folder():
            self.board.scanning = str(self.sounds_folder())
        if self.catalog is not None:
            self.props.set_texts(self.catalog)
        self.props.resend_all()
        out += self.refresh(now, flush=True)
        for spec in STATIC_COMMANDS:
            out += self.register_command(spec.name, now)
        for slug in self.prefs.favourites():
            out += self.register_command(favourite_command(slug), now)
        if self.board.audio_granted:
            out += self.pre_arm(now)
        out += self.tracker.request(
            now, "assets", assets.AssetPut, expect=assets.AssetOk, **blank_icon_asset()
        )
        out += self._subscribe(now)
        if self.host_facts is not None:
            out += self.deck_effects(self.deck.connected(self.host_facts), now)
        out += self.rescan("start")  # beside the preferences' read: the grid waits for neither
        return out + self.prefs.load(now)

    def _prefs_loaded(self, now: float) -> list[Effect]:
        """Favourites and the folders' order are known now: sort, bind the favourites and load
        them ahead (the scan may be in or not; when it comes in, it loads what is visible and
        the favourites too)."""
        self.board.prefs_loaded()
        out: list[Effect] = []
        for slug in self.prefs.favourites():
            out += self.register_command(favourite_command(slug), now)
        return out + self.load_ahead(now)

    def register_command(self, name: str, now: float, *, user_asked: bool = False) -> list[Effect]:
        """A refused command is logged (or shown, if the user asked); it is registered again
        with the next connection, like every other."""
        return self.tracker.request(
            now, "commands", commands.CommandRegister, expect=commands.CommandOk,
            user_asked=user_asked, name=name,
        )  # fmt: skip

    def pre_arm(self, now: float) -> list[Effect]:
        from vxp.models import audio

        channels = ["soundboard"] + (["mic"] if self.board.settings.mic_enabled else [])
        out: list[Effect] = []
        for channel in channels:

            def done(outcome: Outcome, channel: str = channel) -> list[Effect]:
                if outcome.ok or outcome.code in ("closed",):
                    return []
                if outcome.code == "no_endpoint":
                    notice = Notice("status.no_endpoint", StatusLevel.WARN, {"channel": channel})
                    return [notice, Log(logging.INFO, f"pre_arm {channel}: no_endpoint")]
                return [Log(logging.INFO, f"pre_arm {channel}: {outcome.code}")]

            out += self.tracker.request(
                now, "audio", audio.AudioPreArm, expect=audio.AudioOk, done=done, channel=channel
            )
        return out

    def _subscribe(self, now: float) -> list[Effect]:
        patterns = [f"ext.{self.ext_id}.cmd.*"]
        if LIFECYCLE in self.granted_bus:
            patterns.append(LIFECYCLE)
        out: list[Effect] = []
        for pattern in patterns:
            out += self.tracker.request(
                now, "bus", bus.BusSubscribe, expect=bus.BusOk, pattern=pattern
            )
        return out

    def _disconnected(self, now: float) -> list[Effect]:
        self.connected = False
        out = self.tracker.connection_lost(now)
        self.board.connection_lost()
        self.icons.connection_lost()
        self.importer.ticket = None  # the download ended with the connection's tasks
        self.board.set_status("status.reconnecting", StatusLevel.WARN)
        return out

    # -- the library ----------------------------------------------------------------------

    def sounds_folder(self) -> Path:
        configured = self.board.settings.sounds_folder
        if configured:
            return Path(configured)
        return default_sounds_folder(self.content_root, self.data_home)

    def rescan(self, reason: str) -> list[Effect]:
        folder = self.sounds_folder()
        if folder != self.library_folder:  # a folder not scanned yet: the grid says so
            self.board.scanning = str(folder)
            self._dirty = True
        return [Scan(folder, reason)]

    def _scanned(self, scanned: Scanned, now: float) -> list[Effect]:
        library = scanned.library
        out: list[Effect] = []
        if library.root != self.sounds_folder():
            return []  # the folder setting changed meanwhile: its own scan follows
        if library.root != self.library_folder:
            self.library_folder = library.root
            out.append(Watch(library.root))
        self.board.scanning = None
        self.board.set_library(library)
        out.append(
            Log(
                logging.INFO,
                f"library ({scanned.reason}): {len(library.sounds)} sounds in "
                f"{len(library.categories)} categories from {library.root} in "
                f"{scanned.elapsed_ms:.0f} ms",
            )
        )
        # One message for a configured folder that is not there, in the grid (the watcher
        # notices it being created); a missing default folder is an empty library.
        configured = bool(self.board.settings.sounds_folder)
        missing = configured and not scanned.folder_exists
        self.board.folder_missing = str(library.root) if missing else None
        return out + self.load_ahead(now) + self.importer.after_scan(self, now)

    def load_ahead(self, now: float) -> list[Effect]:
        """The visible page changed (or the library): its icons and sounds come first."""
        out: list[Effect] = []
        if not self.connected:
            return out
        if self.library_folder is not None:
            out += self.icons.want(self.library_folder, self.board.visible_sounds(), now)
        return out + self.board.load_ahead(now)

    # -- views ----------------------------------------------------------------------------

    def refresh(self, now: float, *, flush: bool = False) -> list[Effect]:
        """Recompute what the panels show; the props model paces what is sent."""
        cat = self.catalog
        if cat is None:
            return []
        board = self.board
        self.props.update("overlay", overlay_values(board, cat, self.icons.shown, now=now))
        dash = dash_values(board, cat, browser=self.dash, selected=self.selected)
        dash["import-progress"] = self.importer.progress_text(self)
        if self.props.is_visible("dash-tab"):  # diagnostics only while someone looks
            note = "" if self.granted_overlays else cat.t("dash.toast_needs_overlays")
            dash.update(
                usage_values(
                    cat,
                    assets=(len(self.icons.table), self.icons.table.used_bytes),
                    kv_bytes=self.prefs.kv_bytes(),
                    toast_note=note,
                )
            )
        self.props.update("dash-tab", dash)
        for panel, values in deck_props(self.deck.view(), cat).items():
            for name, wire in values.items():
                self.props.set_wire(panel, name, wire)
        if not self.connected:
            return []
        return self.props.flush(now) if flush else self.props.due(now)

    # -- the media deck -------------------------------------------------------------------

    def deck_effects(self, effects: list[Effect], now: float) -> list[Effect]:
        """The deck's requests go through the tracker like every other; their final outcome
        goes back to the deck."""
        out: list[Effect] = []
        for effect in effects:
            if isinstance(effect, Send):
                self.tracker.track(effect, now, self._deck_outcome)
            out.append(effect)
        self._dirty = True
        return out

    def _deck_outcome(self, outcome: Outcome) -> list[Effect]:
        return self.deck_effects(self.deck.outcome(outcome_input(outcome)), outcome.now)

    # -- what a play tells others ---------------------------------------------------------

    def _publish(self, now: float) -> list[Effect]:
        published, self.board.published = self.board.published, []
        out: list[Effect] = []
        if not self.connected:
            return out
        for kind, payload in published:
            out += self.tracker.request(
                now, "bus", bus.BusPublish, expect=bus.BusOk,
                topic=f"ext.{self.ext_id}.{kind}", payload=payload,
            )  # fmt: skip
            if kind == "played":
                out += self._toast(str(payload["path"]), str(payload["name"]), now)
        return out

    def _toast(self, rel: str, name: str, now: float) -> list[Effect]:
        if not self.board.settings.now_playing_toast or not self.granted_overlays:
            return []
        playing = self.board.playing.get(rel)
        channels = ""
        if playing is not None and self.catalog is not None:
            gains = dict(playing.channels)
            channels = channels_text(self.catalog, gains.get("soundboard", 0), gains.get("mic"))
        out = self.toast.show(name, now, channels=channels, icon=self.icons.shown.get(rel))
        if self._status_at is None:
            self._status_at = now + STATUS_RECONCILE_S
            out.append(Wake(STATUS, self._status_at))
        return out

    # -- shutting down --------------------------------------------------------------------

    def shutting_down(self, now: float) -> list[Effect]:
        """Flush what the user changed, then exit 0 (EVT-2): within the host's grace."""
        self.exiting = True
        out = self.prefs.flush(now) + self.refresh(now, flush=True)
        return [*out, Wake(EXIT, now + EXIT_GRACE_S)]
