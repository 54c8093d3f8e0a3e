"""Helpers of the audio tests: a settable engine clock, the on_loaded recorder, sine tones."""

from __future__ import annotations

import threading
from collections.abc import Callable

import numpy as np
import numpy.typing as npt

from vrosdev.audio import AudioEngine, LoadOutcome

# A guard so a broken engine fails the test instead of hanging it; never a timing assertion.
OUTCOME_WAIT_S = 60.0


class ManualClock:
    """The engine's clock, set by the test: plays land exactly where the test says."""

    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


class Outcomes:
    """The `on_loaded` callback, keeping every (sound, outcome) it was given."""

    def __init__(self) -> None:
        self._cond = threading.Condition()
        self.received: dict[str, LoadOutcome] = {}
        self.calls = 0
        self._gate: threading.Event | None = None

    def hold(self) -> threading.Event:
        """Make callbacks wait (on the decode worker) until the returned event is set.

        With one decode worker this keeps every later load queued, in state `loading`.
        """
        self._gate = threading.Event()
        return self._gate

    def __call__(self, sound: str, outcome: LoadOutcome) -> None:
        if self._gate is not None:
            self._gate.wait(OUTCOME_WAIT_S)
        with self._cond:
            self.received[sound] = outcome
            self.calls += 1
            self._cond.notify_all()

    def wait(self, sound: str) -> LoadOutcome:
        with self._cond:
            if not self._cond.wait_for(lambda: sound in self.received, OUTCOME_WAIT_S):
                raise AssertionError(f"no audio_loaded for {sound}")
            return self.received[sound]


def tone(
    freq: float = 1000.0, seconds: float = 1.0, rate: int = 48_000, amplitude: float = 0.5
) -> npt.NDArray[np.float32]:
    t = np.arange(round(seconds * rate)) / rate
    return (amplitude * np.sin(2 * np.pi * freq * t)).astype(np.float32)


type MakeEngine = Callable[..., AudioEngine]
