"""Requests waiting to be written, and the one task that writes them.

The connection's reader hands the core what the host said, in order, and never waits on a
write: a :class:`~cueboard.core.effects.Send` is put here and written by :meth:`Outbox.write`,
a task of its own. Requests go out in the order the core asked for them, presses excepted: a
press (:data:`PRESSES`) waits in a lane of its own and is written before anything else that
waits, so a person's play is not queued behind icon puts. A frame already being written is
never split. Answers come back on the client's ordered stream, never to this task.

A large request (an icon's ``assets.put``, :data:`LARGE_BYTES` or more) is paced: it is
written only once the previous large one is answered (:meth:`Outbox.answered`). The host
reads one line at a time, so while it parses a put nothing behind it on the socket is read;
with at most one large line unanswered, a press written meanwhile waits for the rest of that
one line, never for a queue of them.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable

import anyio

import vxp
from cueboard.core.effects import Send

__all__ = ["LARGE_BYTES", "PRESSES", "Outbox", "size_of"]

PRESSES = frozenset({"audio.play", "audio.stop", "audio.stop_all"})
LARGE_BYTES = 64 * 1024


def size_of(send: Send) -> int:
    """About how many bytes ``send``'s line holds: exact for a prepared request, the frames'
    base64 for a put model, 0 for anything else (small by construction)."""
    params = send.params
    body = getattr(params, "params_json", None)
    if isinstance(body, bytes):
        return len(body)
    frames: object = getattr(params, "frames", None)
    if isinstance(frames, list):
        return sum(len(getattr(frame, "rgba_base64", "")) for frame in frames)  # pyright: ignore[reportUnknownArgumentType, reportUnknownVariableType]
    return 0


class Outbox:
    """Two lanes, presses first, and at most one large request unanswered. ``refused`` hears
    each request the client refused without writing it (the connection already closed, a
    request too new for the host): no answer will come for it on the stream."""

    def __init__(self, refused: Callable[[Send, Exception], None]) -> None:
        self._refused = refused
        self._presses: deque[Send] = deque()
        self._rest: deque[Send] = deque()
        self._large: Send | None = None
        self._wake: anyio.Event | None = None

    def __len__(self) -> int:
        return len(self._presses) + len(self._rest)

    def put(self, send: Send) -> None:
        (self._presses if send.kind in PRESSES else self._rest).append(send)
        self._poke()

    def answered(self, send: Send) -> None:
        """The host answered ``send`` (or it failed): the next large request may go."""
        if send is self._large:
            self._large = None
            self._poke()

    def take_all(self) -> list[Send]:
        """What was never written, presses first; the lanes are left empty and nothing is
        counted as unanswered."""
        out = [*self._presses, *self._rest]
        self._presses.clear()
        self._rest.clear()
        self._large = None
        return out

    def _poke(self) -> None:
        if self._wake is not None:
            self._wake.set()

    def _next(self) -> Send | None:
        if self._presses:
            return self._presses.popleft()
        if not self._rest:
            return None
        large = size_of(self._rest[0]) >= LARGE_BYTES
        if large and self._large is not None:
            return None
        send = self._rest.popleft()
        if large:
            self._large = send
        return send

    async def write(self, client: vxp.Client) -> None:
        """Write what may go, one frame at a time, until cancelled."""
        while True:
            send = self._next()
            if send is None:
                self._wake = anyio.Event()
                await self._wake.wait()
                continue
            await self.submit(client, send)

    async def submit(self, client: vxp.Client, send: Send) -> None:
        """One request on the wire, tagged with its Send for the stream."""
        try:
            await client.submit(send.namespace, send.params, send)
        except Exception as exc:
            self.answered(send)
            self._refused(send, exc)
