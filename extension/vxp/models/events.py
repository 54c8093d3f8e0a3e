"""Events the host sends as notifications, tagged by ``event`` (VXP EVT-1 … EVT-16).

Each event carries ``SINCE``, the minor version that introduced it: the host sends an event
only to clients whose hello announced at least that version (docs/protocol-notes.md#r16, H-18).
"""

from __future__ import annotations

from typing import Annotated, Any, ClassVar, Literal

from pydantic import Field, Tag

from ._base import Inbound, tag_of
from .audio import LoadOutcome
from .face import FaceState
from .media import MediaAction, MediaSession
from .panel import ArgValue

LIFECYCLE_STATES = ("detached", "attached", "quitting")  # EVT-3


class KnownEvent(Inbound):
    """An event of VXP 1.7; ``SINCE`` is the minor that introduced it."""

    SINCE: ClassVar[str] = "1.0"


class ShuttingDown(KnownEvent):
    """Flush and exit with status 0 (EVT-2)."""

    SINCE: ClassVar[str] = "1.0"
    event: Literal["shutting_down"]


class VrLifecycle(KnownEvent):
    """Only after subscribing to ``vr.lifecycle`` (BUS-9). ``state``: one of LIFECYCLE_STATES."""

    SINCE: ClassVar[str] = "1.0"
    event: Literal["vr_lifecycle"]
    state: str


class BusMessage(KnownEvent):
    SINCE: ClassVar[str] = "1.0"
    event: Literal["bus"]
    topic: str
    payload: Any = None


class PanelShown(KnownEvent):
    SINCE: ClassVar[str] = "1.0"
    event: Literal["panel_shown"]
    panel: str


class PanelHidden(KnownEvent):
    """Always paired with an earlier ``panel_shown`` (EVT-7)."""

    SINCE: ClassVar[str] = "1.0"
    event: Literal["panel_hidden"]
    panel: str


class PanelEvent(KnownEvent):
    """A panel callback was called; ``args`` are typed values as in ``props`` (EVT-8)."""

    SINCE: ClassVar[str] = "1.0"
    event: Literal["panel_event"]
    panel: str
    callback: str
    args: list[ArgValue] = Field(default_factory=list[ArgValue])


class CommandInvoked(KnownEvent):
    SINCE: ClassVar[str] = "1.0"
    event: Literal["command_invoked"]
    command: str


class SettingsChanged(KnownEvent):
    """The user edited a setting; ``value`` is already validated (EVT-10)."""

    SINCE: ClassVar[str] = "1.1"
    event: Literal["settings_changed"]
    key: str
    value: Any = None


class LocaleChanged(KnownEvent):
    """Fetch ``strings`` again and send your text again (EVT-12)."""

    SINCE: ClassVar[str] = "1.1"
    event: Literal["locale_changed"]
    locale: str


class AudioLoaded(KnownEvent):
    SINCE: ClassVar[str] = "1.2"
    event: Literal["audio_loaded"]
    sound: str
    outcome: LoadOutcome


class MediaSnapshot(KnownEvent):
    """Complete: a session missing from ``sessions`` is gone (MED-17)."""

    SINCE: ClassVar[str] = "1.4"
    event: Literal["media_snapshot"]
    granted: bool = False
    sessions: list[MediaSession] = Field(default_factory=list[MediaSession])


class MediaControl(KnownEvent):
    """Apply with your own ``set``/``close`` if ``source_generation`` is current (MED-23/24)."""

    SINCE: ClassVar[str] = "1.6"
    event: Literal["media_control"]
    key: str
    session: str
    source_generation: Annotated[int, Field(ge=0)]
    action: MediaAction


class FaceUpdate(KnownEvent):
    """A complete snapshot, not a diff (FACE-30)."""

    SINCE: ClassVar[str] = "1.5"
    event: Literal["face_update"]
    state: FaceState = Field(default_factory=FaceState)


class UnknownEvent(Inbound):
    """An event a newer host added; skip it (VER-3)."""

    event: str


KNOWN_EVENTS: tuple[type[KnownEvent], ...] = (
    ShuttingDown,
    VrLifecycle,
    BusMessage,
    PanelShown,
    PanelHidden,
    PanelEvent,
    CommandInvoked,
    SettingsChanged,
    LocaleChanged,
    AudioLoaded,
    MediaSnapshot,
    MediaControl,
    FaceUpdate,
)

Event = Annotated[
    Annotated[ShuttingDown, Tag("shutting_down")]
    | Annotated[VrLifecycle, Tag("vr_lifecycle")]
    | Annotated[BusMessage, Tag("bus")]
    | Annotated[PanelShown, Tag("panel_shown")]
    | Annotated[PanelHidden, Tag("panel_hidden")]
    | Annotated[PanelEvent, Tag("panel_event")]
    | Annotated[CommandInvoked, Tag("command_invoked")]
    | Annotated[SettingsChanged, Tag("settings_changed")]
    | Annotated[LocaleChanged, Tag("locale_changed")]
    | Annotated[AudioLoaded, Tag("audio_loaded")]
    | Annotated[MediaSnapshot, Tag("media_snapshot")]
    | Annotated[MediaControl, Tag("media_control")]
    | Annotated[FaceUpdate, Tag("face_update")]
    | Annotated[UnknownEvent, Tag("unknown")],
    tag_of("event", *KNOWN_EVENTS),
]


def _tag(model: type[KnownEvent]) -> str:
    tag: str = getattr(model.model_fields["event"].annotation, "__args__", ("",))[0]
    return tag


EVENT_SINCE: dict[str, str] = {_tag(m): m.SINCE for m in KNOWN_EVENTS}
"""Event name -> the minor version that introduced it (docs/protocol-notes.md#r16)."""
