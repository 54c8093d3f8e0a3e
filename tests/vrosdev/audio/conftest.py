"""Fixtures of the audio tests: real sound files and engines that close when the test ends."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
import soundfile

from vrosdev.audio import AudioEngine, Loaded, LoadStarted

from .audio_support import MakeEngine, ManualClock, Outcomes, tone


@pytest.fixture
def write_tone(tmp_path: Path) -> Callable[..., Path]:
    """Write a mono sine tone to tmp_path/name with soundfile; extra kwargs go to sf.write."""

    def write(
        name: str,
        *,
        freq: float = 1000.0,
        seconds: float = 1.0,
        rate: int = 48_000,
        amplitude: float = 0.5,
        **kwargs: Any,
    ) -> Path:
        path = tmp_path / name
        soundfile.write(path, tone(freq, seconds, rate, amplitude), rate, **kwargs)
        return path

    return write


@pytest.fixture
def outcomes() -> Outcomes:
    return Outcomes()


@pytest.fixture
def clock() -> ManualClock:
    return ManualClock()


@pytest.fixture
def make_engine(outcomes: Outcomes, clock: ManualClock) -> Iterator[MakeEngine]:
    """An engine wired to `outcomes` and `clock`; closed when the test ends."""
    engines: list[AudioEngine] = []

    def make(**kwargs: Any) -> AudioEngine:
        kwargs.setdefault("clock", clock)
        engine = AudioEngine(outcomes, **kwargs)
        engines.append(engine)
        return engine

    yield make
    for engine in engines:
        engine.close()


@pytest.fixture
def load_ok(outcomes: Outcomes) -> Callable[[AudioEngine, Path], tuple[str, Loaded]]:
    """Load a file that must decode, and wait for its `loaded`."""

    def load(engine: AudioEngine, path: Path, normalize: bool = False) -> tuple[str, Loaded]:
        started = engine.load(str(path), normalize)
        assert isinstance(started, LoadStarted), started
        outcome = outcomes.wait(started.sound)
        assert isinstance(outcome, Loaded), outcome
        return started.sound, outcome

    return load
