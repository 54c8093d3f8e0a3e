"""load / unload: decoding real files, limits, errors.

AUD-6, 7, 14-17, 23; docs/protocol-notes.md#r14, #r22.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest
import soundfile

from vrosdev.audio import (
    MAX_FILE_BYTES,
    NORMALIZE_TARGET_LUFS,
    AudioError,
    Loaded,
    LoadFailed,
    LoadStarted,
)
from vrosdev.audio.loudness import true_peak

from .audio_support import MakeEngine, Outcomes, tone

type LoadOk = Callable[..., tuple[str, Loaded]]

FORMATS = [
    pytest.param("tone.wav", {}, id="wav"),
    pytest.param("tone.flac", {}, id="flac"),
    pytest.param("tone.ogg", {"subtype": "VORBIS"}, id="ogg-vorbis"),
    pytest.param("tone.opus", {"format": "OGG", "subtype": "OPUS"}, id="ogg-opus"),
    pytest.param(
        "tone.mp3",
        {},
        id="mp3",
        marks=pytest.mark.skipif(
            "MP3" not in soundfile.available_formats(), reason="libsndfile built without mp3"
        ),
    ),
]


def test_load_answers_at_once_with_fresh_sound_ids(
    make_engine: MakeEngine, write_tone: Callable[..., Path], outcomes: Outcomes
) -> None:
    """AUD-6, AUD-17, docs/protocol-notes.md#r22: `loading` with ids s-00000001, s-00000002, then
    audio_loaded each."""
    engine = make_engine()
    path = write_tone("a.wav")
    first = engine.load(str(path), False)
    second = engine.load(str(path), False)
    assert first == LoadStarted("s-00000001")
    assert second == LoadStarted("s-00000002")
    assert isinstance(second, LoadStarted)
    assert re.fullmatch(r"s-\d{8}", second.sound)
    assert isinstance(outcomes.wait("s-00000001"), Loaded)
    assert isinstance(outcomes.wait("s-00000002"), Loaded)


@pytest.mark.parametrize(("name", "write_kwargs"), FORMATS)
@pytest.mark.parametrize("rate", [44_100, 48_000])
def test_formats_decode_with_duration_and_loudness(
    make_engine: MakeEngine,
    write_tone: Callable[..., Path],
    load_ok: LoadOk,
    name: str,
    write_kwargs: dict[str, str],
    rate: int,
) -> None:
    """AUD-2, AUD-6: each format decodes to its real length; loudness is BS.1770's."""
    import pyloudnorm  # and scipy.signal under it: paid here, not by every worker's collection

    if write_kwargs.get("subtype") == "OPUS" and rate != 48_000:
        rate = 24_000  # Opus has no 44.1 kHz; 24 kHz still goes through the resampler
    path = write_tone(name, seconds=0.6, rate=rate, amplitude=0.25, **write_kwargs)
    _, loaded = load_ok(make_engine(), path)
    assert loaded.duration_ms == pytest.approx(600, abs=15)
    reference = pyloudnorm.Meter(48_000).integrated_loudness(
        np.repeat(tone(seconds=0.6, amplitude=0.25)[:, None].astype(np.float64), 2, axis=1)
    )
    assert loaded.loudness_lufs == pytest.approx(reference, abs=0.5)


@pytest.mark.parametrize("amplitude", [0.02, 0.1, 0.9])
def test_normalize_reaches_target_loudness(
    make_engine: MakeEngine,
    write_tone: Callable[..., Path],
    load_ok: LoadOk,
    clock: object,
    tmp_path: Path,
    amplitude: float,
) -> None:
    """AUD-6: normalize=True brings a sound to -16 LUFS; measured independently on the mix."""
    import pyloudnorm

    engine = make_engine()
    path = write_tone("t.flac", freq=440.0, seconds=1.0, amplitude=amplitude)
    sound, loaded = load_ok(engine, path, True)
    assert loaded.loudness_lufs == pytest.approx(NORMALIZE_TARGET_LUFS, abs=0.5)
    assert not isinstance(engine.play(sound, [("soundboard", 100)], False), AudioError)
    out = engine.write_wavs(tmp_path / "out", end_s=1.0)
    mixed, rate = soundfile.read(out["soundboard"], always_2d=True)
    measured = pyloudnorm.Meter(rate).integrated_loudness(mixed)
    assert measured == pytest.approx(NORMALIZE_TARGET_LUFS, abs=0.5)
    # Without normalize the same file keeps its own loudness (the test can fail both ways).
    _, plain = load_ok(engine, path, False)
    assert abs(plain.loudness_lufs - NORMALIZE_TARGET_LUFS) > 2


def test_normalize_never_pushes_peaks_past_the_ceiling(
    make_engine: MakeEngine, load_ok: LoadOk, tmp_path: Path
) -> None:
    """A sparse click train is quiet but peaky: the true-peak guard wins over the target."""
    clicks = np.zeros(48_000, dtype=np.float32)
    clicks[::4800] = 0.5
    path = tmp_path / "clicks.wav"
    soundfile.write(path, clicks, 48_000, subtype="FLOAT")
    engine = make_engine()
    sound, loaded = load_ok(engine, path, True)
    assert loaded.loudness_lufs < NORMALIZE_TARGET_LUFS - 1
    engine.play(sound, [("soundboard", 100)], False)
    mixed, _ = soundfile.read(engine.write_wavs(tmp_path / "o", end_s=1.0)["soundboard"])
    assert np.max(np.abs(mixed)) <= 10 ** (-1 / 20) + 1e-4


def test_short_sound_loudness_is_measured(
    make_engine: MakeEngine, write_tone: Callable[..., Path], load_ok: LoadOk
) -> None:
    """A 50 ms click is shorter than BS.1770's 400 ms block but still gets its real loudness."""
    _, short = load_ok(make_engine(), write_tone("s.wav", seconds=0.05, amplitude=0.25))
    _, long = load_ok(make_engine(), write_tone("l.wav", seconds=1.0, amplitude=0.25))
    assert short.duration_ms == 50
    assert short.loudness_lufs == pytest.approx(long.loudness_lufs, abs=0.5)


def test_silence_reports_the_absolute_gate(
    make_engine: MakeEngine, load_ok: LoadOk, tmp_path: Path
) -> None:
    path = tmp_path / "silence.wav"
    soundfile.write(path, np.zeros(24_000, dtype=np.float32), 48_000)
    _, loaded = load_ok(make_engine(), path, True)
    assert loaded.loudness_lufs == -70.0


def test_relative_path_is_refused(make_engine: MakeEngine, write_tone: Callable[..., Path]) -> None:
    """AUD-14: `path` is absolute; a relative one is refused at once with not_found."""
    path = write_tone("rel.wav")
    engine = make_engine()
    relative = os.path.relpath(path)
    assert engine.load(relative, False) == AudioError("not_found", "path must be absolute")


@pytest.mark.parametrize("kind", ["missing", "directory"])
def test_missing_file_is_not_found_at_once(
    make_engine: MakeEngine, tmp_path: Path, outcomes: Outcomes, kind: str
) -> None:
    """AUD-23, docs/protocol-notes.md#r14: not_found is an immediate err of load; no audio_loaded
    follows."""
    path = tmp_path / "nothing.wav" if kind == "missing" else tmp_path
    result = make_engine().load(str(path), False)
    assert isinstance(result, AudioError)
    assert result.code == "not_found"
    assert outcomes.calls == 0


def test_file_over_256_mib_is_too_long_at_once(
    make_engine: MakeEngine, tmp_path: Path, outcomes: Outcomes
) -> None:
    """AUD-15, docs/protocol-notes.md#r14: the 256 MiB limit is the file size, checked at load
    (sparse files)."""
    engine = make_engine()
    over = tmp_path / "over.wav"
    with over.open("wb") as f:
        f.truncate(MAX_FILE_BYTES + 1)
    result = engine.load(str(over), False)
    assert isinstance(result, AudioError)
    assert result.code == "too_long"
    at_limit = tmp_path / "at.wav"
    with at_limit.open("wb") as f:
        f.truncate(MAX_FILE_BYTES)
    started = engine.load(str(at_limit), False)
    assert isinstance(started, LoadStarted)
    # All zeros is no audio format: accepted by size, refused by the decoder.
    failed = outcomes.wait(started.sound)
    assert isinstance(failed, LoadFailed)
    assert failed.code == "undecodable"


@pytest.mark.parametrize(
    "content", [b"", b"this is not audio\n" * 100, b"RIFF\x10\x00\x00\x00WAVEjunk"]
)
def test_non_audio_fails_undecodable(
    make_engine: MakeEngine, tmp_path: Path, outcomes: Outcomes, content: bytes
) -> None:
    """AUD-23, docs/protocol-notes.md#r14: undecodable arrives in audio_loaded `failed`."""
    path = tmp_path / "notes.wav"
    path.write_bytes(content)
    started = make_engine().load(str(path), False)
    assert isinstance(started, LoadStarted)
    outcome = outcomes.wait(started.sound)
    assert isinstance(outcome, LoadFailed)
    assert outcome.code == "undecodable"


def test_decode_past_the_time_limit_fails_too_long(
    make_engine: MakeEngine, write_tone: Callable[..., Path], outcomes: Outcomes
) -> None:
    """AUD-16, docs/protocol-notes.md#r14: a decode over the limit (here 0 s) ends in `failed`
    too_long."""
    started = make_engine(decode_limit_s=0.0).load(str(write_tone("a.wav")), False)
    assert isinstance(started, LoadStarted)
    assert outcomes.wait(started.sound) == LoadFailed("too_long", "decoding took longer than 0 s")


def test_cache_budget_counts_decoded_bytes(
    make_engine: MakeEngine, write_tone: Callable[..., Path], outcomes: Outcomes, load_ok: LoadOk
) -> None:
    """AUD-23 cache_full: 1 s at 48 kHz stereo float is 384,000 bytes; the budget holds one."""
    engine = make_engine(cache_mib=0.5)
    path = write_tone("one-second.flac", seconds=1.0, rate=44_100)
    first, _ = load_ok(engine, path)
    assert engine.cached_bytes() == 384_000
    started = engine.load(str(path), False)
    assert isinstance(started, LoadStarted)
    full = outcomes.wait(started.sound)
    assert isinstance(full, LoadFailed)
    assert full.code == "cache_full"
    assert engine.unload(first) is None
    assert engine.cached_bytes() == 0
    load_ok(engine, path)


def test_unload_forgets_the_sound(
    make_engine: MakeEngine, write_tone: Callable[..., Path], load_ok: LoadOk
) -> None:
    """AUD-7: unload → ok; the id is then unknown everywhere; an unknown id is unknown_sound."""
    engine = make_engine()
    sound, _ = load_ok(engine, write_tone("a.wav"))
    assert engine.play(sound, [("soundboard", 50)], True) is not None
    assert engine.unload(sound) is None
    assert engine.status() == []
    for result in (
        engine.unload(sound),
        engine.stop(sound),
        engine.play(sound, [("soundboard", 50)], False),
    ):
        assert isinstance(result, AudioError)
        assert result.code == "unknown_sound"


def test_unload_while_decoding_cancels_and_still_reports(
    make_engine: MakeEngine, write_tone: Callable[..., Path], outcomes: Outcomes
) -> None:
    """A load is always followed by audio_loaded; unloaded mid-way it is failed unknown_sound.

    One worker, held inside the first sound's callback, keeps the second load queued while
    the test unloads it, so the order is certain.
    """
    engine = make_engine(decode_workers=1)
    release = outcomes.hold()
    path = str(write_tone("a.wav"))
    first = engine.load(path, False)
    second = engine.load(path, False)
    assert isinstance(first, LoadStarted)
    assert isinstance(second, LoadStarted)
    try:
        assert engine.unload(second.sound) is None
    finally:
        release.set()
    assert isinstance(outcomes.wait(first.sound), Loaded)
    cancelled = outcomes.wait(second.sound)
    assert isinstance(cancelled, LoadFailed)
    assert cancelled.code == "unknown_sound"
    assert engine.cached_bytes() == 48_000 * 8


def test_load_after_close_is_internal(
    make_engine: MakeEngine, write_tone: Callable[..., Path]
) -> None:
    engine = make_engine()
    engine.close()
    result = engine.load(str(write_tone("a.wav")), False)
    assert isinstance(result, AudioError)
    assert result.code == "internal"


def test_true_peak_sees_intersample_peaks() -> None:
    """A 12 kHz sine at 45° phase: every sample is at 0.707 of the peak between them."""
    t = np.arange(3 * 48_000) / 48_000
    wave = (0.8 * np.sin(2 * np.pi * 12_000 * t + np.pi / 4)).astype(np.float32)
    frames = np.stack([wave, wave], axis=1)
    assert float(np.max(np.abs(frames))) == pytest.approx(0.8 * np.sqrt(0.5), rel=1e-3)
    assert true_peak(frames) == pytest.approx(0.8, rel=0.06)
