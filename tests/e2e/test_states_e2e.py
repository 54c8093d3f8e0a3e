"""Clear states end to end through vrosdev (issue 16): the overlay there at once with a host
slow to arm channels, and a missing sounds folder created while Cueboard runs."""

from __future__ import annotations

import math
import threading
from pathlib import Path
from typing import Any

import pytest

from .harness import Run, run_cueboard, tone

pytestmark = pytest.mark.slow


def _overlay_props(run: Run) -> list[tuple[float, dict[str, Any]]]:
    out: list[tuple[float, dict[str, Any]]] = []
    for x in run.transcript:
        frame = x.get("frame")
        if x.get("dir") != "ext>host" or not isinstance(frame, dict):
            continue
        params = frame.get("params") or {}
        if frame.get("method") == "panel" and params.get("panel") == "overlay":
            out.append((x["t"], {name: value["v"] for name, value in params.get("props", [])}))
    return out


def _answered_at(run: Run, method: str, op: str) -> float:
    """When the first of these requests was answered; infinity when none was in the run."""
    ids = {f["id"] for f in run.sent(method, op)}
    return min(
        (
            x["t"]
            for x in run.transcript
            if x.get("dir") == "host>ext" and isinstance(x.get("frame"), dict)
            and x["frame"].get("id") in ids
        ),
        default=math.inf,
    )  # fmt: skip


def test_page_one_reaches_the_overlay_before_a_slow_pre_arm_answers(tmp_path: Path) -> None:
    """The pre-arm is answered only long after the run (60 s): page one must reach the overlay
    without its answer, however long the start takes."""
    content = tmp_path / "content"
    sounds = content / "Cueboard" / "Sounds"
    tone(sounds / "01 Beep.wav", seconds=0.1)
    tone(sounds / "02 Boop.wav", seconds=0.1)
    run = run_cueboard(
        tmp_path, "wait-for audio.load 60\nsettle\n", content=content, delays=["audio.pre_arm=60"]
    )
    frames = _overlay_props(run)
    assert frames[0][1]["empty-text"] == f"Scanning {sounds}…"
    shown = [t for t, props in frames if {"01 Beep", "02 Boop"} <= _names(props)]
    assert shown and shown[0] < _answered_at(run, "audio", "pre_arm")


def _names(props: dict[str, Any]) -> set[str]:
    return {row[1]["v"] for row in props.get("slots", [])}


TOLD = "setting does not exist"


def test_a_missing_sounds_folder_says_so_once_and_is_picked_up_when_created(
    tmp_path: Path,
) -> None:
    missing = tmp_path / "later" / "Sounds"
    stop = threading.Event()

    def create_once_told() -> None:
        """As a person would: reads the grid's message (the live transcript), makes the folder."""
        record = tmp_path / "transcript.jsonl"
        while not stop.wait(0.02):
            lines = record.read_text(encoding="utf-8").splitlines() if record.exists() else []
            if any('"dir":"ext>host"' in line and TOLD in line for line in lines):
                tone(missing / "Made Later.wav", seconds=0.1)
                return

    person = threading.Thread(target=create_once_told, daemon=True)
    person.start()
    try:
        run = run_cueboard(
            tmp_path,
            f'setting sounds_folder "{missing}"\nwait-for panel.props 60 "{TOLD}"\n'
            'wait-for panel.props 60 "Made Later"\nsettle\n',
        )
    finally:
        stop.set()
        person.join()
    frames = _overlay_props(run)
    texts = [props["empty-text"] for _, props in frames if "empty-text" in props]
    assert f"The folder in the “Sounds folder” setting does not exist: {missing}" in texts
    statuses = {props.get("status-text") for _, props in frames} - {None, ""}
    assert statuses == set(), "one message, in the grid; no second one on the status line"
    assert any(_names(props) == {"Made Later"} for _, props in frames)
    assert texts[-1] == ""
