"""Favourites, commands and settings: what a bound command, a setting, a favourite toggle or
an edit of one sound in the dash-tab does.

A feature object with a narrow context: the tracker it asks through, the soundboard and the
preferences it changes, the connection's facts, and the two things it asks of the library
(``rescan``, ``load_ahead``) as callables. It never sees the router.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping
from functools import partial
from random import Random
from typing import Any, Protocol

from cueboard.core.commands import FOLDER_STEPS, STATIC_COMMANDS, favourite_command, slot_of
from cueboard.core.contract import StatusLevel
from cueboard.core.library import Sound
from cueboard.core.settings import Settings
from vxp.models import audio, commands, kv

from .browse import Browser, Shelf
from .command_names import Refused, name_favourite
from .editor import field_changes, nearest_trim_changes, targets_of
from .effects import Effect, Log, Notice
from .link import HostLink
from .outcomes import Outcome, notice_for
from .prefs import MODES, SoundPrefs
from .sound_state import SoundState
from .soundboard import EMPTY_SLOT
from .tracker import Tracker

__all__ = ["NO_FAVOURITES", "Controls", "pct"]

NO_FAVOURITES = "status.no_favourites"  # open-favourites with none: said briefly, then cleared

type Plan = Callable[[float], list[Effect]]


def pct(value: int) -> int:
    """A gain from a panel, kept within the protocol's 0-100."""
    return min(100, max(0, value))


class ControlsBoard(Protocol):
    """What the controls read and call of the soundboard."""

    settings: Settings
    pressed: str | None

    @property
    def states(self) -> Mapping[str, SoundState]: ...

    def visible_sounds(self) -> list[Sound]: ...

    def press(self, rel: str, now: float) -> list[Effect]: ...

    def stop_all(self, now: float) -> list[Effect]: ...

    def turn_page(self, delta: int) -> None: ...

    def navigate(self, how: Callable[[Browser, Shelf], bool]) -> bool: ...

    def open_folder(self, key: str) -> None: ...

    def search(self, query: str) -> None: ...

    def forget_load(self, rel: str) -> None: ...

    def ensure_loaded(self, rel: str, now: float) -> list[Effect]: ...

    def favourites_changed(self) -> None: ...

    def move(self, rel: str, to: int, now: float) -> list[Effect]: ...


class ControlsPrefs(Protocol):
    """What the controls read and write of the per-sound preferences."""

    def favourites(self) -> dict[str, str]: ...

    def get(self, rel_path: str) -> SoundPrefs: ...

    def update(self, rel_path: str, now: float, **changes: Any) -> list[Effect]: ...


class Controls:
    def __init__(
        self,
        tracker: Tracker,
        board: ControlsBoard,
        prefs: ControlsPrefs,
        link: HostLink,
        rng: Random,
        *,
        rescan: Callable[[str], list[Effect]],
        load_ahead: Plan,
        changed: Callable[[], None],
        landed: Callable[[float, str | None], list[Effect]] = lambda now, note: [],
        moved: Callable[[str], None] = lambda key: None,
    ) -> None:
        self._tracker = tracker
        self._board = board
        self._prefs = prefs
        self._link = link
        self._rng = rng
        self._rescan = rescan
        self._load_ahead = load_ahead
        self._changed = changed
        self._landed = landed  # says where paging landed, when the overlay is closed
        self._moved = moved  # the dash-tab's list follows a moved sound to its page

    # -- commands -------------------------------------------------------------------------

    def on_command(self, command: str, now: float) -> list[Effect]:
        board = self._board
        slot = slot_of(command)
        if slot is not None:
            return self._play_slot(slot, now)
        if command.startswith("fav-"):
            rel = self._prefs.favourites().get(command.removeprefix("fav-"))
            return board.press(rel, now) if rel is not None else []
        match command:
            case "stop-all":
                return board.stop_all(now)
            case "page-next" | "page-prev":
                board.turn_page(1 if command == "page-next" else -1)
                return self._load_ahead(now) + self._landed(now, None)
            case "folder-next" | "folder-prev" | "folder-jump-next" | "folder-jump-prev":
                board.navigate(partial(Browser.step, delta=FOLDER_STEPS[command]))
                return self._load_ahead(now) + self._landed(now, None)
            case "open-favourites":
                if not board.navigate(Browser.toggle_favourites):
                    return [
                        Notice(NO_FAVOURITES, StatusLevel.INFO),
                        *self._landed(now, NO_FAVOURITES),
                    ]
                return self._load_ahead(now) + self._landed(now, None)
            case "play-random":
                return self._play_random(now)
            case "toggle-mic":
                return self.write_setting("mic_enabled", not board.settings.mic_enabled, now)
            case "rescan":
                return self._rescan("command")
            case _:
                return [Log(logging.DEBUG, f"unknown command {command}")]

    def _play_slot(self, slot: int, now: float) -> list[Effect]:
        """``play-slot-N``: the Nth tile of the page the overlay shows."""
        board = self._board
        sounds = board.visible_sounds()
        if 1 <= slot <= len(sounds):
            board.pressed = sounds[slot - 1].rel_path
            return board.press(board.pressed, now)
        return [Notice(EMPTY_SLOT, StatusLevel.INFO)]

    def _play_random(self, now: float) -> list[Effect]:
        board = self._board
        sounds = [s for s in board.visible_sounds() if not s.too_large and s.problem is None]
        if sounds:
            board.pressed = self._rng.choice(sounds).rel_path
            return board.press(board.pressed, now)
        return []

    def register_all(self, now: float) -> list[Effect]:
        """Every command, the favourites' too (again with each connection)."""
        out: list[Effect] = []
        for spec in STATIC_COMMANDS:
            out += self.register_command(spec.name, now)
        return out + self.register_favourites(now)

    def register_favourites(self, now: float) -> list[Effect]:
        out: list[Effect] = []
        for slug in self._prefs.favourites():
            out += self.register_command(favourite_command(slug), now)
        return out

    def register_command(self, name: str, now: float, *, user_asked: bool = False) -> list[Effect]:
        """A refused command is logged (or shown, if the user asked); it is registered again
        with the next connection, like every other."""
        return self._tracker.request(
            now, "commands", commands.CommandRegister, expect=commands.CommandOk,
            user_asked=user_asked, name=name,
        )  # fmt: skip

    # -- the overlay's buttons ------------------------------------------------------------

    def press_tile(self, key: str, now: float) -> list[Effect]:
        if key == "":  # an empty tile
            return [Notice(EMPTY_SLOT, StatusLevel.INFO)]
        if key in self._board.states:
            self._board.pressed = key
        return self._board.press(key, now)

    def open_folder(self, key: str, now: float) -> list[Effect]:
        self._board.open_folder(key)
        return self._load_ahead(now)

    def search(self, query: str, now: float) -> list[Effect]:
        self._board.search(query)
        return self._load_ahead(now)

    # -- settings -------------------------------------------------------------------------

    def on_setting(self, key: str, value: Any, now: float) -> list[Effect]:
        board = self._board
        before = board.settings
        board.settings = before.with_value(key, value)
        after = board.settings
        if after == before:
            return []
        self._changed()
        out: list[Effect] = [Log(logging.INFO, f"setting {key} changed")]
        if key == "sounds_folder":
            out += self._rescan("folder changed")
        elif key == "normalize":
            for rel, st in board.states.items():  # loudness changed: load again
                if st.status in ("loaded", "loading"):
                    board.forget_load(rel)
            out += self._load_ahead(now)
        elif key == "mic_enabled" and after.mic_enabled and self._link.connected:
            out += self.pre_arm(now)
        return out

    def write_setting(self, key: str, value: Any, now: float) -> list[Effect]:
        """Our own writes of a setting are ordinary kv sets (SET-18)."""
        board = self._board
        board.settings = board.settings.with_value(key, value)
        self._changed()
        out: list[Effect] = []
        if self._link.connected:
            out += self._tracker.request(
                now, "kv", kv.KvSet, expect=kv.KvWritten, user_asked=True, key=key, value=value
            )
        if key == "mic_enabled" and value:
            out += self.pre_arm(now)
        return out

    def write_gain(self, key: str, value: int, now: float) -> list[Effect]:
        return self.write_setting(key, pct(value), now)

    def pre_arm(self, now: float) -> list[Effect]:
        """Arm the soundboard channel (and the mic's) ahead of the first play. What the policy
        has a person told (no endpoint for a channel) is said, naming the channel."""
        settings = self._board.settings
        channels = ["soundboard"] + (["mic"] if settings.mic_enabled else [])
        out: list[Effect] = []
        for channel in channels:

            def done(outcome: Outcome, channel: str = channel) -> list[Effect]:
                if outcome.rule is None or not outcome.rule.told:
                    return []  # logged by the tracker
                said = Log(logging.INFO, f"pre_arm {channel}: {outcome.code}")
                return [notice_for(outcome, channel=channel), said]

            out += self._tracker.request(
                now, "audio", audio.AudioPreArm, expect=audio.AudioOk, done=done, channel=channel
            )
        return out

    # -- favourites -----------------------------------------------------------------------

    def set_favourite(self, rel: str, on: bool, now: float) -> list[Effect]:
        st = self._board.states.get(rel)
        if st is None:
            return []
        prefs = self._prefs
        current = prefs.get(rel).favourite
        favourites = prefs.favourites()
        out: list[Effect] = []
        if on and current is None:
            named = name_favourite(st.sound.name, set(favourites))  # given names stay: bound
            if isinstance(named, Refused):
                self._changed()  # the toggle goes back off, and the status line says why
                return [Notice(named.message_key, StatusLevel.WARN, {"limit": named.limit})]
            slug = named.slug
            out += prefs.update(rel, now, favourite=slug)
            if self._link.connected:
                out += self.register_command(favourite_command(slug), now, user_asked=True)
            out += self._board.ensure_loaded(rel, now)
        elif not on and current is not None:
            out += prefs.update(rel, now, favourite=None)
            if self._link.connected:
                out += self._tracker.request(
                    now, "commands", commands.CommandUnregister, expect=commands.CommandOk,
                    user_asked=True, name=favourite_command(current),
                )  # fmt: skip
        self._board.favourites_changed()
        self._changed()
        return out

    # -- one sound's editor in the dash-tab -----------------------------------------------

    def edit(self, key: str, now: float, **changes: object) -> list[Effect]:
        """A change to one sound's preferences, when it is still in the library."""
        if key not in self._board.states:
            return []
        self._changed()
        return self._prefs.update(key, now, **changes)

    def set_gain(self, key: str, value: int, now: float) -> list[Effect]:
        return self.edit(key, now, gain=pct(value))

    def set_mic_gain(self, key: str, value: int, now: float) -> list[Effect]:
        return self.edit(key, now, mic_gain=pct(value))

    def set_mode(self, key: str, mode: int, now: float) -> list[Effect]:
        if not 0 <= mode <= len(MODES):
            return []
        return self.edit(key, now, mode=MODES[mode - 1] if mode else None)

    def link_gains(self, key: str, linked: bool, now: float) -> list[Effect]:
        return self.edit(key, now, mic_gain=None if linked else self._prefs.get(key).gain)

    def set_edit(
        self, key: str, field: int, ms: int, now: float, *, length: int | None = None
    ) -> list[Effect]:
        """One of the editor's trim and fade rows (core/editor.py keeps it playable); ``length``
        is the source file's, in ms (None while not known: an edited sound's loaded length is
        its render's, not the file's)."""
        if key not in self._board.states:
            return []
        changes = field_changes(self._prefs.get(key), length, field, ms)
        return self.edit(key, now, **changes) if changes else []

    def trim_at(self, key: str, ms: int, now: float, *, length: int | None = None) -> list[Effect]:
        """A touch on the waveform: the nearer of start and end moves there."""
        if key not in self._board.states:
            return []
        changes = nearest_trim_changes(self._prefs.get(key), length, ms)
        return self.edit(key, now, **changes) if changes else []

    def set_targets(self, key: str, index: int, now: float) -> list[Effect]:
        targets = targets_of(index)
        return [] if targets is None else self.edit(key, now, targets=targets)

    def reset_plays(self, key: str, now: float) -> list[Effect]:
        return self.edit(key, now, plays=0, last_played=None)

    def move(self, key: str, position: int, now: float) -> list[Effect]:
        self._changed()
        out = self._board.move(key, position - 1, now)
        self._moved(key)
        return out + self._load_ahead(now)
