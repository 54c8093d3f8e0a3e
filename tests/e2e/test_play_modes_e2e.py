"""Per-sound play modes end to end: modes set over the bus (``cmd.set``), presses from bound
commands, and what vrosdev's real mixer wrote to the soundboard channel."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from .harness import run_cueboard, tone

pytestmark = pytest.mark.slow

WINDOW = 480  # 10 ms at 48 kHz
SET = "bus-publish ext.com.cueboard.soundboard.cmd.set"


def _audible(path: Path) -> np.ndarray:
    """For each 10 ms of the channel, whether anything sounded in it."""
    import soundfile

    data, _ = soundfile.read(str(path), dtype="float64")
    if data.ndim > 1:
        data = data.mean(axis=1)
    usable = len(data) // WINDOW * WINDOW
    windows = data[:usable].reshape(-1, WINDOW)
    return np.sqrt(np.mean(np.square(windows), axis=1)) > 0.01


def _seconds_sounding(path: Path) -> float:
    return float(np.count_nonzero(_audible(path))) * WINDOW / 48000


def _peak(path: Path) -> float:
    import soundfile

    data, _ = soundfile.read(str(path), dtype="float64")
    return float(np.max(np.abs(data)))


def _content(tmp: Path) -> Path:
    content = tmp / "content"
    sounds = content / "Cueboard" / "Sounds"
    tone(sounds / "01 Beep.wav", seconds=0.6, freq=1000)
    tone(sounds / "02 Long.wav", seconds=3.0, freq=500)
    return content


def _run(tmp: Path, mode: str, presses: str) -> Path:
    script = f'settle\n{SET} {{"path": "01 Beep.wav", "mode": "{mode}"}}\nsleep 0.2\n{presses}'
    run = run_cueboard(tmp, script, content=_content(tmp))
    assert run.code == 0
    assert not run.sent("bus", "publish") or all(
        f["params"]["topic"] != "ext.com.cueboard.soundboard.error"
        for f in run.sent("bus", "publish")
    )
    return run.wav("soundboard")


def test_mix_a_second_press_starts_the_sound_over(tmp_path: Path) -> None:
    """0.6 s pressed again after 0.3 s sounds about 0.9 s, once at a time (replaced, AUD-22)."""
    wav = _run(tmp_path, "mix", "invoke play-slot-1\nsleep 0.3\ninvoke play-slot-1\nsleep 1.2\n")
    assert 0.8 <= _seconds_sounding(wav) <= 1.05
    assert _peak(wav) < 0.5  # never two copies summed


def test_toggle_a_second_press_stops_it(tmp_path: Path) -> None:
    wav = _run(tmp_path, "toggle", "invoke play-slot-1\nsleep 0.25\ninvoke play-slot-1\nsleep 1\n")
    assert 0.15 <= _seconds_sounding(wav) <= 0.4


def test_stop_others_silences_what_was_playing(tmp_path: Path) -> None:
    """The 3 s sound is cut when the 0.6 s one starts 0.3 s in: about 0.9 s sound in all."""
    wav = _run(
        tmp_path, "stop_others", "invoke play-slot-2\nsleep 0.3\ninvoke play-slot-1\nsleep 3.2\n"
    )
    assert 0.75 <= _seconds_sounding(wav) <= 1.1


def test_loop_repeats_until_pressed_again(tmp_path: Path) -> None:
    """A 0.6 s sound looping for 1.5 s sounds about 1.5 s, then stops at the second press."""
    wav = _run(tmp_path, "loop", "invoke play-slot-1\nsleep 1.5\ninvoke play-slot-1\nsleep 1\n")
    assert 1.3 <= _seconds_sounding(wav) <= 1.75
