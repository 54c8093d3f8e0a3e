"""Loudness measurement and normalization (ITU-R BS.1770, measured by `vrosdev.audio.bs1770`).

Target: -16 LUFS integrated, with a true-peak ceiling of -1 dBTP. -16 LUFS is the level the
common streaming/podcast guidance uses for material heard on headphones and speakers, which is
where a soundboard plays; -23 LUFS (EBU R128 broadcast) would leave short effects too quiet next
to voice chat. The ceiling keeps the gain from pushing intersample peaks past full scale: a sound
whose peaks cannot take the gain ends up quieter than the target, never clipped.
"""

from __future__ import annotations

import math
from typing import Final

import numpy as np
import numpy.typing as npt
import soxr

from vrosdev.audio import bs1770
from vrosdev.audio.limits import NORMALIZE_TARGET_LUFS, SAMPLE_RATE, TRUE_PEAK_CEILING_DBTP

type Frames = npt.NDArray[np.float32]

__all__ = ["NORMALIZE_TARGET_LUFS", "TRUE_PEAK_CEILING_DBTP", "measure_lufs", "normalize"]

# BS.1770-4 Annex 2 estimates true peak by 4x oversampling.
TRUE_PEAK_OVERSAMPLING: Final = 4
# BS.1770's absolute gate: nothing quieter is measured, so silence reports this floor
# (a JSON number, where -inf would not be one).
SILENCE_FLOOR_LUFS: Final = -70.0
_GATING_BLOCK_S: Final = 0.4


def measure_lufs(frames: Frames) -> float:
    """Integrated loudness of 48 kHz stereo frames, floored at -70 LUFS.

    A sound shorter than one 400 ms gating block is measured looped up to the block length:
    its mean-square level is then what BS.1770 would report for it, where zero padding would
    understate a short click by up to tens of dB.
    """
    block = math.ceil(_GATING_BLOCK_S * SAMPLE_RATE) + 1
    data = frames.astype(np.float64)
    if data.shape[0] < block:
        data = np.tile(data, (math.ceil(block / data.shape[0]), 1))
    loudness = bs1770.integrated_loudness(data)
    if not math.isfinite(loudness) or loudness < SILENCE_FLOOR_LUFS:
        return SILENCE_FLOOR_LUFS
    return loudness


def true_peak(frames: Frames) -> float:
    """Linear true-peak estimate (4x oversampled maximum magnitude).

    Oversampled in one-second chunks through a streaming resampler: a long sound at 4x would
    otherwise need four times its own size in memory at once.
    """
    if frames.shape[0] == 0:
        return 0.0
    stream = soxr.ResampleStream(
        SAMPLE_RATE, SAMPLE_RATE * TRUE_PEAK_OVERSAMPLING, frames.shape[1], "float32"
    )
    peak = float(np.max(np.abs(frames)))
    total = frames.shape[0]
    for lo in range(0, total, SAMPLE_RATE):
        chunk = np.ascontiguousarray(frames[lo : lo + SAMPLE_RATE])
        upsampled = stream.resample_chunk(chunk, last=lo + SAMPLE_RATE >= total)
        if upsampled.size:
            peak = max(peak, float(np.max(np.abs(upsampled))))
    return peak


def normalize(frames: Frames, measured_lufs: float) -> tuple[Frames, float]:
    """Frames scaled towards the target, and their loudness afterwards.

    Silence is returned unchanged: no gain can bring it to a loudness.
    """
    if measured_lufs <= SILENCE_FLOOR_LUFS:
        return frames, measured_lufs
    gain = 10.0 ** ((NORMALIZE_TARGET_LUFS - measured_lufs) / 20.0)
    ceiling = 10.0 ** (TRUE_PEAK_CEILING_DBTP / 20.0)
    peak = true_peak(frames)
    if peak * gain > ceiling:
        gain = ceiling / peak
    scaled = (frames * np.float32(gain)).astype(np.float32)
    # Integrated loudness is scale-invariant up to the -70 LUFS gate, so the result is exact.
    return scaled, measured_lufs + 20.0 * math.log10(gain)
