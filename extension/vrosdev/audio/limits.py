"""The audio namespace's rates, sizes and targets, and the decode's outcomes, without numpy.

The host imports the engine on the first audio request; what that request waits for must not
include numpy, libsndfile or soxr (the decoder, mixer and meter load them, in the background
from launch). This module is what the engine needs of them up front.
"""

from __future__ import annotations

from typing import Final

from vrosdev.audio.results import AudioErrorCode

SAMPLE_RATE: Final = 48_000
OUTPUT_CHANNELS: Final = 2
BYTES_PER_FRAME: Final = OUTPUT_CHANNELS * 4  # stereo float32
MAX_FILE_BYTES: Final = 256 * 1024 * 1024  # AUD-15: the file's size (docs/protocol-notes.md#r14)
DEFAULT_DECODE_LIMIT_S: Final = 30.0  # VXP AUD-16

NORMALIZE_TARGET_LUFS: Final = -16.0
TRUE_PEAK_CEILING_DBTP: Final = -1.0


class DecodeFailed(Exception):
    """A decode that ends in `audio_loaded` `failed` with this code."""

    def __init__(self, code: AudioErrorCode, message: str) -> None:
        super().__init__(message)
        self.code: AudioErrorCode = code
        self.message = message


class DecodeCancelled(Exception):
    """The engine no longer wants this decode (the sound was unloaded, or the engine closed)."""
