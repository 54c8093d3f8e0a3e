"""Ending plays: a person's stop, stop-all, the loops' stop, one-shots whose time is over, and
the host's status rows, which are trusted over the core's own clock."""

from __future__ import annotations

from typing import Any, Protocol

from vxp.models import audio

from .effects import Effect, Log
from .sound_state import Playing, SoundState
from .tracker import Outcome, Tracker

__all__ = ["PlayingBoard", "expire", "reconcile", "stop", "stop_all", "stop_looping"]


class PlayingBoard(Protocol):
    """What stopping reads and changes of the soundboard (which calls it)."""

    tracker: Tracker
    states: dict[str, SoundState]
    by_id: dict[str, str]
    playing: dict[str, Playing]
    audio_granted: bool
    changed: bool
    published: list[tuple[str, dict[str, Any]]]


def stop(
    board: PlayingBoard, rel: str, now: float, *, request_id: str | int | None = None
) -> list[Effect]:
    st = board.states.get(rel)
    board.playing.pop(rel, None)
    board.changed = True
    if st is None or st.sound_id is None:
        return []
    stopped: dict[str, Any] = {"name": st.sound.name, "path": rel}
    if request_id is not None:
        stopped["request_id"] = request_id
    board.published.append(("stopped", stopped))
    return board.tracker.request(
        now, "audio", audio.AudioStop, expect=audio.AudioOk, user_asked=True, sound=st.sound_id
    )


def stop_all(board: PlayingBoard, now: float) -> list[Effect]:
    expire(board, now)
    stopped = list(board.playing)
    board.playing.clear()
    out: list[Effect] = [Log(20, "stop all")]
    if board.audio_granted:
        out += board.tracker.request(
            now, "audio", audio.AudioStopAll, expect=audio.AudioOk, user_asked=True
        )
    for rel in stopped:
        st = board.states.get(rel)
        if st is not None:
            board.published.append(("stopped", {"name": st.sound.name, "path": rel}))
    board.changed = True
    return out


def stop_looping(board: PlayingBoard, now: float) -> list[Effect]:
    out: list[Effect] = []
    for rel in [r for r, p in board.playing.items() if p.looping]:
        out += stop(board, rel, now)
    return out


def expire(board: PlayingBoard, now: float) -> bool:
    """Drop one-shots whose time is over; True if anything changed."""
    over = [r for r, p in board.playing.items() if p.ends is not None and p.ends <= now]
    for rel in over:
        del board.playing[rel]
    if over:
        board.changed = True
    return bool(over)


def reconcile(board: PlayingBoard, now: float) -> list[Effect]:
    """Trust the host's status rows over our own clock."""
    if not board.playing or not board.audio_granted:
        return []

    def done(outcome: Outcome) -> list[Effect]:
        if not outcome.ok:
            return []
        alive = {board.by_id.get(r.sound) for r in outcome.result.playing}
        gone = [rel for rel in board.playing if rel not in alive]
        for rel in gone:
            del board.playing[rel]
        if gone:
            board.changed = True
        return []

    return board.tracker.request(
        now, "audio", audio.AudioGetStatus, expect=audio.AudioStatus, done=done
    )
