"""Runs the deck's steps: one action at a time, each to its end, and side steps beside them.

An action (a user action, a native control, the steps after a welcome) waits for the one
before it to finish, as it would under a lock; a side step (keeping the URL of a session a
snapshot settled) runs at once. Each step is suspended on the ticket of the ``Send`` it yielded
until its outcome arrives.
"""

from __future__ import annotations

import logging
from collections import deque

from cueboard.core.effects import Effect, Failure, Log, Reply, Send

from .context import Step

type Flow = Step[None]


class Runner:
    __slots__ = ("_active", "_queue", "_waiting")

    def __init__(self) -> None:
        self._queue: deque[Flow] = deque()
        self._active: Flow | None = None
        self._waiting: dict[int, tuple[Flow, bool]] = {}  # ticket -> (step, is the action)

    @property
    def idle(self) -> bool:
        """Nothing is waiting for an answer and no action is queued."""
        return self._active is None and not self._queue and not self._waiting

    def owns(self, ticket: int) -> bool:
        return ticket in self._waiting

    def enqueue(self, flow: Flow) -> list[Effect]:
        self._queue.append(flow)
        out: list[Effect] = []
        self._drain(out)
        return out

    def spawn(self, flow: Flow, out: list[Effect]) -> None:
        self._step(flow, False, None, out)

    def outcome(self, done: Reply | Failure) -> list[Effect]:
        entry = self._waiting.pop(done.ticket, None)
        if entry is None:
            return [Log(logging.DEBUG, f"deck: an outcome for ticket #{done.ticket} it never sent")]
        out: list[Effect] = []
        self._step(entry[0], entry[1], done, out)
        self._drain(out)
        return out

    def _drain(self, out: list[Effect]) -> None:
        while self._active is None and self._queue:
            self._active = self._queue.popleft()
            self._step(self._active, True, None, out)

    def _step(
        self, flow: Flow, action: bool, value: Reply | Failure | None, out: list[Effect]
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
                self._waiting[effect.ticket] = (flow, action)
                return
        if action:
            self._active = None


__all__ = ["Flow", "Runner"]
