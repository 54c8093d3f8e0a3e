"""Demo content, generated (no binary media in the repository): a dozen short sounds in two
folders, some with animated icons drawn here, and a third folder named as people name their
sounds (long names in a series, Japanese, emoji) with one file that is not audio, and an empty
folder."""

from __future__ import annotations

import math
import wave
from pathlib import Path

import numpy as np

RATE = 48000

# name, folder, generator, seconds
SOUNDS: list[tuple[str, str, str, float]] = [
    ("Airhorn", "Effects", "horn", 0.9),
    ("Ding", "Effects", "ding", 0.6),
    ("Drumroll", "Effects", "roll", 1.2),
    ("Laser", "Effects", "laser", 0.5),
    ("Sad Trombone", "Effects", "trombone", 1.4),
    ("Applause", "Effects", "noise", 1.5),
    ("Beep 1", "Tones", "beep:440", 0.4),
    ("Beep 2", "Tones", "beep:660", 0.4),
    ("Beep 10", "Tones", "beep:880", 0.4),
    ("Chord", "Tones", "chord", 0.8),
    ("Sweep Up", "Tones", "sweep:200:2000", 0.7),
    ("Sweep Down", "Tones", "sweep:2000:200", 0.7),
    # A library as people name it: long names in a series, Japanese, emoji (the screenshots);
    # its folder sorts after the others, so the scripted session's page-next reaches Tones.
    ("Hype Train Level 1", "Twitch Alerts", "chord", 5.0),
    ("Hype Train Level 5", "Twitch Alerts", "horn", 5.0),
    ("拍手", "Twitch Alerts", "noise", 5.0),
    ("ドラムロール（長め）", "Twitch Alerts", "roll", 5.0),
    ("🐸 Frog Croak", "Twitch Alerts", "trombone", 1.4),
    ("Boss Music Intro", "Twitch Alerts", "sweep:200:2000", 3.0),
    ("Boss Defeated Fanfare", "Twitch Alerts", "chord", 2.0),
    ("A Very Long Name For A Sound That Keeps On Going", "Twitch Alerts", "beep:523", 0.8),
]
ICONS = {"Airhorn": "spin", "Ding": "pulse", "Laser": "bar", "Chord": "pulse", "拍手": "spin"}
BROKEN = ("Twitch Alerts", "Broken Clip.wav")  # a RIFF header over noise: vrOS cannot decode it
EMPTY = "Stream Intros"  # a folder with nothing in it yet: the dash-tab says what goes there


def _signal(kind: str, seconds: float) -> np.ndarray:
    t = np.arange(int(RATE * seconds)) / RATE
    env = np.minimum(1.0, np.minimum(t / 0.01, (seconds - t) / 0.05).clip(0))
    name, *args = kind.split(":")
    rng = np.random.default_rng(7)
    if name == "horn":
        s = sum(np.sign(np.sin(2 * math.pi * f * t)) * 0.15 for f in (440, 554, 659))
    elif name == "ding":
        s = np.sin(2 * math.pi * 1320 * t) * np.exp(-t * 6)
    elif name == "roll":
        s = rng.normal(0, 0.3, t.size) * (0.5 + 0.5 * np.sin(2 * math.pi * 18 * t))
    elif name == "laser":
        s = np.sin(2 * math.pi * (1800 - 1500 * t / seconds) * t)
    elif name == "trombone":
        f = np.interp(t, [0, seconds], [300, 180])
        s = np.sign(np.sin(2 * math.pi * f * t)) * 0.3
    elif name == "noise":
        s = rng.normal(0, 0.25, t.size)
    elif name == "beep":
        s = np.sin(2 * math.pi * float(args[0]) * t) * 0.6
    elif name == "chord":
        s = sum(np.sin(2 * math.pi * f * t) * 0.25 for f in (261.6, 329.6, 392.0))
    else:  # sweep
        f0, f1 = float(args[0]), float(args[1])
        phase = 2 * math.pi * (f0 * t + (f1 - f0) * t * t / (2 * seconds))
        s = np.sin(phase) * 0.6
    return np.clip(np.asarray(s) * env, -1, 1)


def _wav(path: Path, signal: np.ndarray) -> None:
    data = (signal * 32767).astype("<i2")
    with wave.open(str(path), "wb") as w:
        w.setnchannels(1)
        w.setsampwidth(2)
        w.setframerate(RATE)
        w.writeframes(data.tobytes())


def _icon(path: Path, style: str) -> None:
    from PIL import Image, ImageDraw

    frames = []
    for i in range(8):
        img = Image.new("RGBA", (48, 48), (0, 0, 0, 0))
        d = ImageDraw.Draw(img)
        if style == "spin":
            a = i * 45
            d.pieslice((4, 4, 44, 44), a, a + 270, fill=(255, 190, 40, 255))
        elif style == "pulse":
            r = 8 + 2 * (i if i < 4 else 8 - i)
            d.ellipse((24 - r, 24 - r, 24 + r, 24 + r), fill=(80, 200, 255, 255))
        else:
            d.rectangle((4, 20, 4 + 5 * (i + 1), 28), fill=(255, 60, 90, 255))
        frames.append(img)
    frames[0].save(path, save_all=True, append_images=frames[1:], duration=90, loop=0, disposal=2)


def generate(root: Path) -> Path:
    """Write the demo library under ``root`` (a vrOS content folder); returns the sounds folder."""
    sounds = root / "Cueboard" / "Sounds"
    for name, folder, kind, seconds in SOUNDS:
        target = sounds / folder / f"{name}.wav"
        if target.exists():
            continue
        target.parent.mkdir(parents=True, exist_ok=True)
        _wav(target, _signal(kind, seconds))
        if name in ICONS:
            _icon(target.with_suffix(".gif"), ICONS[name])
    (sounds / EMPTY).mkdir(parents=True, exist_ok=True)
    broken = sounds.joinpath(*BROKEN)
    if not broken.exists():
        broken.write_bytes(b"RIFF\x00\x00\x00\x00WAVEjunk" + bytes(range(256)) * 4)
    return sounds
