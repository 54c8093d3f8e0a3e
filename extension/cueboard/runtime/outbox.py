"""Requests waiting to be written, and the one task that writes them.

The connection's reader hands the core what the host said, in order, and never waits on a
write: a :class:`~cueboard.core.effects.Send` is put here and written by :meth:`Outbox.write`,
a task of its own. Requests go out in the order the core asked for them, presses excepted: a
press (:data:`PRESSES`) waits in a lane of its own and is written before anything else that
waits, so a person's play is not queued behind icon puts. A frame already being written is
never split. Answers come back on the client's ordered stream, never to this task.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable

import anyio

import vxp
from cueboard.core.effects import Send

__all__ = ["PRESSES", "Outbox"]

PRESSES = frozenset({"audio.play", "audio.stop", "audio.stop_all"})


class Outbox:
    """Two lanes, presses first. ``refused`` hears each request the client refused without
    writing it (the connection already closed, a request too new for the host): no answer
    will come for it on the stream."""

    def __init__(self, refused: Callable[[Send, Exception], None]) -> None:
        self._refused = refused
        self._presses: deque[Send] = deque()
        self._rest: deque[Send] = deque()
        self._wake: anyio.Event | None = None

    def __len__(self) -> int:
        return len(self._presses) + len(self._rest)

    def put(self, send: Send) -> None:
        (self._presses if send.kind in PRESSES else self._rest).append(send)
        if self._wake is not None:
            self._wake.set()

    def take_all(self) -> list[Send]:
        """What was never written, presses first; the lanes are left empty."""
        out = [*self._presses, *self._rest]
        self._presses.clear()
        self._rest.clear()
        return out

    async def write(self, client: vxp.Client) -> None:
        """Write what waits, one frame at a time, until cancelled."""
        while True:
            if self._presses:
                send = self._presses.popleft()
            elif self._rest:
                send = self._rest.popleft()
            else:
                self._wake = anyio.Event()
                await self._wake.wait()
                continue
            await self.submit(client, send)

    async def submit(self, client: vxp.Client, send: Send) -> None:
        """One request on the wire, tagged with its Send for the stream."""
        try:
            await client.submit(send.namespace, send.params, send)
        except Exception as exc:
            self._refused(send, exc)
