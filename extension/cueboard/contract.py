"""The panels' props and callbacks, declared once.

Everything that crosses between Cueboard and its panels is listed here: the overlay model
validates what it sends against it, panel_event dispatch validates what it receives, a test
checks the .slint roots against it both ways, and tools/gen_panel_contract.py renders
panels/README.md from it. Names are the Slint names as declared (kebab-case, readings R29), chosen
to avoid the properties every Slint element already has.

Wire values are plain dicts tagged like VXP props (PAN-8..11): {"t": "i64", "v": 21}. A `rows`
prop is a Slint array of anonymous structs whose fields c0..cN carry the cells in order (the shape
vrosdev documents); `Prop.cells` names them for people, the wire only knows their order.
"""

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from enum import IntEnum, StrEnum
from typing import Any

type WireValue = dict[str, Any]


class Wire(StrEnum):
    BOOL = "bool"
    I64 = "i64"
    F64 = "f64"
    STR = "str"
    STR_LIST = "str_list"
    ROWS = "rows"
    ASSETS = "assets"


SCALARS = frozenset({Wire.BOOL, Wire.I64, Wire.F64, Wire.STR})
_SLINT_SCALAR = {Wire.BOOL: "bool", Wire.I64: "int", Wire.F64: "float", Wire.STR: "string"}
# PAN-9: Slint ints are exact only up to 2^53.
MAX_EXACT_INT = 2**53


class WireError(ValueError):
    """A value that does not fit the declared wire type (a programming error on our side, or a
    malformed panel_event from the host)."""


@dataclass(frozen=True)
class Cell:
    name: str
    wire: Wire
    meaning: str


@dataclass(frozen=True)
class Prop:
    name: str
    wire: Wire
    meaning: str
    cells: tuple[Cell, ...] = ()
    text_key: str | None = None  # a static label: its text is the catalog entry of this key
    max_rows: int | None = None  # rows/assets/str_list: the most the panel is ever sent

    @property
    def slint_type(self) -> str:
        match self.wire:
            case Wire.STR_LIST:
                return "[string]"
            case Wire.ASSETS:
                return "[image]"
            case Wire.ROWS:
                fields = ", ".join(
                    f"c{i}: {_SLINT_SCALAR[c.wire]}" for i, c in enumerate(self.cells)
                )
                return f"[{{{fields}}}]"
            case _:
                return _SLINT_SCALAR[self.wire]

    def wire_value(self, value: Any) -> WireValue:
        """The tagged value for a Python value (rows: a sequence of cell sequences)."""
        return tagged(self.wire, value, self.cells, self.max_rows, self.name)

    def check(self, tagged_value: Any) -> WireValue:
        """A tagged value that is well-formed for this prop, or WireError."""
        if not isinstance(tagged_value, dict) or tagged_value.keys() != {"t", "v"}:
            raise WireError(f'{self.name}: a value must be {{"t": tag, "v": value}}')
        if tagged_value["t"] != self.wire.value:
            raise WireError(f"{self.name}: sent as {tagged_value['t']!r}, declared {self.wire}")
        raw = tagged_value["v"]
        if self.wire is Wire.ROWS:
            if not isinstance(raw, list):
                raise WireError(f"{self.name}: rows must be a list")
            rows: list[list[Any]] = []
            for row in raw:  # pyright: ignore[reportUnknownVariableType]
                if not isinstance(row, list) or len(row) != len(self.cells):  # pyright: ignore[reportUnknownArgumentType]
                    raise WireError(f"{self.name}: each row has {len(self.cells)} cells")
                cells = zip(row, self.cells, strict=True)  # pyright: ignore[reportUnknownArgumentType]
                rows.append([_untag(v, c.wire, f"{self.name}.{c.name}") for v, c in cells])
            return self.wire_value(rows)
        return self.wire_value(raw)


@dataclass(frozen=True)
class Arg:
    name: str
    wire: Wire
    meaning: str

    @property
    def slint_type(self) -> str:
        return _SLINT_SCALAR[self.wire]


@dataclass(frozen=True)
class Callback:
    name: str
    args: tuple[Arg, ...]
    meaning: str

    @property
    def slint_signature(self) -> str:
        return f"{self.name}({', '.join(f'{a.name}: {a.slint_type}' for a in self.args)})"

    def decode(self, args: Any) -> tuple[Any, ...]:
        """Typed panel_event args -> Python values, or WireError."""
        if not isinstance(args, list) or len(args) != len(self.args):
            raise WireError(f"{self.name} takes {len(self.args)} arguments")
        values: list[Any] = []
        for item, arg in zip(args, self.args, strict=True):
            values.append(_untag(item, arg.wire, f"{self.name}({arg.name})"))
        return tuple(values)


@dataclass(frozen=True)
class PanelContract:
    name: str  # the panel's wire name (manifest role key or runtime panel name)
    source: str  # path of the .slint file, relative to the repository
    purpose: str
    props: tuple[Prop, ...]
    callbacks: tuple[Callback, ...] = ()

    def __post_init__(self) -> None:
        names = [p.name for p in self.props] + [c.name for c in self.callbacks]
        if len(names) != len(set(names)):
            raise ValueError(f"{self.name}: a prop or callback name is declared twice")
        reserved = RESERVED_NAMES.intersection(names)
        if reserved:
            raise ValueError(f"{self.name}: {sorted(reserved)} clash with Slint built-ins")

    def prop(self, name: str) -> Prop:
        for p in self.props:
            if p.name == name:
                return p
        raise KeyError(f"{self.name} has no prop {name!r}")

    def callback(self, name: str) -> Callback | None:
        return next((c for c in self.callbacks if c.name == name), None)

    @property
    def text_props(self) -> tuple[Prop, ...]:
        return tuple(p for p in self.props if p.text_key is not None)


# Properties every Slint element (or a Window) already has: a root may not redeclare them.
RESERVED_NAMES = frozenset(
    {
        "x", "y", "z", "width", "height", "visible", "opacity", "row", "col", "rowspan",
        "colspan", "title", "background", "icon", "enabled", "clip", "cache-rendering-hint",
        "min-width", "min-height", "max-width", "max-height", "preferred-width",
        "preferred-height", "horizontal-stretch", "vertical-stretch", "accessible-role",
        "accessible-label", "dialog-button-role", "drop-shadow-color", "drop-shadow-blur",
        "drop-shadow-offset-x", "drop-shadow-offset-y", "rotation-angle", "has-hover",
        "default-font-size", "default-font-family", "default-font-weight", "text", "color",
        "font-size", "always-on-top", "no-frame", "resize-border-width", "full-screen",
        "transform-rotation", "transform-scale", "transform-scale-x", "transform-scale-y",
        "transform-origin",
    }
)  # fmt: skip

# The focus contract (PAN-23): on the root, consumed by the host, not part of our contract.
FIELD_FOCUS = "field-focus"
FIELD_BLUR = "field-blur"

SLOTS_PER_PAGE = 12  # the overlay grid is 4 x 3; play-slot-1 ... play-slot-12 follow it
DECK_SLOTS = 4  # deck-1 ... deck-4; vrOS runs at most 4 media sessions


class SlotState(IntEnum):
    EMPTY = 0
    READY = 1
    PLAYING = 2
    LOADING = 3
    BROKEN = 4


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


def _label(name: str, key: str, meaning: str) -> Prop:
    return Prop(name, Wire.STR, meaning, text_key=key)


def _enum_doc(enum: type[IntEnum]) -> str:
    return ", ".join(f"{m.value} {m.name.lower().replace('_', ' ')}" for m in enum)


_STATUS = (
    Prop("status-text", Wire.STR, "The status line (errors, missing grants); empty hides it."),
    Prop("status-level", Wire.I64, f"How the status line is coloured: {_enum_doc(StatusLevel)}."),
)
_KEY = Arg("key", Wire.STR, "A sound key as sent in a row's c0.")

OVERLAY = PanelContract(
    name="overlay",
    source="panels/overlay.slint",
    purpose="The soundboard in VR: the sound grid, search, gains, now playing and the media deck.",
    props=(
        _label("label-sounds-tab", "overlay.sounds_tab", "Tab: the sound grid."),
        _label("label-media-tab", "overlay.media_tab", "Tab: the media deck."),
        _label("label-search-hint", "common.search_hint", "Placeholder of the search field."),
        _label("label-stop-all", "overlay.stop_all", "The stop-all button."),
        _label("label-soundboard-gain", "overlay.soundboard_gain", "Soundboard gain slider."),
        _label("label-mic-gain", "overlay.mic_gain", "Mic gain slider."),
        _label("label-mic-enabled", "overlay.mic_enabled", "The mic on/off toggle."),
        _label("label-now-playing", "overlay.now_playing", "Heading of the now-playing list."),
        _label("label-nothing-playing", "overlay.nothing_playing", "The empty now-playing list."),
        _label("label-stop", "overlay.stop", "Per-sound stop button."),
        _label("label-url-hint", "media.url_hint", "Placeholder of the URL field."),
        _label("label-title-hint", "media.title_hint", "Placeholder of the title field."),
        _label("label-open", "media.open", "Open the URL in a free deck slot."),
        _label("label-reload", "media.reload", "Reload a deck slot with the URL field."),
        _label("label-close", "media.close", "Close a deck slot."),
        _label("label-pause", "media.pause", "Pause a deck slot."),
        _label("label-resume", "media.resume", "Resume a paused deck slot."),
        _label("label-mute", "media.mute", "Mute a deck slot."),
        _label("label-unmute", "media.unmute", "Unmute a deck slot."),
        _label("label-video", "media.video", "Caption of a slot's video state."),
        _label("label-media-unsupported", "media.unsupported", "The deck on vrOS for Linux."),
        _label("label-deck-empty", "media.deck_empty", "The deck with no slot in use."),
        Prop(
            "slots",
            Wire.ROWS,
            "The visible page of the grid (or of the search results), at most 12 tiles in "
            "reading order; missing tiles draw as empty.",
            cells=(
                Cell("key", Wire.STR, "The sound's key, passed back by play-sound."),
                Cell("name", Wire.STR, "Display name."),
                Cell("duration", Wire.STR, "Formatted length (`0:04`), empty until loaded."),
                Cell("state", Wire.I64, f"{_enum_doc(SlotState)}."),
                Cell("detail", Wire.STR, "Localised detail for loading/broken (the host code)."),
                Cell("favourite", Wire.BOOL, "Shows a star."),
                Cell("has-icon", Wire.BOOL, "slot-icons holds a real icon for this tile."),
            ),
            max_rows=SLOTS_PER_PAGE,
        ),
        Prop(
            "slot-icons",
            Wire.ASSETS,
            "One asset key per tile, in the order of slots; tiles without an icon name the "
            "blank 1x1 asset (overlay.BLANK_ICON_KEY).",
            max_rows=SLOTS_PER_PAGE,
        ),
        Prop("page-name", Wire.STR, "The page's category (folder) name, or the search summary."),
        Prop("page-index", Wire.I64, "The visible page, 0-based."),
        Prop("page-count", Wire.I64, "How many pages (at least 1)."),
        Prop("empty-text", Wire.STR, "Shown instead of the grid when slots is empty."),
        Prop(
            "playing",
            Wire.ROWS,
            "Now playing, most recent first.",
            cells=(
                Cell("key", Wire.STR, "The sound's key, passed back by stop-sound."),
                Cell("name", Wire.STR, "Display name."),
                Cell("channels", Wire.STR, "Localised targets and gains."),
                Cell("looping", Wire.BOOL, "Plays in a loop."),
            ),
            max_rows=32,
        ),
        Prop("soundboard-gain", Wire.I64, "Soundboard gain, 0-100."),
        Prop("mic-gain", Wire.I64, "Mic gain, 0-100."),
        Prop("mic-enabled", Wire.BOOL, "Sounds also play into the mic."),
        *_STATUS,
        Prop("media-mode", Wire.I64, f"The deck: {_enum_doc(MediaMode)} (tab hidden when 0)."),
        Prop(
            "deck",
            Wire.ROWS,
            "The deck slots in use, by key.",
            cells=(
                Cell("key", Wire.STR, "deck-1 ... deck-4."),
                Cell("title", Wire.STR, "The slot's title (never the URL)."),
                Cell("playback", Wire.STR, "Localised playback state, with the code on failure."),
                Cell("playback-state", Wire.I64, f"{_enum_doc(Playback)}."),
                Cell("video", Wire.STR, "Localised video state."),
                Cell("video-state", Wire.I64, f"{_enum_doc(Video)}."),
                Cell("paused", Wire.BOOL, "The session is paused."),
                Cell("volume", Wire.I64, "Volume, 0-100."),
                Cell("muted", Wire.BOOL, "The session is muted."),
                Cell("needs-url", Wire.BOOL, "Remembered without its URL: enter it to reload."),
            ),
            max_rows=DECK_SLOTS,
        ),
        Prop("url-clear", Wire.I64, "Advanced to empty the URL and title fields (after open)."),
    ),
    callbacks=(
        Callback("play-sound", (_KEY,), "Play (or, under toggle, stop) a tile's sound."),
        Callback("stop-sound", (_KEY,), "Stop one sound of the now-playing list."),
        Callback("stop-all", (), "Stop every sound."),
        Callback("page-next", (), "Next page of the grid or results."),
        Callback("page-prev", (), "Previous page."),
        Callback(
            "search-changed",
            (Arg("query", Wire.STR, "The search field's text; empty ends the search."),),
            "The search text changed (filters the whole library).",
        ),
        Callback("set-soundboard-gain", (Arg("pct", Wire.I64, "0-100."),), "Gain slider."),
        Callback("set-mic-gain", (Arg("pct", Wire.I64, "0-100."),), "Mic gain slider."),
        Callback("set-mic-enabled", (Arg("on", Wire.BOOL, "Mic on."),), "Mic toggle."),
        Callback("dismiss-status", (), "The user closed the status line."),
        Callback(
            "media-open",
            (
                Arg("url", Wire.STR, "The URL field (a credential: never logged)."),
                Arg("label", Wire.STR, "The title field; empty: the URL's host name."),
            ),
            "Open the URL in the first free deck slot.",
        ),
        Callback(
            "media-reload",
            (
                Arg("key", Wire.STR, "The deck slot."),
                Arg("url", Wire.STR, "The URL field."),
                Arg("label", Wire.STR, "The title field."),
            ),
            "Reload a slot with a new URL (its source_generation rises).",
        ),
        Callback("media-close", (Arg("key", Wire.STR, "The deck slot."),), "Close a slot."),
        Callback(
            "media-set-paused",
            (Arg("key", Wire.STR, "The deck slot."), Arg("paused", Wire.BOOL, "Pause.")),
            "Pause or resume a slot.",
        ),
        Callback(
            "media-set-volume",
            (Arg("key", Wire.STR, "The deck slot."), Arg("pct", Wire.I64, "0-100.")),
            "Set a slot's volume.",
        ),
        Callback(
            "media-set-muted",
            (Arg("key", Wire.STR, "The deck slot."), Arg("muted", Wire.BOOL, "Mute.")),
            "Mute or unmute a slot.",
        ),
    ),
)

DASH_TAB = PanelContract(
    name="dash-tab",
    source="panels/dash-tab.slint",
    purpose="Library management and diagnostics in the vrOS dashboard.",
    props=(
        _label("label-library", "dash.library", "Heading of the library list."),
        _label("label-search-hint", "common.search_hint", "Placeholder of the search field."),
        _label("label-select-hint", "dash.select_hint", "Editor with no sound selected."),
        _label("label-gain", "dash.gain", "Per-sound gain slider."),
        _label("label-loop", "dash.loop", "Per-sound loop toggle."),
        _label("label-favourite", "dash.favourite", "Per-sound favourite toggle."),
        _label("label-fav-command", "dash.fav_command", "Caption of the favourite's command."),
        _label("label-commands", "dash.commands", "Heading of the command list."),
        _label("label-channels", "dash.channels", "Heading of the channel list."),
        _label("label-devices", "dash.devices", "Heading of the device list."),
        _label("label-default", "dash.default_device", "Marks the default device."),
        _label("label-usage", "dash.usage", "Heading of the usage section."),
        _label("label-assets", "dash.assets", "Caption of the asset table bar."),
        _label("label-kv", "dash.kv", "Caption of the kv quota bar."),
        _label("label-media-options", "dash.media_options", "Heading of the media options."),
        _label("label-show-video", "dash.show_video", "Toggle: show_video."),
        _label("label-max-fps", "dash.max_fps", "Stepper: max_fps."),
        _label("label-native-controls", "dash.native_controls", "Toggle: native_controls."),
        _label(
            "label-controls-on-player", "dash.controls_on_player", "Toggle: controls_on_player."
        ),
        _label("label-rescan", "dash.rescan", "The rescan button."),
        _label("label-refresh", "dash.refresh", "Refresh devices and channels."),
        Prop(
            "library",
            Wire.ROWS,
            "The visible page of the library (or of the search results).",
            cells=(
                Cell("key", Wire.STR, "The sound's key."),
                Cell("name", Wire.STR, "Display name."),
                Cell("gain", Wire.I64, "The sound's own gain, 0-100."),
                Cell("looping", Wire.BOOL, "Loops."),
                Cell("favourite", Wire.BOOL, "Is a favourite."),
                Cell("state", Wire.I64, f"{_enum_doc(SlotState)}."),
            ),
            max_rows=SLOTS_PER_PAGE,
        ),
        Prop("library-page-index", Wire.I64, "The visible page, 0-based."),
        Prop("library-page-count", Wire.I64, "How many pages (at least 1)."),
        Prop("library-summary", Wire.STR, "Localised: how many sounds, how many broken."),
        Prop("selected-key", Wire.STR, "The sound being edited; empty: none."),
        Prop("selected-name", Wire.STR, "Its display name."),
        Prop("selected-gain", Wire.I64, "Its gain, 0-100."),
        Prop("selected-looping", Wire.BOOL, "It loops."),
        Prop("selected-favourite", Wire.BOOL, "It is a favourite."),
        Prop("selected-command", Wire.STR, "Its fav-<slug> command, empty when none."),
        Prop(
            "bindings",
            Wire.ROWS,
            "The commands Cueboard registers, for SteamVR bindings.",
            cells=(
                Cell("command", Wire.STR, "The command name."),
                Cell("meaning", Wire.STR, "Localised: what it does (and which sound)."),
            ),
            max_rows=64,
        ),
        Prop(
            "channels",
            Wire.ROWS,
            "Audio channels (list_channels).",
            cells=(
                Cell("channel", Wire.STR, "soundboard or mic."),
                Cell("endpoint", Wire.STR, "The endpoint it plays to."),
                Cell("state", Wire.STR, "Localised: armed, available, unavailable."),
                Cell("ok", Wire.BOOL, "Usable."),
            ),
            max_rows=16,
        ),
        Prop(
            "devices",
            Wire.ROWS,
            "Output endpoints (list_devices).",
            cells=(
                Cell("name", Wire.STR, "The endpoint's name."),
                Cell("is-default", Wire.BOOL, "The default endpoint."),
            ),
            max_rows=64,
        ),
        Prop("asset-fraction", Wire.F64, "Asset table use against its budget, 0-1."),
        Prop("asset-usage", Wire.STR, "Localised: entries and bytes of the asset table."),
        Prop("kv-fraction", Wire.F64, "kv bytes against the 1 MiB soft quota, 0-1."),
        Prop("kv-usage", Wire.STR, "Localised: kv bytes of the quota."),
        Prop("media-mode", Wire.I64, f"{_enum_doc(MediaMode)}; options hidden unless 1."),
        Prop("media-show-video", Wire.BOOL, "Deck option show_video."),
        Prop("media-max-fps", Wire.I64, "Deck option max_fps, 1-120."),
        Prop("media-native-controls", Wire.BOOL, "Deck option native_controls."),
        Prop("media-native-controls-shown", Wire.BOOL, "The host is 1.6 or later."),
        Prop("media-controls-on-player", Wire.BOOL, "Deck option controls_on_player."),
        Prop("media-controls-on-player-shown", Wire.BOOL, "The host is 1.7 or later."),
        Prop("toast-note", Wire.STR, "Why the now-playing toast cannot show; empty when it can."),
        *_STATUS,
    ),
    callbacks=(
        Callback(
            "library-search",
            (Arg("query", Wire.STR, "The search text; empty ends the search."),),
            "Filter the library list.",
        ),
        Callback("library-page-next", (), "Next page of the library list."),
        Callback("library-page-prev", (), "Previous page."),
        Callback("select-sound", (_KEY,), "Edit this sound."),
        Callback(
            "set-sound-gain",
            (_KEY, Arg("pct", Wire.I64, "0-100.")),
            "The sound's own gain (persisted).",
        ),
        Callback("set-sound-looping", (_KEY, Arg("on", Wire.BOOL, "Loop.")), "Loop flag."),
        Callback(
            "set-sound-favourite", (_KEY, Arg("on", Wire.BOOL, "Favourite.")), "Favourite flag."
        ),
        Callback("rescan", (), "Scan the sounds folder again."),
        Callback("refresh-devices", (), "List devices and channels again."),
        Callback("set-media-show-video", (Arg("on", Wire.BOOL, "Show."),), "show_video."),
        Callback("set-media-max-fps", (Arg("fps", Wire.I64, "1-120."),), "max_fps."),
        Callback("set-media-native-controls", (Arg("on", Wire.BOOL, "On."),), "native_controls."),
        Callback(
            "set-media-controls-on-player", (Arg("on", Wire.BOOL, "On."),), "controls_on_player."
        ),
        Callback("dismiss-status", (), "The user closed the status line."),
    ),
)

NOW_PLAYING = PanelContract(
    name="now-playing",
    source="panels/now-playing.slint",
    purpose="A runtime toast (define, anchor hmd) naming the sound just triggered.",
    props=(
        Prop("sound-name", Wire.STR, "The sound's display name."),
        Prop("channels-text", Wire.STR, "Localised targets and gains."),
        Prop(
            "sound-icon", Wire.ASSETS, "The sound's icon key (one), or the blank asset.", max_rows=1
        ),
        Prop("has-icon", Wire.BOOL, "sound-icon is a real icon."),
        Prop("showing", Wire.BOOL, "Fades the toast in (true) or out (false)."),
    ),
)

PANELS: Mapping[str, PanelContract] = {p.name: p for p in (OVERLAY, DASH_TAB, NOW_PLAYING)}


# -- typed wire values -------------------------------------------------------------------------


def _scalar(wire: Wire, value: Any, where: str) -> bool | int | float | str:
    match wire:
        case Wire.BOOL if isinstance(value, bool):
            return value
        case Wire.I64 if isinstance(value, int) and not isinstance(value, bool):
            if abs(value) > MAX_EXACT_INT:
                raise WireError(f"{where}: {value} is beyond the exact range of a Slint int")
            return value
        case Wire.F64 if isinstance(value, int | float) and not isinstance(value, bool):
            as_float = float(value)
            if as_float != as_float or as_float in (float("inf"), float("-inf")):
                raise WireError(f"{where}: f64 must be finite")
            return as_float
        case Wire.STR if isinstance(value, str):
            return value
        case _:
            raise WireError(f"{where}: {type(value).__name__} is not a valid {wire}")


def _untag(item: Any, wire: Wire, where: str) -> Any:
    if not isinstance(item, dict) or "t" not in item or "v" not in item:
        raise WireError(f'{where}: a value must be {{"t": tag, "v": value}}')
    if item["t"] != wire.value:
        raise WireError(f"{where}: sent as {item['t']!r}, declared {wire}")
    return _scalar(wire, item["v"], where)


def _str_list(value: Any, where: str) -> list[str]:
    if isinstance(value, str) or not isinstance(value, Sequence):
        raise WireError(f"{where}: expected a list of strings")
    items: list[Any] = list(value)  # pyright: ignore[reportUnknownArgumentType]
    if not all(isinstance(s, str) for s in items):
        raise WireError(f"{where}: expected a list of strings")
    return [str(s) for s in items]


def tagged(
    wire: Wire,
    value: Any,
    cells: tuple[Cell, ...] = (),
    max_rows: int | None = None,
    where: str = "value",
) -> WireValue:
    """Build `{"t": wire, "v": value}` from a Python value, checking it fits the wire type."""
    if wire in SCALARS:
        return {"t": wire.value, "v": _scalar(wire, value, where)}
    if wire in (Wire.STR_LIST, Wire.ASSETS):
        items = _str_list(value, where)
        if max_rows is not None and len(items) > max_rows:
            raise WireError(f"{where}: {len(items)} items, at most {max_rows} (page the list)")
        return {"t": wire.value, "v": items}
    if isinstance(value, str) or not isinstance(value, Sequence):
        raise WireError(f"{where}: rows must be a list of rows")
    rows: list[Any] = list(value)  # pyright: ignore[reportUnknownArgumentType]
    if max_rows is not None and len(rows) > max_rows:
        raise WireError(f"{where}: {len(rows)} rows, at most {max_rows} (page the list)")
    out: list[list[WireValue]] = []
    for row in rows:
        if not isinstance(row, list | tuple) or len(row) != len(cells):  # pyright: ignore[reportUnknownArgumentType]
            raise WireError(f"{where}: each row has {len(cells)} cells")
        out.append(
            [
                {"t": c.wire.value, "v": _scalar(c.wire, v, f"{where}.{c.name}")}
                for v, c in zip(row, cells, strict=True)  # pyright: ignore[reportUnknownArgumentType]
            ]
        )
    return {"t": Wire.ROWS.value, "v": out}


__all__ = [
    "DASH_TAB",
    "DECK_SLOTS",
    "FIELD_BLUR",
    "FIELD_FOCUS",
    "NOW_PLAYING",
    "OVERLAY",
    "PANELS",
    "SLOTS_PER_PAGE",
    "Arg",
    "Callback",
    "Cell",
    "MediaMode",
    "PanelContract",
    "Playback",
    "Prop",
    "SlotState",
    "StatusLevel",
    "Video",
    "Wire",
    "WireError",
    "WireValue",
    "tagged",
]
