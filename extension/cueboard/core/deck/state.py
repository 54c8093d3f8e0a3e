"""The media deck without I/O: four slots of vrOS's player, driven by the user and the player.

Theory of operation.

* **Inputs.** :meth:`DeckCore.connected` (host facts), the user's actions (``open``,
  ``reload``, ``close``, ``set_options``, ``set_defaults``), the deck's events
  (``media_snapshot``, ``media_control``) and the final outcome of every request it sent
  (:meth:`DeckCore.outcome` for the tickets it :meth:`owns`). Each returns effects: ``Send``
  (media, kv and secrets request models), ``Notice`` and ``Log``.
* **One action at a time.** User actions, native controls and the (re)connection steps run one
  after another, each to its end, as they did under a lock: a control that races a ``reload``
  is judged against the generation the reload produced. Snapshots apply at once.
* **Truth.** ``media_snapshot`` is the only source of playback and video state (MED-17). A
  snapshot is complete, so a live session missing from one is gone: but a snapshot can be
  *older* than a reply already handled, so a session only counts as gone once a snapshot has
  listed it (``confirmed``), and a row with a lower source_generation than we know is stale.
* **Native controls.** A ``media_control`` is applied with our own ``set``/``close`` only when
  its key names a live slot, its session is that slot's, its source_generation equals the
  slot's current one and the slot was opened with native_controls (MED-23, MED-24).
* **Unknown outcomes.** An ``open`` answered by -32603, unreadably or not at all may have
  happened: the slot is unsettled and the next snapshot decides (a row for its key is adopted);
  it is never sent again blindly, so a slot has at most one ``open`` in flight.
* **Credentials.** URLs are :class:`vxp.Secret` only; they leave in ``open``, ``reload`` and
  the ``secrets`` namespace, never in props, kv, a notice, a log line or a repr (MED-12).
* **Versions.** No media request on a host older than 1.4 or without the grant (the deck is
  hidden); native_controls only from 1.6 and only in ``open``; controls_on_player only from 1.7
  (docs/protocol-notes.md#r23). After ``unsupported`` nothing more is sent until the next
  connection (MED-2).
"""

from __future__ import annotations

import logging
from collections import deque
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from cueboard.contract import MediaMode, StatusLevel
from cueboard.core.effects import Effect, Failure, Log, Notice, Reply, Send, Tickets
from cueboard.i18n import msgid
from cueboard.media_urls import CheckedUrl, DeckInputError, check_title, check_url, title_for
from vxp import Secret

from . import sessions
from .context import (
    CONTROLS_ON_PLAYER_SINCE,
    NATIVE_CONTROLS_SINCE,
    DeckState,
    HostFacts,
    Step,
)
from .slots import VOLUME_RANGE, SessionOptions, Slot, check_options, observe
from .storage import KV_OPTIONS_KEY, as_record, keep_url, kv_set
from .views import DeckView, slot_view

if TYPE_CHECKING:
    from vxp.models.events import MediaControl, MediaSnapshot

type Flow = Step[None]


class DeckCore:
    """The deck's decisions. Feed it inputs; carry out the effects it returns."""

    def __init__(self, tickets: Tickets | None = None) -> None:
        self._state = DeckState(tickets or Tickets())
        self._queue: deque[Flow] = deque()
        self._active: Flow | None = None
        self._waiting: dict[int, tuple[Flow, bool]] = {}  # ticket -> (step, one-at-a-time)

    def __repr__(self) -> str:
        return f"DeckCore(mode={self.mode.name}, {self._state!r})"

    # -- what the host allows, and the view -------------------------------------------------

    @property
    def mode(self) -> MediaMode:
        if not self._state.media_available():
            return MediaMode.HIDDEN
        return MediaMode.UNSUPPORTED if self._state.unsupported else MediaMode.READY

    def view(self) -> DeckView:
        st = self._state
        return DeckView(
            mode=self.mode,
            slots=tuple(slot_view(s) for s in st.slots.values() if s.in_use),
            options=st.options,
            native_controls_shown=st.host_at_least(NATIVE_CONTROLS_SINCE),
            controls_on_player_shown=st.host_at_least(CONTROLS_ON_PLAYER_SINCE),
            url_clear=st.url_clear,
        )

    @property
    def controls_applied(self) -> int:
        return self._state.controls_applied

    @property
    def controls_dropped(self) -> dict[str, int]:
        return dict(self._state.controls_dropped)

    def session_of(self, key: str) -> tuple[str, int] | None:
        """(session id, current source_generation) of a live slot, for diagnostics and tests."""
        slot = self._state.slots.get(key)
        if slot is None or slot.session is None:
            return None
        return slot.session, slot.generation

    def unsettled(self, key: str) -> bool:
        """The slot's ``open`` has an unknown outcome that the next snapshot settles."""
        slot = self._state.slots.get(key)
        return slot is not None and slot.unsettled is not None

    @property
    def idle(self) -> bool:
        """Nothing is waiting for an answer and no action is queued."""
        return self._active is None and not self._queue and not self._waiting

    # -- the connection ---------------------------------------------------------------------

    def connected(self, host: HostFacts) -> list[Effect]:
        """A welcome: the first restores the slots kept by the last run, reopens those whose URL
        was kept and says why the others need their URL again; a later one forgets
        ``unsupported`` and reconciles each live slot with ``status``."""
        st = self._state
        st.host, st.unsupported, st.denied, st.last_rows = host, False, False, {}
        out: list[Effect] = []
        for slot in st.slots.values():
            slot.generation_unsure = False
            if slot.unsettled is not None:  # that connection's sessions ended with it (R21)
                slot.unsettled = None
                out.append(
                    Log(logging.INFO, f"{slot.key}: an unsettled open ended with its connection")
                )
        first = not st.restored
        return out + self._enqueue(self._notices(self._start() if first else self._reconnect()))

    def _start(self) -> Step[list[Notice]]:
        st = self._state
        if not st.media_available():
            return []
        st.restored = True
        from .slots import DeckOptions
        from .storage import fields_of, kv_get

        stored = yield from kv_get(st, KV_OPTIONS_KEY)
        st.options = replace(st.options, **fields_of(stored, DeckOptions))
        return (yield from sessions.each_slot(st, sessions.restore))

    def _reconnect(self) -> Step[list[Notice]]:
        st = self._state
        if not st.restored:
            return (yield from self._start())

        def live(state: DeckState, slot: Slot) -> Step[Notice | None]:
            if slot.session is None:
                return None
            return (yield from sessions.reconcile(state, slot))

        return (yield from sessions.each_slot(st, live))

    # -- user actions -----------------------------------------------------------------------

    def _refused(self) -> list[Effect] | None:
        if self._state.sendable():
            return None
        if not self._state.media_available():
            return [Log(logging.DEBUG, "media request skipped: the deck is hidden on this host")]
        return [sessions.notices.unsupported()]

    def open(self, url: str | Secret, title: str = "", key: str | None = None) -> list[Effect]:
        """Open ``url`` (a str or a :class:`vxp.Secret`) in ``key``'s slot, or in the first free
        one. A live slot is never opened twice (that would be ``busy``, readings R15)."""
        refused = self._refused()
        if refused is not None:
            return refused
        try:
            checked = check_url(url)
            name = title_for(title, checked)
        except DeckInputError as exc:
            return [Notice(exc.key, StatusLevel.ERROR, exc.params)]
        return self._enqueue(self._told(self._open(checked, name, key)))

    def _open(self, checked: CheckedUrl, name: str, key: str | None) -> Step[Notice | None]:
        st = self._state
        if key is not None:
            slot = st.slots.get(key)
            if slot is None:
                yield Log(logging.DEBUG, f"open for a key outside the deck ignored: {key!r}")
                return None
            if slot.session is not None:
                return sessions.notices.busy(slot.title)
        else:
            free = (s for s in st.slots.values() if not s.in_use and s.unsettled is None)
            slot = next(free, None)
            if slot is None:
                return Notice(msgid("media.error.deck_full"), StatusLevel.WARN)
        opts = slot.options if slot.in_use else self._new_session_options()
        native = slot.native_controls if slot.in_use else st.options.native_controls
        return (
            yield from sessions.open_into(st, slot, checked, name, opts, native, from_fields=True)
        )

    def _new_session_options(self) -> SessionOptions:
        o = self._state.options
        return SessionOptions(
            show_video=o.show_video, max_fps=o.max_fps, controls_on_player=o.controls_on_player
        )

    def reload(self, key: str, url: str | Secret, title: str = "") -> list[Effect]:
        """A new source for a slot (its source_generation rises, MED-16). A slot without a
        session (remembered, ended) is opened with the URL instead."""
        refused = self._refused()
        if refused is not None:
            return refused
        if key not in self._state.slots:
            return [Log(logging.DEBUG, f"reload for a key outside the deck ignored: {key!r}")]
        try:
            checked = check_url(url)
            typed = check_title(title)
        except DeckInputError as exc:
            return [Notice(exc.key, StatusLevel.ERROR, exc.params)]
        return self._enqueue(self._told(self._reload(key, checked, typed)))

    def _reload(self, key: str, checked: CheckedUrl, typed: str) -> Step[Notice | None]:
        st = self._state
        slot = st.slots[key]
        name = typed or (slot.title if slot.in_use else "") or title_for("", checked)
        if slot.session is not None:
            return (yield from sessions.reload_live(st, slot, checked, name))
        opts = slot.options if slot.in_use else self._new_session_options()
        native = slot.native_controls if slot.in_use else st.options.native_controls
        return (
            yield from sessions.open_into(st, slot, checked, name, opts, native, from_fields=True)
        )

    def close(self, key: str) -> list[Effect]:
        """Close a slot's session and forget the slot (its kv record and kept URL too)."""
        slot = self._state.slots.get(key)
        if slot is None or not slot.in_use:
            return [Log(logging.DEBUG, f"close for a slot not in use ignored: {key!r}")]
        return self._enqueue(self._told(self._close(key)))

    def _close(self, key: str) -> Step[Notice | None]:
        slot = self._state.slots[key]
        if not slot.in_use:
            return None
        if slot.unsettled is not None:
            return sessions.notices.pending(slot.title)
        return (yield from sessions.close(self._state, slot))

    def set_options(self, key: str, **changes: Any) -> list[Effect]:
        """Change one slot's options (native_controls is fixed at open, readings R23)."""
        changes = {k: v for k, v in changes.items() if v is not None}
        changes.pop("native_controls", None)
        try:
            check_options(changes)
        except DeckInputError as exc:
            return [Notice(exc.key, StatusLevel.ERROR, exc.params)]
        slot = self._state.slots.get(key)
        if slot is None or not slot.in_use:
            return [Log(logging.DEBUG, f"options for a slot not in use ignored: {key!r}")]
        return self._enqueue(self._told(self._set(key, changes)))

    def _set(self, key: str, changes: dict[str, Any]) -> Step[Notice | None]:
        slot = self._state.slots[key]
        if not slot.in_use:
            return None
        return (yield from sessions.set_slot(self._state, slot, changes))

    def set_defaults(self, **changes: Any) -> list[Effect]:
        """The dash tab's options: kept in kv, used by the next opens, and applied now to every
        live session (native_controls only at the next open: set cannot change it)."""
        changes = {k: v for k, v in changes.items() if v is not None}
        try:
            check_options(changes)
        except DeckInputError as exc:
            return [Notice(exc.key, StatusLevel.ERROR, exc.params)]
        return self._enqueue(self._told(self._defaults(changes)))

    def _defaults(self, changes: dict[str, Any]) -> Step[Notice | None]:
        st = self._state
        st.options = replace(st.options, **changes)
        yield from kv_set(st, KV_OPTIONS_KEY, as_record(st.options))
        per_session = {k: v for k, v in changes.items() if k != "native_controls"}
        notice: Notice | None = None
        for key in list(st.slots):
            slot = st.slots[key]
            if per_session and slot.in_use:
                notice = (yield from sessions.set_slot(st, slot, per_session)) or notice
        return notice

    # -- events -----------------------------------------------------------------------------

    def event(self, event: object) -> list[Effect] | None:
        """A host event: the effects of a media_snapshot or media_control, None for any other
        event (it is not the deck's)."""
        from vxp.models.events import MediaControl, MediaSnapshot

        if isinstance(event, MediaSnapshot):
            return self._snapshot(event)
        if isinstance(event, MediaControl):
            return self._enqueue(self._told(self._control(event)))
        return None

    def _snapshot(self, snapshot: MediaSnapshot) -> list[Effect]:
        st = self._state
        rows = {row.session: observe(row) for row in snapshot.sessions}
        by_key = {row.key: row for row in snapshot.sessions}
        st.last_rows = rows
        out: list[Effect] = []
        for slot in st.slots.values():
            slot.generation_unsure = False
            if slot.unsettled is not None:
                self._settle(slot, by_key.get(slot.key), out)
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
        return out

    def _settle(self, slot: Slot, row: Any, out: list[Effect]) -> None:
        """The snapshot after an ``open`` with an unknown outcome: a session for the slot's key
        is that open's; none means it did not happen."""
        pending = slot.unsettled
        assert pending is not None
        st = self._state
        owned = {s.session for s in st.slots.values() if s.session is not None}
        if row is None or row.session in owned:
            slot.unsettled = None
            if slot.in_use:
                slot.error_code = pending.code
            out.append(Log(logging.INFO, f"{slot.key}: the open did not happen ({pending.code})"))
            if pending.code != "closed":
                params: dict[str, str | int] = {"title": pending.title, "code": pending.code}
                out.append(Notice(msgid("media.error.code"), StatusLevel.ERROR, params))
            return
        native = pending.native and st.host_at_least(NATIVE_CONTROLS_SINCE)
        session = str(row.session)
        slot.become_live(
            pending.checked, pending.title, pending.options, native, session, row.source_generation
        )
        slot.observed, slot.confirmed = observe(row), True
        if pending.from_fields:
            st.url_clear += 1
        out.append(Log(logging.INFO, f"{slot.key} opened: source_generation {slot.generation}"))

        def still() -> bool:
            return st.slots.get(slot.key) is slot and slot.session == session

        self._spawn(keep_url(st, slot, pending.checked, still), out)

    def _control(self, event: MediaControl) -> Step[Notice | None]:
        from vxp.models.media import SetPaused, SetVolume, StopPlayback

        st = self._state
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

    # -- outcomes and the steps that wait for them ------------------------------------------

    def owns(self, ticket: int) -> bool:
        return ticket in self._waiting

    def outcome(self, done: Reply | Failure) -> list[Effect]:
        """The final outcome of a request the deck sent (a Failure here is final: whatever was
        worth retrying has been)."""
        entry = self._waiting.pop(done.ticket, None)
        if entry is None:
            return [Log(logging.DEBUG, f"deck: an outcome for ticket #{done.ticket} it never sent")]
        out: list[Effect] = []
        self._step(entry[0], entry[1], done, out)
        self._drain(out)
        return out

    def _told(self, step: Step[Notice | None]) -> Flow:
        notice = yield from step
        if notice is not None:
            yield notice

    def _notices(self, step: Step[list[Notice]]) -> Flow:
        for notice in (yield from step):
            yield notice

    def _enqueue(self, flow: Flow) -> list[Effect]:
        self._queue.append(flow)
        out: list[Effect] = []
        self._drain(out)
        return out

    def _spawn(self, flow: Flow, out: list[Effect]) -> None:
        self._step(flow, False, None, out)

    def _drain(self, out: list[Effect]) -> None:
        while self._active is None and self._queue:
            self._active = self._queue.popleft()
            self._step(self._active, True, None, out)

    def _step(
        self, flow: Flow, serial: bool, value: Reply | Failure | None, out: list[Effect]
    ) -> None:
        while True:
            try:
                effect = flow.send(value)
            except StopIteration:
                break
            except Exception as exc:  # a bug must not take the deck down with it
                out.append(Log(logging.ERROR, f"deck: a step failed ({type(exc).__name__})"))
                break
            value = None
            out.append(effect)
            if isinstance(effect, Send):
                self._waiting[effect.ticket] = (flow, serial)
                return
        if serial:
            self._active = None


__all__ = ["DeckCore", "HostFacts"]
