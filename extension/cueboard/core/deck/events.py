"""The deck's events: ``media_snapshot`` (the truth) and ``media_control`` (the player's own
controls, applied with our own requests only when they are current, MED-23 and MED-24)."""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING

import cueboard.core.deck.sessions as sessions
from cueboard.core.contract import StatusLevel
from cueboard.core.effects import Effect, Log, Notice
from cueboard.core.i18n import msgid

from .context import NATIVE_CONTROLS_SINCE, DeckState, Step
from .runner import Runner
from .slots import VOLUME_RANGE, PendingOpen, Slot, observe
from .storage import keep_url

if TYPE_CHECKING:
    from vxp.models.events import MediaControl, MediaSnapshot
    from vxp.models.media import MediaSession


def apply_snapshot(st: DeckState, snapshot: MediaSnapshot, runner: Runner) -> list[Effect]:
    """The truth about every session (MED-17): applied at once, whatever action runs."""
    rows = {row.session: observe(row) for row in snapshot.sessions}
    by_key = {row.key: row for row in snapshot.sessions}
    st.last_rows = rows
    out: list[Effect] = []
    for slot in st.slots.values():
        slot.generation_unsure = False
        if slot.unsettled is not None:
            _settle(st, runner, slot, by_key.get(slot.key), out)
            continue
        if slot.session is None:
            continue
        seen = rows.get(slot.session)
        if seen is None:
            if slot.confirmed:  # listed before, missing now: gone (MED-17)
                out.append(Log(logging.INFO, f"{slot.key}: the session is gone"))
                slot.drop_session()
                slot.ended = True
            continue
        slot.confirmed = True
        if seen.generation >= slot.generation:
            slot.generation = seen.generation
            slot.observed = seen
    for row in snapshot.sessions:
        _unowned(st, runner, row, out)
    return out


def _unowned(st: DeckState, runner: Runner, row: MediaSession, out: list[Effect]) -> None:
    """A session on a deck key that its slot does not hold: an open the host applied late.
    The slot adopts it if it still wants that open; otherwise it is closed, so the key is
    never ``busy`` until the next connection. A slot with an open in flight is left alone
    (the snapshot may list that open's session before its reply)."""
    slot = st.slots.get(row.key)
    session = str(row.session)
    if slot is None or slot.session == session or slot.opening or slot.unsettled is not None:
        return
    if session in st.closing:
        return
    if slot.late is not None and slot.session is None:
        out.append(Log(logging.INFO, f"{slot.key}: the open was applied late"))
        _adopt(st, runner, slot, slot.late, row, out, clear_url=False)
    elif st.sendable():
        runner.spawn(sessions.close_unwanted(st, slot.key, session), out)


def _settle(
    st: DeckState, runner: Runner, slot: Slot, row: MediaSession | None, out: list[Effect]
) -> None:
    """The snapshot after an ``open`` with an unknown outcome: a session for the slot's key
    is that open's; none means it did not happen."""
    pending = slot.unsettled
    assert pending is not None
    owned = {s.session for s in st.slots.values() if s.session is not None}
    if row is None or row.session in owned:
        slot.unsettled = None
        slot.late = pending if pending.may_land else None  # the host may apply it yet
        if slot.in_use:
            slot.error_code = pending.code
        out.append(Log(logging.INFO, f"{slot.key}: the open did not happen ({pending.code})"))
        if pending.may_land:
            params: dict[str, str | int] = {"title": pending.title, "code": pending.code}
            out.append(Notice(msgid("media.error.code"), StatusLevel.ERROR, params))
        return
    _adopt(st, runner, slot, pending, row, out, clear_url=pending.from_fields)


def _adopt(
    st: DeckState,
    runner: Runner,
    slot: Slot,
    pending: PendingOpen,
    row: MediaSession,
    out: list[Effect],
    *,
    clear_url: bool,
) -> None:
    """The slot becomes live with the session the host opened for ``pending``."""
    native = pending.native and st.host_at_least(NATIVE_CONTROLS_SINCE)
    session = str(row.session)
    slot.become_live(
        pending.checked, pending.title, pending.options, native, session, row.source_generation
    )
    slot.observed, slot.confirmed = observe(row), True
    if clear_url:
        st.url_clear += 1
    out.append(Log(logging.INFO, f"{slot.key} opened: source_generation {slot.generation}"))

    def still() -> bool:
        return st.slots.get(slot.key) is slot and slot.session == session

    runner.spawn(keep_url(st, slot, pending.checked, still), out)


def control(st: DeckState, event: MediaControl) -> Step[Notice | None]:
    from vxp.models.media import SetPaused, SetVolume, StopPlayback

    slot = st.slots.get(event.key)
    current = slot.generation if slot is not None and slot.session is not None else None
    reason: str | None = None
    if slot is None or slot.session is None:
        reason = "unknown_key"
    elif event.session != slot.session:
        reason = "other_session"
    elif slot.generation_unsure:
        reason = "unsure_generation"
    elif event.source_generation != slot.generation:
        reason = "stale_generation"
    elif not slot.native_controls:
        reason = "native_controls_off"
    elif not isinstance(event.action, SetPaused | SetVolume | StopPlayback):
        reason = "unknown_action"
    if reason is not None or slot is None:
        st.controls_dropped[reason or "unknown_key"] += 1
        yield Log(
            logging.DEBUG,
            f"media_control dropped ({reason}): key {event.key!r}, session generation "
            f"{current}, event generation {event.source_generation}",
        )
        return None
    st.controls_applied += 1
    yield Log(
        logging.DEBUG,
        f"media_control applied: key {event.key!r}, {event.action.kind}, "
        f"generation {event.source_generation}",
    )
    match event.action:
        case SetPaused(paused=paused):
            return (yield from sessions.set_slot(st, slot, {"paused": paused}))
        case SetVolume(volume_pct=volume):
            volume = min(max(volume, VOLUME_RANGE[0]), VOLUME_RANGE[1])
            return (yield from sessions.set_slot(st, slot, {"volume_pct": volume}))
        case _:
            return (yield from sessions.close(st, slot))


__all__ = ["apply_snapshot", "control"]
