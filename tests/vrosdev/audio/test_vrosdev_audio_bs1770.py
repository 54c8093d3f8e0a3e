"""vrosdev's own BS.1770 meter, against the standard's calibration and against pyloudnorm.

pyloudnorm is the reference the host measured with before; it stays a test dependency only.
It and scipy.signal are imported by the tests that use them, and the signals are made by the
test they are for: collection, which every xdist worker does, pays for neither.
"""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Callable
from functools import partial

import numpy as np
import numpy.typing as npt
import pytest

from vrosdev.audio import bs1770
from vrosdev.audio.loudness import NORMALIZE_TARGET_LUFS, measure_lufs, normalize

RATE = 48_000
type Samples = npt.NDArray[np.float64]


def _sine(seconds: float, freq: float, amplitude: float, channels: int = 2) -> Samples:
    t = np.arange(round(seconds * RATE)) / RATE
    wave = amplitude * np.sin(2 * np.pi * freq * t)
    return np.repeat(wave[:, None], channels, axis=1)


def _speechlike(seconds: float, seed: int) -> Samples:
    """Pink-ish noise in syllable-like bursts with pauses, stereo with a level offset."""
    import scipy.signal

    rng = np.random.default_rng(seed)
    n = round(seconds * RATE)
    white = rng.standard_normal(n)
    pinkish = scipy.signal.lfilter([0.05, 0.05], [1.0, -0.9], white)
    envelope = np.clip(np.sin(2 * np.pi * 3.7 * np.arange(n) / RATE), 0.0, None) ** 2
    pauses = np.repeat(rng.random(n // 4800 + 1) > 0.3, 4800)[:n]
    mono = pinkish * envelope * pauses + 1e-4 * rng.standard_normal(n)
    return np.stack([mono, 0.7 * mono], axis=1)


def _chirp_with_quiet_tail(seconds: float) -> Samples:
    """A loud sweep then a tail 25 dB down: the relative gate keeps the tail out."""
    import scipy.signal

    t = np.arange(round(seconds * RATE)) / RATE
    sweep = 0.5 * scipy.signal.chirp(t, f0=40, t1=t[-1], f1=16_000)
    sweep[len(t) // 2 :] *= 10 ** (-25 / 20)
    return np.stack([sweep, sweep], axis=1)


def test_k_weighting_is_the_standards_recursive_filter() -> None:
    """The FFT-applied K-weighting equals BS.1770's two biquads run sample by sample."""
    import scipy.signal

    x = np.random.default_rng(3).standard_normal((300_000, 2))
    stage1 = scipy.signal.lfilter(bs1770._SHELF_B, bs1770._SHELF_A, x, axis=0)
    expected = scipy.signal.lfilter(bs1770._HIGHPASS_B, bs1770._HIGHPASS_A, stage1, axis=0)
    assert np.max(np.abs(bs1770.k_weight(x) - expected)) < 1e-9


def test_full_scale_997_hz_in_one_channel_reads_minus_3_01() -> None:
    """BS.1770's calibration: a 0 dBFS 997 Hz sine in one channel is -3.01 LUFS."""
    tone = _sine(2.0, 997.0, 1.0)
    tone[:, 1] = 0.0
    assert bs1770.integrated_loudness(tone) == pytest.approx(-3.01, abs=0.01)


@pytest.mark.parametrize(
    "make",
    [
        pytest.param(partial(_sine, 0.6, 440.0, 0.25), id="tone-440-0.6s"),
        pytest.param(partial(_sine, 1.0, 440.0, 0.02), id="tone-440-quiet"),
        pytest.param(partial(_sine, 1.0, 440.0, 0.9), id="tone-440-loud"),
        pytest.param(partial(_sine, 3.0, 60.0, 0.5), id="tone-60hz"),
        pytest.param(partial(_sine, 2.5, 9_000.0, 0.3), id="tone-9khz"),
        pytest.param(partial(_speechlike, 4.2, 1), id="speechlike-4.2s"),
        pytest.param(partial(_speechlike, 11.05, 2), id="speechlike-11s"),
        pytest.param(partial(_chirp_with_quiet_tail, 5.0), id="chirp-quiet-tail"),
        pytest.param(lambda: np.random.default_rng(4).uniform(-0.5, 0.5, (150_000, 2)), id="noise"),
    ],
)
def test_reads_what_pyloudnorm_reads_within_a_tenth_of_an_lu(make: Callable[[], Samples]) -> None:
    """Tones (the load tests' reference tones among them) and real-ish signals."""
    import pyloudnorm

    signal = make()
    expected = pyloudnorm.Meter(RATE).integrated_loudness(signal)
    assert bs1770.integrated_loudness(signal) == pytest.approx(expected, abs=0.1)


def test_silence_and_too_short_read_minus_infinity() -> None:
    assert bs1770.integrated_loudness(np.zeros((RATE, 2))) == float("-inf")
    assert bs1770.integrated_loudness(_sine(0.39, 440.0, 0.5)) == float("-inf")


def test_normalized_reference_tones_read_the_target_on_pyloudnorm() -> None:
    """The −16 LUFS target, as the old meter measures the normalized result."""
    import pyloudnorm

    for amplitude in (0.02, 0.1, 0.5):
        frames = _sine(1.0, 440.0, amplitude).astype(np.float32)
        scaled, reported = normalize(frames, measure_lufs(frames))
        assert reported == pytest.approx(NORMALIZE_TARGET_LUFS, abs=1e-6)
        measured = pyloudnorm.Meter(RATE).integrated_loudness(scaled.astype(np.float64))
        assert measured == pytest.approx(NORMALIZE_TARGET_LUFS, abs=0.1)


def _imported_after(statement: str) -> set[str]:
    code = f"import sys; {statement}; print(' '.join(sys.modules))"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    return {name.split(".")[0] for name in done.stdout.split()}


def test_the_meter_imports_without_scipy() -> None:
    """scipy.signal's import is what made the first audio request wait: the host has none."""
    assert "scipy" not in _imported_after("import vrosdev.audio.loudness, vrosdev.audio")


def test_the_engine_a_request_waits_for_imports_no_numpy() -> None:
    """The host's first audio request waits for the engine only; numpy loads in the background."""
    loaded = _imported_after("import vrosdev.audio.engine")
    assert not loaded & {"numpy", "soundfile", "soxr", "scipy"}
