"""The deck's steps on the media namespace: open, reload, set, close, reconcile, restore.

Each step is a generator (see :mod:`.context`) that changes the slots only from the answers it
gets, and acts on the policy table's decision: ``LOST`` (``no_such_session`` on ``set``,
``reload`` or ``status``) opens the slot again cleanly (the host lost it,
docs/protocol-notes.md#r21); a failure for good (``busy`` among them) is told to the user and
not repeated; an ``open`` whose outcome is unknown (``RECONCILE``) leaves the slot *unsettled*
for the next snapshot to decide (:mod:`.events`), never sent again. A session on a deck key
that no slot wants (an open the host applied late) is closed (:func:`close_unwanted`).
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping
from dataclasses import replace
from typing import Any

import cueboard.core.deck.notices as notices
from cueboard.core.contract import StatusLevel
from cueboard.core.effects import Log, Notice
from cueboard.core.i18n import msgid
from cueboard.core.media_urls import CheckedUrl, DeckInputError, check_title, check_url
from cueboard.core.outcomes import Outcome
from cueboard.core.policy import Action

from .context import (
    CONTROLS_ON_PLAYER_SINCE,
    NATIVE_CONTROLS_SINCE,
    RELOAD_TITLE_SINCE,
    DeckState,
    Step,
    ask,
)
from .slots import PendingOpen, SessionOptions, Slot, observe
from .storage import fields_of, forget, keep_url, kv_get, kv_slot_key, save_slot, secret_get


def fail(state: DeckState, got: Outcome, title: str) -> Step[Notice]:
    """A media request failed for good: the policy's decision, told in the slot's words."""
    if got.action is Action.UNSUPPORTED:
        state.unsupported = True
        yield Log(logging.INFO, "media is unsupported on this host: the deck stops sending")
    else:
        yield Log(logging.INFO, f"media request failed: {notices.failure_code(got)}")
    state.denied = state.denied or got.action is Action.DENIED
    return notices.told(got, title)


def refusal(state: DeckState) -> Step[Notice | None]:
    """What to tell a user whose action cannot be sent: nothing on a host without media (the
    deck is hidden there), "media needs vrOS on Windows" after ``unsupported``."""
    if not state.media_available():
        yield Log(logging.DEBUG, "media request skipped: the deck is hidden on this host")
        return None
    return notices.unsupported()


def settable(state: DeckState, changes: Mapping[str, Any]) -> dict[str, Any]:
    wire = dict(changes)
    if not state.host_at_least(CONTROLS_ON_PLAYER_SINCE):
        wire.pop(
            "controls_on_player", None
        )  # hidden before 1.7, never sent (docs/protocol-notes.md#r23)
    return wire


def _open_fields(state: DeckState, opts: SessionOptions, native: bool) -> dict[str, Any]:
    fields = settable(
        state,
        {
            "paused": opts.paused,
            "volume_pct": opts.volume_pct,
            "muted": opts.muted,
            "show_video": opts.show_video,
            "max_fps": opts.max_fps,
            "controls_on_player": opts.controls_on_player,
        },
    )
    if state.host_at_least(NATIVE_CONTROLS_SINCE):
        fields["native_controls"] = native
    return fields


def open_into(
    state: DeckState,
    slot: Slot,
    checked: CheckedUrl,
    title: str,
    opts: SessionOptions,
    native: bool,
    *,
    from_fields: bool = False,
) -> Step[Notice | None]:
    """One ``open`` for a slot with no session; on success the slot is live and kept."""
    from vxp.models import media

    if slot.session is not None or slot.unsettled is not None:
        return notices.pending(title) if slot.unsettled else notices.busy(slot.title)
    if not state.sendable():
        return (yield from refusal(state))
    slot.late = None  # this open replaces one the host may still apply: that one is closed
    fields = _open_fields(state, opts, native)
    slot.opening = True
    got = yield from ask(
        state,
        "media",
        lambda: media.MediaOpen(key=slot.key, url=checked.url.reveal(), title=title, **fields),
        media.MediaOpened,
        user_asked=from_fields,
    )
    slot.opening = False
    if isinstance(got, Outcome):
        if got.action is Action.RECONCILE:
            code = notices.failure_code(got)
            slot.unsettled = PendingOpen(
                checked, title, opts, native, from_fields, code, may_land=not got.gone
            )
            yield Log(
                logging.INFO, f"{slot.key}: open outcome unknown ({code}); awaiting a snapshot"
            )
            if got.reason is not None:  # the connection is gone: say so
                return notices.told(got, title)
            return notices.unconfirmed(title, code) if from_fields else None
        if slot.in_use and got.refused:
            slot.error_code = got.code
        return (yield from fail(state, got, title))
    native = native and state.host_at_least(NATIVE_CONTROLS_SINCE)
    slot.become_live(checked, title, opts, native, got.session, got.source_generation)
    seen = state.last_rows.get(got.session)
    if seen is not None and seen.generation >= slot.generation:
        slot.observed, slot.confirmed = seen, True
    yield Log(logging.INFO, f"{slot.key} opened: source_generation {slot.generation}")
    if from_fields:
        state.url_clear += 1
    yield from keep_url(state, slot, checked)
    return None


def close_unwanted(state: DeckState, key: str, session: str) -> Step[None]:
    """Close a session on a deck key that no slot wants (an open the host applied after its
    outcome was given up on, and the slot moved on): the key is free again, never ``busy``
    until the next connection."""
    from vxp.models import media

    state.closing.add(session)
    got = yield from ask(
        state, "media", lambda: media.MediaClose(session=session), media.MediaClosed
    )
    state.closing.discard(session)
    if isinstance(got, Outcome) and got.action is not Action.LOST:  # gone: closing is done
        yield Log(logging.INFO, f"{key}: a session no slot wants not closed ({got.code})")
    else:
        yield Log(logging.INFO, f"{key}: closed a session no slot wants")


def reopen(state: DeckState, slot: Slot, *, quiet: bool = False) -> Step[Notice | None]:
    """The host lost the session (a restart, a new connection): open it again cleanly."""
    slot.drop_session()
    if slot.url is None:
        return None
    try:
        checked = check_url(slot.url)
    except DeckInputError:
        slot.url = None
        return None
    failed = yield from open_into(
        state, slot, checked, slot.title, slot.options, slot.native_controls
    )
    if failed is not None or quiet:
        return failed
    return Notice(msgid("media.error.session_lost"), StatusLevel.INFO, {"title": slot.title})


def reload_live(
    state: DeckState, slot: Slot, checked: CheckedUrl, name: str
) -> Step[Notice | None]:
    from vxp.models import media

    session = slot.session
    if session is None:
        return None
    if not state.sendable():  # unsupported while this reload waited its turn
        return (yield from refusal(state))
    send_title = name if state.host_at_least(RELOAD_TITLE_SINCE) else None
    got = yield from ask(
        state,
        "media",
        lambda: media.MediaReload(session=session, url=checked.url.reveal(), title=send_title),
        media.MediaApplied,
        user_asked=True,
    )
    if isinstance(got, Outcome):
        if got.action is Action.LOST:
            slot.drop_session()
            opts, native = slot.options, slot.native_controls
            return (
                yield from open_into(state, slot, checked, name, opts, native, from_fields=True)
            )
        if got.action is Action.RECONCILE and slot.session == session:
            slot.generation_unsure = True  # the source may have changed: the snapshot says
        return (yield from fail(state, got, slot.title))
    if slot.session == session:
        old = slot.generation
        slot.generation = max(slot.generation, got.source_generation)
        yield Log(
            logging.INFO, f"{slot.key} reloaded: source_generation {old} -> {slot.generation}"
        )
        slot.observed, slot.ended = None, False
        seen = state.last_rows.get(session)
        if seen is not None and seen.generation >= slot.generation:
            slot.observed = seen
    slot.title, slot.url = name, checked.url
    state.url_clear += 1
    yield from keep_url(state, slot, checked)
    return None


def close(state: DeckState, slot: Slot) -> Step[Notice | None]:
    """Close a slot's session and forget the slot (its kv record and kept URL too)."""
    from vxp.models import media

    session = slot.session
    if session is not None and state.sendable():
        got = yield from ask(
            state,
            "media",
            lambda: media.MediaClose(session=session),
            media.MediaClosed,
            user_asked=True,
        )
        if isinstance(got, Outcome) and got.action is not Action.LOST:  # gone: closing is done
            return (yield from fail(state, got, slot.title))
    kept = slot.url_reason is None and slot.url is not None
    yield Log(logging.INFO, f"{slot.key} closed")
    state.slots[slot.key] = Slot(slot.key)
    yield from forget(state, slot.key, kept)
    return None


def set_slot(state: DeckState, slot: Slot, changes: Mapping[str, Any]) -> Step[Notice | None]:
    """Apply option changes to a slot: to its session when live, to its record always."""
    from vxp.models import media

    slot.options = replace(slot.options, **changes)
    wire = settable(state, changes)
    session = slot.session
    if session is not None and wire and state.sendable():
        got = yield from ask(
            state,
            "media",
            lambda: media.MediaSet(session=session, **wire),
            media.MediaApplied,
            user_asked=True,
        )
        if isinstance(got, Outcome):
            if got.action is Action.LOST:
                notice = yield from reopen(state, slot)
                yield from save_slot(state, slot)
                return notice
            return (yield from fail(state, got, slot.title))
        if slot.session == session:
            slot.generation = max(slot.generation, got.source_generation)
    yield from save_slot(state, slot)
    return None


def reconcile(state: DeckState, slot: Slot) -> Step[Notice | None]:
    """A slot that had a session before a reconnect: ask ``status``. Sessions end with their
    connection (docs/protocol-notes.md#r21), so this usually answers no_such_session and the
    slot is opened again with its held URL."""
    from vxp.models import media

    session = slot.session
    if session is None:
        return None
    if not state.sendable():
        slot.drop_session()
        return None
    got = yield from ask(
        state, "media", lambda: media.MediaStatus(session=session), media.MediaStatusReply
    )
    if isinstance(got, Outcome):
        if got.action is Action.LOST:
            return (yield from reopen(state, slot, quiet=True))
        if got.refused:
            slot.drop_session()
        return (yield from fail(state, got, slot.title))
    if slot.session == session:
        seen = observe(got)
        slot.generation = max(slot.generation, seen.generation)
        slot.observed, slot.confirmed = seen, True
    return None


def restore(state: DeckState, slot: Slot) -> Step[Notice | None]:
    """A slot kept by the last run: its record, its URL if kept, and an open with it."""
    record = yield from kv_get(state, kv_slot_key(slot.key))
    if not isinstance(record, dict) or slot.in_use or slot.unsettled is not None:
        return None
    meta: dict[str, Any] = record  # pyright: ignore[reportUnknownVariableType]
    try:
        title = check_title(str(meta.get("title", "")))
    except DeckInputError:
        title = ""
    slot.in_use = True
    slot.title = title or slot.key
    slot.options = replace(SessionOptions(), **fields_of(meta, SessionOptions))
    slot.native_controls = meta.get("native_controls") is True
    reason = meta.get("url_reason")
    slot.url_reason = reason if isinstance(reason, str) else None
    if slot.url_reason is None:
        slot.url = yield from secret_get(state, slot.key)
        if slot.url is None and not state.secrets_granted():
            slot.url_reason = msgid("media.reason.no_grant")
        elif slot.url is None:
            slot.url_reason = msgid("media.reason.not_persistable")
    if slot.url is None:
        return Notice(
            msgid("media.url_not_kept"),
            StatusLevel.INFO,
            {"title": slot.title},
            {"reason": slot.url_reason or msgid("media.reason.not_persistable")},
        )
    try:
        checked = check_url(slot.url)
    except DeckInputError:
        slot.url = None
        return None
    return (
        yield from open_into(state, slot, checked, slot.title, slot.options, slot.native_controls)
    )


def each_slot(
    state: DeckState, step: Callable[[DeckState, Slot], Step[Notice | None]]
) -> Step[list[Notice]]:
    """``step`` on every slot in order, with the notices they gave, each once."""
    said: list[Notice] = []
    for key in list(state.slots):
        notice = yield from step(state, state.slots[key])
        if notice is not None and notice not in said:
            said.append(notice)
    return said


__all__ = [
    "close",
    "close_unwanted",
    "each_slot",
    "fail",
    "open_into",
    "reconcile",
    "refusal",
    "reload_live",
    "reopen",
    "restore",
    "set_slot",
    "settable",
]
