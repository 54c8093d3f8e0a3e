"""Per-sound play modes end to end: modes set over the bus (``cmd.set``), presses from bound
commands, and what vrosdev's real mixer wrote to the soundboard channel.

Nothing here is judged by how long anything took: the sounds are seeded noise that is never
near zero, so every frame of the mixed WAV tells which sound it is and how far into it, and the
channel reads back as a list of stretches, each one sound from its first frame on until silence
or another start (``_stretches``). A mode is then asserted on that list and on the order of the
frames Cueboard sent. The sleeps between presses only make a stretch long enough to recognise;
a busy machine makes them longer, which changes no assertion.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from .harness import Run, run_cueboard

pytestmark = pytest.mark.slow

RATE = 48000
SET = "bus-publish ext.com.cueboard.soundboard.cmd.set"
HEAD = 480  # frames a stretch's start is recognised on
EXACT = 1e-5  # float WAV of int16 samples times gains: equal up to float32 rounding
SILENT = 1e-6
BEEP, LONG = "01 Beep.wav", "02 Long.wav"


def _noise(path: Path, seconds: float, seed: int) -> np.ndarray:
    """Seeded noise with every sample 0.2 to 0.5 from zero, written as 16-bit PCM; returns the
    samples as the decoder reads them back."""
    import soundfile

    rng = np.random.default_rng(seed)
    count = int(RATE * seconds)
    values = rng.uniform(0.2, 0.5, count) * rng.choice([-1.0, 1.0], count)
    pcm = np.round(values * 32767).astype("<i2")
    path.parent.mkdir(parents=True, exist_ok=True)
    soundfile.write(str(path), pcm, RATE, subtype="PCM_16")
    return pcm.astype(np.float64) / 32768


def _stretches(wav: Path, sounds: dict[str, np.ndarray]) -> tuple[list[tuple[str, int, int]], int]:
    """The channel as (sound, first frame, frames) stretches, and its length in frames.

    A stretch starts with a sound's own first frames at one gain, and runs while each frame is
    that sound's next one (past its end, from its start again: a loop), so a cut, a restart or
    a second sound summed on top ends it. Sound that is no sound's start fails the test."""
    import soundfile

    data, rate = soundfile.read(str(wav), dtype="float64", always_2d=True)
    assert rate == RATE
    mix = data.mean(axis=1)
    found: list[tuple[str, int, int]] = []
    at = 0
    while True:
        loud = np.flatnonzero(np.abs(mix[at:]) > SILENT)
        if not loud.size:
            return found, len(mix)
        at += int(loud[0])
        name, frames = _stretch_at(mix, at, sounds)
        found.append((name, at, frames))
        at += frames


def _stretch_at(mix: np.ndarray, at: int, sounds: dict[str, np.ndarray]) -> tuple[str, int]:
    for name, sound in sounds.items():
        head = mix[at : at + HEAD]
        ref = sound[: len(head)]
        gain = float(np.dot(head, ref) / np.dot(ref, ref))
        if gain <= 0 or np.max(np.abs(head - gain * ref)) > EXACT:
            continue
        span = mix[at:]
        expected = gain * sound[np.arange(len(span)) % len(sound)]
        off = np.flatnonzero(np.abs(span - expected) > EXACT)
        return name, int(off[0]) if off.size else len(span)
    raise AssertionError(f"frame {at}: sound that is no sound's start (summed or resumed)")


def _audio_ops(run: Run) -> list[tuple[str, str, Any]]:
    """(op, sound id, looping) of every audio.play and audio.stop, in the order sent."""
    return [
        (f["params"]["op"], f["params"]["sound"], f["params"].get("looping"))
        for f in run.sent("audio")
        if f["params"]["op"] in ("play", "stop")
    ]


def _ids(run: Run) -> dict[str, str]:
    """Sound id by file name, from the loads Cueboard asked for."""
    loads = {f["id"]: Path(f["params"]["path"]).name for f in run.sent("audio", "load")}
    answers = [
        x["frame"]
        for x in run.transcript
        if x.get("dir") == "host>ext" and isinstance(x.get("frame"), dict)
    ]
    return {
        loads[a["id"]]: a["result"]["sound"]
        for a in answers
        if a.get("id") in loads and isinstance(a.get("result"), dict) and "sound" in a["result"]
    }


def _run(tmp: Path, mode: str, presses: str, seconds: dict[str, float]) -> tuple[Run, dict]:
    """A launch with the two sounds, ``BEEP`` set to ``mode``, then ``presses``; returns the run
    and the sounds' samples by file name."""
    content = tmp / "content"
    folder = content / "Cueboard" / "Sounds"
    sounds = {
        name: _noise(folder / name, s, seed) for seed, (name, s) in enumerate(seconds.items())
    }
    script = (
        "wait-for audio.load 60\nsettle\n"
        f'{SET} {{"path": "{BEEP}", "mode": "{mode}"}}\n{presses}\nsettle\n'
    )
    run = run_cueboard(tmp, script, content=content)
    assert run.code == 0
    topics = [f["params"]["topic"] for f in run.sent("bus", "publish")]
    assert "ext.com.cueboard.soundboard.error" not in topics
    # The mode was taken before the first press was: its echo comes before any play.
    sent = [
        x["frame"]["params"]
        for x in run.transcript
        if x.get("dir") == "ext>host" and isinstance(x.get("frame"), dict)
    ]
    echo = next(
        i
        for i, p in enumerate(sent)
        if p.get("topic") == "ext.com.cueboard.soundboard.sound"
        and p.get("payload", {}).get("mode") == mode
    )
    first_play = next(i for i, p in enumerate(sent) if p.get("op") == "play")
    assert echo < first_play, json.dumps(sent[echo])
    return run, sounds


def test_mix_a_second_press_starts_the_sound_over(tmp_path: Path) -> None:
    """The first play is cut where the second starts, from the sound's first frame: one copy at
    a time, never two summed (replaced, AUD-22)."""
    run, sounds = _run(
        tmp_path, "mix", "invoke play-slot-1\nsleep 0.3\ninvoke play-slot-1", {BEEP: 10, LONG: 1}
    )
    beep = _ids(run)[BEEP]
    assert _audio_ops(run) == [("play", beep, False), ("play", beep, False)]
    found, end = _stretches(run.wav("soundboard"), sounds)
    assert [name for name, _, _ in found] == [BEEP, BEEP]
    (_, first, cut), (_, second, frames) = found
    assert first + cut == second  # replaced at once: no gap, no overlap
    assert cut < len(sounds[BEEP])
    assert second + frames == min(second + len(sounds[BEEP]), end)


def test_toggle_a_second_press_stops_it(tmp_path: Path) -> None:
    run, sounds = _run(
        tmp_path, "toggle", "invoke play-slot-1\nsleep 0.3\ninvoke play-slot-1", {BEEP: 10, LONG: 1}
    )
    beep = _ids(run)[BEEP]
    assert _audio_ops(run) == [("play", beep, False), ("stop", beep, None)]
    found, end = _stretches(run.wav("soundboard"), sounds)
    assert [name for name, _, _ in found] == [BEEP]
    (_, start, frames) = found[0]
    assert frames < len(sounds[BEEP]) and start + frames < end  # cut, then silence


def test_stop_others_silences_what_was_playing(tmp_path: Path) -> None:
    """The long sound is stopped before the beep is played, and the channel holds the long
    sound cut short, then the beep from its start, never both at once."""
    run, sounds = _run(
        tmp_path,
        "stop_others",
        "invoke play-slot-2\nsleep 0.3\ninvoke play-slot-1",
        {BEEP: 0.6, LONG: 10},
    )
    ids = _ids(run)
    assert _audio_ops(run) == [
        ("play", ids[LONG], False),
        ("stop", ids[LONG], None),
        ("play", ids[BEEP], False),
    ]
    found, end = _stretches(run.wav("soundboard"), sounds)
    assert [name for name, _, _ in found] == [LONG, BEEP]
    (_, long_at, long_frames), (_, beep_at, beep_frames) = found
    assert long_frames < len(sounds[LONG])
    assert long_at + long_frames <= beep_at
    assert beep_at + beep_frames == min(beep_at + len(sounds[BEEP]), end)


def test_loop_repeats_until_pressed_again(tmp_path: Path) -> None:
    """A 0.3 s sound pressed again a second later has been heard from its start again, frame
    for frame, at least twice, and stops at the second press."""
    run, sounds = _run(
        tmp_path, "loop", "invoke play-slot-1\nsleep 1\ninvoke play-slot-1", {BEEP: 0.3, LONG: 1}
    )
    beep = _ids(run)[BEEP]
    assert _audio_ops(run) == [("play", beep, True), ("stop", beep, None)]
    found, end = _stretches(run.wav("soundboard"), sounds)
    assert [name for name, _, _ in found] == [BEEP]
    (_, start, frames) = found[0]
    assert frames >= 3 * len(sounds[BEEP])  # sleep 1 is at least 1 s between the presses
    assert start + frames < end
