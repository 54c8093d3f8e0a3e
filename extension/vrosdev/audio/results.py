"""Typed values the audio engine hands to the protocol layer.

Field names are the wire names of the VXP 1.7 audio namespace (spec "audio" and
docs/protocol-notes.md#shapes-the-page-does-not-give), so `dataclasses.asdict` of any of these is
the JSON object the host sends.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

type AudioErrorCode = Literal[
    "not_found",
    "undecodable",
    "too_long",
    "cache_full",
    "unknown_sound",
    "unknown_channel",
    "sample_not_cached",
    "no_valid_targets",
    "no_endpoint",
    "internal",
]
"""Exactly the codes the spec lists for audio (AUD-23); the engine never invents another."""

type ChannelName = Literal["soundboard", "mic", "ui"]


@dataclass(frozen=True, slots=True)
class AudioError:
    """A domain `err` of the audio namespace: the request reached the engine and was refused."""

    code: AudioErrorCode
    message: str


@dataclass(frozen=True, slots=True)
class LoadStarted:
    """The immediate answer to `load` (`loading`): the decode goes on in the background."""

    sound: str


@dataclass(frozen=True, slots=True)
class Loaded:
    """`audio_loaded` outcome `loaded`: the sound is cached and may be played."""

    duration_ms: int
    loudness_lufs: float
    kind: Literal["loaded"] = "loaded"


@dataclass(frozen=True, slots=True)
class LoadFailed:
    """`audio_loaded` outcome `failed`: the sound stays known but can never be played."""

    code: AudioErrorCode
    message: str
    kind: Literal["failed"] = "failed"


type LoadOutcome = Loaded | LoadFailed


@dataclass(frozen=True, slots=True)
class Target:
    """One `{channel, gain_pct}` of a play; gain is linear amplitude gain_pct / 100
    (docs/protocol-notes.md#r28)."""

    channel: str
    gain_pct: int


@dataclass(frozen=True, slots=True)
class StatusRow:
    """One row of `status.playing`: only the targets the play really accepted (AUD-21)."""

    sound: str
    targets: tuple[Target, ...]
    looping: bool


@dataclass(frozen=True, slots=True)
class ChannelInfo:
    """One row of `channels`; `endpoint` is None when the channel has no device."""

    channel: ChannelName
    available: bool
    armed: bool
    endpoint: str | None


@dataclass(frozen=True, slots=True)
class Endpoint:
    id: str
    name: str


@dataclass(frozen=True, slots=True)
class Devices:
    """The `devices` result; `default_endpoint` is None when the default output is absent."""

    endpoints: tuple[Endpoint, ...]
    default_endpoint: str | None
