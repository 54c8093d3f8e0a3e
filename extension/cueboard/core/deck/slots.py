"""A deck slot and its options: what the deck knows of one media key.

A slot is *free*, *live* (a session id and the source_generation last learned) or *remembered*
(title and options, perhaps its URL, but no session: restored from kv, or its session
vanished). A slot whose ``open`` got no readable answer is *unsettled* until the next
``media_snapshot`` says whether the host opened it: nothing else is opened into it meanwhile,
so a slot never has two opens in flight. A snapshot without it does not end the story: the
host may still apply that open later, so the slot keeps it as ``late`` and adopts a session
that appears on its key while it still wants one.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from cueboard.core.contract import Playback, Video
from cueboard.core.media_urls import CheckedUrl, DeckInputError
from vxp.secret import Secret

if TYPE_CHECKING:
    from vxp.models.media import MediaSession, MediaStatusReply

FPS_RANGE = (1, 120)  # MED-13
VOLUME_RANGE = (0, 100)


@dataclass(frozen=True, slots=True)
class SessionOptions:
    """One session's changeable options (MED-8 defaults); native_controls is fixed at open."""

    paused: bool = False
    volume_pct: int = 100
    muted: bool = False
    show_video: bool = True
    max_fps: int = 30
    controls_on_player: bool = False


@dataclass(frozen=True, slots=True)
class DeckOptions:
    """The dash tab's options: what a new session opens with, and applied to live ones."""

    show_video: bool = True
    max_fps: int = 30
    native_controls: bool = True  # Cueboard's point: the player's own controls act on the deck
    controls_on_player: bool = False


_BOOL_OPTIONS = ("paused", "muted", "show_video", "controls_on_player", "native_controls")
_RANGES = {"volume_pct": VOLUME_RANGE, "max_fps": FPS_RANGE}


def check_options(changes: Mapping[str, object]) -> None:
    """Raise :class:`DeckInputError` for a value the host would refuse (``invalid_value``)."""
    for name, value in changes.items():
        if name in _RANGES:
            low, high = _RANGES[name]
            if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
                raise DeckInputError("media.error.invalid_option", option=name, min=low, max=high)
        elif name in _BOOL_OPTIONS:
            if not isinstance(value, bool):
                raise DeckInputError("media.error.invalid_option", option=name, min=0, max=1)
        else:
            raise ValueError(f"{name} is not a media option")


@dataclass(frozen=True, slots=True)
class Observed:
    """A snapshot row (or status reply) reduced to what the view needs."""

    generation: int
    playback: Playback
    code: str
    video: Video
    paused: bool
    volume_pct: int
    muted: bool


_PLAYBACK_BY_KIND = {
    "opening": Playback.OPENING,
    "buffering": Playback.BUFFERING,
    "playing": Playback.PLAYING,
    "paused": Playback.PAUSED,
    "ended": Playback.ENDED,
    "failed": Playback.FAILED,
}
_VIDEO_BY_NAME = {
    "disabled": Video.DISABLED,
    "warming": Video.WARMING,
    "ready": Video.READY,
    "recovering": Video.RECOVERING,
}


def observe(row: MediaSession | MediaStatusReply) -> Observed:
    kind = row.playback.kind
    playback = _PLAYBACK_BY_KIND.get(kind, Playback.OPENING)  # a newer kind: still starting
    code = str(getattr(row.playback, "code", "")) if playback is Playback.FAILED else ""
    return Observed(
        generation=row.source_generation,
        playback=playback,
        code=code,
        video=_VIDEO_BY_NAME.get(row.video, Video.WARMING),
        paused=row.paused,
        volume_pct=row.volume_pct,
        muted=row.muted,
    )


@dataclass(frozen=True, slots=True)
class PendingOpen:
    """An ``open`` whose outcome is unknown (no answer, an unreadable one, or -32603): what
    the slot becomes if the next snapshot lists a session for its key."""

    checked: CheckedUrl
    title: str
    options: SessionOptions
    native: bool
    from_fields: bool
    code: str  # shown if the snapshot says the open did not happen
    may_land: bool  # the host may still apply it (its connection is not gone)

    def __repr__(self) -> str:
        return f"PendingOpen({self.code})"


@dataclass
class Slot:
    key: str
    in_use: bool = False
    title: str = ""
    url: Secret | None = None  # held for reopening; never stored outside `secrets`
    url_reason: str | None = None  # catalog key: why the URL is not kept across runs
    options: SessionOptions = field(default_factory=SessionOptions)
    native_controls: bool = False  # as opened
    session: str | None = None
    generation: int = 0
    confirmed: bool = False  # a snapshot has listed the session
    observed: Observed | None = None
    ended: bool = False  # the session vanished from a snapshot
    error_code: str = ""  # the last open failure of a remembered slot
    unsettled: PendingOpen | None = None
    late: PendingOpen | None = None  # an open a snapshot did not show: the host may yet apply it
    opening: bool = False  # an open is in flight: a snapshot may list its session before its reply
    generation_unsure: bool = False  # a reload's outcome is unknown until the next snapshot

    def drop_session(self) -> None:
        self.session, self.generation, self.confirmed, self.observed = None, 0, False, None
        self.generation_unsure = False

    def become_live(
        self,
        checked: CheckedUrl,
        title: str,
        options: SessionOptions,
        native: bool,
        session: str,
        generation: int,
    ) -> None:
        self.in_use, self.title, self.url = True, title, checked.url
        self.options, self.native_controls = options, native
        self.session, self.generation = session, generation
        self.confirmed, self.ended, self.error_code = False, False, ""
        self.observed, self.unsettled, self.generation_unsure = None, None, False
        self.late = None


__all__ = [
    "FPS_RANGE",
    "VOLUME_RANGE",
    "DeckOptions",
    "Observed",
    "PendingOpen",
    "SessionOptions",
    "Slot",
    "check_options",
    "observe",
]
