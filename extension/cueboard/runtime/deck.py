"""The media deck's driver until its core joins :class:`~cueboard.core.app.CueboardCore`: the
async deck over the connection's client, its state and notices fed to the core."""

from __future__ import annotations

import logging
from typing import Any

import vxp
from cueboard.core.effects import Notice
from cueboard.core.inputs import DeckCall, DeckUpdate
from cueboard.i18n import Catalog
from cueboard.media_deck import MediaDeck, deck_props
from cueboard.media_deck import Notice as DeckNotice

from .workers import Feed

log = logging.getLogger("cueboard.runtime")


class DeckDriver:
    def __init__(self, feed: Feed) -> None:
        self._feed = feed
        self.deck: MediaDeck | None = None

    def _changed(self) -> None:
        deck = self.deck
        if deck is None:
            return
        view = deck.view()

        def render(cat: Catalog) -> Any:
            return deck_props(view, cat)

        self._feed(DeckUpdate(render=render))

    def _notice(self, n: DeckNotice) -> None:
        self._feed(DeckUpdate(notices=(Notice(n.key, n.level, n.params, n.refs),)))

    async def attach(self, client: vxp.Client) -> None:
        try:
            if self.deck is None:
                self.deck = MediaDeck(client, on_change=self._changed, on_notice=self._notice)
                await self.deck.start()
            else:
                await self.deck.reconnected(client)
        except vxp.ConnectionClosed:
            raise
        except vxp.VxpError as exc:
            log.info("media deck: %s", type(exc).__name__)
        self._changed()

    async def handle_event(self, event: object) -> bool:
        if self.deck is None:
            return False
        try:
            return await self.deck.handle_event(event)
        except vxp.ConnectionClosed:
            raise
        except vxp.VxpError as exc:
            log.info("media deck event: %s", type(exc).__name__)
            return True

    async def call(self, call: DeckCall) -> None:
        if self.deck is None:
            return
        try:
            result = await getattr(self.deck, call.method)(*call.args, **(call.options or {}))
        except vxp.ConnectionClosed:
            return
        except vxp.VxpError as exc:
            log.info("media deck %s: %s", call.method, type(exc).__name__)
            return
        if isinstance(result, DeckNotice):
            self._notice(result)
