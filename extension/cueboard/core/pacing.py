"""Pacing a person's presses: at most :data:`PRESSES_PER_S` a second for one sound.

A press always goes to the host: a person pressing again is asking again, and is never answered
from the memory of an earlier failure. A storm of presses (a held binding, a bus client in a
loop) is bounded here instead: a press past the pace waits for the sound's next free moment,
and the presses that arrive meanwhile replace it (the last one wins), so one press goes out
then. Time is the clock value of the inputs; the wait is a :class:`Wake`.
"""

from __future__ import annotations

from collections import deque

from .effects import Effect, Wake

__all__ = ["PRESSES_PER_S", "WAKE", "Pacer"]

PRESSES_PER_S = 10
WINDOW_S = 1.0
WAKE = "pace:"
KEPT = 256  # sounds whose recent presses are remembered before old ones are forgotten


class Pacer[T]:
    """Per key (a sound), the presses of the last second, and the one waiting for a slot."""

    def __init__(self, per_s: int = PRESSES_PER_S) -> None:
        self._per_s = per_s
        self._recent: dict[str, deque[float]] = {}
        self._waiting: dict[str, tuple[T]] = {}

    def admit(self, key: str, now: float) -> bool:
        """True if a press on ``key`` may go out now (it is counted); False past the pace."""
        recent = self._recent.get(key)
        if recent is None:
            if len(self._recent) >= KEPT:
                self._forget(now)
            recent = self._recent[key] = deque()
        while recent and recent[0] + WINDOW_S <= now:  # as the Wake's time is computed
            recent.popleft()
        if len(recent) >= self._per_s or (key in self._waiting and recent):
            return False
        recent.append(now)
        self._waiting.pop(key, None)  # this press goes out in its place
        return True

    def hold(self, key: str, value: T) -> list[Effect]:
        """Keep ``value`` as the press that goes out at the key's next free moment (replacing
        one already waiting); a Wake for that moment the first time."""
        first = key not in self._waiting
        self._waiting[key] = (value,)
        recent = self._recent[key]
        return [Wake(WAKE + key, recent[0] + WINDOW_S)] if first else []

    def due(self, wake_key: str) -> tuple[str, T] | None:
        """The press waiting behind ``wake_key``, taken (None: nothing waits)."""
        key = wake_key.removeprefix(WAKE)
        held = self._waiting.pop(key, None)
        return None if held is None else (key, held[0])

    def _forget(self, now: float) -> None:
        for key in [k for k, r in self._recent.items() if not r or r[-1] + WINDOW_S <= now]:
            if key not in self._waiting:
                del self._recent[key]
