"""A temporary async driver for :class:`cueboard.core.deck.DeckCore`, until the runtime replaces it.

It keeps the ``MediaDeck`` API ``app.py`` uses today: each method feeds the core, carries the
``Send`` effects it returns out through ``client.request`` one by one (the core asks for one
answer at a time per action), feeds each outcome back, and hands notices to ``on_notice``.
Exceptions from the client become :class:`~cueboard.core.effects.HostFailure`; the deck's
decisions all live in the core.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import anyio

from cueboard.core import effects
from cueboard.core.deck import (
    DECK_KEYS,
    FALLBACK_TEXT,
    DeckCore,
    DeckOptions,
    DeckView,
    HostFacts,
    SessionOptions,
    SlotView,
    check_options,
    dash_deck_props,
    deck_props,
    kv_slot_key,
    notice_text,
    overlay_deck_props,
)
from cueboard.core.effects import Failure, HostFailure, Log, Reply, Send
from vxp import (
    ConnectionClosed,
    DomainError,
    InvalidRequest,
    LocalProtocolError,
    MalformedResponse,
    NotSupportedByHost,
    ProtocolError,
    Secret,
    VxpError,
)

if TYPE_CHECKING:
    from collections import Counter

    from cueboard.i18n import Catalog
    from vxp import Client

log = logging.getLogger("cueboard.media_deck")


@dataclass(frozen=True, slots=True)
class Notice(effects.Notice):
    """A core notice that renders itself, as ``app.py`` expects."""

    def text(self, catalog: Catalog) -> str:
        return notice_text(self, catalog)


def _notice(n: effects.Notice) -> Notice:
    return n if isinstance(n, Notice) else Notice(n.key, n.level, n.params, n.refs)


def host_failure(exc: BaseException) -> HostFailure:
    """What a client exception says about a request, in the core's words (never its message:
    the host's may quote what was sent)."""
    match exc:
        case DomainError(code=code):
            return HostFailure("domain", code)
        case ProtocolError(code=code):  # CapabilityDenied too: -32001
            return HostFailure("protocol", code)
        case MalformedResponse():
            return HostFailure("unreadable")
        case InvalidRequest(code=code):
            return HostFailure("invalid", code)
        case NotSupportedByHost():
            return HostFailure("invalid", "not_supported_by_host")
        case TimeoutError():
            return HostFailure("timeout")
        case ConnectionClosed():
            return HostFailure("closed")
        case LocalProtocolError():
            return HostFailure("closed")  # the session is not ready: between connections
        case _:
            return HostFailure("invalid", type(exc).__name__)


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
        self._core = DeckCore()
        self._lock: anyio.Lock | None = None

    def __repr__(self) -> str:
        return f"MediaDeck({self._core!r})"

    @property
    def core(self) -> DeckCore:
        return self._core

    def view(self) -> DeckView:
        return self._core.view()

    @property
    def controls_applied(self) -> int:
        return self._core.controls_applied

    @property
    def controls_dropped(self) -> Counter[str]:
        from collections import Counter

        return Counter(self._core.controls_dropped)

    @property
    def controls_dropped_total(self) -> int:
        return sum(self._core.controls_dropped.values())

    def session_of(self, key: str) -> tuple[str, int] | None:
        return self._core.session_of(key)

    # -- carrying effects out ----------------------------------------------------------------

    def _guard(self) -> anyio.Lock:
        if self._lock is None:
            self._lock = anyio.Lock()
        return self._lock

    async def _carry(self, todo: list[object]) -> list[Notice]:
        said: list[Notice] = []
        while todo:
            effect = todo.pop(0)
            if isinstance(effect, Send):
                todo += self._core.outcome(await self._request(effect))
            elif isinstance(effect, effects.Notice):
                notice = _notice(effect)
                if notice not in said:
                    said.append(notice)
            elif isinstance(effect, Log):
                log.log(effect.level, "%s", effect.message)
        if self._on_change is not None:
            self._on_change()
        for notice in said:
            if self._on_notice is not None:
                self._on_notice(notice)
        return said

    async def _request(self, send: Send) -> Reply | Failure:
        try:
            result = await self._client.request(send.namespace, send.params)
        except (VxpError, TimeoutError) as exc:
            return Failure(send.ticket, host_failure(exc))
        if type(result).__name__.endswith("Unknown"):  # a result tag from a newer host
            return Failure(send.ticket, HostFailure("unreadable"))
        return Reply(send.ticket, result)

    async def _run(self, feed: Callable[[], list[object]]) -> Notice | None:
        async with self._guard():
            said = await self._carry(feed())
        return said[0] if said else None

    # -- connection lifecycle -----------------------------------------------------------------

    def _facts(self) -> HostFacts:
        granted = self._client.welcome.granted
        return HostFacts(
            self._client.host_version, media=granted.media, secrets=granted.secrets, now=0.0
        )

    async def start(self) -> list[Notice]:
        """After the first welcome: restore the slots kept by the last run."""
        async with self._guard():
            return await self._carry(list(self._core.connected(self._facts())))

    async def reconnected(self, client: Client) -> list[Notice]:
        """A new connection: reconcile each slot that had a session."""
        self._client = client
        return await self.start()

    # -- user actions ---------------------------------------------------------------------------

    async def open(
        self, url: str | Secret, title: str = "", key: str | None = None
    ) -> Notice | None:
        return await self._run(lambda: list(self._core.open(url, title, key)))

    async def reload(self, key: str, url: str | Secret, title: str = "") -> Notice | None:
        return await self._run(lambda: list(self._core.reload(key, url, title)))

    async def close(self, key: str) -> Notice | None:
        return await self._run(lambda: list(self._core.close(key)))

    async def set_options(self, key: str, **changes: Any) -> Notice | None:
        return await self._run(lambda: list(self._core.set_options(key, **changes)))

    async def set_defaults(self, **changes: Any) -> Notice | None:
        return await self._run(lambda: list(self._core.set_defaults(**changes)))

    # -- events ---------------------------------------------------------------------------------

    async def handle_event(self, event: object) -> bool:
        """Feed every event here; True when it was the deck's (media_snapshot, media_control)."""
        from vxp.models.events import MediaControl

        if isinstance(event, MediaControl):
            await self._run(lambda: list(self._core.event(event) or ()))
            return True
        done = self._core.event(event)
        if done is None:
            return False
        await self._carry(list(done))  # a snapshot: applied at once, whatever runs meanwhile
        return True


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
    "host_failure",
    "kv_slot_key",
    "overlay_deck_props",
]
