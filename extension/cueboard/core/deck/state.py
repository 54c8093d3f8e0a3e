"""The media deck without I/O: four slots of vrOS's player, driven by the user and the player.

Theory of operation.

* **Inputs.** :meth:`DeckCore.connected` (host facts), the user's actions (``open``,
  ``reload``, ``close``, ``set_options``, ``set_defaults``), the deck's events
  (``media_snapshot``, ``media_control``) and the final outcome of every request it sent
  (handed back through the tracker, which every request goes through). Each returns effects:
  ``Send`` (media, kv and secrets requests, built by the tracker), ``Notice`` and ``Log``.
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
  it is never sent again blindly, so a slot has at most one ``open`` in flight. The host may
  still apply it after a snapshot without it: a later session on the key is adopted while the
  slot still wants that open, and closed otherwise, so a key is never ``busy`` for good.
* **Credentials.** URLs are :class:`vxp.Secret` only; they leave in ``open``, ``reload`` and
  the ``secrets`` namespace, never in props, kv, a notice, a log line or a repr (MED-12).
* **Versions.** No media request on a host older than 1.4 or without the grant (the deck is
  hidden); native_controls only from 1.6 and only in ``open``; controls_on_player only from 1.7
  (docs/protocol-notes.md#r23). After ``unsupported`` nothing more is sent until the next
  connection (MED-2).
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import replace
from typing import Any

import cueboard.core.deck.events as events
import cueboard.core.deck.notices as notices
import cueboard.core.deck.sessions as sessions
from cueboard.core.contract import MediaMode, StatusLevel
from cueboard.core.effects import Effect, Log, Notice
from cueboard.core.i18n import msgid
from cueboard.core.media_urls import CheckedUrl, DeckInputError, check_title, check_url, title_for
from vxp.secret import Secret

from .context import (
    CONTROLS_ON_PLAYER_SINCE,
    NATIVE_CONTROLS_SINCE,
    DeckState,
    HostFacts,
    Step,
)
from .runner import Flow, Requests, Runner
from .slots import DeckOptions, SessionOptions, Slot, check_options
from .storage import KV_OPTIONS_KEY, as_record, fields_of, kv_get, kv_set
from .views import DeckView, slot_view


class DeckCore:
    """The deck's decisions. Feed it inputs; carry out the effects it returns."""

    def __init__(self, requests: Requests, clock: Callable[[], float]) -> None:
        """``requests`` is the tracker every feature asks through; ``clock`` the value of the
        input being handled."""
        self._state = DeckState()
        self._runner = Runner(requests, clock)

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
        return self._runner.idle

    # -- the connection ---------------------------------------------------------------------

    def connected(self, host: HostFacts) -> list[Effect]:
        """A welcome: the first restores the slots kept by the last run, reopens those whose URL
        was kept and says why the others need their URL again; a later one forgets
        ``unsupported`` and reconciles each live slot with ``status``."""
        st = self._state
        st.host, st.unsupported, st.denied, st.last_rows = host, False, False, {}
        st.closing.clear()
        out: list[Effect] = []
        for slot in st.slots.values():
            slot.generation_unsure = False
            slot.late = None  # had it been applied, it ended with its connection
            slot.opening = False
            if slot.unsettled is not None:
                # Had that open happened, its session ended with the connection
                # (docs/protocol-notes.md#r21).
                slot.unsettled = None
                said = f"{slot.key}: an unsettled open ended with its connection"
                out.append(Log(logging.INFO, said))
        return out + self._enqueue(self._notices(self._welcomed()))

    def _start(self) -> Step[list[Notice]]:
        st = self._state
        if not st.media_available():
            return []
        st.restored = True
        stored = yield from kv_get(st, KV_OPTIONS_KEY)
        st.options = replace(st.options, **fields_of(stored, DeckOptions))
        return (yield from sessions.each_slot(st, sessions.restore))

    def _welcomed(self) -> Step[list[Notice]]:
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
        return [notices.unsupported()]

    def open(self, url: str | Secret, title: str = "", key: str | None = None) -> list[Effect]:
        """Open ``url`` (a str or a :class:`vxp.Secret`) in ``key``'s slot, or in the first free
        one. A live slot is never opened twice: that would be ``busy``
        (docs/protocol-notes.md#r15)."""
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
                return notices.busy(slot.title)
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

    def retry(self, key: str) -> list[Effect]:
        """A failed stream again, from the URL the slot holds (never shown, never logged); a
        slot that no longer holds its URL asks for it to be pasted."""
        refused = self._refused()
        if refused is not None:
            return refused
        slot = self._state.slots.get(key)
        if slot is None or not slot.in_use:
            return [Log(logging.DEBUG, f"retry for a slot not in use ignored: {key!r}")]
        if slot.url is None:
            return [Notice(msgid("media.retry_needs_url"), StatusLevel.WARN, {"title": slot.title})]
        try:
            checked = check_url(slot.url)
        except DeckInputError as exc:
            return [Notice(exc.key, StatusLevel.ERROR, exc.params)]
        return self._enqueue(self._told(self._reload(key, checked, "")))

    def pause_all(self) -> list[Effect]:
        """The deck's own stop: every stream with a session paused (Stop all is for sounds)."""
        out: list[Effect] = []
        for key, slot in self._state.slots.items():
            if slot.session is not None:
                out += self.set_options(key, paused=True)
        return out

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
            return notices.pending(slot.title)
        return (yield from sessions.close(self._state, slot))

    def set_options(self, key: str, **changes: Any) -> list[Effect]:
        """Change one slot's options; native_controls is fixed at open
        (docs/protocol-notes.md#r23)."""
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

    # -- backup ---------------------------------------------------------------------------

    def backup(self) -> dict[str, Any]:
        """The deck in a backup file: its options, and each remembered slot's title and
        options for the user's reference. Never a URL: those are credentials."""
        st = self._state
        slots = {
            key: {"title": slot.title, **as_record(slot.options)}
            for key, slot in sorted(st.slots.items())
            if slot.in_use or slot.title
        }
        return {"options": as_record(st.options), "slots": slots}

    def restore(self, backup: dict[str, Any]) -> list[Effect]:
        """The options of a backup; a slot cannot be restored without its URL."""
        options = fields_of(backup.get("options"), DeckOptions)
        return self.set_defaults(**options) if options else []

    # -- events -----------------------------------------------------------------------------

    def event(self, event: object) -> list[Effect] | None:
        """A host event: the effects of a media_snapshot or media_control, None for any other
        event (it is not the deck's)."""
        from vxp.models.events import MediaControl, MediaSnapshot

        if isinstance(event, MediaSnapshot):
            return events.apply_snapshot(self._state, event, self._runner)
        if isinstance(event, MediaControl):
            return self._enqueue(self._told(events.control(self._state, event)))
        return None

    # -- steps ------------------------------------------------------------------------------

    def _enqueue(self, flow: Flow) -> list[Effect]:
        return self._runner.enqueue(flow)

    def _told(self, step: Step[Notice | None]) -> Flow:
        notice = yield from step
        if notice is not None:
            yield notice

    def _notices(self, step: Step[list[Notice]]) -> Flow:
        yield from (yield from step)


__all__ = ["DeckCore", "HostFacts"]
