"""audio: decode once, play on named channels (VXP AUD-1 … AUD-23). Requires ``audio``.

Shapes the page leaves out (status rows, channels, devices, the ``audio_loaded`` outcome) follow
docs/protocol-notes.md#shapes-the-page-does-not-give.
"""

from __future__ import annotations

from pathlib import PurePosixPath, PureWindowsPath
from typing import Annotated, Literal

from pydantic import Field, Tag, field_validator

from ..limits import GAIN_MAX, GAIN_MIN
from ._base import Inbound, Outbound, domain_error, tag_of

NAMESPACE = "audio"
CAPABILITY: str | None = "audio"
SINCE = "1.2"
CHANNELS = ("soundboard", "mic", "ui")  # AUD-3 … AUD-5; a newer host may add more

# --- requests -------------------------------------------------------------------------------


class PlayTarget(Outbound):
    channel: str
    gain_pct: int  # linear amplitude, sample * gain_pct / 100 (docs/protocol-notes.md#r28)

    @field_validator("gain_pct")
    @classmethod
    def _gain(cls, gain: int) -> int:
        if not GAIN_MIN <= gain <= GAIN_MAX:
            raise ValueError(f"gain_pct is {gain}; it must be {GAIN_MIN}-{GAIN_MAX} (AUD-19)")
        return gain


class AudioLoad(Outbound):
    """Answered at once with ``loading``; the decode ends in an ``audio_loaded`` event."""

    op: Literal["load"] = "load"
    path: str  # absolute, on the host's file system (AUD-14)
    normalize: bool = False

    @field_validator("path")
    @classmethod
    def _absolute(cls, path: str) -> str:
        if not (PurePosixPath(path).is_absolute() or PureWindowsPath(path).is_absolute()):
            raise domain_error("not_found", f"audio path {path!r} must be absolute (AUD-14)")
        return path


class AudioUnload(Outbound):
    op: Literal["unload"] = "unload"
    sound: str


class AudioPreArm(Outbound):
    op: Literal["pre_arm"] = "pre_arm"
    channel: str


class AudioPlay(Outbound):
    """Targets that cannot play are skipped; it fails only when none can (AUD-20)."""

    op: Literal["play"] = "play"
    sound: str
    targets: list[PlayTarget]
    looping: bool = False

    @field_validator("targets")
    @classmethod
    def _some_target(cls, targets: list[PlayTarget]) -> list[PlayTarget]:
        if not targets:
            raise domain_error("no_valid_targets", "play needs at least one target (AUD-20)")
        return targets


class AudioStop(Outbound):
    op: Literal["stop"] = "stop"
    sound: str


class AudioStopAll(Outbound):
    op: Literal["stop_all"] = "stop_all"


class AudioGetStatus(Outbound):
    op: Literal["get_status"] = "get_status"


class AudioListChannels(Outbound):
    op: Literal["list_channels"] = "list_channels"


class AudioListDevices(Outbound):
    op: Literal["list_devices"] = "list_devices"


AudioRequest = Annotated[
    Annotated[AudioLoad, Tag("load")]
    | Annotated[AudioUnload, Tag("unload")]
    | Annotated[AudioPreArm, Tag("pre_arm")]
    | Annotated[AudioPlay, Tag("play")]
    | Annotated[AudioStop, Tag("stop")]
    | Annotated[AudioStopAll, Tag("stop_all")]
    | Annotated[AudioGetStatus, Tag("get_status")]
    | Annotated[AudioListChannels, Tag("list_channels")]
    | Annotated[AudioListDevices, Tag("list_devices")],
    Field(discriminator="op"),
]

# --- responses ------------------------------------------------------------------------------


class AcceptedTarget(Inbound):
    channel: str
    gain_pct: int


class PlayingRow(Inbound):
    """One playing sound with the targets actually accepted (AUD-21)."""

    sound: str
    targets: list[AcceptedTarget] = Field(default_factory=list[AcceptedTarget])
    looping: bool = False


class ChannelInfo(Inbound):
    channel: str
    available: bool = False
    armed: bool = False
    endpoint: str | None = None


class AudioEndpoint(Inbound):
    id: str
    name: str = ""


class AudioLoading(Inbound):
    """``sound`` is an opaque id such as ``s-00000001`` (docs/protocol-notes.md#r22)."""

    result: Literal["loading"]
    sound: str


class AudioOk(Inbound):
    result: Literal["ok"]


class AudioStatus(Inbound):
    result: Literal["status"]
    playing: list[PlayingRow] = Field(default_factory=list[PlayingRow])


class AudioChannels(Inbound):
    result: Literal["channels"]
    channels: list[ChannelInfo] = Field(default_factory=list[ChannelInfo])


class AudioDevices(Inbound):
    result: Literal["devices"]
    endpoints: list[AudioEndpoint] = Field(default_factory=list[AudioEndpoint])
    default_endpoint: str | None = None


class AudioErr(Inbound):
    result: Literal["err"]
    code: str
    message: str | None = None


class AudioUnknown(Inbound):
    result: str


AudioResponse = Annotated[
    Annotated[AudioLoading, Tag("loading")]
    | Annotated[AudioOk, Tag("ok")]
    | Annotated[AudioStatus, Tag("status")]
    | Annotated[AudioChannels, Tag("channels")]
    | Annotated[AudioDevices, Tag("devices")]
    | Annotated[AudioErr, Tag("err")]
    | Annotated[AudioUnknown, Tag("unknown")],
    tag_of("result", AudioLoading, AudioOk, AudioStatus, AudioChannels, AudioDevices, AudioErr),
]

# --- the outcome of a load, carried by the audio_loaded event -------------------------------


class Loaded(Inbound):
    kind: Literal["loaded"]
    duration_ms: Annotated[int, Field(ge=0)]
    loudness_lufs: float | None = None


class LoadFailed(Inbound):
    """``code`` is one of ERROR_CODES (``undecodable``, ``too_long``, …) or a newer one."""

    kind: Literal["failed"]
    code: str
    message: str | None = None


class UnknownOutcome(Inbound):
    kind: str


LoadOutcome = Annotated[
    Annotated[Loaded, Tag("loaded")]
    | Annotated[LoadFailed, Tag("failed")]
    | Annotated[UnknownOutcome, Tag("unknown")],
    tag_of("kind", Loaded, LoadFailed),
]

ERROR_CODES = frozenset(
    {
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
    }
)
