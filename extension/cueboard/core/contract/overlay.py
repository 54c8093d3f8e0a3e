"""The overlay's contract: the sound grid, search, gains, now playing and the media deck."""

from .common import (
    DECK_SLOTS,
    FOLDER,
    KEY,
    SLOTS_PER_PAGE,
    STATUS,
    MediaMode,
    Playback,
    PlayMode,
    SlotState,
    TargetMark,
    Video,
    enum_doc,
    folders,
    label,
)
from .wire import Arg, Callback, Cell, PanelContract, Prop, Wire

OVERLAY = PanelContract(
    name="overlay",
    source="panels/overlay.slint",
    purpose="The soundboard in VR: the sound grid, search, gains, now playing and the media deck.",
    props=(
        label("label-sounds-tab", "overlay.sounds_tab", "Tab: the sound grid."),
        label("label-media-tab", "overlay.media_tab", "Tab: the media deck."),
        label("label-search-hint", "common.search_hint", "Placeholder of the search field."),
        label("label-stop-all", "overlay.stop_all", "The stop-all button (sounds only)."),
        label("label-soundboard-gain", "overlay.soundboard_gain", "Soundboard gain slider."),
        label("label-mic-gain", "overlay.mic_gain", "Mic gain slider."),
        label("label-mic-enabled", "overlay.mic_enabled", "The mic on/off toggle."),
        label("label-now-playing", "overlay.now_playing", "Heading of the now-playing list."),
        label("label-nothing-playing", "overlay.nothing_playing", "The empty now-playing list."),
        label("label-stop", "overlay.stop", "Per-sound stop button."),
        label("label-only-me", "grid.target_me", "Mark of a sound that plays to you alone."),
        label(
            "label-only-mic", "grid.target_mic", "Mark of a sound that plays into the mic alone."
        ),
        label(
            "label-mic-off", "grid.tile_mic_off", "Mark of a mic-only sound while the mic is off."
        ),
        label("label-url-hint", "media.url_hint", "Placeholder of the URL field."),
        label("label-title-hint", "media.title_hint", "Placeholder of the title field."),
        label("label-open", "media.open", "Open the URL in a free deck slot."),
        label("label-reload", "media.reload", "Reload a deck slot with the URL field."),
        label("label-close", "media.close", "Close a deck slot."),
        label("label-pause", "media.pause", "Pause a deck slot."),
        label("label-retry", "media.retry", "Open a failed deck slot again."),
        label("label-pause-all", "media.pause_all", "Pause every deck slot (the deck's stop)."),
        label("label-resume", "media.resume", "Resume a paused deck slot."),
        label("label-mute", "media.mute", "Mute a deck slot."),
        label("label-unmute", "media.unmute", "Unmute a deck slot."),
        label("label-video", "media.video", "Caption of a slot's video state."),
        label("label-media-unsupported", "media.unsupported", "The deck on vrOS for Linux."),
        label("label-deck-empty", "media.deck_empty", "The deck with no slot in use."),
        Prop(
            "slots",
            Wire.ROWS,
            "The visible page of the grid (or of the search results), at most 12 tiles in "
            "reading order; missing tiles draw as empty.",
            cells=(
                Cell("key", Wire.STR, "The sound's key, passed back by play-sound."),
                Cell(
                    "name",
                    Wire.STR,
                    "Display name on at most two lines joined by a newline, shortened in the "
                    "middle so that its end stays (the panel does not wrap it again).",
                ),
                Cell("duration", Wire.STR, "Formatted length (`0:04`), empty until loaded."),
                Cell("state", Wire.I64, f"{enum_doc(SlotState)}."),
                Cell(
                    "detail",
                    Wire.STR,
                    "Localised: loading, or a broken tile's short reason (never a host code).",
                ),
                Cell("favourite", Wire.BOOL, "Shows a star."),
                Cell("has-icon", Wire.BOOL, "slot-icons holds a real icon for this tile."),
                Cell(
                    "mode",
                    Wire.I64,
                    f"Its own play mode, marked on the tile: {enum_doc(PlayMode)}.",
                ),
                Cell(
                    "note",
                    Wire.STR,
                    "Localised last line: its folder while searching, else a favourite's "
                    "command name; empty: none.",
                ),
                Cell(
                    "target",
                    Wire.I64,
                    f"Where it plays, marked on the tile: {enum_doc(TargetMark)}.",
                ),
            ),
            max_rows=SLOTS_PER_PAGE,
        ),
        Prop(
            "slot-icons",
            Wire.ASSETS,
            "One asset key per tile, in the order of slots; tiles without an icon name the "
            "blank 1x1 asset (overlay.BLANK_ICON_KEY) once its put answered ok, and no key "
            "before (docs/protocol-notes.md#r33).",
            max_rows=SLOTS_PER_PAGE,
        ),
        Prop(
            "page-name",
            Wire.STR,
            "Localised header title: the folder (`Memes`), or what the search found "
            "(`“boss”: 2 found`); the panel may elide it.",
        ),
        Prop(
            "page-counter",
            Wire.STR,
            "The page within the folder or the search (`2 / 3`), shown whole beside the "
            "title; empty with one page.",
        ),
        Prop(
            "page-index",
            Wire.I64,
            "Where the page is in the order ‹ › run through (all folders' pages, or the "
            "search's), 0-based; they wrap.",
        ),
        Prop("page-count", Wire.I64, "How many pages that order has (at least 1)."),
        *folders("The folder strip"),
        Prop(
            "folder-index",
            Wire.I64,
            "Where folder-key is in folders (0-based), which the strip scrolls into view; "
            "-1 while searching.",
        ),
        Prop(
            "mode-legend",
            Wire.STR,
            "Localised: what the play-mode marks on this page mean; empty when none shows.",
        ),
        Prop("search-query", Wire.STR, "The overlay's own search; empty when not searching."),
        Prop(
            "pressed-name",
            Wire.STR,
            "The full name of the tile pressed last, with its command when it is a favourite; "
            "empty: none.",
        ),
        Prop("empty-text", Wire.STR, "Shown instead of the grid when slots is empty."),
        Prop(
            "playing",
            Wire.ROWS,
            "Now playing, most recent first.",
            cells=(
                Cell("key", Wire.STR, "The sound's key, passed back by stop-sound."),
                Cell(
                    "name",
                    Wire.STR,
                    "Display name on one line, shortened in the middle so that its end stays.",
                ),
                Cell("channels", Wire.STR, "Localised targets and gains."),
                Cell("looping", Wire.BOOL, "Plays in a loop (shows a loop mark)."),
                Cell("elapsed", Wire.STR, "Time played (`0:03`); a loop's place in its pass."),
                Cell("remaining", Wire.STR, "Time left (`-0:05`), a loop's to its pass's end."),
                Cell("target", Wire.I64, f"Where it plays, marked: {enum_doc(TargetMark)}."),
            ),
            max_rows=32,
        ),
        Prop("soundboard-gain", Wire.I64, "Soundboard gain, 0-100."),
        Prop("mic-gain", Wire.I64, "Mic gain, 0-100."),
        Prop("mic-enabled", Wire.BOOL, "Sounds also play into the mic."),
        *STATUS,
        Prop("media-mode", Wire.I64, f"The deck: {enum_doc(MediaMode)} (tab hidden when 0)."),
        Prop(
            "deck",
            Wire.ROWS,
            "The deck slots in use, by key.",
            cells=(
                Cell("key", Wire.STR, "deck-1 ... deck-4."),
                Cell("title", Wire.STR, "The slot's title (never the URL)."),
                Cell("playback", Wire.STR, "Localised playback state, with the code on failure."),
                Cell("playback-state", Wire.I64, f"{enum_doc(Playback)}."),
                Cell("video", Wire.STR, "Localised video state."),
                Cell("video-state", Wire.I64, f"{enum_doc(Video)}."),
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
        Callback("play-sound", (KEY,), "Play (or, under toggle, stop) a tile's sound."),
        Callback(
            "set-favourite",
            (KEY, Arg("on", Wire.BOOL, "Favourite.")),
            "The ☆ of a tile: make it a favourite (its own command) or not.",
        ),
        Callback("open-folder", (FOLDER,), "Go to a folder's first page (ends the search)."),
        Callback("stop-sound", (KEY,), "Stop one sound of the now-playing list."),
        Callback("stop-all", (), "Stop every sound (the deck has media-pause-all)."),
        Callback("page-next", (), "Next page: on into the next folder after the last, wrapping."),
        Callback("page-prev", (), "Previous page, the same way back."),
        Callback(
            "search-changed",
            (Arg("query", Wire.STR, "The search field's text; empty ends the search."),),
            "The overlay's search: one ranked list of the whole library; empty goes back to "
            "the folder page it left.",
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
            "media-retry",
            (Arg("key", Wire.STR, "The deck slot."),),
            "Open a failed slot's stream again from the URL it holds (offered instead of Pause).",
        ),
        Callback("media-pause-all", (), "The deck's own stop: pause every stream."),
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
