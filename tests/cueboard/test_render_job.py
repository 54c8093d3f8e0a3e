"""The render worker's output, measured on its samples: where it starts and ends in the source
(by cross-correlation), the fades' envelopes, and a loop's seam."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
import soundfile

from cueboard.core.render import Edit
from cueboard.workers.render_job import SEAM_MS, render_file

RATE = 48000
MS = RATE // 1000


def _noise(path: Path, seconds: float, seed: int = 1, subtype: str = "PCM_16") -> np.ndarray:
    """Seeded noise (every sample 0.2 to 0.5 from zero: no stretch of it is silent)."""
    rng = np.random.default_rng(seed)
    count = int(RATE * seconds)
    values = rng.uniform(0.2, 0.5, count) * rng.choice([-1.0, 1.0], count)
    soundfile.write(str(path), values, RATE, subtype=subtype)
    data, _ = soundfile.read(str(path), dtype="float64")
    return data


def _render(tmp: Path, source: Path, edit: Edit) -> np.ndarray:
    dest = tmp / "out.flac"
    assert render_file(str(source), str(dest), edit) is None
    assert soundfile.info(str(dest)).format == "FLAC"
    data, rate = soundfile.read(str(dest), dtype="float64")
    assert rate == RATE
    return data


def _offset(original: np.ndarray, piece: np.ndarray) -> int:
    """Where ``piece`` (a stretch of ``original``, unfaded) sits in it: the peak of their
    cross-correlation."""
    corr = np.correlate(original, piece, mode="valid")
    return int(np.argmax(corr))


def test_trim_starts_and_ends_where_asked(tmp_path: Path) -> None:
    """The rendered file's first sample is the source's at the trim start and its last is the
    one before the trim end, within 1 ms, found by cross-correlation with the source."""
    original = _noise(tmp_path / "a.wav", 2.0)
    data = _render(tmp_path, tmp_path / "a.wav", Edit(start_ms=250, end_ms=1400))
    head, tail = data[: 50 * MS], data[-50 * MS :]
    start = _offset(original, head)
    end = _offset(original, tail) + len(tail)
    assert abs(start - 250 * MS) <= MS
    assert abs(end - 1400 * MS) <= MS
    assert abs(len(data) - 1150 * MS) <= MS
    assert np.max(np.abs(data - original[start : start + len(data)])) < 1e-4  # PCM_16 kept


def test_untouched_end_runs_to_the_source_end(tmp_path: Path) -> None:
    original = _noise(tmp_path / "a.flac", 1.0)
    data = _render(tmp_path, tmp_path / "a.flac", Edit(start_ms=100))
    assert len(data) == len(original) - 100 * MS
    assert np.allclose(data, original[100 * MS :], atol=1e-4)


def test_fade_envelopes_are_measured_ramps(tmp_path: Path) -> None:
    """Divided by the source, the rendered samples are the gain: from 0 up to 1 over the
    fade-in, 1 between, down to 0 over the fade-out."""
    original = _noise(tmp_path / "a.wav", 2.0, subtype="FLOAT")
    edit = Edit(start_ms=100, end_ms=1900, fade_in_ms=300, fade_out_ms=500)
    data = _render(tmp_path, tmp_path / "a.wav", edit)
    source = original[100 * MS : 1900 * MS]
    assert len(data) == len(source)
    gain = data / source
    fade_in, fade_out = 300 * MS, 500 * MS
    assert abs(gain[0]) < 1e-3
    assert np.allclose(gain[:fade_in], np.arange(fade_in) / fade_in, atol=2e-4)
    assert np.allclose(gain[fade_in : len(gain) - fade_out], 1.0, atol=2e-4)
    expected_out = (fade_out - 1 - np.arange(fade_out)) / fade_out
    assert np.allclose(gain[len(gain) - fade_out :], expected_out, atol=2e-4)
    assert abs(gain[-1]) < 1e-3


def _seam_step(data: np.ndarray) -> float:
    """The step from the file's last sample to its first: what a loop plays at the seam."""
    return float(abs(data[0] - data[-1]))


@pytest.mark.parametrize(("fade_in", "fade_out"), [(0, 0), (200, 0), (0, 200), (200, 200)], ids=str)
def test_loop_seam_has_no_click_whatever_the_fades(
    tmp_path: Path, fade_in: int, fade_out: int
) -> None:
    """A sine cut mid-cycle would click when looped (a step of about its amplitude); the loop's
    render steps at its seam no more than the sine does from one sample to the next."""
    t = np.arange(RATE * 2) / RATE
    sine = 0.8 * np.sin(2 * np.pi * 440 * t)
    soundfile.write(str(tmp_path / "s.wav"), sine, RATE, subtype="FLOAT")
    natural = float(np.max(np.abs(np.diff(sine))))  # 440 Hz at 0.8: about 0.046
    edit = Edit(start_ms=3, end_ms=1238, fade_in_ms=fade_in, fade_out_ms=fade_out, loop=True)
    data = _render(tmp_path, tmp_path / "s.wav", edit)
    threshold = 1.05 * natural
    assert _seam_step(data) <= threshold
    assert np.max(np.abs(np.diff(data))) <= threshold  # nor anywhere inside
    assert len(data) == (1238 - 3 - SEAM_MS) * MS
    unlooped = _render(tmp_path, tmp_path / "s.wav", Edit(start_ms=3, end_ms=1238))
    if not fade_in and not fade_out:
        assert _seam_step(unlooped) > 5 * threshold  # the same cut, not a loop: it would click


def test_nothing_between_start_and_end_is_refused(tmp_path: Path) -> None:
    _noise(tmp_path / "a.wav", 0.5)
    dest = tmp_path / "out.flac"
    assert render_file(str(tmp_path / "a.wav"), str(dest), Edit(start_ms=800)) == "empty"
    assert not dest.exists()


def test_not_audio_is_unreadable_and_leaves_nothing(tmp_path: Path) -> None:
    (tmp_path / "a.wav").write_bytes(b"not a sound at all" * 10)
    dest = tmp_path / "out.flac"
    assert render_file(str(tmp_path / "a.wav"), str(dest), Edit(start_ms=1)) == "unreadable"
    assert list(tmp_path.iterdir()) == [tmp_path / "a.wav"]


def test_a_render_past_audio_loads_limits_is_refused_and_leaves_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """AUD-15, AUD-16: what the host would refuse is not written (limits made small here)."""
    from cueboard.workers import render_job

    _noise(tmp_path / "a.wav", 1.0)
    dest = tmp_path / "out.flac"
    monkeypatch.setattr(render_job, "MAX_RENDER_S", 0.5)
    assert render_file(str(tmp_path / "a.wav"), str(dest), Edit(start_ms=100)) == "too_long"
    assert render_file(str(tmp_path / "a.wav"), str(dest), Edit(start_ms=600)) is None
    dest.unlink()
    monkeypatch.setattr(render_job, "MAX_RENDER_BYTES", 1000)
    assert render_file(str(tmp_path / "a.wav"), str(dest), Edit(start_ms=600)) == "too_large"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a.wav"]
