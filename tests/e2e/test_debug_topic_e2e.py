"""The debug bus topic on the real process inside vrosdev: ``cmd.debug`` is answered on
``ext.<id>.debug`` with the runtime's running tasks and timers, the same at two idle moments
with presses between them."""

from __future__ import annotations

from pathlib import Path

import pytest

from .harness import run_cueboard, tone

pytestmark = pytest.mark.slow

EXT = "ext.com.cueboard.soundboard"


def test_cmd_debug_publishes_tasks_and_timers_unchanged_across_presses(tmp_path: Path) -> None:
    content = tmp_path / "content"
    tone(content / "Cueboard" / "Sounds" / "01 Beep.wav", seconds=0.2)
    tone(content / "Cueboard" / "Sounds" / "02 Boop.wav", seconds=0.2, freq=500)
    # Two sounds, ten presses each: within the pace of a person's presses for one sound
    # (extension/cueboard/core/pacing.py), so every press is played.
    presses = "invoke play-slot-1\nsleep 0.02\ninvoke play-slot-2\nsleep 0.02\n" * 10
    run = run_cueboard(
        tmp_path,
        f"settle\nbus-publish {EXT}.cmd.debug {{}}\nsleep 0.3\n"
        f"{presses}settle 1.5\nbus-publish {EXT}.cmd.debug null\nsleep 0.3\n",
        content=content,
    )
    assert run.code == 0, run.stderr
    assert len(run.sent("audio", "play")) == 20
    answers = [
        f["params"]["payload"]
        for f in run.sent("bus", "publish")
        if f["params"]["topic"] == f"{EXT}.debug"
    ]
    assert len(answers) == 2
    before, after = answers
    assert set(before) == {"tasks", "timers"}
    assert before["tasks"] >= 2  # the timer task and the folder watcher at least
    assert after == before, (before, after)
