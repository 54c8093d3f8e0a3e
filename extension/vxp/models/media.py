"""media: streams in vrOS's player (VXP MED-1 … MED-26). Requires ``media``. Since 1.4.

The URL is a credential (MED-12): it is ``repr=False``, the models that carry it hide their
input in validation errors, and no message names it. Snapshot and control shapes follow
docs/protocol-notes.md#shapes-the-page-does-not-give;
the ``status`` reply is a session row (our reading).
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import AfterValidator, ConfigDict, Field, Tag, field_validator, model_validator

from ..limits import (
    MEDIA_FPS_MAX,
    MEDIA_FPS_MIN,
    MEDIA_TITLE_MAX_BYTES,
    MEDIA_URL_MAX_BYTES,
    VOLUME_MAX,
    VOLUME_MIN,
)
from . import _checks
from ._base import Inbound, Outbound, Since, domain_error, tag_of

NAMESPACE = "media"
CAPABILITY: str | None = "media"
SINCE = "1.4"
PLAYBACK_KINDS = ("opening", "buffering", "playing", "paused", "ended", "failed")  # MED-19
VIDEO_STATES = ("disabled", "warming", "ready", "recovering")  # MED-20

_HIDDEN = ConfigDict(hide_input_in_errors=True)


def _check_url(url: str) -> str:
    if not url:
        raise domain_error("invalid_url", "media url is empty")
    return _checks.max_bytes(url, MEDIA_URL_MAX_BYTES, "media url", "invalid_url")


def _check_title(title: str | None) -> str | None:
    if title is not None:
        _checks.max_bytes(title, MEDIA_TITLE_MAX_BYTES, "media title", "invalid_value")
    return title


# --- requests -------------------------------------------------------------------------------


def _check_fps(fps: int | None) -> int | None:
    if fps is not None:
        _checks.in_range(fps, MEDIA_FPS_MIN, MEDIA_FPS_MAX, "max_fps", "invalid_value")
    return fps


def _check_volume(volume: int | None) -> int | None:
    if volume is not None:
        _checks.in_range(volume, VOLUME_MIN, VOLUME_MAX, "volume_pct", "invalid_value")
    return volume


# Options of open and set; None leaves the host's value (defaults: MED-8).
MaxFps = Annotated[int | None, AfterValidator(_check_fps)]
VolumePct = Annotated[int | None, AfterValidator(_check_volume)]
NativeControls = Annotated[bool | None, Since("1.6")]
ControlsOnPlayer = Annotated[bool | None, Since("1.7")]


class MediaOpen(Outbound):
    """One session per ``key`` (MED-10); a second open on a busy key gets ``busy``
    (docs/protocol-notes.md#r15)."""

    model_config = _HIDDEN

    op: Literal["open"] = "open"
    key: str
    url: str = Field(repr=False)
    title: str | None = None  # optional, empty by default (docs/protocol-notes.md#r15)
    max_fps: MaxFps = None
    volume_pct: VolumePct = None
    muted: bool | None = None
    paused: bool | None = None
    show_video: bool | None = None
    native_controls: NativeControls = None
    controls_on_player: ControlsOnPlayer = None

    @field_validator("key")
    @classmethod
    def _key(cls, key: str) -> str:
        return _checks.name(key, "media key", "invalid_key")

    _url = field_validator("url")(_check_url)
    _title = field_validator("title")(_check_title)


class MediaSet(Outbound):
    """Changes values, never the source (MED-15); ``native_controls`` is fixed at open
    (docs/protocol-notes.md#r23)."""

    op: Literal["set"] = "set"
    session: str
    max_fps: MaxFps = None
    volume_pct: VolumePct = None
    muted: bool | None = None
    paused: bool | None = None
    show_video: bool | None = None
    controls_on_player: ControlsOnPlayer = None

    @model_validator(mode="before")
    @classmethod
    def _no_native_controls(cls, data: Any) -> Any:
        if isinstance(data, dict) and "native_controls" in data:
            raise domain_error(
                "invalid_value", "native_controls is set at open; set cannot change it (MED-4)"
            )
        return data  # pyright: ignore[reportUnknownVariableType]


class MediaReload(Outbound):
    """The only way to change the source; the host raises ``source_generation`` (MED-16)."""

    model_config = _HIDDEN

    op: Literal["reload"] = "reload"
    session: str
    url: str = Field(repr=False)
    title: Annotated[str | None, Since("1.6")] = None

    _url = field_validator("url")(_check_url)
    _title = field_validator("title")(_check_title)


class MediaClose(Outbound):
    op: Literal["close"] = "close"
    session: str


class MediaStatus(Outbound):
    op: Literal["status"] = "status"
    session: str


MediaRequest = Annotated[
    Annotated[MediaOpen, Tag("open")]
    | Annotated[MediaSet, Tag("set")]
    | Annotated[MediaReload, Tag("reload")]
    | Annotated[MediaClose, Tag("close")]
    | Annotated[MediaStatus, Tag("status")],
    Field(discriminator="op"),
]

# --- session state, as in media_snapshot and the status reply -------------------------------


class PlaybackOpening(Inbound):
    kind: Literal["opening"]


class PlaybackBuffering(Inbound):
    kind: Literal["buffering"]


class PlaybackPlaying(Inbound):
    kind: Literal["playing"]


class PlaybackPaused(Inbound):
    kind: Literal["paused"]


class PlaybackEnded(Inbound):
    kind: Literal["ended"]


class PlaybackFailed(Inbound):
    kind: Literal["failed"]
    code: str
    message: str | None = None


class PlaybackUnknown(Inbound):
    kind: str


Playback = Annotated[
    Annotated[PlaybackOpening, Tag("opening")]
    | Annotated[PlaybackBuffering, Tag("buffering")]
    | Annotated[PlaybackPlaying, Tag("playing")]
    | Annotated[PlaybackPaused, Tag("paused")]
    | Annotated[PlaybackEnded, Tag("ended")]
    | Annotated[PlaybackFailed, Tag("failed")]
    | Annotated[PlaybackUnknown, Tag("unknown")],
    tag_of(
        "kind",
        PlaybackOpening,
        PlaybackBuffering,
        PlaybackPlaying,
        PlaybackPaused,
        PlaybackEnded,
        PlaybackFailed,
    ),
]


class _SessionState(Inbound):
    """A live session: ``playback`` and ``video`` separately (MED-19, MED-20)."""

    key: str
    session: str  # an opaque id such as m-00000001 (docs/protocol-notes.md#r22)
    source_generation: Annotated[int, Field(ge=0)]
    title: str = ""
    playback: Playback
    video: str  # one of VIDEO_STATES, or a newer one
    paused: bool = False
    volume_pct: int = 100
    muted: bool = False
    show_video: bool = True
    max_fps: int = 30
    native_controls: bool = False
    controls_on_player: bool = False


class MediaSession(_SessionState):
    """A row of ``media_snapshot`` ``sessions``."""


# --- responses ------------------------------------------------------------------------------


class MediaOpened(Inbound):
    result: Literal["opened"]
    session: str
    source_generation: Annotated[int, Field(ge=0)]


class MediaApplied(Inbound):
    result: Literal["applied"]
    source_generation: Annotated[int, Field(ge=0)]


class MediaClosed(Inbound):
    result: Literal["closed"]


class MediaStatusReply(_SessionState):
    """The answer to ``status``: the session's row, flattened beside ``result``."""

    result: Literal["status"]


class MediaErr(Inbound):
    result: Literal["err"]
    code: str
    message: str | None = None


class MediaUnknown(Inbound):
    result: str


MediaResponse = Annotated[
    Annotated[MediaOpened, Tag("opened")]
    | Annotated[MediaApplied, Tag("applied")]
    | Annotated[MediaClosed, Tag("closed")]
    | Annotated[MediaStatusReply, Tag("status")]
    | Annotated[MediaErr, Tag("err")]
    | Annotated[MediaUnknown, Tag("unknown")],
    tag_of("result", MediaOpened, MediaApplied, MediaClosed, MediaStatusReply, MediaErr),
]

# --- native control actions, carried by media_control (MED-22) -------------------------------


class SetPaused(Inbound):
    kind: Literal["set_paused"]
    paused: bool


class SetVolume(Inbound):
    kind: Literal["set_volume"]
    volume_pct: int


class StopPlayback(Inbound):
    """Apply with ``close`` (MED-23)."""

    kind: Literal["stop"]


class UnknownAction(Inbound):
    kind: str


MediaAction = Annotated[
    Annotated[SetPaused, Tag("set_paused")]
    | Annotated[SetVolume, Tag("set_volume")]
    | Annotated[StopPlayback, Tag("stop")]
    | Annotated[UnknownAction, Tag("unknown")],
    tag_of("kind", SetPaused, SetVolume, StopPlayback),
]

ERROR_CODES = frozenset(
    {
        "invalid_url",
        "invalid_key",
        "invalid_value",
        "unsupported",
        "too_many",
        "no_such_session",
        "busy",
        "endpoint_unavailable",
        "open_failed",
        "playback_failed",
        "dimension_limit",
    }
)
