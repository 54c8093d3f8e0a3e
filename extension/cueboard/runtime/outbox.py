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

While someone is pressing (a press written less than :data:`PRESS_GAP_S` ago), a large
request goes only right behind a press: one per press, in the quiet that follows it, where
the next press is least likely to land. Presses that come that close together are a person
playing a board, and a press that met a put would wait for the host to read and parse
megabytes (``bench/bench_latency.py``). Once the presses stop, large requests flow again.
"""

from __future__ import annotations

import math
from collections import deque
from collections.abc import Callable

import anyio

import vxp
from cueboard.core.effects import Send

__all__ = ["LARGE_BYTES", "PRESSES", "PRESS_GAP_S", "Outbox", "size_of"]

PRESSES = frozenset({"audio.play", "audio.stop", "audio.stop_all"})
LARGE_BYTES = 64 * 1024
PRESS_GAP_S = 0.05  # presses closer than this are a person playing: large ones follow them


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

    def __init__(
        self,
        refused: Callable[[Send, Exception], None],
        *,
        press_gap_s: float = PRESS_GAP_S,
        clock: Callable[[], float] = anyio.current_time,
    ) -> None:
        self._refused = refused
        self._presses: deque[Send] = deque()
        self._rest: deque[Send] = deque()
        self._large: Send | None = None
        self._wake: anyio.Event | None = None
        self._press_gap_s = press_gap_s
        self._clock = clock
        self._pressed_at = -math.inf
        self._behind_press = False  # a large request may follow the press just written

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

    def _next(self) -> Send | float:
        """The next request to write; else when a held one may go (``inf``: once poked)."""
        if self._presses:
            self._pressed_at, self._behind_press = self._clock(), True
            return self._presses.popleft()
        if not self._rest:
            return math.inf
        large = size_of(self._rest[0]) >= LARGE_BYTES
        if large:
            if self._large is not None:
                return math.inf
            quiet_at = self._pressed_at + self._press_gap_s
            if not self._behind_press and self._clock() < quiet_at:
                return quiet_at
            self._behind_press = False
        send = self._rest.popleft()
        if large:
            self._large = send
        return send

    async def write(self, client: vxp.Client) -> None:
        """Write what may go, one frame at a time, until cancelled."""
        while True:
            send = self._next()
            if isinstance(send, Send):
                await self.submit(client, send)
                continue
            self._behind_press = False  # only what already waits goes right behind a press
            self._wake = anyio.Event()
            with anyio.move_on_after(send - self._clock()):
                await self._wake.wait()

    async def submit(self, client: vxp.Client, send: Send) -> None:
        """One request on the wire, tagged with its Send for the stream."""
        try:
            await client.submit(send.namespace, send.params, send)
        except Exception as exc:
            self.answered(send)
            self._refused(send, exc)
