"""Loading sounds: ahead of a press, on a press, again after ``cache_full`` or a lost cache.

A sound is played only after the host reported it ``loaded`` (AUD-18). What a failure means is
the ``audio.load`` row of the policy table, for the load's answer and for its ``audio_loaded``
alike: ``MAKE_ROOM`` (``cache_full``) unloads the least recently played sound and loads again
once; ``LATER`` (nothing about the file: the host busy or gone) loads again on the next
occasion; a failure for good (the file, or the request) is not tried again until the file
changes or a person presses it later (no retry storm).

An ``audio_loaded`` may reach the core before the ``load`` reply that names its sound id (the
two travel apart from the host's socket to here): an event for an id no sound holds yet is
kept, a bounded few, and applied when a load's reply names that id, so the tile ends the same
whichever came first.

An edited sound (trim, fades: :mod:`.render`) loads its rendered file, never the user's: with
none rendered yet for its edit and source, it is ``rendering`` until the worker reports. A
press meanwhile waits up to :data:`RENDER_WAIT_S`, then is refused with a notice, so the
unedited sound never goes out (into the mic least of all).
"""

from __future__ import annotations

from typing import Any, Protocol

from cueboard.core.contract import StatusLevel
from cueboard.core.library import Library
from cueboard.core.settings import Settings
from vxp.models import audio

from .effects import Effect, Log, Notice, Wake
from .policy import Action, load_verdict
from .prefs import Prefs
from .reasons import load_failed
from .render import Renders, SoundRendered, edit_of
from .sound_state import Playing, PressOptions, SoundState
from .tracker import Outcome, Tracker, notice_for

__all__ = [
    "PLAY_ON_LOAD_S",
    "RENDER_WAIT",
    "RENDER_WAIT_S",
    "Board",
    "edit_changed",
    "ensure_loaded",
    "load_for_press",
    "on_audio_loaded",
    "on_rendered",
    "render_waited",
]  # fmt: skip


class Board(Protocol):
    """What loading reads and changes of the soundboard (which calls it: it never imports the
    board back)."""

    tracker: Tracker
    settings: Settings
    library: Library
    states: dict[str, SoundState]
    by_id: dict[str, str]
    early: dict[str, Any]  # sound id -> an audio_loaded outcome that came before its reply
    playing: dict[str, Playing]
    audio_granted: bool
    changed: bool
    renders: Renders
    prefs: Prefs

    def play_state(
        self, st: SoundState, now: float, once: PressOptions | None = None
    ) -> list[Effect]: ...


PLAY_ON_LOAD_S = 2.0  # a press waits this long for its sound to load, then only shows it
RETRY_FAILED_AFTER_S = 3.0  # a press this long after a failed load tries the file once more
EARLY_KEPT = 64  # audio_loaded events kept for a sound id no load reply has named yet
MIB = 1024 * 1024
RENDER_WAIT_S = 1.5  # a press waits this long for its sound's render, then is refused
RENDER_WAIT = "render.wait:"  # + the sound's rel path: the Wake of a press waiting for it


def ensure_loaded(board: Board, rel: str, now: float, *, pressed: bool = False) -> list[Effect]:
    st = board.states.get(rel)
    if st is None or not board.audio_granted:
        return []
    if st.status in ("rendering", "loading", "loaded", "too_large", "unloadable"):
        return []
    same_file = st.fingerprint == st.sound.fingerprint
    again = pressed and (_made_room(st) or now - st.failed_at >= RETRY_FAILED_AFTER_S)
    if st.status == "failed" and same_file and not again:
        return []  # no retry storm: a changed file, or a later press, loads it again
    return _load(board, st, now, user_asked=pressed)


def _load(board: Board, st: SoundState, now: float, *, user_asked: bool = False) -> list[Effect]:
    rel = st.sound.rel_path
    source = board.library.root / rel
    edit = edit_of(board.prefs.get(rel))
    st.fingerprint, st.edit, st.code = st.sound.fingerprint, edit, None
    board.changed = True
    if edit is not None:
        rendered = board.renders.path_for(rel, edit, st.sound.fingerprint)
        if rendered is None:  # the worker renders it first; on_rendered loads it
            st.status = "rendering"
            cache_bytes = board.settings.render_cache_mb * MIB
            return list(board.renders.ask(rel, source, edit, st.fingerprint, cache_bytes))
        source = rendered
    st.status = "loading"
    path = str(source)

    def done(outcome: Outcome) -> list[Effect]:
        current = board.states.get(rel)
        if current is not st or st.status != "loading" or st.edit != edit:
            return []  # the library or the edit changed meanwhile
        if outcome.ok:
            sound_id: str = outcome.result.sound
            if st.sound_id is not None:
                board.by_id.pop(st.sound_id, None)
            st.sound_id = sound_id
            board.by_id[sound_id] = rel
            early = board.early.pop(sound_id, None)
            if early is not None:  # the event overtook this reply
                return on_audio_loaded(board, sound_id, early, outcome.now)
            return []
        match outcome.action:
            case Action.MAKE_ROOM:
                return _cache_full(board, st, outcome.now)
            case Action.LATER | Action.RECONCILE:  # not the file's: loaded again next time
                st.status = "idle"
                board.changed = True
                pressed, st.press_at = st.press_at is not None, None
                told = pressed and outcome.reason is not None
                return [notice_for(outcome, name=st.sound.name)] if told else []
            case _:
                return _failed(board, st, outcome.now, outcome)

    return board.tracker.request(
        now, "audio", audio.AudioLoad, expect=audio.AudioLoading, done=done,
        user_asked=user_asked, path=path, normalize=board.settings.normalize,
    )  # fmt: skip


def _failed(
    board: Board, st: SoundState, now: float, outcome: Outcome | None, code: str = ""
) -> list[Effect]:
    code = outcome.code if outcome is not None else code
    st.status, st.code, st.sound_id = "failed", code, None
    st.failed_at = now
    pressed = st.press_at is not None
    st.press_at = None
    board.changed = True
    notice = load_failed(st.sound.name, code)
    if outcome is not None and not pressed:
        return [Log(20, f"{outcome.send.kind} {st.sound.rel_path}: {code}")]
    return [notice]


def on_audio_loaded(board: Board, sound_id: str, outcome: Any, now: float) -> list[Effect]:
    rel = board.by_id.get(sound_id)
    st = board.states.get(rel) if rel else None
    if rel is None and any(
        s.status == "loading" and s.sound_id is None for s in board.states.values()
    ):
        board.early[sound_id] = outcome  # a load's reply may name it yet
        while len(board.early) > EARLY_KEPT:
            del board.early[next(iter(board.early))]
        return []
    if st is None or st.sound_id != sound_id or st.status != "loading":
        return []  # an outcome for a load we replaced, or a sound no longer in the library
    if isinstance(outcome, audio.Loaded):
        st.status = "loaded"
        st.retried_cache_full = False
        st.duration_ms = outcome.duration_ms
        pressed, st.press_at = st.press_at, None
        once, st.press_options = st.press_options, None
        board.changed = True
        if pressed is not None and now - pressed <= PLAY_ON_LOAD_S:
            return board.play_state(st, now, once)
        return []
    if isinstance(outcome, audio.LoadFailed):
        if load_verdict(outcome.code) is Action.MAKE_ROOM:
            return _cache_full(board, st, now)
        return _failed(board, st, now, None, outcome.code)
    st.status, st.sound_id = "idle", None  # an outcome this version does not know
    board.by_id.pop(sound_id, None)
    return [Log(20, f"audio_loaded with an unknown outcome for {st.sound.rel_path}")]


def _cache_full(board: Board, st: SoundState, now: float) -> list[Effect]:
    """Make room: unload the least recently played sound, then load again, once."""
    if st.retried_cache_full:
        return _failed(board, st, now, None, "cache_full")
    st.retried_cache_full = True
    out = _evict_one(board, exclude=st.sound.rel_path, now=now)
    if not out:
        return _failed(board, st, now, None, "cache_full")
    return out + _load(board, st, now)


def _evict_one(board: Board, exclude: str, now: float) -> list[Effect]:
    loaded = [
        s
        for s in board.states.values()
        if s.status == "loaded" and s.sound.rel_path not in (exclude, *board.playing)
    ]
    if not loaded:
        return []
    victim = min(loaded, key=lambda s: s.last_played)
    out: list[Effect] = [Notice("status.cache_full", StatusLevel.WARN, {"name": victim.sound.name})]
    if victim.sound_id is not None:
        out += board.tracker.request(
            now, "audio", audio.AudioUnload, expect=audio.AudioOk, sound=victim.sound_id
        )
        board.by_id.pop(victim.sound_id, None)
    victim.sound_id, victim.status = None, "idle"
    board.changed = True
    return out


def _made_room(st: SoundState) -> bool:
    """The last load failed for want of room, not on the file."""
    return st.code is not None and load_verdict(st.code) is Action.MAKE_ROOM


# -- edited sounds ------------------------------------------------------------------------------


def on_rendered(board: Board, item: SoundRendered, now: float) -> list[Effect]:
    """The render a load waited for: load it, or say why the sound cannot play."""
    if not board.renders.done(item):
        return []  # a render no longer wanted (the edit or the file changed since)
    st = board.states.get(item.rel)
    if st is None or st.status != "rendering" or st.edit != item.edit:
        return []
    if item.path is None:
        return _failed(board, st, now, None, item.error or "")
    return _load(board, st, now, user_asked=st.press_at is not None)


def load_for_press(board: Board, st: SoundState, now: float) -> list[Effect]:
    """A press on a sound not loaded: load it (one loading already plays when it is in); a
    sound still rendering waits for its render, briefly, never playing the unedited file."""
    waiting = st.status in ("loading", "rendering")
    out = [] if waiting else ensure_loaded(board, st.sound.rel_path, now, pressed=True)
    if st.status == "rendering":
        out.append(Wake(RENDER_WAIT + st.sound.rel_path, now + RENDER_WAIT_S))
    return out


def render_waited(board: Board, rel: str, now: float) -> list[Effect]:
    """The wait is over: a press still waiting for its render is refused, with a notice."""
    st = board.states.get(rel)
    if st is None or st.status != "rendering" or st.press_at is None:
        return []
    if now - st.press_at < RENDER_WAIT_S - 1e-6:
        return []  # a later press waits on its own Wake
    st.press_at, st.press_options = None, None
    board.changed = True
    return [Notice("status.render_not_ready", StatusLevel.WARN, {"name": st.sound.name})]


def edit_changed(board: Board, rel: str, now: float, *, drop: bool = True) -> list[Effect]:
    """A sound's trim, fades or loop changed: what is loaded (or rendering) of it is of the old
    edit, so it is loaded again as the new one; an edit reset to none drops its renders
    (``drop``: the edit was changed, not only read)."""
    st = board.states.get(rel)
    edit = edit_of(board.prefs.get(rel))
    out: list[Effect] = list(board.renders.reset(rel)) if edit is None and drop else []
    if (
        st is None
        or st.edit == edit
        or st.status not in ("rendering", "loading", "loaded", "failed")
    ):
        return out  # a failed render (an empty trim, say) is tried again as edited now
    if st.sound_id is not None:
        board.by_id.pop(st.sound_id, None)
    st.status, st.sound_id, st.code, st.edit = "idle", None, None, None
    st.press_at, st.press_options = None, None
    board.changed = True
    return out + _load(board, st, now)
