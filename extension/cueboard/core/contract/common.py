"""What every panel's contract shares: page sizes, the state enums, the status line."""

from enum import IntEnum

from .wire import Arg, Cell, Prop, Wire

# The focus contract (PAN-23): on the root, consumed by the host, not part of our contract.
FIELD_FOCUS = "field-focus"
FIELD_BLUR = "field-blur"

SLOTS_PER_PAGE = 12  # the overlay grid is 4 x 3; play-slot-1 ... play-slot-12 follow it
DECK_SLOTS = 4  # deck-1 ... deck-4; vrOS runs at most 4 media sessions
# The dash-tab editor's waveform: tiles of the widest asset the rules allow, side by side.
WAVEFORM_TILES = 3
WAVEFORM_TILE_WIDTH = 128
WAVEFORM_HEIGHT = 64


class SlotState(IntEnum):
    EMPTY = 0
    READY = 1
    PLAYING = 2
    LOADING = 3
    BROKEN = 4
    DISABLED = 5  # no audio grant: nothing can play


class PlayMode(IntEnum):
    """A sound's play mode in the dash-tab (0: follow the global overlap setting)."""

    DEFAULT = 0
    MIX = 1
    TOGGLE = 2
    STOP_OTHERS = 3
    LOOP = 4


class TargetMark(IntEnum):
    """Where a sound plays, as its tile and its now-playing row mark it (0: both, unmarked)."""

    BOTH = 0
    ONLY_ME = 1
    ONLY_MIC = 2
    MIC_OFF = 3  # only the mic, which is switched off: it cannot play


class MediaMode(IntEnum):
    HIDDEN = 0  # host older than 1.4: no media namespace
    READY = 1
    UNSUPPORTED = 2  # vrOS on Linux answers `unsupported`


class Playback(IntEnum):
    OPENING = 0
    BUFFERING = 1
    PLAYING = 2
    PAUSED = 3
    ENDED = 4
    FAILED = 5
    NO_SESSION = 6  # a remembered slot with no session (its URL must be entered again)


class Video(IntEnum):
    DISABLED = 0
    WARMING = 1
    READY = 2
    RECOVERING = 3


class StatusLevel(IntEnum):
    INFO = 0
    WARN = 1
    ERROR = 2


def label(name: str, key: str, meaning: str) -> Prop:
    return Prop(name, Wire.STR, meaning, text_key=key)


def enum_doc(enum: type[IntEnum]) -> str:
    return ", ".join(f"{m.value} {m.name.lower().replace('_', ' ')}" for m in enum)


STATUS = (
    Prop("status-text", Wire.STR, "The status line (errors, missing grants); empty hides it."),
    Prop("status-level", Wire.I64, f"How the status line is coloured: {enum_doc(StatusLevel)}."),
)
KEY = Arg("key", Wire.STR, "A sound key as sent in a row's c0.")
FOLDER = Arg("key", Wire.STR, "A folder key as sent in a `folders` row's c0.")
MAX_FOLDERS = 64


def folders(meaning: str) -> tuple[Prop, ...]:
    return (
        Prop(
            "folders",
            Wire.ROWS,
            f"{meaning}: the favourites first (when there are any), then each folder of the "
            f"library; at most {MAX_FOLDERS}, those around the current one.",
            cells=(
                Cell("key", Wire.STR, "The folder's key, passed back by open-folder."),
                Cell("name", Wire.STR, "Localised for the favourites; the folder's name."),
            ),
            max_rows=MAX_FOLDERS,
        ),
        Prop("folder-key", Wire.STR, "The key of the folder shown; empty while searching."),
    )
