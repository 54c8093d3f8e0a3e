"""Per-channel timelines at 48 kHz: what each channel would have sent to its device.

A play becomes one placement per accepted target: the sound's frames, a linear gain (gain_pct / 100,
docs/protocol-notes.md#r28), the frame where the play arrived, and where it ends (its own length, or
a stop/replace cut; open-ended while a looping play runs). Nothing is mixed until a render is asked
for, so plays cost a list append, and a render walks the placements block by block to keep memory
bounded however long the session ran.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Final

import numpy as np
import numpy.typing as npt
import soundfile

from vrosdev.audio.channels import CHANNELS
from vrosdev.audio.decode import SAMPLE_RATE
from vrosdev.audio.results import ChannelName

type Frames = npt.NDArray[np.float32]

_RENDER_BLOCK_FRAMES: Final = 10 * SAMPLE_RATE
# 32-bit float WAV: sums of several plays can exceed full scale, and a test can measure gains
# without quantization noise.
WAV_SUBTYPE: Final = "FLOAT"


@dataclass(slots=True)
class Placement:
    """One play on one channel. `end` is exclusive; None while a looping play runs."""

    frames: Frames
    gain: float
    start: int
    end: int | None
    looping: bool

    def cut(self, at: int) -> None:
        """End the placement at frame `at` (stop, replace, unload); never extends it."""
        self.end = max(self.start, at if self.end is None else min(self.end, at))


class Mixer:
    """The placements of every channel. Not thread-safe: the engine holds its lock around it."""

    def __init__(self) -> None:
        self._placements: dict[ChannelName, list[Placement]] = {c: [] for c in CHANNELS}

    def place(
        self, channel: ChannelName, frames: Frames, gain: float, start: int, looping: bool
    ) -> Placement:
        end = None if looping else start + frames.shape[0]
        placement = Placement(frames, gain, start, end, looping)
        self._placements[channel].append(placement)
        return placement

    def snapshot(self) -> dict[ChannelName, list[Placement]]:
        """Copies that later cuts do not change, so rendering can run outside the lock."""
        return {c: [replace(p) for p in ps] for c, ps in self._placements.items()}


def _render_block(placements: list[Placement], lo: int, hi: int) -> Frames:
    out = np.zeros((hi - lo, 2), dtype=np.float32)
    for p in placements:
        a = max(lo, p.start)
        b = min(hi, hi if p.end is None else p.end)
        if a >= b:
            continue
        length = p.frames.shape[0]
        if p.looping:
            chunk = p.frames[(np.arange(a, b) - p.start) % length]
        else:
            chunk = p.frames[a - p.start : b - p.start]
        out[a - lo : b - lo] += chunk * np.float32(p.gain)
    return out


def render_blocks(placements: list[Placement], end: int) -> Iterator[Frames]:
    """The channel's mix from frame 0 to `end`, in bounded blocks."""
    for lo in range(0, end, _RENDER_BLOCK_FRAMES):
        yield _render_block(placements, lo, min(end, lo + _RENDER_BLOCK_FRAMES))


def write_channel_wav(path: Path, placements: list[Placement], end: int) -> None:
    # RF64 past WAV's 4 GiB size field (~3 h of stereo float at 48 kHz).
    fmt = "RF64" if end * 8 >= 2**32 - 1024 else "WAV"
    with soundfile.SoundFile(
        path, "w", samplerate=SAMPLE_RATE, channels=2, subtype=WAV_SUBTYPE, format=fmt
    ) as out:
        for block in render_blocks(placements, end):
            out.write(block)
