"""vrosdev's audio: decode, cache and per-channel mix for the VXP audio namespace.

Protocol-free: the host's wire layer calls `AudioEngine`'s synchronous methods and turns their
results (dataclasses named like the wire) into responses and `audio_loaded` events.
"""

from vrosdev.audio.channels import CHANNELS
from vrosdev.audio.engine import AudioEngine, Played, SkippedTarget
from vrosdev.audio.limits import (
    MAX_FILE_BYTES,
    NORMALIZE_TARGET_LUFS,
    SAMPLE_RATE,
    TRUE_PEAK_CEILING_DBTP,
)
from vrosdev.audio.results import (
    AudioError,
    AudioErrorCode,
    ChannelInfo,
    ChannelName,
    Devices,
    Endpoint,
    Loaded,
    LoadFailed,
    LoadOutcome,
    LoadStarted,
    StatusRow,
    Target,
)

__all__ = [
    "CHANNELS",
    "MAX_FILE_BYTES",
    "NORMALIZE_TARGET_LUFS",
    "SAMPLE_RATE",
    "TRUE_PEAK_CEILING_DBTP",
    "AudioEngine",
    "AudioError",
    "AudioErrorCode",
    "ChannelInfo",
    "ChannelName",
    "Devices",
    "Endpoint",
    "LoadFailed",
    "LoadOutcome",
    "LoadStarted",
    "Loaded",
    "Played",
    "SkippedTarget",
    "StatusRow",
    "Target",
]
