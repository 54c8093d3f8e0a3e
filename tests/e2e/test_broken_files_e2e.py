"""A library with one corrupt audio file and one text file named ``.mp3``, launched five times
inside vrosdev: every launch ends with both tiles failed, each with its reason, however the
``load`` reply and its ``audio_loaded`` were ordered on the way in (issue 21, item 5). The last
launch also drops the connection: the tiles stay failed, and the blank icon is put again before
a tile names it (tests/e2e/harness.py checks that on every transcript).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from cueboard.core.contract import SlotState

from .harness import Run, run_cueboard

pytestmark = pytest.mark.slow

LAUNCHES = 5
QUIET = "settle 0.3 20\n"  # until no frame for 0.3 s and no load decoding: the launch is over
EXPECTED = {
    "01 Corrupt.wav": (int(SlotState.BROKEN), "Can't decode"),
    "02 Notes.mp3": (int(SlotState.BROKEN), "Not audio"),
}


def _tiles(run: Run) -> dict[str, tuple[int, str]]:
    """The overlay's tiles as the last ``slots`` prop sent showed them: key -> (state, reason)."""
    slots: list[Any] = []
    for frame in run.sent("panel", "props"):
        if frame["params"]["panel"] != "overlay":
            continue
        for name, value in frame["params"]["props"]:
            if name == "slots":
                slots = value["v"]
    return {row[0]["v"]: (row[3]["v"], row[4]["v"]) for row in slots}


def test_a_corrupt_file_and_a_text_file_both_end_failed_with_their_reasons(
    tmp_path: Path,
) -> None:
    content = tmp_path / "content"
    sounds = content / "Cueboard" / "Sounds"
    sounds.mkdir(parents=True)
    (sounds / "01 Corrupt.wav").write_bytes(b"RIFF\x00\x00\x00\x00WAVEjunkjunkjunk" * 4)
    (sounds / "02 Notes.mp3").write_text("Shopping: milk, eggs, a new microphone.\n")
    for n in range(LAUNCHES):
        last = n == LAUNCHES - 1
        script = QUIET + ("disconnect\n" + QUIET if last else "")
        run = run_cueboard(tmp_path / f"launch-{n}", script, content=content)
        assert run.code == 0, run.stderr[-2000:]
        assert _tiles(run) == EXPECTED, f"launch {n + 1}"
        failed = [e for e in run.events("audio_loaded") if e["outcome"]["kind"] == "failed"]
        assert [e["outcome"]["code"] for e in failed] == ["undecodable"]  # the text: never loaded
        if last:
            hellos = [x for x in run.transcript if (x.get("frame") or {}).get("method") == "hello"]
            assert len(hellos) == 2
