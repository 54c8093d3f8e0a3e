"""The editor's waveform is read and drawn in the icon worker process, never in the
extension's own (issue 26, item 3): what it drew comes back to the core as one input, and the
extension's process never even loads what reading and drawing need."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
import soundfile

pytestmark = pytest.mark.slow

PROGRAM = """
import sys
from pathlib import Path
import anyio
from cueboard.core.effects import DrawWaveform
from cueboard.core.inputs import WaveformDrawn
from cueboard.runtime.workers import Workers, end_worker_processes

async def main() -> None:
    fed = []
    workers = Workers(fed.append, in_process=True)
    job = DrawWaveform("a.wav", Path(sys.argv[1]), (1, 1), None, 0, (100, None, 50, 0))
    await workers.draw_waveform(job)
    (drawn,) = fed
    assert isinstance(drawn, WaveformDrawn) and not isinstance(drawn.result, str), drawn
    peaks, duration_ms, tiles = drawn.result
    print(duration_ms, len(tiles), "soundfile" in sys.modules, "numpy" in sys.modules)
    await end_worker_processes()

anyio.run(main)
"""


def test_the_waveform_is_drawn_in_the_worker_process(tmp_path: Path) -> None:
    sound = tmp_path / "a.wav"
    soundfile.write(str(sound), np.zeros(24_000), 48_000)
    done = subprocess.run(
        [sys.executable, "-c", PROGRAM, str(sound)], capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 0, done.stderr
    # drawn, and neither libsndfile nor numpy ever loaded into the extension's process
    assert done.stdout.split() == ["500", "3", "False", "False"]
