"""The mixer: what reached each channel, measured in the written WAV files
(docs/protocol-notes.md#r28, AUD-3, AUD-4, AUD-5)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import numpy as np
import numpy.typing as npt
import pytest
import soundfile
from hypothesis import given, settings
from hypothesis import strategies as st

from vrosdev.audio import SAMPLE_RATE, AudioEngine, Loaded
from vrosdev.audio.mixer import Mixer, render_blocks

from .audio_support import MakeEngine, ManualClock, tone

type LoadOk = Callable[..., tuple[str, Loaded]]
type Audio = npt.NDArray[np.float64]

RATE = SAMPLE_RATE


def read(path: Path) -> Audio:
    data, rate = soundfile.read(path, always_2d=True)
    assert rate == RATE
    assert data.shape[1] == 2
    return np.asarray(data, dtype=np.float64)


def rms(x: Audio) -> float:
    return float(np.sqrt(np.mean(np.square(x))))


def at(seconds: float) -> int:
    return round(seconds * RATE)


@pytest.fixture
def engine(make_engine: MakeEngine) -> AudioEngine:
    return make_engine()


def test_gains_are_linear_amplitude(
    engine: AudioEngine,
    write_tone: Callable[..., Path],
    load_ok: LoadOk,
    clock: ManualClock,
    tmp_path: Path,
) -> None:
    """docs/protocol-notes.md#r28, AUD-3, AUD-4: a 1 kHz tone at 80 on soundboard and 40 on mic
    differ by 6.02 dB."""
    sound, _ = load_ok(engine, write_tone("1k.wav", seconds=1.0, rate=44_100, amplitude=0.5))
    clock.now = 0.25
    engine.play(sound, [("soundboard", 80), ("mic", 40)], False)
    files = engine.write_wavs(tmp_path / "out", end_s=1.5)
    assert sorted(p.name for p in files.values()) == ["mic.wav", "soundboard.wav", "ui.wav"]
    board, mic, ui = (read(files[c]) for c in ("soundboard", "mic", "ui"))
    assert board.shape[0] == mic.shape[0] == at(1.5)
    window = slice(at(0.35), at(1.15))  # inside the tone, clear of resampler edges
    ratio_db = 20 * np.log10(rms(board[window]) / rms(mic[window]))
    assert ratio_db == pytest.approx(20 * np.log10(2), abs=0.5)
    # Absolute level too: 0.5 amplitude sine at gain 0.8 has RMS 0.4/sqrt(2).
    assert rms(board[window]) == pytest.approx(0.4 / np.sqrt(2), rel=0.02)
    assert np.max(np.abs(ui)) == 0.0


def test_play_is_placed_when_it_arrived(
    engine: AudioEngine, load_ok: LoadOk, clock: ManualClock, tmp_path: Path
) -> None:
    """Silence before the play's moment, the sound for exactly its length, silence after."""
    path = tmp_path / "dc.wav"
    soundfile.write(path, np.full(RATE // 2, 0.5, dtype=np.float32), RATE, subtype="FLOAT")
    sound, loaded = load_ok(engine, path)
    assert loaded.duration_ms == 500
    clock.now = 1.0
    engine.play(sound, [("ui", 50)], False)
    ui = read(engine.write_wavs(tmp_path / "o", end_s=2.0)["ui"])
    assert np.all(ui[: at(1.0)] == 0)
    assert np.allclose(ui[at(1.0) : at(1.5)], 0.25)
    assert np.all(ui[at(1.5) :] == 0)


def test_looping_repeats_until_stop_cuts_it(
    engine: AudioEngine, load_ok: LoadOk, clock: ManualClock, tmp_path: Path
) -> None:
    """AUD-10: a 0.25 s ramp looped from 1 s and stopped at 2.1 s."""
    ramp = np.linspace(0.0, 0.9, RATE // 4, dtype=np.float32)
    path = tmp_path / "ramp.wav"
    soundfile.write(path, ramp, RATE, subtype="FLOAT")
    sound, _ = load_ok(engine, path)
    clock.now = 1.0
    engine.play(sound, [("soundboard", 100)], True)
    clock.now = 2.1
    engine.stop(sound)
    clock.now = 3.0
    board = read(engine.write_wavs(tmp_path / "o")["soundboard"])
    assert board.shape[0] == at(3.0)
    looped = board[at(1.0) : at(2.1), 0]
    expected = np.resize(ramp, looped.shape[0])
    assert np.allclose(looped, expected, atol=1e-6)
    assert np.all(board[at(2.1) :] == 0)


def test_running_loop_is_rendered_up_to_the_end(
    engine: AudioEngine, write_tone: Callable[..., Path], load_ok: LoadOk, tmp_path: Path
) -> None:
    sound, _ = load_ok(engine, write_tone("t.wav", seconds=0.1))
    engine.play(sound, [("mic", 100)], True)
    mic = read(engine.write_wavs(tmp_path / "o", end_s=2.0)["mic"])
    assert rms(mic[at(1.8) :]) == pytest.approx(rms(mic[: at(0.2)]), rel=0.01)
    assert rms(mic[at(1.8) :]) > 0.3


def test_replay_cuts_the_earlier_playback(
    engine: AudioEngine, load_ok: LoadOk, clock: ManualClock, tmp_path: Path
) -> None:
    """AUD-22: after the replay only the new copy sounds (its gain, not a sum)."""
    path = tmp_path / "dc.wav"
    soundfile.write(path, np.full(RATE, 0.5, dtype=np.float32), RATE, subtype="FLOAT")
    sound, _ = load_ok(engine, path)
    engine.play(sound, [("soundboard", 100)], False)
    clock.now = 0.5
    engine.play(sound, [("soundboard", 20)], False)
    board = read(engine.write_wavs(tmp_path / "o", end_s=2.0)["soundboard"])
    assert np.allclose(board[: at(0.5)], 0.5)
    assert np.allclose(board[at(0.5) : at(1.5)], 0.1)
    assert np.all(board[at(1.5) :] == 0)


def test_stop_all_cuts_every_channel(
    engine: AudioEngine,
    write_tone: Callable[..., Path],
    load_ok: LoadOk,
    clock: ManualClock,
    tmp_path: Path,
) -> None:
    a, _ = load_ok(engine, write_tone("a.wav", freq=500.0))
    b, _ = load_ok(engine, write_tone("b.wav", freq=700.0))
    engine.play(a, [("soundboard", 50), ("ui", 50)], True)
    engine.play(b, [("mic", 50)], True)
    clock.now = 1.25
    engine.stop_all()
    files = engine.write_wavs(tmp_path / "o", end_s=2.0)
    for channel in ("soundboard", "mic", "ui"):
        data = read(files[channel])
        assert rms(data[at(0.1) : at(1.2)]) > 0.1, channel
        assert np.all(data[at(1.25) :] == 0), channel


def test_channel_without_device_stays_silent(
    make_engine: MakeEngine, write_tone: Callable[..., Path], load_ok: LoadOk, tmp_path: Path
) -> None:
    """AUD-20: the skipped mic target never reaches mic.wav."""
    engine = make_engine(no_device={"mic"})
    sound, _ = load_ok(engine, write_tone("t.wav"))
    engine.play(sound, [("soundboard", 80), ("mic", 40)], False)
    files = engine.write_wavs(tmp_path / "o", end_s=1.0)
    assert np.max(np.abs(read(files["mic"]))) == 0.0
    assert rms(read(files["soundboard"])) > 0.1


def test_overlapping_plays_sum(
    engine: AudioEngine, load_ok: LoadOk, clock: ManualClock, tmp_path: Path
) -> None:
    paths = []
    for name, level in (("a.wav", 0.25), ("b.wav", 0.5)):
        path = tmp_path / name
        soundfile.write(path, np.full(RATE, level, dtype=np.float32), RATE, subtype="FLOAT")
        paths.append(path)
    a, _ = load_ok(engine, paths[0])
    b, _ = load_ok(engine, paths[1])
    engine.play(a, [("ui", 100)], False)
    clock.now = 0.5
    engine.play(b, [("ui", 100)], False)
    ui = read(engine.write_wavs(tmp_path / "o", end_s=1.5)["ui"])
    assert np.allclose(ui[: at(0.5)], 0.25)
    assert np.allclose(ui[at(0.5) : at(1.0)], 0.75)
    assert np.allclose(ui[at(1.0) : at(1.5)], 0.5)


@settings(max_examples=25, deadline=None)
@given(
    gain_a=st.integers(1, 100),
    gain_b=st.integers(1, 100),
    start=st.integers(0, 20 * RATE),
    length=st.integers(1, 3 * RATE),
    looping=st.booleans(),
    cut=st.integers(0, 25 * RATE),
)
def test_render_matches_a_direct_mix(
    gain_a: int, gain_b: int, start: int, length: int, looping: bool, cut: int
) -> None:
    """docs/protocol-notes.md#r28 and block rendering: any placement renders as gain x the sound,
    across block seams."""
    frames = np.stack([tone(331.0, length / RATE, RATE, 0.5)] * 2, axis=1)[:length]
    mixer = Mixer()
    a = mixer.place("soundboard", frames, gain_a / 100, start, looping)
    mixer.place("mic", frames, gain_b / 100, start, looping)
    a.cut(cut)
    end = 25 * RATE

    def direct(gain: int, stop: int) -> npt.NDArray[np.float32]:
        out = np.zeros((end, 2), dtype=np.float32)
        stop = min(stop, end)
        if stop > start:
            out[start:stop] = frames[np.arange(stop - start) % length] * np.float32(gain / 100)
        return out

    natural_end = end if looping else start + length
    board = np.concatenate(list(render_blocks(mixer.snapshot()["soundboard"], end)))
    mic = np.concatenate(list(render_blocks(mixer.snapshot()["mic"], end)))
    assert np.allclose(board, direct(gain_a, min(cut, natural_end)), atol=1e-6)
    assert np.allclose(mic, direct(gain_b, natural_end), atol=1e-6)
