"""File -> 48 kHz stereo float32 frames, in one worker thread, within limits.

libsndfile (through soundfile) is the decoder: one well-kept C library that reads wav, flac,
ogg/vorbis, ogg/opus and mp3 (libsndfile >= 1.1), with no ffmpeg process to manage. soxr
resamples as the blocks arrive, so a long file never sits in memory twice.

The decode runs block by block and calls the engine's checkpoint between blocks, which ends it
on its deadline (AUD-16), on the memory it may still use (cache_full) or when the engine gave up
on it (unload, close). A block is ~1.4 s of audio at 44.1 kHz and takes milliseconds to decode,
so the checkpoint is reached often.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Final

import numpy as np
import numpy.typing as npt
import soundfile
import soxr

from vrosdev.audio.results import AudioErrorCode

type Frames = npt.NDArray[np.float32]

SAMPLE_RATE: Final = 48_000
OUTPUT_CHANNELS: Final = 2
BYTES_PER_FRAME: Final = OUTPUT_CHANNELS * 4  # stereo float32
MAX_FILE_BYTES: Final = 256 * 1024 * 1024  # VXP AUD-15, docs/protocol-notes.md#r14: the file's size
DEFAULT_DECODE_LIMIT_S: Final = 30.0  # VXP AUD-16
_READ_BLOCK_FRAMES: Final = 65_536


class DecodeFailed(Exception):
    """A decode that ends in `audio_loaded` `failed` with this code."""

    def __init__(self, code: AudioErrorCode, message: str) -> None:
        super().__init__(message)
        self.code: AudioErrorCode = code
        self.message = message


class DecodeCancelled(Exception):
    """The engine no longer wants this decode (the sound was unloaded, or the engine closed)."""


def _to_stereo(block: npt.NDArray[np.float32]) -> npt.NDArray[np.float32]:
    """Mono is doubled; more than two channels keep the first two (front left/right)."""
    if block.shape[1] == 1:
        return np.repeat(block, 2, axis=1)
    return block[:, :2]


def decode_file(path: str, *, checkpoint: Callable[[int], None]) -> Frames:
    """Decode `path` to 48 kHz stereo float32 frames.

    `checkpoint(decoded_bytes)` is called before the first block and after each one; it raises
    DecodeFailed (deadline, memory budget) or DecodeCancelled to end the decode there.
    """
    try:
        source = soundfile.SoundFile(path)
    except (RuntimeError, OSError, ValueError, TypeError) as exc:
        raise DecodeFailed("undecodable", "not an audio file this host can decode") from exc
    with source:
        rate = source.samplerate
        declared = source.frames if 0 < source.frames < 2**62 else 0
        checkpoint(int(declared * SAMPLE_RATE / rate) * BYTES_PER_FRAME)
        stream = (
            None if rate == SAMPLE_RATE else soxr.ResampleStream(rate, SAMPLE_RATE, 2, "float32")
        )
        parts: list[Frames] = []
        out_frames = 0
        try:
            while True:
                block: Frames = source.read(  # pyright: ignore[reportAssignmentType]
                    _READ_BLOCK_FRAMES, dtype="float32", always_2d=True
                )
                last = block.shape[0] < _READ_BLOCK_FRAMES
                stereo = np.ascontiguousarray(_to_stereo(block))
                out = stereo if stream is None else stream.resample_chunk(stereo, last=last)
                if out.shape[0]:
                    parts.append(out.astype(np.float32, copy=False))
                    out_frames += out.shape[0]
                checkpoint(out_frames * BYTES_PER_FRAME)
                if last:
                    break
        except (RuntimeError, ValueError) as exc:
            raise DecodeFailed("undecodable", "the audio data is corrupt") from exc
    if out_frames == 0:
        raise DecodeFailed("undecodable", "the file holds no audio")
    return np.concatenate(parts) if len(parts) > 1 else parts[0]
