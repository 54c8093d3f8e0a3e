"""Runs the deck's steps: one action at a time, each to its end, and side steps beside them.

An action (a user action, a native control, the steps after a welcome) waits for the one
before it to finish, as it would under a lock; a side step (keeping the URL of a session a
snapshot settled) runs at once. A step that yields an :class:`~.context.Ask` is suspended
until the tracker hands its final outcome to the continuation the runner gave it: the deck
asks the host the way every feature does.
"""

from __future__ import annotations

import logging
from collections import deque
from collections.abc import Callable
from typing import Any, Protocol

from cueboard.core.effects import Effect, Log, Notice
from cueboard.core.outcomes import Done, Outcome

from .context import Ask, Step

type Flow = Step[None]


class Requests(Protocol):
    """The deck's door to the host: :meth:`cueboard.core.tracker.Tracker.request`."""

    def request(
        self,
        now: float,
        namespace: str,
        model: Callable[[], Any],
        /,
        *,
        expect: type | None = None,
        done: Done = ...,
        user_asked: bool = False,
        recall: bool = True,
    ) -> list[Effect]: ...


class Runner:
    __slots__ = ("_active", "_clock", "_queue", "_requests", "_waiting")

    def __init__(self, requests: Requests, clock: Callable[[], float]) -> None:
        self._requests = requests
        self._clock = clock
        self._queue: deque[Flow] = deque()
        self._active: Flow | None = None
        self._waiting = 0  # steps suspended on an answer

    @property
    def idle(self) -> bool:
        """Nothing is waiting for an answer and no action is queued."""
        return self._active is None and not self._queue and not self._waiting

    def enqueue(self, flow: Flow) -> list[Effect]:
        self._queue.append(flow)
        out: list[Effect] = []
        self._drain(out)
        return out

    def spawn(self, flow: Flow, out: list[Effect]) -> None:
        self._step(flow, False, None, out)

    def _drain(self, out: list[Effect]) -> None:
        while self._active is None and self._queue:
            self._active = self._queue.popleft()
            self._step(self._active, True, None, out)

    def _step(self, flow: Flow, action: bool, value: object, out: list[Effect]) -> None:
        while True:
            try:
                item = flow.send(value)
            except StopIteration:
                break
            except Exception as exc:  # a bug must not take the deck down with it
                out.append(Log(logging.ERROR, f"deck: a step failed ({type(exc).__name__})"))
                break
            value = None
            if not isinstance(item, Ask):
                out.append(item)
                continue
            answered = self._ask(flow, action, item, out)
            if answered is None:
                return  # suspended: the tracker resumes it
            value = answered[0]
        if action:
            self._active = None

    def _ask(self, flow: Flow, action: bool, ask: Ask, out: list[Effect]) -> tuple[object] | None:
        """Hand ``ask`` to the tracker. An outcome known at once (a request the models refuse)
        is returned; else the step waits, and the tracker's continuation resumes it."""
        now: list[tuple[object]] = []
        suspended = False

        def done(outcome: Outcome) -> list[Effect]:
            answer = outcome.result if outcome.ok else outcome
            if not suspended:
                now.append((answer,))
                return [Log(logging.DEBUG, f"deck: {outcome.send.kind} not sent ({outcome.code})")]
            self._waiting -= 1
            resumed: list[Effect] = []
            self._step(flow, action, answer, resumed)
            self._drain(resumed)
            if not any(isinstance(e, Notice | Log) for e in resumed):  # the deck words its own
                resumed.append(Log(logging.DEBUG, f"deck: {outcome.send.kind} {outcome.action}"))
            return resumed

        out += self._requests.request(
            self._clock(), ask.namespace, ask.params, expect=ask.expect, done=done,
            user_asked=ask.user_asked, recall=False,
        )  # fmt: skip
        if now:
            return now[0]
        suspended = True
        self._waiting += 1
        return None


__all__ = ["Flow", "Requests", "Runner"]
