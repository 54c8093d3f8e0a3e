"""The folder commands end to end through vrosdev (issue 25, item 1): registered with the others,
they move the overlay's place: the open overlay shows it, and with the overlay hidden the toast
names where it landed. Read from the raw transcript, frame by frame, not through the SDK."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from .harness import Run, run_cueboard, tone

pytestmark = pytest.mark.slow

NEW = {"folder-next", "folder-prev", "folder-jump-next", "folder-jump-prev", "open-favourites"}


def _library(tmp: Path) -> Path:
    """Seven folders: A holds 13 sounds (two pages), B to G one each."""
    content = tmp / "content"
    sounds = content / "Cueboard" / "Sounds"
    for n in range(1, 14):
        tone(sounds / "A" / f"a{n:02d}.wav", seconds=0.1)
    for folder in "BCDEFG":
        tone(sounds / folder / f"{folder.lower()}1.wav", seconds=0.1)
    return content


def _frames(run: Run, direction: str) -> list[dict[str, Any]]:
    return [
        x["frame"]
        for x in run.transcript
        if x.get("dir") == direction and isinstance(x.get("frame"), dict)
    ]


def _toasts(run: Run) -> list[tuple[str, str]]:
    """Each (sound-name, channels-text) the now-playing panel was sent, in order."""
    shown: list[tuple[str, str]] = []
    current: dict[str, str] = {"sound-name": "", "channels-text": ""}
    for frame in _frames(run, "ext>host"):
        params = frame.get("params") or {}
        if frame.get("method") != "panel" or params.get("op") != "props":
            continue
        if params.get("panel") != "now-playing":
            continue
        named = {name: value["v"] for name, value in params.get("props", [])}
        if "sound-name" in named or "channels-text" in named:
            current = {**current, **{k: v for k, v in named.items() if k in current}}
            shown.append((current["sound-name"], current["channels-text"]))
    return shown


def _overlay_names(run: Run) -> list[str]:
    """Each header the overlay was sent."""
    return [
        value["v"]
        for frame in run.sent("panel", "props")
        if frame["params"].get("panel") == "overlay"
        for name, value in frame["params"].get("props", [])
        if name == "page-name"
    ]


def _played(run: Run, root: Path) -> list[str]:
    """The files played, by the path each sound id was loaded from."""
    loads = {f["id"]: f["params"]["path"] for f in run.sent("audio", "load")}
    ids: dict[str, str] = {}
    for frame in _frames(run, "host>ext"):
        result = frame.get("result")
        if frame.get("id") in loads and isinstance(result, dict) and "sound" in result:
            ids[result["sound"]] = loads[frame["id"]]
    return [
        Path(ids[p["params"]["sound"]]).relative_to(root).as_posix()
        for p in run.sent("audio", "play")
    ]


def test_folder_commands_move_the_overlay_and_the_toast_names_where(tmp_path: Path) -> None:
    content = _library(tmp_path)
    script = "\n".join(
        [
            "wait-for commands.register 30",  # the extension is up
            "settle",
            "show overlay",
            "invoke folder-next",  # B, which the open overlay shows: no toast
            "sleep 0.4",
            "hide overlay",
            "invoke play-slot-1",
            "sleep 0.4",
            "invoke folder-jump-next",  # G, five on (Recent and Most played lead the strip now)
            "sleep 0.4",
            "invoke page-next",  # wraps to Recent (b1, played above)
            "sleep 0.4",
            "invoke page-next",  # Most played
            "sleep 0.4",
            "invoke page-next",  # A, page 1
            "sleep 0.4",
            "invoke page-next",  # A, page 2
            "sleep 0.4",
            "invoke play-slot-1",
            "sleep 0.4",
            "invoke open-favourites",  # none yet: said, nothing moves
            "sleep 0.4",
            "",
        ]
    )
    run = run_cueboard(tmp_path, script, content=content)
    assert run.code == 0
    registered = {f["params"]["name"] for f in run.sent("commands", "register")}
    assert registered >= NEW
    invoked = [e["command"] for e in run.events("command_invoked")]
    assert [c for c in invoked if c in NEW] == [
        "folder-next",
        "folder-jump-next",
        "open-favourites",
    ]
    assert [f["params"]["panel"] for f in run.sent("panel", "define")] == ["now-playing"]
    places = [t for t in _toasts(run) if t[1].startswith("Folder") or "favourites" in t[0]]
    assert places == [
        ("G", "Folder 9 of 9"),
        ("Recent", "Folder 1 of 9"),
        ("Most played", "Folder 2 of 9"),
        ("A · 1 / 2", "Folder 3 of 9"),
        ("A · 2 / 2", "Folder 3 of 9"),
        ("No favourites yet: the ☆ on a tile makes one.", ""),
    ]
    assert "B" in _overlay_names(run)
    assert _played(run, content / "Cueboard" / "Sounds") == ["B/b1.wav", "A/a13.wav"]
