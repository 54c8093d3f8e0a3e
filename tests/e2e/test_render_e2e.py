"""Edited sounds end to end in vrosdev: the real process renders the edit in its worker, the
real host decodes the render and its mixer writes the channels' WAVs.

A trimmed sound's stretch in the soundboard WAV is exactly the trim, frame for frame; a preview
puts nothing in the mic WAV and nothing on the bus, and leaves a playback of the same sound
running whole; a source file changed on disk is rendered again. The edit is seeded in kv as
Cueboard's own pages hold it (docs/prefs-format.md). The sounds are seeded noise, so every
frame tells which sound it is and how far into it (``_stretches``, as test_play_modes_e2e).
"""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np
import pytest

from cueboard.core.records import SoundPrefs, page_key, pages_for
from cueboard.core.render import Edit
from cueboard.workers.render_job import render_file
from vrosdev.host.namespaces.kv import KvStore

from .harness import Run, run_cueboard
from .test_play_modes_e2e import RATE, _noise, _stretches

pytestmark = pytest.mark.slow

BEEP = "01 Beep.wav"
TOPIC = "ext.com.cueboard.soundboard."
READY = "wait-for audio.load 60\nsettle\n"
MS = RATE // 1000


def _seed(state: Path, **edit: int) -> None:
    """The sound's edit in kv, as Cueboard writes it."""
    store = KvStore(state / "kv" / "com.cueboard.soundboard.jsonl")
    store.set("schema", 2)
    for n, page in enumerate(pages_for("", {BEEP: SoundPrefs(**edit)})):
        store.set(page_key("", n), page)


def _launch(tmp: Path, script: str, seconds: float, seed: int, **edit: int) -> tuple[Run, Path]:
    content = tmp / "content"
    _noise(content / "Cueboard" / "Sounds" / BEEP, seconds, seed)
    if edit:
        _seed(tmp / "state", **edit)
    run = run_cueboard(tmp, script, content=content)
    assert run.code == 0, run.stderr[-2000:]
    return run, content / "Cueboard" / "Sounds" / BEEP


def _loaded_paths(run: Run) -> list[str]:
    return [f["params"]["path"] for f in run.sent("audio", "load")]


def _rendered(tmp: Path, source: Path, edit: Edit) -> np.ndarray:
    """The samples the edit gives (the worker is deterministic: the same file as Cueboard's)."""
    out = tmp / "expected.flac"
    assert render_file(str(source), str(out), edit) is None
    return _source(out)


def _source(path: Path) -> np.ndarray:
    import soundfile

    data, _ = soundfile.read(str(path), dtype="float64")
    return data


@pytest.fixture(autouse=True)
def _data_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Cueboard's own data folder (the render cache) in the test's folder."""
    home = tmp_path / "data"
    monkeypatch.setenv("XDG_DATA_HOME", str(home))
    return home


def _renders(tmp: Path) -> list[Path]:
    folder = tmp / "data" / "Cueboard" / "Renders"
    return sorted(folder.glob("*.flac")) if folder.is_dir() else []


def test_a_trimmed_sound_plays_exactly_its_trim(tmp_path: Path) -> None:
    run, source = _launch(
        tmp_path, f"{READY}invoke play-slot-1\nsleep 1.2\nsettle\n", 2.0, 1,
        trim_start_ms=500, trim_end_ms=1300,
    )  # fmt: skip
    (render,) = _renders(tmp_path)
    assert _loaded_paths(run) == [str(render)]  # the user's file is never loaded
    trimmed = _source(source)[500 * MS : 1300 * MS]
    for channel in ("soundboard", "mic"):
        found, _ = _stretches(run.wav(channel), {"trim": trimmed})
        assert [(name, frames) for name, _, frames in found] == [("trim", 800 * MS)], channel


def test_a_preview_is_not_in_the_mic_nor_on_the_bus(tmp_path: Path) -> None:
    script = f'{READY}click dash-tab preview-sound ["{BEEP}"]\nsleep 1\nsettle\n'
    run, source = _launch(tmp_path, script, 0.5, 2, fade_out_ms=100)
    edited = _rendered(tmp_path, source, Edit(fade_out_ms=100))
    found, _ = _stretches(run.wav("soundboard"), {"beep": edited})
    assert [(name, frames) for name, _, frames in found] == [("beep", len(edited))]
    mic = run.wav("mic")
    assert not mic.exists() or not np.any(_source(mic))  # silence, if written at all
    plays = run.sent("audio", "play")
    assert [[t["channel"] for t in p["params"]["targets"]] for p in plays] == [["soundboard"]]
    topics = [f["params"]["topic"] for f in run.sent("bus", "publish")]
    assert TOPIC + "played" not in topics


def test_a_preview_during_a_playback_of_the_same_sound_leaves_it_running(
    tmp_path: Path,
) -> None:
    """The mic WAV holds the playback whole: a preview under the same id would have cut it
    (a second play replaces the first, AUD-22), on every channel."""
    script = (
        f"{READY}invoke play-slot-1\nsleep 0.3\n"
        f'click dash-tab preview-sound ["{BEEP}"]\nsleep 2.5\nsettle\n'
    )
    run, source = _launch(tmp_path, script, 2.0, 3, trim_start_ms=100)
    sound = _source(source)[100 * MS :]
    found, _ = _stretches(run.wav("mic"), {"beep": sound})
    assert [(name, frames) for name, _, frames in found] == [("beep", len(sound))]
    plays = run.sent("audio", "play")
    assert len(plays) == 2 and plays[0]["params"]["sound"] != plays[1]["params"]["sound"]
    assert not run.sent("audio", "stop")


def test_a_source_changed_on_disk_is_rendered_again(tmp_path: Path) -> None:
    """Same size and modification time, other content: the cache's hash tells them apart."""
    script = f"{READY}invoke play-slot-1\nsleep 1\nsettle\n"
    _, source = _launch(tmp_path, script, 1.0, 4, trim_start_ms=200)
    (first,) = _renders(tmp_path)
    stat = source.stat()
    _noise(source, 1.0, 5)
    os.utime(source, ns=(stat.st_atime_ns, stat.st_mtime_ns))
    run = run_cueboard(tmp_path, script, content=tmp_path / "content")
    assert run.code == 0
    (second,) = _renders(tmp_path)
    assert second != first
    assert _loaded_paths(run) == [str(second)]
    trimmed = _source(source)[200 * MS :]
    found, _ = _stretches(run.wav("soundboard"), {"new": trimmed})
    assert [(name, frames) for name, _, frames in found] == [("new", len(trimmed))]
