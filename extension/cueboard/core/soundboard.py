"""The soundboard: what is loaded, what plays, and the path from a press to ``audio.play``.

Every sound of the library has a :class:`SoundState`. A sound is loaded ahead when it is on the
visible page or a favourite; any other loads on its first press. A press on a loaded sound
sends ``audio.play`` at once: a few dict look-ups and one request, nothing else on that path.
A press on a sound still loading is remembered and played when its ``audio_loaded`` arrives,
if that is within :data:`PLAY_ON_LOAD_S`. A person's presses always go out, at most
:data:`~cueboard.core.pacing.PRESSES_PER_S` a second for one sound: the rest coalesce into one
at the sound's next free moment (:mod:`cueboard.core.pacing`). A sound is played only after the
host reported it ``loaded`` (AUD-18). ``cache_full`` unloads the least recently played sound
and loads again once; ``unknown_sound`` (a host that lost its cache,
docs/protocol-notes.md#r21) loads again and plays once. What to do on each failure comes from
:mod:`cueboard.core.policy`.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable
from pathlib import Path
from typing import Any

from cueboard.core.contract import StatusLevel
from cueboard.core.library import Library, Sound
from cueboard.core.settings import Settings
from vxp.models import audio
from vxp.prepared import Prepared, prepare

from . import loading, stopping
from .browse import Browser, Shelf
from .effects import Effect, Log, Notice
from .ordering import move
from .pacing import Pacer
from .played import PlayHistory
from .policy import Action, load_verdict
from .prefs import Prefs, SoundPrefs
from .reasons import load_failed
from .render import Renders
from .routing import mic_off, mic_off_notice, targets_for
from .sound_state import Playing, PressOptions, SoundState, Targets
from .tracker import Outcome, Tracker, notice_for

__all__ = ["EMPTY_SLOT", "MODE_OF_OVERLAP", "Playing", "PressOptions", "SoundState", "Soundboard"]

PLAYS_KEPT = 256
EMPTY_SLOT = "status.empty_slot"  # a press on nothing: said briefly, then cleared

MODE_OF_OVERLAP = {"overlap": "mix", "toggle": "toggle", "stop_others": "stop_others"}


class Soundboard:
    def __init__(self, tracker: Tracker, prefs: Prefs) -> None:
        self.tracker = tracker
        self.prefs = prefs
        self.settings = Settings()
        self.library = Library(Path("."))
        self.states: dict[str, SoundState] = {}
        self.by_id: dict[str, str] = {}  # host sound id -> rel path
        self.early: dict[str, Any] = {}  # sound id -> an audio_loaded outcome before its reply
        self.playing: dict[str, Playing] = {}
        self.status: Notice | None = None
        self.audio_granted = False
        self.shelf = Shelf()
        self.browser = Browser()  # the overlay's place: the controller commands follow it
        self.pressed: str | None = None  # the overlay's last pressed tile, named in full
        self.scanning: str | None = None  # the sounds folder while its first scan runs
        self.folder_missing: str | None = None  # the configured sounds folder, not there
        self.changed = False
        self.published: list[tuple[str, dict[str, Any]]] = []  # bus messages to publish
        self._plays: dict[Hashable, Prepared] = {}
        self.pacer: Pacer[PressOptions | None] = Pacer()  # a person's presses, per sound
        self.history = PlayHistory(prefs.prefs)  # counts, Recent and Most played
        prefs.counts_changed = self._counts_changed
        self.renders = Renders()  # which rendered file stands for an edited sound

    # -- library --------------------------------------------------------------------------

    def set_library(self, library: Library) -> list[str]:
        """Adopt a new scan; returns the rel paths whose file changed (to reload)."""
        changed: list[str] = []
        old = self.states
        self.states = {}
        for s in library.sounds:
            st = old.get(s.rel_path)
            self.states[s.rel_path] = st or SoundState(s)
            if st is None:
                _never_loaded(self.states[s.rel_path])
            else:  # in self.states already: forget_load looks it up there
                if st.fingerprint is not None and st.fingerprint != s.fingerprint:
                    changed.append(s.rel_path)
                st.sound = s
                if s.problem is not None or st.status == "unloadable":
                    self.forget_load(s.rel_path)
        for rel, st in old.items():
            if rel not in self.states and st.sound_id is not None:
                self.by_id.pop(st.sound_id, None)
        for rel in changed:
            self.forget_load(rel)
        self.library = library
        self.shelf = Shelf(library, self.order_of)
        self.shelf.set_favourites(self.prefs.favourites().values())
        self.shelf.set_played(self.history.recent, self.history.most)
        self.changed = True
        return changed

    def forget_load(self, rel: str) -> None:
        """Load this sound again before its next play (changed file, changed loudness)."""
        st = self.states[rel]
        if st.sound_id is not None:
            self.by_id.pop(st.sound_id, None)
        st.status, st.sound_id, st.code = "idle", None, None
        _never_loaded(st)

    def connection_lost(self) -> None:
        """A load in flight will never report: it starts over on the next connection."""
        self.early.clear()
        self.renders.connection_lost()
        for st in self.states.values():
            if st.status in ("loading", "rendering"):
                st.status, st.sound_id = "idle", None
        self.playing.clear()

    def visible_sounds(self) -> list[Sound]:
        """What the overlay shows: a folder's page or a page of its search's hits."""
        return list(self.browser.view(self.shelf).sounds)

    def turn_page(self, delta: int) -> None:
        self.browser.turn(self.shelf, delta)
        self.changed = True

    def navigate(self, how: Callable[[Browser, Shelf], bool]) -> bool:
        """Move the overlay's place (a folder step, the favourites); False if it went nowhere."""
        self.changed = True
        return how(self.browser, self.shelf)

    def search(self, query: str) -> None:
        self.browser.search(query)
        self.changed = True

    def open_folder(self, key: str) -> None:
        if self.browser.open(self.shelf, key):
            self.changed = True

    def order_of(self, rel: str) -> float | None:
        return self.prefs.get(rel).order

    def move(self, rel: str, to: int, now: float) -> list[Effect]:
        """Put ``rel`` at index ``to`` of its folder (``play-slot-N`` follows the order)."""
        st = self.states.get(rel)
        if st is None:
            return []
        category = st.sound.category
        out: list[Effect] = []
        for path, order in move(self.shelf.scanned(category), self.order_of, rel, to).items():
            out += self.prefs.update(path, now, order=order)
        if out or rel in self.prefs.prefs:
            self.shelf.reorder(category)
            self.changed = True
        return out

    def position(self, rel: str) -> tuple[int, int]:
        """(index in its folder, how many the folder holds); (0, 0) for no such sound."""
        st = self.states.get(rel)
        folder = self.shelf.find("c:" + st.sound.category) if st is not None else None
        if folder is None:
            return 0, 0
        sounds = [s.rel_path for s in self.shelf.folders[folder].sounds]
        return sounds.index(rel), len(sounds)

    def prefs_loaded(self) -> None:
        """The stored order, favourites and counts arrived after the scan: place the folders
        again."""
        self.history.rebuild()
        self.shelf = Shelf(self.library, self.order_of)
        self.shelf.set_played(self.history.recent, self.history.most)
        self.favourites_changed()

    def _counts_changed(self, rel: str, before: SoundPrefs) -> None:
        """Recent and Most played follow every change of a count (a play, a reset, a restore):
        at once, or by :meth:`sync_played` when they are to be built again."""
        self.history.changed(rel, before)
        if not self.history.stale:
            self.shelf.set_played(self.history.recent, self.history.most)
        self.changed = True

    def sync_played(self) -> None:
        """Build Recent and Most played again if a count went down (once an input is handled)."""
        if self.history.stale:
            self.history.rebuild()
            self.shelf.set_played(self.history.recent, self.history.most)

    def favourites_changed(self) -> None:
        """The favourites' folder follows the preferences."""
        self.shelf.set_favourites(self.prefs.favourites().values())
        self.changed = True

    def wanted_ahead(self) -> list[str]:
        """Sounds to load before they are pressed: the visible page and favourites."""
        wanted = [s.rel_path for s in self.visible_sounds()]
        wanted += [rel for rel in self.prefs.favourites().values() if rel in self.states]
        return list(dict.fromkeys(wanted))

    def load_ahead(self, now: float) -> list[Effect]:
        out: list[Effect] = []
        for rel in self.wanted_ahead():
            out += self.ensure_loaded(rel, now)
        return out

    def ensure_loaded(self, rel: str, now: float, *, pressed: bool = False) -> list[Effect]:
        return loading.ensure_loaded(self, rel, now, pressed=pressed)

    def on_audio_loaded(self, sound_id: str, outcome: Any, now: float) -> list[Effect]:
        return loading.on_audio_loaded(self, sound_id, outcome, now)

    # -- playing ---------------------------------------------------------------------------
    def mode_of(self, rel: str, once: PressOptions | None = None) -> str:
        """The sound's own mode, else the one the global ``overlap`` setting names."""
        if once is not None and once.mode is not None:
            return once.mode
        own = self.prefs.get(rel).mode
        return own if own is not None else MODE_OF_OVERLAP.get(self.settings.overlap, "mix")

    def targets(self, rel: str, once: PressOptions | None = None) -> Targets:
        """Where a press sends it, at which gains (:mod:`.routing`)."""
        return targets_for(self.prefs.get(rel), self.settings, once)

    def press(self, rel: str, now: float, once: PressOptions | None = None) -> list[Effect]:
        """A button, a bound command or a bus message asked for ``rel``. A press while it
        plays starts it again (mix, stop others: vrOS replaces a sound's playback, AUD-22) or
        stops it (toggle, loop)."""
        st = self.states.get(rel)
        if st is None:
            return []
        if mic_off(self.prefs.get(rel), self.settings):  # it cannot play: say why
            return [mic_off_notice(st.sound.name)]
        if not self.pacer.admit(rel, now):  # past the pace: goes out at the next free moment
            return self.pacer.hold(rel, once)
        stops_it = self.mode_of(rel, once) in ("toggle", "loop")
        if stops_it and rel in self.playing:
            return self.stop(rel, now)
        if st.status == "loaded":
            return self.play_state(st, now, once)
        if not self.audio_granted:
            return [Notice("status.no_audio_grant")]
        if st.status == "too_large":
            return []
        if st.status == "unloadable":  # not audio, or unreadable: say why, never load it
            return [load_failed(st.sound.name, st.code or "")]
        same_file = st.fingerprint == st.sound.fingerprint
        recent = now - st.failed_at < loading.RETRY_FAILED_AFTER_S
        made_room = st.code is not None and load_verdict(st.code) is Action.MAKE_ROOM
        if st.status == "failed" and same_file and not made_room and recent:
            # The same file just failed: say so again rather than load again at once.
            return [load_failed(st.sound.name, st.code or "")]
        st.press_at = now
        st.press_options = once
        self.changed = True
        return loading.load_for_press(self, st, now)

    def paced(self, wake_key: str, now: float) -> list[Effect]:
        """The press that waited for its sound's pace, now."""
        held = self.pacer.due(wake_key)
        return [] if held is None else self.press(held[0], now, held[1])

    def play_state(
        self, st: SoundState, now: float, once: PressOptions | None = None
    ) -> list[Effect]:
        sound_id = st.sound_id
        if sound_id is None:
            return []
        rel = st.sound.rel_path
        mode = self.mode_of(rel, once)
        looping = mode == "loop"
        targets = self.targets(rel, once)
        if not targets:  # mic-only, and the mic was switched off while it loaded
            return [mic_off_notice(st.sound.name)]
        out: list[Effect] = []
        if mode == "stop_others":  # first, so the new sound starts alone
            for other in [r for r in self.playing if r != rel]:
                out += self.stop(other, now)
        key = (sound_id, targets, looping)
        prepared = self._plays.get(key)
        if prepared is None:
            try:
                ts = [audio.PlayTarget(channel=c, gain_pct=g) for c, g in targets]
                model = audio.AudioPlay(sound=sound_id, targets=ts, looping=looping)
            except ValueError:
                return [Notice("status.play_failed", StatusLevel.ERROR, {"name": st.sound.name})]
            prepared = prepare("audio", model)
            if len(self._plays) >= PLAYS_KEPT:
                self._plays.clear()
            self._plays[key] = prepared

        request_id = once.request_id if once is not None else None
        alone = mode == "stop_others"

        def done(outcome: Outcome) -> list[Effect]:
            out = self._played(st, sound_id, targets, looping, outcome, request_id)
            if alone and outcome.ok:  # what started while this play was on its way stops too
                for other in [r for r in self.playing if r != rel]:
                    out += self.stop(other, outcome.now)
            return out

        return out + self.tracker.request(
            now, "audio", prepared, expect=audio.AudioOk, done=done, user_asked=True
        )

    def _played(
        self,
        st: SoundState,
        sound_id: str,
        targets: Targets,
        looping: bool,
        outcome: Outcome,
        request_id: str | int | None,
    ) -> list[Effect]:
        rel = st.sound.rel_path
        action = outcome.action
        if action is Action.RELOAD and st.sound_id == sound_id and not st.reloaded:
            st.reloaded = True
            self.forget_load(rel)
            st.press_at = outcome.now
            return self.ensure_loaded(rel, outcome.now, pressed=True)
        if action not in (Action.DONE, Action.RECONCILE):
            st.reloaded = False
            if outcome.reason is None:
                return []  # logged by the tracker
            return [notice_for(outcome, name=st.sound.name)]
        st.reloaded = False
        now = outcome.now
        st.last_played = now
        ends = None if looping or st.duration_ms is None else now + st.duration_ms / 1000
        self.playing.pop(rel, None)  # played again: it is the most recent now
        self.playing[rel] = Playing(rel, now, looping, targets, ends)
        self.published.append(("played", _echo({"name": st.sound.name, "path": rel}, request_id)))
        self.changed = True
        gains = ", ".join(f"{ch} {g}%" for ch, g in targets)
        said = Log(20, f"play {rel} -> {gains}{' (loop)' if looping else ''}")
        self.history.playing(rel)  # counted here, where the host confirmed a play: not a preview
        counted = self.prefs.update(rel, now, **self.history.counted(rel, now))
        return [said, *self.renders.played(rel, st.edit), *counted]  # the cache evicts it last

    def stop(self, rel: str, now: float, *, request_id: str | int | None = None) -> list[Effect]:
        return stopping.stop(self, rel, now, request_id=request_id)

    def stop_all(self, now: float) -> list[Effect]:
        return stopping.stop_all(self, now)

    def stop_looping(self, now: float) -> list[Effect]:
        return stopping.stop_looping(self, now)

    def expire(self, now: float) -> bool:
        """Drop one-shots whose time is over; True if anything changed."""
        return stopping.expire(self, now)

    def reconcile(self, now: float) -> list[Effect]:
        return stopping.reconcile(self, now)

    def set_status(self, key: str | None, level: int = 0, **params: str | int) -> None:
        self.status = None if key is None else Notice(key, StatusLevel(level), params)
        self.changed = True


def _echo(payload: dict[str, Any], request_id: str | int | None) -> dict[str, Any]:
    return payload if request_id is None else {**payload, "request_id": request_id}


def _never_loaded(st: SoundState) -> None:
    """A file Cueboard never loads keeps a status that says why (too large, not audio)."""
    if st.sound.problem is not None:
        st.status, st.code = "unloadable", st.sound.problem
    elif st.sound.too_large:
        st.status = "too_large"
