"""The dash-tab editor end to end through vrosdev (issue 26, item 3): its trim page reads the
sound's file in the worker, puts the waveform's tiles into vrosdev's asset table (which checks
them against the asset rules) and names them in the dash-tab's props only once put; its edits
land in kv through the one edit path."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from cueboard.core.contract import WAVEFORM_TILES
from cueboard.core.records import read_records
from vrosdev.host.namespaces.kv import KvStore

from .harness import run_cueboard, tone

pytestmark = pytest.mark.slow

BEEP = "01 Beep.wav"


def _dash_props(frame: dict[str, Any]) -> dict[str, Any]:
    params = frame["params"]
    if params.get("panel") != "dash-tab":
        return {}
    return {name: value["v"] for name, value in params.get("props", [])}


def test_the_trim_page_shows_the_waveform_put_as_assets_and_saves_the_edits(
    tmp_path: Path,
) -> None:
    content = tmp_path / "content"
    tone(content / "Cueboard" / "Sounds" / BEEP, seconds=2.0)
    script = "\n".join(
        [
            "settle",
            f'click dash-tab select-sound ["{BEEP}"]',
            "click dash-tab show-editor-page [1]",
            f'click dash-tab set-sound-edit ["{BEEP}", 0, 250]',
            f'click dash-tab set-sound-edit ["{BEEP}", 3, 300]',
            f'click dash-tab set-sound-targets ["{BEEP}", 1]',
            "settle 1.5",
        ]
    )
    run = run_cueboard(tmp_path, script, content=content)
    assert run.code == 0
    puts = [f["params"]["key"] for f in run.sent("assets", "put")]
    waves = [key for key in puts if key.startswith("wave:")]
    assert len(waves) >= WAVEFORM_TILES
    named = [
        props["selected-waveform"]
        for frame in run.sent("panel", "props")
        if "selected-waveform" in (props := _dash_props(frame))
    ]
    assert named and len(named[-1]) == WAVEFORM_TILES and set(named[-1]) <= set(waves)
    # (the harness checks that no props named a key before its put answered ok)
    store = KvStore(run.state / "kv" / "com.cueboard.soundboard.jsonl")
    stored = read_records(store.values)[BEEP]
    assert (stored.trim_start_ms, stored.fade_out_ms, stored.targets) == (250, 300, "me")
