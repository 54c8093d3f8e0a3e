"""kill -9 while per-sound settings keep changing, then a restart on the same vrosdev state.

Per-sound prefs are written coalesced (0.5 s), a folder's records in a few kv keys (README,
"What is kept, and where"), so a crash can lose only what changed in its last moments: every
change made at least 1 s before the kill must be in kv, and the restarted Cueboard must show
exactly what kv holds.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from cueboard.core.records import SoundPrefs, read_records
from vrosdev.host.namespaces.kv import KvStore

from .harness import Run, run_cueboard, tone

pytestmark = pytest.mark.slow

SOUNDS = 30  # three pages of the dash tab's library list (12 rows a page)
ROUNDS = 3
KV_FILE = "com.cueboard.soundboard.jsonl"


def _name(i: int) -> str:
    return f"{i:02d} Tone.wav"


def _library(tmp: Path) -> Path:
    from PIL import Image

    content = tmp / "content"
    sounds = content / "Cueboard" / "Sounds"
    for i in range(SOUNDS):
        tone(sounds / _name(i), seconds=0.15, freq=300 + 20 * i)
    for i in range(0, SOUNDS, 6):  # some animated icons: the decode worker runs and exits too
        frames = [Image.new("RGBA", (24, 24), (8 * i, 40 * k, 200, 255)) for k in range(3)]
        frames[0].save(
            sounds / _name(i).replace(".wav", ".gif"),
            save_all=True,
            append_images=frames[1:],
            duration=80,
            loop=0,
        )
    return content


def _gain(round_no: int, i: int) -> int:
    return 5 + (7 * i + 13 * round_no) % 90


def _click(callback: str, key: str, value: Any) -> str:
    arg = str(value).lower() if isinstance(value, bool) else value
    return f'click dash-tab {callback} ["{key}", {arg}]'


def _expected_before_the_last_second() -> dict[str, SoundPrefs]:
    """Each sound's record once every round of the first phase is written."""
    return {
        _name(i): SoundPrefs(gain=_gain(ROUNDS - 1, i), mode="loop" if i % 5 == 0 else None)
        for i in range(SOUNDS)
    }


def _late_gains() -> dict[str, int]:
    """Changes made in the last moments before the kill: each may or may not be kept."""
    return {_name(i): 99 - i for i in range(0, SOUNDS, 2)}


def _first_session() -> str:
    steps = ["settle"]
    for r in range(ROUNDS):
        for i in range(SOUNDS):
            steps.append(_click("set-sound-gain", _name(i), _gain(r, i)))
            if r == 0 and i % 5 == 0:
                steps.append(_click("set-sound-mode", _name(i), 4))
    steps.append("sleep 1.5")  # everything above was made at least 1 s before the kill
    steps += [_click("set-sound-gain", name, g) for name, g in _late_gains().items()]
    steps += ["kill", "sleep 0.3"]
    return "\n".join(steps) + "\n"


def _library_rows(run: Run) -> dict[str, tuple[int, bool, bool]]:
    """The last (gain, looping, favourite) the dash tab showed for each sound."""
    rows: dict[str, tuple[int, bool, bool]] = {}
    for frame in run.sent("panel", "props"):
        if frame["params"]["panel"] != "dash-tab":
            continue
        for name, value in frame["params"]["props"]:
            if name == "library":
                for row in value["v"]:
                    cells = [c["v"] for c in row]
                    rows[cells[0]] = (cells[2], cells[3], cells[4])
    return rows


def test_kill_9_mid_changes_keeps_every_change_older_than_a_second_and_restores_the_board(
    tmp_path: Path,
) -> None:
    content = _library(tmp_path)
    state = tmp_path / "state"
    first = run_cueboard(tmp_path / "first", _first_session(), content=content, state=state)
    assert first.code < 0  # killed, not exited
    assert any("script: kill" in str(x.get("note", "")) for x in first.transcript)

    values = KvStore(state / "kv" / KV_FILE).values
    stored = read_records(values)
    late = _late_gains()
    for name, rec in _expected_before_the_last_second().items():
        assert name in stored, name
        if name in late:  # a late change may have landed; nothing older may be lost
            assert stored[name] in (rec, replace(rec, gain=late[name])), name
        else:
            assert stored[name] == rec, name

    pages = SOUNDS // 12 + 1
    restart = run_cueboard(
        tmp_path / "restart",
        "settle\n" + "click dash-tab library-page-next\nsettle 0.3\n" * (pages - 1),
        content=content,
        state=state,
    )
    assert restart.code == 0
    shown = _library_rows(restart)
    assert len(shown) == SOUNDS
    for i in range(SOUNDS):
        rec = stored[_name(i)]
        looping = rec.mode == "loop"
        assert shown[_name(i)] == (rec.gain, looping, rec.favourite is not None), _name(i)
    before = _library_rows(first)  # the page shown when it was killed
    kept = [name for name in before if name not in late]
    assert kept and all(shown[name] == before[name] for name in kept)
    assert KvStore(state / "kv" / KV_FILE).values == values  # showing it rewrote nothing
    for run in (first, restart):
        assert "Traceback" not in run.stderr
    assert "exit status already read" not in restart.stderr  # one wait per icon worker
