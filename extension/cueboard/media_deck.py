"""The media deck: four slots of vrOS's player, driven from the overlay and the player's controls.

Theory of operation.

* **Slots.** ``deck-1`` … ``deck-4`` are the media keys. A slot is *free*, *live* (it has a
  session id and the source_generation we last learned) or *remembered* (title and options, and
  perhaps its URL, but no session: restored from kv, or its session vanished).
* **Truth.** ``media_snapshot`` is the only source of playback and video state (MED-17). A
  snapshot is complete, so a live session missing from one is gone: but a snapshot can be
  *older* than a reply we already handled (the event consumer may lag the caller of ``open``),
  so a session only counts as gone once a snapshot has listed it (``confirmed``), and a row with
  a lower source_generation than we know is stale and skipped.
* **Native controls.** A ``media_control`` is applied with our own ``set``/``close`` only when
  its key names a live slot, its session is that slot's, its source_generation equals the
  slot's current one and the slot was opened with native_controls (MED-23, MED-24). Everything
  else is dropped and counted. Controls and requests run under one lock, so a control that
  races a ``reload`` is judged against the generation the reload produced.
* **Credentials.** URLs are held as :class:`vxp.Secret` only; they reach the host in ``open``
  and ``reload``, and the ``secrets`` namespace (slot ``deck-<n>``) when granted and short
  enough. kv holds a slot's title and options (``deck:<n>``) and why its URL was not kept.
  Nothing logged, raised or put into props contains a URL (MED-12).
* **Versions.** No media request on a host older than 1.4 or without the grant (the deck is
  hidden); native_controls only from 1.6 and only in ``open``; controls_on_player only from
  1.7 (readings R23). After an ``unsupported`` answer nothing more is sent until the next
  connection (MED-2).
"""

from __future__ import annotations

import logging
from collections import Counter
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any

import anyio

from cueboard.contract import (
    DASH_TAB,
    DECK_SLOTS,
    OVERLAY,
    MediaMode,
    Playback,
    StatusLevel,
    Video,
    WireValue,
)
from cueboard.core.overlay import playback_text, video_text
from cueboard.i18n import Catalog, msgid
from cueboard.media_urls import CheckedUrl, DeckInputError, check_title, check_url, title_for
from vxp import (
    CapabilityDenied,
    ConnectionClosed,
    DomainError,
    InvalidRequest,
    NotSupportedByHost,
    Secret,
    VxpError,
)

if TYPE_CHECKING:
    from vxp import Client
    from vxp.models.events import MediaControl, MediaSnapshot
    from vxp.models.media import MediaSession, MediaStatusReply

log = logging.getLogger("cueboard.media_deck")

DECK_KEYS = tuple(f"deck-{n}" for n in range(1, DECK_SLOTS + 1))
MEDIA_SINCE = "1.4"  # the media namespace and media_snapshot
NATIVE_CONTROLS_SINCE = "1.6"  # native_controls and media_control
CONTROLS_ON_PLAYER_SINCE = "1.7"
RELOAD_TITLE_SINCE = "1.6"
KV_OPTIONS_KEY = "deck:options"
FPS_RANGE = (1, 120)  # MED-13
VOLUME_RANGE = (0, 100)

# Catalog keys the shipped catalogs do not hold yet, with the English shown until they do.
FALLBACK_TEXT: Mapping[str, str] = {
    "media.error.url_too_long": "That URL is longer than 8 KiB ({limit} bytes).",
    "media.error.busy": "{title} is already open: use Reload to change its URL.",
    "media.error.invalid_option": "{option} must be between {min} and {max}.",
}


def kv_slot_key(key: str) -> str:
    """``deck-2`` -> ``deck:2``: where the slot's title and options live (never its URL)."""
    return "deck:" + key.removeprefix("deck-")


# -- what the deck tells the user --------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Notice:
    """A status-line message: a catalog key and its parameters (``refs`` name parameters whose
    value is itself a catalog key, such as the reason a URL was not kept)."""

    key: str
    level: StatusLevel = StatusLevel.ERROR
    params: Mapping[str, str | int] = field(default_factory=dict[str, str | int])
    refs: Mapping[str, str] = field(default_factory=dict[str, str])

    def text(self, catalog: Catalog) -> str:
        values: dict[str, object] = dict(self.params)
        for name, ref in self.refs.items():
            values[name] = _lookup(catalog, ref)
        return _lookup(catalog, self.key, **values)


def _lookup(catalog: Catalog, key: str, /, **params: object) -> str:
    if key not in catalog and key in FALLBACK_TEXT:
        return FALLBACK_TEXT[key].format_map(_Keep(params))
    return catalog.t(key, **params)


class _Keep(dict[str, object]):
    def __missing__(self, name: str) -> str:
        return "{" + name + "}"


# -- options -----------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class SessionOptions:
    """One session's changeable options (MED-8 defaults); native_controls is fixed at open."""

    paused: bool = False
    volume_pct: int = 100
    muted: bool = False
    show_video: bool = True
    max_fps: int = 30
    controls_on_player: bool = False


@dataclass(frozen=True, slots=True)
class DeckOptions:
    """The dash tab's options: what a new session opens with, and applied to live ones."""

    show_video: bool = True
    max_fps: int = 30
    native_controls: bool = True  # Cueboard's point: the player's own controls act on the deck
    controls_on_player: bool = False


_BOOL_OPTIONS = ("paused", "muted", "show_video", "controls_on_player", "native_controls")
_RANGES = {"volume_pct": VOLUME_RANGE, "max_fps": FPS_RANGE}


def check_options(changes: Mapping[str, object]) -> None:
    """Raise :class:`DeckInputError` for a value the host would refuse (``invalid_value``)."""
    for name, value in changes.items():
        if name in _RANGES:
            low, high = _RANGES[name]
            if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
                raise DeckInputError("media.error.invalid_option", option=name, min=low, max=high)
        elif name in _BOOL_OPTIONS:
            if not isinstance(value, bool):
                raise DeckInputError("media.error.invalid_option", option=name, min=0, max=1)
        else:
            raise ValueError(f"{name} is not a media option")


def _record(value: Any, cls: type[Any]) -> dict[str, Any]:
    """The fields of a kv record that fit ``cls`` (an unknown or wrongly typed one is dropped)."""
    if not isinstance(value, dict):
        return {}
    out: dict[str, Any] = {}
    for name in cls.__dataclass_fields__:
        item: object = value.get(name)  # pyright: ignore[reportUnknownMemberType]
        if item is None:
            continue
        try:
            check_options({name: item})
        except (DeckInputError, ValueError):
            continue
        out[name] = item
    return out


# -- the view ----------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class SlotView:
    """A slot in use, as the overlay shows it (the title, never the URL)."""

    key: str
    title: str
    playback: Playback
    failure_code: str
    video: Video
    paused: bool
    volume_pct: int
    muted: bool
    needs_url: bool
    source_generation: int | None  # None: no session


@dataclass(frozen=True, slots=True)
class DeckView:
    mode: MediaMode
    slots: tuple[SlotView, ...]
    options: DeckOptions
    native_controls_shown: bool  # host 1.6 or later
    controls_on_player_shown: bool  # host 1.7 or later
    url_clear: int  # advanced after each successful open or reload from the fields


@dataclass(frozen=True, slots=True)
class _Observed:
    """A snapshot row (or status reply) reduced to what the view needs."""

    generation: int
    playback: Playback
    code: str
    video: Video
    paused: bool
    volume_pct: int
    muted: bool


_PLAYBACK_BY_KIND = {
    "opening": Playback.OPENING,
    "buffering": Playback.BUFFERING,
    "playing": Playback.PLAYING,
    "paused": Playback.PAUSED,
    "ended": Playback.ENDED,
    "failed": Playback.FAILED,
}
_VIDEO_BY_NAME = {
    "disabled": Video.DISABLED,
    "warming": Video.WARMING,
    "ready": Video.READY,
    "recovering": Video.RECOVERING,
}


def _observe(row: MediaSession | MediaStatusReply) -> _Observed:
    kind = row.playback.kind
    playback = _PLAYBACK_BY_KIND.get(kind, Playback.OPENING)  # a newer kind: still starting
    code = str(getattr(row.playback, "code", "")) if playback is Playback.FAILED else ""
    return _Observed(
        generation=row.source_generation,
        playback=playback,
        code=code,
        video=_VIDEO_BY_NAME.get(row.video, Video.WARMING),
        paused=row.paused,
        volume_pct=row.volume_pct,
        muted=row.muted,
    )


@dataclass
class _Slot:
    key: str
    in_use: bool = False
    title: str = ""
    url: Secret | None = None  # held for reopening; never stored outside `secrets`
    url_reason: str | None = None  # catalog key: why the URL is not kept across runs
    options: SessionOptions = field(default_factory=SessionOptions)
    native_controls: bool = False  # as opened
    session: str | None = None
    generation: int = 0
    confirmed: bool = False  # a snapshot has listed the session
    observed: _Observed | None = None
    ended: bool = False  # the session vanished from a snapshot
    error_code: str = ""  # the last open failure of a remembered slot

    def drop_session(self) -> None:
        self.session, self.generation, self.confirmed, self.observed = None, 0, False, None

    def view(self) -> SlotView:
        seen = self.observed
        if self.session is not None and seen is not None:
            playback, code, video = seen.playback, seen.code, seen.video
            paused, volume, muted = seen.paused, seen.volume_pct, seen.muted
        else:
            opts = self.options
            paused, volume, muted = opts.paused, opts.volume_pct, opts.muted
            if self.session is not None:
                playback, code = Playback.OPENING, ""
                video = Video.WARMING if opts.show_video else Video.DISABLED
            elif self.error_code:
                playback, code, video = Playback.FAILED, self.error_code, Video.DISABLED
            else:
                playback = Playback.ENDED if self.ended else Playback.NO_SESSION
                code, video = "", Video.DISABLED
        return SlotView(
            key=self.key,
            title=self.title,
            playback=playback,
            failure_code=code,
            video=video,
            paused=paused,
            volume_pct=volume,
            muted=muted,
            needs_url=self.session is None and self.url is None,
            source_generation=self.generation if self.session is not None else None,
        )


# -- the deck ----------------------------------------------------------------------------------


class MediaDeck:
    """Four media slots over one client. Methods return a :class:`Notice` for the status line
    (also passed to ``on_notice``), or None; ``on_change`` is called whenever :meth:`view`
    may have changed."""

    def __init__(
        self,
        client: Client,
        *,
        on_change: Callable[[], None] | None = None,
        on_notice: Callable[[Notice], None] | None = None,
    ) -> None:
        self._client = client
        self._on_change = on_change
        self._on_notice = on_notice
        self._slots = {key: _Slot(key) for key in DECK_KEYS}
        self._options = DeckOptions()
        self._unsupported = False
        self._denied = False
        self._restored = False
        self._last_rows: dict[str, _Observed] = {}  # the latest snapshot, by session id
        self._lock: anyio.Lock | None = None
        self._url_clear = 0
        self.controls_applied = 0
        self.controls_dropped: Counter[str] = Counter()

    def __repr__(self) -> str:
        live = sum(1 for s in self._slots.values() if s.session is not None)
        return f"MediaDeck(mode={self.mode.name}, live={live})"

    # -- what the host allows ------------------------------------------------------------

    @property
    def mode(self) -> MediaMode:
        if not self._media_available():
            return MediaMode.HIDDEN
        return MediaMode.UNSUPPORTED if self._unsupported else MediaMode.READY

    def _media_available(self) -> bool:
        return (
            not self._denied
            and self._client.host_version.at_least(MEDIA_SINCE)
            and self._client.welcome.granted.media
        )

    def _host_at_least(self, version: str) -> bool:
        return self._client.host_version.at_least(version)

    def _guard(self) -> anyio.Lock:
        if self._lock is None:
            self._lock = anyio.Lock()
        return self._lock

    def _sendable(self) -> bool:
        return self.mode is MediaMode.READY

    def _refusal(self) -> Notice | None:
        """What to tell a user whose action cannot be sent: nothing on a host without media
        (the deck is hidden there), "media needs vrOS on Windows" after ``unsupported``."""
        if self.mode is MediaMode.HIDDEN:
            log.debug("media request skipped: the deck is hidden on this host")
            return None
        return Notice(msgid("media.unsupported"), StatusLevel.WARN)

    # -- the view and counters -------------------------------------------------------------

    def view(self) -> DeckView:
        return DeckView(
            mode=self.mode,
            slots=tuple(s.view() for s in self._slots.values() if s.in_use),
            options=self._options,
            native_controls_shown=self._host_at_least(NATIVE_CONTROLS_SINCE),
            controls_on_player_shown=self._host_at_least(CONTROLS_ON_PLAYER_SINCE),
            url_clear=self._url_clear,
        )

    @property
    def controls_dropped_total(self) -> int:
        return sum(self.controls_dropped.values())

    def session_of(self, key: str) -> tuple[str, int] | None:
        """(session id, current source_generation) of a live slot, for diagnostics and tests."""
        slot = self._slots.get(key)
        if slot is None or slot.session is None:
            return None
        return slot.session, slot.generation

    def _changed(self) -> None:
        if self._on_change is not None:
            self._on_change()

    def _tell(self, notice: Notice | None) -> Notice | None:
        if notice is not None and self._on_notice is not None:
            self._on_notice(notice)
        return notice

    # -- connection lifecycle --------------------------------------------------------------

    async def start(self) -> list[Notice]:
        """After the first welcome: restore the slots kept by the last run, reopen those whose
        URL was kept, and say why the others need their URL again."""
        notices: list[Notice] = []
        if not self._media_available():
            self._changed()
            return notices
        async with self._guard():
            self._restored = True
            options = _record(await self._kv_get(KV_OPTIONS_KEY), DeckOptions)
            self._options = replace(self._options, **options)
            for slot in self._slots.values():
                notice = await self._restore(slot)
                if notice is not None:
                    notices.append(notice)
        return self._tell_all(notices)

    async def reconnected(self, client: Client) -> list[Notice]:
        """A new connection: ``unsupported`` is forgotten, and each slot that had a session is
        reconciled with ``status`` (sessions end with their connection, readings R21, so this
        usually answers no_such_session and the slot is opened again with its held URL)."""
        self._client = client
        self._unsupported = False
        self._denied = False
        self._last_rows = {}
        if not self._restored:
            return await self.start()
        notices: list[Notice] = []
        async with self._guard():
            for slot in self._slots.values():
                if slot.session is None:
                    continue
                notice = await self._reconcile(slot)
                if notice is not None:
                    notices.append(notice)
        return self._tell_all(notices)

    def _tell_all(self, notices: list[Notice]) -> list[Notice]:
        self._changed()
        unique: list[Notice] = []
        for notice in notices:
            if notice not in unique:
                unique.append(notice)
        for notice in unique:
            self._tell(notice)
        return unique

    async def _restore(self, slot: _Slot) -> Notice | None:
        record = await self._kv_get(kv_slot_key(slot.key))
        if not isinstance(record, dict):
            return None
        meta: dict[str, Any] = record  # pyright: ignore[reportUnknownVariableType]
        try:
            title = check_title(str(meta.get("title", "")))
        except DeckInputError:
            title = ""
        slot.in_use = True
        slot.title = title or slot.key
        slot.options = replace(SessionOptions(), **_record(meta, SessionOptions))
        slot.native_controls = meta.get("native_controls") is True
        reason = meta.get("url_reason")
        slot.url_reason = reason if isinstance(reason, str) else None
        if slot.url_reason is None:
            slot.url = await self._secret_get(slot.key)
            if slot.url is None and not self._secrets_granted():
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
        return await self._open_into(slot, checked, slot.title, slot.options, slot.native_controls)

    async def _reconcile(self, slot: _Slot) -> Notice | None:
        assert slot.session is not None
        if not self._sendable():
            slot.drop_session()
            return None
        try:
            reply = await self._client.media.status(slot.session)
        except DomainError as exc:
            if exc.code != "no_such_session":
                slot.drop_session()
                return self._failure(exc, slot.title)
            return await self._reopen(slot, quiet=True)
        except (VxpError, TimeoutError) as exc:
            return self._failure(exc, slot.title)
        seen = _observe(reply)
        slot.generation = max(slot.generation, seen.generation)
        slot.observed, slot.confirmed = seen, True
        return None

    async def _reopen(self, slot: _Slot, *, quiet: bool = False) -> Notice | None:
        """The host lost the session (a restart, a new connection): open it again cleanly."""
        slot.drop_session()
        if slot.url is None:
            self._changed()
            return None
        checked = check_url(slot.url)
        failed = await self._open_into(
            slot, checked, slot.title, slot.options, slot.native_controls
        )
        if failed is not None or quiet:
            return failed
        return Notice(msgid("media.error.session_lost"), StatusLevel.INFO, {"title": slot.title})

    # -- user actions ----------------------------------------------------------------------

    async def open(
        self, url: str | Secret, title: str = "", key: str | None = None
    ) -> Notice | None:
        """Open ``url`` in ``key``'s slot, or in the first free one. A live slot is never opened
        twice (that would be ``busy``, readings R15): reload it instead."""
        if not self._sendable():
            return self._tell(self._refusal())
        try:
            checked = check_url(url)
            name = title_for(title, checked)
        except DeckInputError as exc:
            return self._tell(Notice(exc.key, StatusLevel.ERROR, exc.params))
        async with self._guard():
            if key is not None:
                slot = self._slots.get(key)
                if slot is None:
                    log.debug("open for a key outside the deck ignored: %r", key)
                    return None
                if slot.session is not None:
                    return self._tell(
                        Notice("media.error.busy", StatusLevel.WARN, {"title": slot.title})
                    )
            else:
                slot = next((s for s in self._slots.values() if not s.in_use), None)
                if slot is None:
                    return self._tell(Notice(msgid("media.error.deck_full"), StatusLevel.WARN))
            opts = slot.options if slot.in_use else self._new_session_options()
            native = slot.native_controls if slot.in_use else self._options.native_controls
            notice = await self._open_into(slot, checked, name, opts, native, from_fields=True)
        self._changed()
        return self._tell(notice)

    async def reload(self, key: str, url: str | Secret, title: str = "") -> Notice | None:
        """A new source for a slot (its source_generation rises, MED-16). A slot without a
        session (remembered, ended) is opened with the URL instead."""
        if not self._sendable():
            return self._tell(self._refusal())
        slot = self._slots.get(key)
        if slot is None:
            log.debug("reload for a key outside the deck ignored: %r", key)
            return None
        try:
            checked = check_url(url)
            typed = check_title(title)
        except DeckInputError as exc:
            return self._tell(Notice(exc.key, StatusLevel.ERROR, exc.params))
        async with self._guard():
            name = typed or (slot.title if slot.in_use else "") or title_for("", checked)
            if slot.session is None:
                opts = slot.options if slot.in_use else self._new_session_options()
                native = slot.native_controls if slot.in_use else self._options.native_controls
                notice = await self._open_into(slot, checked, name, opts, native, from_fields=True)
            else:
                notice = await self._reload_live(slot, checked, name)
        self._changed()
        return self._tell(notice)

    async def _reload_live(self, slot: _Slot, checked: CheckedUrl, name: str) -> Notice | None:
        assert slot.session is not None
        send_title = name if self._host_at_least(RELOAD_TITLE_SINCE) else None
        try:
            generation = await self._client.media.reload(slot.session, checked.url, send_title)
        except DomainError as exc:
            if exc.code == "no_such_session":
                slot.drop_session()
                return await self._open_into(
                    slot, checked, name, slot.options, slot.native_controls, from_fields=True
                )
            return self._failure(exc, slot.title)
        except (VxpError, TimeoutError) as exc:
            return self._failure(exc, slot.title)
        log.info("%s reloaded: source_generation %d -> %d", slot.key, slot.generation, generation)
        slot.generation = max(slot.generation, generation)
        slot.observed, slot.ended = None, False
        seen = self._last_rows.get(slot.session)
        if seen is not None and seen.generation >= slot.generation:
            slot.observed = seen
        slot.title, slot.url = name, checked.url
        self._url_clear += 1
        await self._keep_url(slot, checked)
        return None

    async def close(self, key: str) -> Notice | None:
        """Close a slot's session and forget the slot (its kv record and kept URL too)."""
        slot = self._slots.get(key)
        if slot is None or not slot.in_use:
            log.debug("close for a slot not in use ignored: %r", key)
            return None
        async with self._guard():
            notice = await self._close(slot)
        self._changed()
        return self._tell(notice)

    async def _close(self, slot: _Slot) -> Notice | None:
        if slot.session is not None and self._sendable():
            try:
                await self._client.media.close(slot.session)
            except DomainError as exc:
                if exc.code != "no_such_session":  # already gone: closing is done
                    return self._failure(exc, slot.title)
            except (VxpError, TimeoutError) as exc:
                return self._failure(exc, slot.title)
        kept = slot.url_reason is None and slot.url is not None
        log.info("%s closed", slot.key)
        self._slots[slot.key] = _Slot(slot.key)
        await self._kv_delete(kv_slot_key(slot.key))
        if kept and self._secrets_granted():
            await self._secret_delete(slot.key)
        return None

    async def set_options(
        self,
        key: str,
        *,
        paused: bool | None = None,
        volume_pct: int | None = None,
        muted: bool | None = None,
        show_video: bool | None = None,
        max_fps: int | None = None,
        controls_on_player: bool | None = None,
    ) -> Notice | None:
        """Change one slot's options (native_controls is fixed at open, readings R23)."""
        changes = _given(
            paused=paused,
            volume_pct=volume_pct,
            muted=muted,
            show_video=show_video,
            max_fps=max_fps,
            controls_on_player=controls_on_player,
        )
        try:
            check_options(changes)
        except DeckInputError as exc:
            return self._tell(Notice(exc.key, StatusLevel.ERROR, exc.params))
        slot = self._slots.get(key)
        if slot is None or not slot.in_use:
            log.debug("options for a slot not in use ignored: %r", key)
            return None
        async with self._guard():
            notice = await self._set(slot, changes)
        self._changed()
        return self._tell(notice)

    async def set_defaults(
        self,
        *,
        show_video: bool | None = None,
        max_fps: int | None = None,
        native_controls: bool | None = None,
        controls_on_player: bool | None = None,
    ) -> Notice | None:
        """The dash tab's options: kept in kv, used by the next opens, and applied now to every
        live session (native_controls only at the next open: set cannot change it)."""
        changes = _given(
            show_video=show_video,
            max_fps=max_fps,
            native_controls=native_controls,
            controls_on_player=controls_on_player,
        )
        try:
            check_options(changes)
        except DeckInputError as exc:
            return self._tell(Notice(exc.key, StatusLevel.ERROR, exc.params))
        notice: Notice | None = None
        async with self._guard():
            self._options = replace(self._options, **changes)
            await self._kv_set(KV_OPTIONS_KEY, _as_record(self._options))
            per_session = {k: v for k, v in changes.items() if k != "native_controls"}
            for slot in self._slots.values():
                if per_session and slot.in_use:
                    notice = await self._set(slot, per_session) or notice
        self._changed()
        return self._tell(notice)

    async def _set(self, slot: _Slot, changes: Mapping[str, Any]) -> Notice | None:
        """Apply option changes to a slot: to its session when live, to its record always."""
        slot.options = replace(slot.options, **changes)
        wire = self._settable(changes)
        if slot.session is not None and wire and self._sendable():
            try:
                generation = await self._client.media.set(slot.session, **wire)
            except DomainError as exc:
                if exc.code == "no_such_session":
                    notice = await self._reopen(slot)
                    await self._save_slot(slot)
                    return notice
                return self._failure(exc, slot.title)
            except (VxpError, TimeoutError) as exc:
                return self._failure(exc, slot.title)
            slot.generation = max(slot.generation, generation)
        await self._save_slot(slot)
        return None

    # -- opening -----------------------------------------------------------------------

    def _new_session_options(self) -> SessionOptions:
        o = self._options
        return SessionOptions(
            show_video=o.show_video, max_fps=o.max_fps, controls_on_player=o.controls_on_player
        )

    def _settable(self, changes: Mapping[str, Any]) -> dict[str, Any]:
        wire = dict(changes)
        if not self._host_at_least(CONTROLS_ON_PLAYER_SINCE):
            wire.pop("controls_on_player", None)  # hidden before 1.7, never sent (R23)
        return wire

    def _open_fields(self, opts: SessionOptions, native: bool) -> dict[str, Any]:
        fields = self._settable(
            {
                "paused": opts.paused,
                "volume_pct": opts.volume_pct,
                "muted": opts.muted,
                "show_video": opts.show_video,
                "max_fps": opts.max_fps,
                "controls_on_player": opts.controls_on_player,
            }
        )
        if self._host_at_least(NATIVE_CONTROLS_SINCE):
            fields["native_controls"] = native
        return fields

    async def _open_into(
        self,
        slot: _Slot,
        checked: CheckedUrl,
        title: str,
        opts: SessionOptions,
        native: bool,
        *,
        from_fields: bool = False,
    ) -> Notice | None:
        """One ``open`` for a slot with no session; on success the slot is live and kept."""
        assert slot.session is None
        if not self._sendable():
            return self._refusal()
        try:
            opened = await self._client.media.open(
                slot.key, checked.url, title, **self._open_fields(opts, native)
            )
        except (VxpError, TimeoutError) as exc:
            if slot.in_use and isinstance(exc, DomainError):
                slot.error_code = exc.code
            return self._failure(exc, title)
        native = native and self._host_at_least(NATIVE_CONTROLS_SINCE)
        slot.in_use, slot.title, slot.url = True, title, checked.url
        slot.options, slot.native_controls = opts, native
        slot.session, slot.generation = opened.session, opened.source_generation
        slot.confirmed, slot.ended, slot.error_code = False, False, ""
        slot.observed = None
        seen = self._last_rows.get(opened.session)
        if seen is not None and seen.generation >= slot.generation:
            slot.observed, slot.confirmed = seen, True
        log.info("%s opened: source_generation %d", slot.key, slot.generation)
        if from_fields:
            self._url_clear += 1
        await self._keep_url(slot, checked)
        return None

    def _failure(self, exc: BaseException, title: str) -> Notice:
        """The user-facing meaning of a failed media request (never the URL, never a
        traceback); ``unsupported`` also stops every further request on this connection."""
        params: dict[str, str | int] = {"title": title}
        match exc:
            case DomainError(code="unsupported"):
                self._unsupported = True
                log.info("media is unsupported on this host: the deck stops sending")
                return Notice(msgid("media.unsupported"), StatusLevel.WARN)
            case DomainError(code="too_many"):
                return Notice(msgid("media.error.too_many"), StatusLevel.WARN)
            case DomainError(code="busy"):
                return Notice("media.error.busy", StatusLevel.WARN, params)
            case DomainError(code="invalid_url") | InvalidRequest(code="invalid_url"):
                return Notice(msgid("media.error.invalid_url"), StatusLevel.ERROR)
            case DomainError(code=code) | InvalidRequest(code=str() as code):
                log.info("media request failed: %s", code)
                return Notice(
                    msgid("media.error.code"), StatusLevel.ERROR, {**params, "code": code}
                )
            case CapabilityDenied():
                self._denied = True
                return Notice(
                    msgid("media.error.code"), StatusLevel.ERROR, {**params, "code": "not_granted"}
                )
            case ConnectionClosed():
                return Notice(msgid("status.reconnecting"), StatusLevel.WARN)
            case TimeoutError():
                code = "timeout"
            case NotSupportedByHost():
                code = "not_supported_by_host"
            case _:
                code = type(exc).__name__
        log.info("media request failed: %s", code)
        return Notice(msgid("media.error.code"), StatusLevel.ERROR, {**params, "code": code})

    # -- events ------------------------------------------------------------------------

    async def handle_event(self, event: object) -> bool:
        """Feed every event here; True when it was the deck's (media_snapshot, media_control)."""
        from vxp.models.events import MediaControl, MediaSnapshot

        if isinstance(event, MediaSnapshot):
            self._apply_snapshot(event)
            return True
        if isinstance(event, MediaControl):
            async with self._guard():
                notice = await self._apply_control(event)
            self._changed()
            self._tell(notice)
            return True
        return False

    def _apply_snapshot(self, snapshot: MediaSnapshot) -> None:
        rows = {row.session: _observe(row) for row in snapshot.sessions}
        self._last_rows = rows
        for slot in self._slots.values():
            if slot.session is None:
                continue
            seen = rows.get(slot.session)
            if seen is None:
                if slot.confirmed:  # listed before, missing now: gone (MED-17)
                    log.info("%s: the session is gone", slot.key)
                    slot.drop_session()
                    slot.ended = True
                continue
            slot.confirmed = True
            if seen.generation >= slot.generation:
                slot.generation = seen.generation
                slot.observed = seen
        self._changed()

    async def _apply_control(self, event: MediaControl) -> Notice | None:
        from vxp.models.media import SetPaused, SetVolume, StopPlayback

        slot = self._slots.get(event.key)
        current = slot.generation if slot is not None and slot.session is not None else None
        reason: str | None = None
        if slot is None or slot.session is None:
            reason = "unknown_key"
        elif event.session != slot.session:
            reason = "other_session"
        elif event.source_generation != slot.generation:
            reason = "stale_generation"
        elif not slot.native_controls:
            reason = "native_controls_off"
        elif not isinstance(event.action, SetPaused | SetVolume | StopPlayback):
            reason = "unknown_action"
        if reason is not None or slot is None:
            self.controls_dropped[reason or "unknown_key"] += 1
            log.debug(
                "media_control dropped (%s): key %r, session generation %s, event generation %d",
                reason,
                event.key,
                current,
                event.source_generation,
            )
            return None
        self.controls_applied += 1
        log.debug(
            "media_control applied: key %r, %s, generation %d",
            event.key,
            event.action.kind,
            event.source_generation,
        )
        match event.action:
            case SetPaused(paused=paused):
                return await self._set(slot, {"paused": paused})
            case SetVolume(volume_pct=volume):
                if not VOLUME_RANGE[0] <= volume <= VOLUME_RANGE[1]:
                    volume = min(max(volume, VOLUME_RANGE[0]), VOLUME_RANGE[1])
                return await self._set(slot, {"volume_pct": volume})
            case _:
                return await self._close(slot)

    # -- what is kept across runs ------------------------------------------------------

    def _secrets_granted(self) -> bool:
        return self._client.welcome.granted.secrets

    async def _keep_url(self, slot: _Slot, checked: CheckedUrl) -> None:
        """The URL into ``secrets`` when it may go there; the slot's record into kv."""
        previously_kept = slot.url_reason is None
        reason: str | None = None
        if not self._secrets_granted():
            reason = msgid("media.reason.no_grant")
        elif not checked.fits_secret:
            reason = msgid("media.reason.too_long")
        else:
            try:
                await self._client.secrets.set(slot.key, checked.url)
            except DomainError as exc:
                too_large = exc.code == "too_large"
                reason = msgid("media.reason.too_long") if too_large else None
                reason = reason or msgid("media.reason.not_persistable")
            except CapabilityDenied:
                reason = msgid("media.reason.no_grant")
            except (VxpError, TimeoutError) as exc:
                log.warning("%s: the URL was not kept (%s)", slot.key, type(exc).__name__)
                reason = msgid("media.reason.not_persistable")
        if reason is not None and previously_kept and self._secrets_granted():
            await self._secret_delete(slot.key)  # an older URL must not come back next run
        slot.url_reason = reason
        await self._save_slot(slot)

    async def _save_slot(self, slot: _Slot) -> None:
        record = _as_record(slot.options)
        record.update(
            title=slot.title, native_controls=slot.native_controls, url_reason=slot.url_reason
        )
        await self._kv_set(kv_slot_key(slot.key), record)

    async def _kv_get(self, key: str) -> Any:
        try:
            return (await self._client.kv.get(key))[0]
        except (VxpError, TimeoutError) as exc:
            log.warning("kv get %s failed (%s)", key, _why(exc))
            return None

    async def _kv_set(self, key: str, value: Any) -> None:
        try:
            await self._client.kv.set(key, value)
        except (VxpError, TimeoutError) as exc:
            log.warning("kv set %s failed (%s)", key, _why(exc))

    async def _kv_delete(self, key: str) -> None:
        try:
            await self._client.kv.delete(key)
        except (VxpError, TimeoutError) as exc:
            log.warning("kv delete %s failed (%s)", key, _why(exc))

    async def _secret_get(self, slot: str) -> Secret | None:
        if not self._secrets_granted():
            return None
        try:
            return await self._client.secrets.get(slot)
        except (VxpError, TimeoutError) as exc:
            log.info("secret %s not read (%s)", slot, _why(exc))
            return None

    async def _secret_delete(self, slot: str) -> None:
        try:
            await self._client.secrets.delete(slot)
        except (VxpError, TimeoutError) as exc:
            log.info("secret %s not deleted (%s)", slot, _why(exc))


def _why(exc: BaseException) -> str:
    """A failure named by its code or type: host messages may quote what we sent."""
    return exc.code if isinstance(exc, DomainError) else type(exc).__name__


def _given(**values: object) -> dict[str, Any]:
    return {k: v for k, v in values.items() if v is not None}


def _as_record(options: SessionOptions | DeckOptions) -> dict[str, Any]:
    return {name: getattr(options, name) for name in type(options).__dataclass_fields__}


# -- props -------------------------------------------------------------------------------------


def overlay_deck_props(view: DeckView, catalog: Catalog) -> dict[str, WireValue]:
    """The overlay's deck props (cueboard.contract OVERLAY): media-mode, deck, url-clear."""
    rows = [
        (
            s.key,
            s.title,
            playback_text(catalog, s.playback, s.failure_code),
            int(s.playback),
            video_text(catalog, s.video),
            int(s.video),
            s.paused,
            s.volume_pct,
            s.muted,
            s.needs_url,
        )
        for s in view.slots
    ]
    return {
        "media-mode": OVERLAY.prop("media-mode").wire_value(int(view.mode)),
        "deck": OVERLAY.prop("deck").wire_value(rows),
        "url-clear": OVERLAY.prop("url-clear").wire_value(view.url_clear),
    }


def dash_deck_props(view: DeckView) -> dict[str, WireValue]:
    """The dash tab's media options (cueboard.contract DASH_TAB)."""
    o = view.options
    values: dict[str, object] = {
        "media-mode": int(view.mode),
        "media-show-video": o.show_video,
        "media-max-fps": o.max_fps,
        "media-native-controls": o.native_controls,
        "media-native-controls-shown": view.native_controls_shown,
        "media-controls-on-player": o.controls_on_player,
        "media-controls-on-player-shown": view.controls_on_player_shown,
    }
    return {name: DASH_TAB.prop(name).wire_value(value) for name, value in values.items()}


def deck_props(view: DeckView, catalog: Catalog) -> dict[str, dict[str, WireValue]]:
    """Both panels' deck props, by panel name, as typed wire values."""
    return {
        OVERLAY.name: overlay_deck_props(view, catalog),
        DASH_TAB.name: dash_deck_props(view),
    }


__all__ = [
    "DECK_KEYS",
    "FALLBACK_TEXT",
    "DeckOptions",
    "DeckView",
    "MediaDeck",
    "Notice",
    "SessionOptions",
    "SlotView",
    "check_options",
    "dash_deck_props",
    "deck_props",
    "kv_slot_key",
    "overlay_deck_props",
]
