"""The runtime's part of an import from a link: the download task, its cancel, the discard.

A download runs in the connection's task group, under a cancel scope of its own so that
:class:`CancelFetch` stops it alone; a cancelled download leaves nothing in the folder
(``cueboard.workers.download``). The folder is the library's as the core last scanned it.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any, Protocol

import anyio
import anyio.to_thread

from cueboard.core.inputs import Input
from cueboard.core.link_import import CancelFetch, DiscardSound, FetchSound

type Feed = Callable[[Input], None]


class Spawner(Protocol):
    """The connection's task group, as the shell hands it out."""

    def start_soon(self, fn: Callable[..., Awaitable[Any]], *args: Any) -> None: ...


class Downloads:
    def __init__(self, feed: Feed) -> None:
        self._feed = feed
        self._scopes: dict[int, anyio.CancelScope] = {}

    def start(self, tg: Spawner, effect: FetchSound, root: Path) -> None:
        scope = anyio.CancelScope()
        self._scopes[effect.ticket] = scope
        tg.start_soon(self._run, scope, effect, root)

    async def _run(self, scope: anyio.CancelScope, effect: FetchSound, root: Path) -> None:
        from cueboard.workers.download import (
            run_fetch,  # httpx is imported on the first import only
        )

        try:
            with scope:
                await run_fetch(effect, root, self._feed)
        finally:
            self._scopes.pop(effect.ticket, None)

    def cancel(self, effect: CancelFetch) -> None:
        scope = self._scopes.pop(effect.ticket, None)
        if scope is not None:
            scope.cancel()

    @staticmethod
    def discard(tg: Spawner, effect: DiscardSound, root: Path) -> None:
        from cueboard.workers.download import discard_sound

        tg.start_soon(anyio.to_thread.run_sync, discard_sound, root, effect)
