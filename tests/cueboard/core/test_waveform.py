"""The editor's waveform (issue 26, item 3): peaks per column read from the sound's file by the
worker, drawn as RGBA tiles within the asset rules with the trimmed parts dimmed and the fades
drawn, put into the host's table and named in the dash-tab's props once put, and drawn again
when the edit changes (from the peaks kept, without reading the file) or the file does."""

from __future__ import annotations

import base64
import json
import random
import re
from pathlib import Path
from typing import Any

import numpy as np
import soundfile

from cueboard.core.asset_table import AssetRef, AssetTable
from cueboard.core.contract import WAVEFORM_HEIGHT, WAVEFORM_TILE_WIDTH, WAVEFORM_TILES
from cueboard.core.effects import DrawWaveform, Send, Tickets
from cueboard.core.inputs import Disconnected, WaveformDrawn
from cueboard.core.library import Library, Sound
from cueboard.core.tracker import Tracker
from cueboard.core.waveform import WaveformModel, WaveWanted
from cueboard.workers.waveform import (
    COLUMNS,
    KEPT,
    MARK,
    TRIMMED,
    draw_tiles,
    draw_waveform,
    peaks_of,
    pixels,
)
from vxp.models import events
from vxp.models.assets import AssetPut
from vxp.prepared import Prepared

from .fakehost import Driver, FakeHost

RATE = 48_000
NAME = "Memes/Quiet Then Loud.wav"


def _write(path: Path, seconds: float = 2.0, loud_from: float = 1.0) -> None:
    """Silence, then a sine at 0.8 from ``loud_from`` on."""
    t = np.arange(int(seconds * RATE)) / RATE
    wave = np.where(t >= loud_from, 0.8 * np.sin(2 * np.pi * 440 * t), 0.0)
    path.parent.mkdir(parents=True, exist_ok=True)
    soundfile.write(str(path), np.stack([wave, wave], axis=1), RATE, subtype="PCM_16")


def _library(root: Path, size: int = 1000, mtime: int = 1) -> Library:
    return Library(root, [Sound(NAME, "Quiet Then Loud", "Memes", size, mtime)])


def _connect(d: Driver, root: Path) -> None:
    """Connected, with the sounds folder the host keeps set to ``root``."""
    d.connect()
    d.event(events.SettingsChanged(event="settings_changed", key="sounds_folder", value=str(root)))
    d.advance(1.0)


def _driver(root: Path) -> Driver:
    _write(root / NAME)
    d = Driver(FakeHost(), _library(root))
    _connect(d, root)
    d.click("dash-tab", "select-sound", NAME)
    return d


def _dash(d: Driver) -> dict[str, Any]:
    d.advance(0.5)
    return {k: v["v"] for k, v in d.core.props.desired("dash-tab").items()}


def _draws(d: Driver) -> list[DrawWaveform]:
    return [j for j in d.jobs if isinstance(j, DrawWaveform)]


def _puts(d: Driver) -> list[dict[str, Any]]:
    sent = [p for p in d.host.of("assets.put") if isinstance(p, Prepared)]
    return [put for put in map(json.loads, (p.params_json for p in sent)) if "wave:" in put["key"]]


# -- the worker --------------------------------------------------------------------------------


def test_peaks_per_column_follow_the_sound_and_its_length_is_read(tmp_path: Path) -> None:
    _write(tmp_path / "a.wav", seconds=2.0, loud_from=1.0)
    peaks, duration_ms = peaks_of(tmp_path / "a.wav")
    assert duration_ms == 2000 and len(peaks) == COLUMNS
    half = COLUMNS // 2
    assert max(peaks[: half - 1]) == 0.0  # the silent first second
    assert min(peaks[half + 1 :]) > 0.75  # the sine at 0.8 (16-bit), in every later column


def test_every_tile_passes_the_asset_rules() -> None:
    """AST-7: straight RGBA8, each frame exactly width x height x 4 bytes. AST-9: at most 128 x
    128. AST-15: a key of 1-128 bytes of letters, digits and - _ . : /."""
    puts = draw_tiles(tuple([0.5] * COLUMNS), 2000, (300, 1500, 200, 200))
    assert len(puts) == WAVEFORM_TILES
    for ref, prepared in puts:
        params = json.loads(prepared.params_json)
        put = AssetPut.model_validate({k: v for k, v in params.items() if k != "op"})
        assert (put.width, put.height) == (WAVEFORM_TILE_WIDTH, WAVEFORM_HEIGHT)
        assert put.width <= 128 and put.height <= 128
        (frame,) = params["frames"]
        rgba = base64.b64decode(frame["rgba_base64"])
        assert len(rgba) == put.width * put.height * 4 == ref.nbytes
        assert 20 <= frame["delay_ms"] <= 1000
        assert re.fullmatch(r"[A-Za-z0-9_.:/-]{1,128}", put.key) and put.key == ref.key


def _column(strip: np.ndarray, ms: float, duration_ms: int = 2000) -> np.ndarray:
    return strip[:, int(ms / duration_ms * strip.shape[1])]


def test_trimmed_parts_are_dimmed_and_the_fades_are_drawn() -> None:
    strip = pixels(tuple([1.0] * COLUMNS), 2000, (500, 1500, 250, 0))
    middle = WAVEFORM_HEIGHT // 2
    assert tuple(_column(strip, 200)[middle]) == TRIMMED  # before the start: faint
    assert tuple(_column(strip, 1800)[middle]) == TRIMMED  # after the end: faint
    assert tuple(_column(strip, 1000)[middle]) == KEPT
    assert tuple(_column(strip, 500)[0]) == MARK  # the trim points are marked top to bottom
    assert tuple(_column(strip, 1500)[0]) == MARK

    def bar(ms: float) -> int:
        return int((_column(strip, ms)[:, 3] == 255).sum())

    assert bar(560) < bar(680) < bar(1000)  # the fade in rises to the full bar
    assert MARK in {tuple(px) for px in _column(strip, 620)}  # its envelope is drawn
    untrimmed = pixels(tuple([1.0] * COLUMNS), 2000, (0, None, 0, 0))
    assert MARK not in {tuple(px) for px in untrimmed.reshape(-1, 4)}


# -- the core: what is drawn, put and named --------------------------------------------------


def test_the_trim_page_draws_puts_and_names_the_waveform_and_an_edit_draws_it_again(
    tmp_path: Path,
) -> None:
    d = _driver(tmp_path)
    assert _draws(d) == [] and _dash(d)["selected-waveform"] == []  # the volume page: none
    d.click("dash-tab", "show-editor-page", 1)
    shown = _dash(d)["selected-waveform"]
    (first,) = _draws(d)
    assert first.peaks is None  # read from the file, in the worker
    assert len(shown) == WAVEFORM_TILES and shown == [p["key"] for p in _puts(d)]
    assert d.host.named_unput == []  # named only once put

    d.click("dash-tab", "set-sound-edit", NAME, 0, 500)
    again = _dash(d)["selected-waveform"]
    second = _draws(d)[-1]
    assert second.edit == (500, None, 0, 0)
    assert second.peaks is not None  # the peaks kept: the file is not read again
    assert again != shown and again[-1] == shown[-1]  # only the tiles that changed are new
    assert {p["key"] for p in _puts(d)} == set(shown) | set(again)


def test_nothing_is_drawn_again_for_the_same_edit_and_a_changed_file_is_read_again(
    tmp_path: Path,
) -> None:
    d = _driver(tmp_path)
    d.click("dash-tab", "show-editor-page", 1)
    _dash(d)
    d.click("dash-tab", "select-sound", NAME)
    d.click("dash-tab", "show-editor-page", 1)
    _dash(d)
    assert len(_draws(d)) == 1
    d.lib = _library(tmp_path, size=2000, mtime=2)  # the file changed on disk
    d.click("dash-tab", "rescan")
    d.advance(2.0)
    _dash(d)
    assert [draw.peaks is None for draw in _draws(d)] == [True, True]


def test_a_file_that_cannot_be_read_names_no_waveform_and_the_editor_still_works(
    tmp_path: Path,
) -> None:
    d = _driver(tmp_path)
    (tmp_path / NAME).write_bytes(b"not audio at all")
    d.click("dash-tab", "show-editor-page", 1)
    values = _dash(d)
    assert values["selected-waveform"] == [] and _puts(d) == []
    assert any("waveform of" in log.message for log in d.logs)
    d.click("dash-tab", "set-sound-edit", NAME, 0, 100)
    assert d.core.prefs.get(NAME).trim_start_ms == 100


def test_after_a_reconnect_the_waveform_is_put_again_and_named_once_put(tmp_path: Path) -> None:
    d = _driver(tmp_path)
    d.click("dash-tab", "show-editor-page", 1)
    shown = _dash(d)["selected-waveform"]
    d.feed(Disconnected())
    _connect(d, tmp_path)
    assert _dash(d)["selected-waveform"] == shown
    assert [p["key"] for p in _puts(d)] == shown + shown  # the host's table died (AST-17)
    assert d.host.named_unput == [] and len(_draws(d)) == 1  # drawn once: the tiles are kept


def test_a_plan_of_the_icons_under_way_holds_the_waveforms_puts_back(tmp_path: Path) -> None:
    """The host's one table has one plan under way at a time, so that two plans computed
    against the same table can never together make the host evict (AST-13)."""
    _write(tmp_path / NAME)
    tracker = Tracker(Tickets(), random.Random(0))
    busy = [True]
    model = WaveformModel(tracker, AssetTable(), busy=lambda: busy[0])
    wanted = WaveWanted(NAME, tmp_path / NAME, (1, 1), (0, None, 0, 0))
    (draw,) = model.want(wanted, 0.0)
    assert isinstance(draw, DrawWaveform)
    result = draw_waveform(str(draw.path), None, 0, draw.edit)
    assert model.on_drawn(WaveformDrawn(NAME, (1, 1), draw.edit, result), 0.0) == []
    assert model.want(wanted, 1.0) == []  # still busy
    busy[0] = False
    sent = [e for e in model.want(wanted, 2.0) if isinstance(e, Send)]
    assert [s.kind for s in sent] == ["assets.put"] * WAVEFORM_TILES


def test_before_the_host_says_its_length_the_files_length_lets_the_end_and_a_touch_work(
    tmp_path: Path,
) -> None:
    d = _driver(tmp_path)
    d.core.board.states[NAME].duration_ms = None  # not loaded: the host has not said
    d.click("dash-tab", "show-editor-page", 1)
    values = _dash(d)
    assert values["selected-duration-ms"] == 2000  # the file's, read for the waveform
    d.click("dash-tab", "set-sound-edit", NAME, 1, 2000 - 100)  # "-" on an end at the end
    d.click("dash-tab", "trim-sound-at", NAME, 300)
    prefs = d.core.prefs.get(NAME)
    assert (prefs.trim_start_ms, prefs.trim_end_ms) == (300, 1900)


def test_a_full_table_removes_the_least_recently_used_before_the_tiles_are_put(
    tmp_path: Path,
) -> None:
    """AST-13: the host's table is never let evict on its own; what must go is removed first,
    and the table counted here never holds more than the host's bounds."""
    _write(tmp_path / NAME)
    table = AssetTable(max_entries=WAVEFORM_TILES + 1)
    for key in ("cb:icon:used-first", "cb:icon:used-last"):
        table.record_put(AssetRef(key, 64, 1))
    model = WaveformModel(Tracker(Tickets(), random.Random(0)), table)
    wanted = WaveWanted(NAME, tmp_path / NAME, (1, 1), (0, None, 0, 0))
    (draw,) = model.want(wanted, 0.0)
    assert isinstance(draw, DrawWaveform)
    result = draw_waveform(str(draw.path), None, 0, draw.edit)
    sent = model.on_drawn(WaveformDrawn(NAME, (1, 1), draw.edit, result), 0.0)
    assert [s.kind for s in sent if isinstance(s, Send)] == ["assets.remove"]
    assert "cb:icon:used-first" not in table and "cb:icon:used-last" in table
    assert len(table) == WAVEFORM_TILES + 1  # the tiles counted as planned, within the bound
