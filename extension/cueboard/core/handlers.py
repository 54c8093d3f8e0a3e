"""What each host event, command, setting, bus message and panel callback does to the core.

Functions of :class:`~cueboard.core.app.CueboardCore` kept apart so that the class holds the
connection's life and this module the features' reactions; each returns effects.
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING, Any

from cueboard.commands import favourite_command, slot_of
from cueboard.contract import StatusLevel
from vxp.models import audio, bus, commands, events, kv

from . import sound_editor
from .bus_api import on_bus
from .command_names import Refused, name_favourite
from .effects import Effect, LoadCatalog, Log, Notice
from .inputs import TaskCounts
from .sound_editor import pct
from .soundboard import EMPTY_SLOT
from .tracker import Outcome

if TYPE_CHECKING:
    from .app import CueboardCore

__all__ = ["event", "register"]


def event(core: CueboardCore, item: object, now: float) -> list[Effect]:
    if type(item) is events.CommandInvoked:  # a press: the first thing looked at
        return on_command(core, item.command, now)
    board = core.board
    deck = core.deck.event(item)
    if deck is not None:  # media_snapshot, media_control
        return core.deck_effects(deck, now)
    match item:
        case events.CommandInvoked(command=command):
            return on_command(core, command, now)
        case events.PanelEvent(panel=panel, callback=callback, args=args):
            return core.panel_events.dispatch(panel, callback, [a.model_dump() for a in args])
        case events.PanelShown(panel=panel):
            if not core.props.panel_shown(panel):
                return [Log(logging.DEBUG, f"panel_shown for {panel!r}, not in the contract")]
            core.changed()
            if panel == "overlay":
                return core.load_ahead(now)
            if panel == "dash-tab":
                return refresh_devices(core, now)
            return []
        case events.PanelHidden(panel=panel):
            core.props.panel_hidden(panel)
            return []
        case events.AudioLoaded(sound=sound, outcome=outcome):
            return board.on_audio_loaded(sound, outcome, now) + core.importer.after_load(core)
        case events.SettingsChanged(key=key, value=value):
            return on_setting(core, key, value, now)
        case events.LocaleChanged(locale=locale):
            return [LoadCatalog(locale)]
        case events.BusMessage(topic=topic, payload=payload):
            return on_bus(core, topic, payload, now)
        case events.VrLifecycle(state=state):
            if state == "quitting":
                return core.prefs.flush(now)
            if state == "detached":
                return board.stop_looping(now)
            return []
        case events.ShuttingDown():
            return core.shutting_down(now)
        case TaskCounts(tasks=tasks, timers=timers):
            return publish_debug(core, tasks, timers, now)
        case _:
            return [Log(logging.DEBUG, f"skipped event {getattr(item, 'event', '?')}")]


def on_command(core: CueboardCore, command: str, now: float) -> list[Effect]:
    board = core.board
    slot = slot_of(command)
    if slot is not None:
        return board.play_slot(slot, now)
    if command.startswith("fav-"):
        rel = core.prefs.favourites().get(command.removeprefix("fav-"))
        return board.press(rel, now) if rel is not None else []
    match command:
        case "stop-all":
            return board.stop_all(now)
        case "page-next" | "page-prev":
            board.turn_page(1 if command == "page-next" else -1)
            return core.load_ahead(now)
        case "play-random":
            return board.play_random(core.rng, now)
        case "toggle-mic":
            return write_setting(core, "mic_enabled", not board.settings.mic_enabled, now)
        case "rescan":
            return core.rescan("command")
        case _:
            return [Log(logging.DEBUG, f"unknown command {command}")]


def on_setting(core: CueboardCore, key: str, value: Any, now: float) -> list[Effect]:
    board = core.board
    before = board.settings
    board.settings = before.with_value(key, value)
    after = board.settings
    if after == before:
        return []
    core.changed()
    out: list[Effect] = [Log(logging.INFO, f"setting {key} changed")]
    if key == "sounds_folder":
        out += core.rescan("folder changed")
    elif key == "normalize":
        for rel, st in board.states.items():  # loudness changed: load again
            if st.status in ("loaded", "loading"):
                board.forget_load(rel)
        out += core.load_ahead(now)
    elif key == "mic_enabled" and after.mic_enabled and core.connected:
        out += core.pre_arm(now)
    return out


def write_setting(core: CueboardCore, key: str, value: Any, now: float) -> list[Effect]:
    """Our own writes of a setting are ordinary kv sets (SET-18)."""
    board = core.board
    board.settings = board.settings.with_value(key, value)
    core.changed()
    out: list[Effect] = []
    if core.connected:
        out += core.tracker.request(
            now, "kv", kv.KvSet, expect=kv.KvWritten, user_asked=True, key=key, value=value
        )
    if key == "mic_enabled" and value:
        out += core.pre_arm(now)
    return out


def publish_debug(core: CueboardCore, tasks: int, timers: int, now: float) -> list[Effect]:
    """``cmd.debug``'s answer on ``ext.<id>.debug``: what the runtime is running, so that a
    soak can compare two idle moments from outside the process."""
    if not core.connected:
        return []
    return core.tracker.request(
        now, "bus", bus.BusPublish, expect=bus.BusOk,
        topic=f"ext.{core.ext_id}.debug", payload={"tasks": tasks, "timers": timers},
    )  # fmt: skip


def set_favourite(core: CueboardCore, rel: str, on: bool, now: float) -> list[Effect]:
    st = core.board.states.get(rel)
    if st is None:
        return []
    current = core.prefs.get(rel).favourite
    favourites = core.prefs.favourites()
    out: list[Effect] = []
    if on and current is None:
        named = name_favourite(st.sound.name, set(favourites))  # given names stay: they're bound
        if isinstance(named, Refused):
            core.changed()  # the toggle goes back off, and the status line says why
            return [Notice(named.message_key, StatusLevel.WARN, {"limit": named.limit})]
        slug = named.slug
        out += core.prefs.update(rel, now, favourite=slug)
        if core.connected:
            out += core.register_command(favourite_command(slug), now, user_asked=True)
        out += core.board.ensure_loaded(rel, now)
    elif not on and current is not None:
        out += core.prefs.update(rel, now, favourite=None)
        if core.connected:
            out += core.tracker.request(
                now, "commands", commands.CommandUnregister, expect=commands.CommandOk,
                user_asked=True, name=favourite_command(current),
            )  # fmt: skip
    core.board.favourites_changed()
    core.changed()
    return out


def refresh_devices(core: CueboardCore, now: float) -> list[Effect]:
    """Channels, then devices, into the dash-tab (read only while it is shown)."""
    if not core.connected or not core.board.audio_granted:
        return []

    def channels_read(outcome: Outcome) -> list[Effect]:
        if not outcome.ok:
            return []
        cat = core.catalog
        if cat is not None:
            rows = [
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
                for c in outcome.result.channels
            ][:16]
            core.props.update("dash-tab", {"channels": rows})
            core.changed()
        return core.tracker.request(
            outcome.now, "audio", audio.AudioListDevices, expect=audio.AudioDevices,
            done=devices_read,
        )  # fmt: skip

    def devices_read(outcome: Outcome) -> list[Effect]:
        if outcome.ok:
            r = outcome.result
            rows = [(e.name or e.id, e.id == r.default_endpoint) for e in r.endpoints][:64]
            core.props.update("dash-tab", {"devices": rows})
            core.changed()
        return []

    return core.tracker.request(
        now, "audio", audio.AudioListChannels, expect=audio.AudioChannels, done=channels_read
    )


def register(core: CueboardCore) -> None:
    """Every panel callback of the contract, bound to what it does."""
    on = core.panel_events.on
    board = core.board

    @on("overlay", "play-sound")
    def play_sound(key: str) -> list[Effect]:
        if key == "":  # an empty tile
            return [Notice(EMPTY_SLOT, StatusLevel.INFO)]
        if key in board.states:
            board.pressed = key
        return board.press(key, core.now)

    @on("overlay", "set-favourite")
    def overlay_favourite(key: str, value: bool) -> list[Effect]:
        return set_favourite(core, key, value, core.now)

    @on("overlay", "open-folder")
    def open_folder(key: str) -> list[Effect]:
        board.open_folder(key)
        return core.load_ahead(core.now)

    @on("overlay", "stop-sound")
    def stop_sound(key: str) -> list[Effect]:
        return board.stop(key, core.now)

    @on("overlay", "stop-all")
    def stop_all() -> list[Effect]:
        return board.stop_all(core.now)

    @on("overlay", "page-next")
    def page_next() -> list[Effect]:
        return on_command(core, "page-next", core.now)

    @on("overlay", "page-prev")
    def page_prev() -> list[Effect]:
        return on_command(core, "page-prev", core.now)

    @on("overlay", "search-changed")
    def search_changed(query: str) -> list[Effect]:
        board.search(query)
        return core.load_ahead(core.now)

    @on("overlay", "set-soundboard-gain")
    def set_soundboard_gain(value: int) -> list[Effect]:
        return write_setting(core, "soundboard_gain", pct(value), core.now)

    @on("overlay", "set-mic-gain")
    def set_mic_gain(value: int) -> list[Effect]:
        return write_setting(core, "mic_gain", pct(value), core.now)

    @on("overlay", "set-mic-enabled")
    def set_mic_enabled(value: bool) -> list[Effect]:
        return write_setting(core, "mic_enabled", value, core.now)

    @on("overlay", "dismiss-status")
    @on("dash-tab", "dismiss-status")
    def dismiss() -> list[Effect]:
        board.set_status(None)
        return []

    @on("dash-tab", "library-search")
    def library_search(query: str) -> list[Effect]:
        core.dash.search(query)
        core.changed()
        return []

    @on("dash-tab", "library-page-next")
    def library_next() -> list[Effect]:
        core.dash.turn(board.shelf, 1)
        core.changed()
        return []

    @on("dash-tab", "library-page-prev")
    def library_prev() -> list[Effect]:
        core.dash.turn(board.shelf, -1)
        core.changed()
        return []

    @on("dash-tab", "open-folder")
    def library_folder(key: str) -> list[Effect]:
        core.dash.open(board.shelf, key)
        core.changed()
        return []

    @on("dash-tab", "select-sound")
    def select(key: str) -> list[Effect]:
        core.selected = key if key in board.states else None
        core.changed()
        return []

    @on("dash-tab", "set-sound-favourite")
    def favourite(key: str, value: bool) -> list[Effect]:
        return set_favourite(core, key, value, core.now)

    @on("dash-tab", "rescan")
    def rescan() -> list[Effect]:
        return core.rescan("dash-tab")

    @on("dash-tab", "refresh-devices")
    def devices() -> list[Effect]:
        return refresh_devices(core, core.now)

    sound_editor.register(core)
    _register_deck(core)


def _register_deck(core: CueboardCore) -> None:
    """The deck's callbacks, handed to the deck's core (their arguments may hold a URL)."""
    on = core.panel_events.on
    calls: dict[tuple[str, str], tuple[str, tuple[str, ...]]] = {
        ("overlay", "media-open"): ("open", ()),
        ("overlay", "media-reload"): ("reload", ()),
        ("overlay", "media-close"): ("close", ()),
        ("overlay", "media-retry"): ("retry", ()),
        ("overlay", "media-pause-all"): ("pause_all", ()),
        ("overlay", "media-set-paused"): ("set_options", ("paused",)),
        ("overlay", "media-set-volume"): ("set_options", ("volume_pct",)),
        ("overlay", "media-set-muted"): ("set_options", ("muted",)),
        ("dash-tab", "set-media-show-video"): ("set_defaults", ("show_video",)),
        ("dash-tab", "set-media-max-fps"): ("set_defaults", ("max_fps",)),
        ("dash-tab", "set-media-native-controls"): ("set_defaults", ("native_controls",)),
        ("dash-tab", "set-media-controls-on-player"): ("set_defaults", ("controls_on_player",)),
    }
    for (panel, callback), (method, named) in calls.items():

        def call(
            *args: object, method: str = method, named: tuple[str, ...] = named
        ) -> list[Effect]:
            positional = args[: len(args) - len(named)]
            options = dict(zip(named, args[len(args) - len(named) :], strict=True))
            effects: list[Effect] = getattr(core.deck, method)(*positional, **options)
            return core.deck_effects(effects, core.now)

        on(panel, callback)(call)
