"""Loading sounds: ahead of a press, on a press, again after ``cache_full`` or a lost cache.

A sound is played only after the host reported it ``loaded`` (AUD-18). ``cache_full`` unloads
the least recently played sound and loads again once; a load that failed for a reason that says
nothing about the file (the host busy or gone) is tried again on the next occasion; one that
failed on the file is not, until the file changes (no retry storm).
"""

from __future__ import annotations

from typing import Any, Protocol

from cueboard.contract import StatusLevel
from cueboard.library import Library
from cueboard.settings import Settings
from vxp.models import audio

from .effects import Effect, Log, Notice
from .policy import Action
from .reasons import load_failed
from .sound_state import Playing, PressOptions, SoundState
from .tracker import Outcome, Tracker, notice_for

__all__ = ["PLAY_ON_LOAD_S", "Board", "ensure_loaded", "on_audio_loaded"]


class Board(Protocol):
    """What loading reads and changes of the soundboard (which calls it: it never imports the
    board back)."""

    tracker: Tracker
    settings: Settings
    library: Library
    states: dict[str, SoundState]
    by_id: dict[str, str]
    playing: dict[str, Playing]
    audio_granted: bool
    changed: bool

    def play_state(
        self, st: SoundState, now: float, once: PressOptions | None = None
    ) -> list[Effect]: ...


PLAY_ON_LOAD_S = 2.0  # a press waits this long for its sound to load, then only shows it
RETRY_FAILED_AFTER_S = 3.0  # a press this long after a failed load tries the file once more


def ensure_loaded(board: Board, rel: str, now: float, *, pressed: bool = False) -> list[Effect]:
    st = board.states.get(rel)
    if st is None or not board.audio_granted:
        return []
    if st.status in ("loading", "loaded", "too_large", "unloadable"):
        return []
    same_file = st.fingerprint == st.sound.fingerprint
    again = pressed and (st.code == "cache_full" or now - st.failed_at >= RETRY_FAILED_AFTER_S)
    if st.status == "failed" and same_file and not again:
        return []  # no retry storm: a changed file, or a later press, loads it again
    return _load(board, st, now, user_asked=pressed)


def _load(board: Board, st: SoundState, now: float, *, user_asked: bool = False) -> list[Effect]:
    st.status, st.code = "loading", None
    st.fingerprint = st.sound.fingerprint
    board.changed = True
    path = str(board.library.root / st.sound.rel_path)
    rel = st.sound.rel_path

    def done(outcome: Outcome) -> list[Effect]:
        current = board.states.get(rel)
        if current is not st or st.status != "loading":
            return []  # the library changed meanwhile
        if outcome.ok:
            sound_id: str = outcome.result.sound
            if st.sound_id is not None:
                board.by_id.pop(st.sound_id, None)
            st.sound_id = sound_id
            board.by_id[sound_id] = rel
            return []
        if outcome.rule is not None and outcome.rule.action is Action.MAKE_ROOM:
            return _cache_full(board, st, outcome.now)
        if _transient(outcome):  # not the file's fault: loaded again on the next occasion
            st.status = "idle"
            board.changed = True
            pressed, st.press_at = st.press_at is not None, None
            has_notice = outcome.rule is not None and outcome.rule.notice is not None
            return [notice_for(outcome, name=st.sound.name)] if pressed and has_notice else []
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
        if outcome.code == "cache_full":
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


# What a load's answer can say about the file itself (docs/protocol-notes.md#r14), or about the
# request (not granted, not understood, refused before sending): the slot shows broken.
FILE_VERDICTS = frozenset({"not_found", "undecodable", "too_long"})
REQUEST_VERDICTS = frozenset({-32001, -32602})


def _transient(outcome: Outcome) -> bool:
    """A failure that says nothing about the file (the host busy, lost, answering a code that
    makes no sense for a load or one this version cannot read): loaded again next time."""
    failure = outcome.failure
    if failure is None:
        return False
    if failure.kind == "invalid":
        return False
    if failure.kind == "protocol":
        return failure.code not in REQUEST_VERDICTS
    if failure.kind == "domain":
        return failure.code not in FILE_VERDICTS
    return True  # unreadable, timeout, closed
