"""The media deck wired end to end: the real Cueboard process inside vrosdev's simulated player.

The deck's decisions (generations, stale controls, unknown outcomes, restore, version gates) are
tested in memory (tests/cueboard/core/deck); here, one scenario per feature checks the wiring:
an overlay click opens a session, the player's own pause reaches the host as our ``set``, the
overlay shows it, and the URL (a credential) stays out of the transcript, kv and the logs.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from cueboard.core.contract import MediaMode, Playback
from tests import leaks

from .harness import Run, run_cueboard, tone

pytestmark = pytest.mark.slow

URL = leaks.register(
    "https://media.example.test/live/stream-a.m3u8?token=deck-e2e-secret", "media URL (e2e)"
)
SECRET_PARTS = ("/live/stream-a", "deck-e2e-secret")


def _content(tmp: Path) -> Path:
    content = tmp / "content"
    tone(content / "Cueboard" / "Sounds" / "01 Beep.wav")
    return content


def _overlay(run: Run, name: str) -> list[Any]:
    return [
        pair[1]["v"]
        for f in run.sent("panel", "props")
        if f["params"]["panel"] == "overlay"
        for pair in f["params"]["props"]
        if pair[0] == name
    ]


def test_open_from_the_overlay_pause_from_the_player_and_close(
    tmp_path: Path, capfd: pytest.CaptureFixture[str]
) -> None:
    script = "\n".join(
        [
            "settle",
            f'click overlay media-open ["{URL}", "Lo-fi radio"]',
            "sleep 0.5",
            "media-pause deck-1",
            "sleep 0.5",
            'click overlay media-close ["deck-1"]',
            "sleep 0.3",
        ]
    )
    run = run_cueboard(tmp_path, script, content=_content(tmp_path))
    assert run.code == 0
    media = [f["params"] for f in run.sent("media")]
    assert [m["op"] for m in media] == ["open", "set", "close"]
    assert media[0]["key"] == "deck-1" and media[0]["title"] == "Lo-fi radio"
    assert media[1]["paused"] is True and media[1]["session"] == media[2]["session"]
    assert _overlay(run, "media-mode")[-1] == int(MediaMode.READY)
    shown = [row for rows in _overlay(run, "deck") for row in rows]
    assert {row[1]["v"] for row in shown} == {"Lo-fi radio"}
    paused = [row for row in shown if row[3]["v"] == int(Playback.PAUSED) and row[6]["v"]]
    assert paused, "the player's pause never reached the overlay"
    assert _overlay(run, "deck")[-1] == []  # closed: the slot is free
    out, err = capfd.readouterr()
    kv = (run.state / "kv").read_text() if (run.state / "kv").is_file() else ""
    kv += (
        "".join(p.read_text() for p in (run.state / "kv").glob("*"))
        if (run.state / "kv").is_dir()
        else ""
    )
    places = {"transcript": json.dumps(run.transcript), "logs": out + err, "kv": kv}
    leaks = {k: [p for p in SECRET_PARTS if p in v] for k, v in places.items()}
    assert leaks == {k: [] for k in places}


def test_a_host_without_media_support_shows_the_deck_unsupported(tmp_path: Path) -> None:
    script = f'settle\nclick overlay media-open ["{URL}", "A"]\nsleep 0.3\n'
    run = run_cueboard(tmp_path, script, content=_content(tmp_path), media_mode="unsupported")
    assert run.code == 0
    assert [f["params"]["op"] for f in run.sent("media")] == ["open"]
    assert _overlay(run, "media-mode")[-1] == int(MediaMode.UNSUPPORTED)
    texts = _overlay(run, "status-text")
    assert texts and "Windows" in texts[-1]
