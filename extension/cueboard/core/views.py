"""What the panels show, computed from the soundboard's state (pure functions).

Only the visible page of anything ever becomes a prop, so a props frame stays small whatever
the library's size (under 64 KiB with 10,000 sounds: tests/cueboard/core/test_props.py).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Protocol

from cueboard.core.commands import command_rows, favourite_command
from cueboard.core.contract import MAX_FOLDERS, SlotState
from cueboard.core.i18n import Catalog
from cueboard.core.library import Library
from cueboard.core.settings import Settings
from vxp.limits import (
    ASSET_TABLE_MAX_BYTES,
    ASSET_TABLE_MAX_ENTRIES,
    KV_SOFT_QUOTA_BYTES,
)

from .browse import Browser, Shelf
from .deck import notice_text as deck_notice_text
from .editor import NO_EDITOR, editor_values
from .effects import Notice
from .overlay import Tile, channels_text, format_duration, grid_values, played_mark, target_mark
from .places import (
    mode_legend,
    place_values,
    playing_name,
    sound_folder_name,
    tile_name,
    tile_note,
)
from .prefs import MODES, SoundPrefs
from .reasons import load_failure_key
from .search import PAGE_SIZE, page_count
from .sound_state import Playing, SoundState

BROKEN_STATUSES = frozenset({"failed", "too_large", "unloadable"})


class ViewedPrefs(Protocol):
    """What the views read of the per-sound preferences."""

    def favourites(self) -> dict[str, str]: ...

    def get(self, rel_path: str) -> SoundPrefs: ...


class ViewedBoard(Protocol):
    """What the views read of the soundboard."""

    status: Notice | None

    @property
    def states(self) -> Mapping[str, SoundState]: ...

    @property
    def playing(self) -> dict[str, Playing]: ...  # in the order the plays started

    @property
    def prefs(self) -> ViewedPrefs: ...

    @property
    def settings(self) -> Settings: ...

    @property
    def library(self) -> Library: ...

    @property
    def shelf(self) -> Shelf: ...

    @property
    def browser(self) -> Browser: ...

    @property
    def audio_granted(self) -> bool: ...

    @property
    def pressed(self) -> str | None: ...

    @property
    def scanning(self) -> str | None: ...

    @property
    def folder_missing(self) -> str | None: ...

    def position(self, rel: str) -> tuple[int, int]: ...


def slot_state(board: ViewedBoard, rel: str) -> tuple[SlotState, str]:
    st = board.states[rel]
    if not board.audio_granted:
        return SlotState.DISABLED, "slot.disabled"
    if rel in board.playing:
        return SlotState.PLAYING, ""
    if st.status in ("loading", "rendering"):
        return SlotState.LOADING, "slot.loading"
    if st.status == "too_large":
        return SlotState.BROKEN, load_failure_key("too_large")
    if st.status in ("failed", "unloadable"):  # a short phrase, never the host's code
        return SlotState.BROKEN, load_failure_key(st.code or "")
    return SlotState.READY, ""


def notice_text(cat: Catalog, notice: Notice | None) -> str:
    """A notice in the user's language (its refs are catalog keys translated first)."""
    return "" if notice is None else deck_notice_text(notice, cat)


def overlay_values(
    board: ViewedBoard,
    cat: Catalog,
    icons: dict[str, str],
    *,
    now: float = 0.0,
    blank: bool = True,
) -> dict[str, Any]:
    view = board.browser.view(board.shelf)
    tiles: list[Tile] = []
    commands = {rel: favourite_command(slug) for slug, rel in board.prefs.favourites().items()}
    for s in view.sounds:
        state, detail_key = slot_state(board, s.rel_path)
        st = board.states[s.rel_path]
        detail = cat.t(detail_key) if detail_key else ""
        duration = st.duration_ms / 1000 if st.duration_ms is not None else None
        tiles.append(
            Tile(
                key=s.rel_path,
                name=tile_name(s.name),
                duration_s=duration,
                state=state,
                detail=detail,
                favourite=s.rel_path in commands,
                icon_key=icons.get(s.rel_path),
                mode=mode_number(board.prefs.get(s.rel_path).mode),
                target=int(
                    target_mark(board.prefs.get(s.rel_path).targets, board.settings.mic_enabled)
                ),
                note=tile_note(
                    cat,
                    folder=sound_folder_name(cat, s, board.shelf) if view.query else None,
                    command=commands.get(s.rel_path),
                ),
            )
        )
    values = grid_values(tiles, blank=blank)
    values["mode-legend"] = mode_legend(cat, (t.mode for t in tiles))
    values.update(place_values(cat, view, board.shelf, board.browser.folder, counter_apart=True))
    pressed = board.states.get(board.pressed or "")
    values["pressed-name"] = (
        pressed_line(cat, pressed.sound.name, commands.get(pressed.sound.rel_path))
        if pressed
        else ""
    )
    values["search-query"] = board.browser.query
    if not board.library.sounds and board.scanning is not None:
        empty = cat.t("status.scanning", folder=board.scanning)
    elif not board.library.sounds and board.folder_missing is not None:
        empty = cat.t("grid.folder_missing", folder=board.folder_missing)
    elif not board.library.sounds:
        empty = cat.t("grid.empty_library", folder=str(board.library.root))
    elif not tiles:
        empty = cat.t("grid.no_results", query=view.query)
    else:
        empty = ""
    values.update(
        {
            "empty-text": empty,
            "playing": playing_rows(board, cat, now),
            "soundboard-gain": board.settings.soundboard_gain,
            "mic-gain": board.settings.mic_gain,
            "mic-enabled": board.settings.mic_enabled,
            "status-text": notice_text(cat, board.status),
            "status-level": _level(board.status),
        }
    )
    return values


def pressed_line(cat: Catalog, name: str, command: str | None) -> str:
    """The whole name of the tile pressed last, and a favourite's command, which its tile may
    have to break or elide."""
    if command is None:
        return name
    return cat.t("grid.pressed_command", name=name, command=command)


def playing_rows(
    board: ViewedBoard, cat: Catalog, now: float
) -> list[tuple[str, str, str, bool, str, str, int]]:
    """Now playing, most recent first (the newest row is the one a person looks for), each with
    its time: elapsed and remaining, or for a loop its place in the loop; and its target mark."""
    rows: list[tuple[str, str, str, bool, str, str, int]] = []
    for rel, p in list(reversed(board.playing.items()))[:32]:
        st = board.states.get(rel)
        own = board.prefs.get(rel).targets
        duration = st.duration_ms / 1000 if st is not None and st.duration_ms else None
        elapsed, remaining = play_times(now - p.started, duration, looping=p.looping)
        rows.append(
            (
                rel,
                playing_name(st.sound.name if st else rel),
                channels_text(cat, dict(p.channels).get("soundboard"), dict(p.channels).get("mic")),
                p.looping,
                elapsed,
                remaining,
                int(played_mark(p.channels, own)),
            )
        )
    return rows


def play_times(played_s: float, duration_s: float | None, *, looping: bool) -> tuple[str, str]:
    """(elapsed, remaining) as ``0:03`` and ``-0:05``; a loop counts within its current pass;
    remaining is empty while the length is unknown."""
    played_s = max(0.0, played_s)
    if duration_s is None or duration_s <= 0:
        return _clock(played_s), ""
    position = played_s % duration_s if looping else min(played_s, duration_s)
    return _clock(position), "-" + format_duration(duration_s - position)


def _clock(seconds: float) -> str:
    minutes, secs = divmod(int(seconds), 60)
    return f"{minutes}:{secs:02d}"


def _level(notice: Notice | None) -> int:
    return 0 if notice is None else int(notice.level)


def usage_values(
    cat: Catalog, *, assets: tuple[int, int], kv_bytes: int, toast_note: str
) -> dict[str, Any]:
    """The dash-tab's diagnostics: asset table and kv use against their budgets."""
    count, used = assets
    return {
        "asset-fraction": min(1.0, used / ASSET_TABLE_MAX_BYTES),
        "asset-usage": cat.t(
            "dash.asset_usage",
            count=count,
            max=ASSET_TABLE_MAX_ENTRIES,
            used=_mib(used),
            budget=_mib(ASSET_TABLE_MAX_BYTES),
        ),
        "kv-fraction": min(1.0, kv_bytes / KV_SOFT_QUOTA_BYTES),
        "kv-usage": cat.t("dash.kv_usage", used=_kib(kv_bytes), quota=_kib(KV_SOFT_QUOTA_BYTES)),
        "toast-note": toast_note,
    }


def _mib(n: int) -> str:
    return f"{n / (1024 * 1024):.1f} MiB"


def _kib(n: int) -> str:
    return f"{n / 1024:.0f} KiB"


def dash_values(
    board: ViewedBoard,
    cat: Catalog,
    *,
    browser: Browser,
    selected: str | None,
    page: int = 0,
    waveform: Sequence[str] = (),
    length: int | None = None,
) -> dict[str, Any]:
    """The dash-tab's props: its own place in the library, which the overlay does not share;
    ``waveform`` names the selected sound's waveform assets once the host has them, and
    ``length`` is its file's length in ms, when known."""
    view = browser.view(board.shelf)
    rows: list[tuple[str, str, int, bool, bool, int]] = []
    favourites = board.prefs.favourites()
    fav_rels = set(favourites.values())
    for s in view.sounds:
        prefs = board.prefs.get(s.rel_path)
        rows.append(
            (
                s.rel_path,
                s.name,
                prefs.gain,
                prefs.mode == "loop",
                s.rel_path in fav_rels,
                int(slot_state(board, s.rel_path)[0]),
            )
        )
    broken = sum(1 for st in board.states.values() if st.status in BROKEN_STATUSES)
    place = place_values(cat, view, board.shelf, browser.folder)
    values: dict[str, Any] = {
        "library": rows,
        "library-page-name": place["page-name"],
        "library-page-index": place["page-index"],
        "library-page-count": place["page-count"],
        "folders": place["folders"],
        "folder-key": place["folder-key"],
        "library-query": browser.query,
        "library-summary": cat.t("grid.folder_missing", folder=board.folder_missing)
        if board.folder_missing is not None
        else cat.t("dash.library_summary", count=len(board.library.sounds), broken=broken),
        "empty-folders": empty_folder_rows(board.library, cat),
        "bindings": binding_rows(board, cat),
        "status-text": notice_text(cat, board.status),
        "status-level": _level(board.status),
        "editor-page": page,
    }
    st = board.states.get(selected or "")
    if st is not None:
        prefs = board.prefs.get(st.sound.rel_path)
        index, count = board.position(st.sound.rel_path)
        values.update(
            {
                "selected-key": st.sound.rel_path,
                "selected-name": st.sound.name,
                "selected-gain": prefs.gain,
                "selected-mode": mode_number(prefs.mode),
                "selected-mic-gain": prefs.own_mic_gain,
                "selected-gains-linked": prefs.mic_gain is None,
                "selected-position": index + 1,
                "selected-position-text": cat.t(
                    "dash.position_of",
                    position=index + 1,
                    count=count,
                    page=index // PAGE_SIZE + 1,
                    pages=page_count(count),
                ),
                "selected-favourite": prefs.favourite is not None,
                "selected-command": favourite_command(prefs.favourite) if prefs.favourite else "",
                **editor_values(cat, prefs, length, waveform).props(),
            }
        )
    else:
        values.update(
            {
                "selected-key": "",
                "selected-name": "",
                "selected-gain": 100,
                "selected-mode": 0,
                "selected-mic-gain": 100,
                "selected-gains-linked": True,
                "selected-position": 0,
                "selected-position-text": "",
                "selected-favourite": False,
                "selected-command": "",
                **NO_EDITOR.props(),
            }
        )
    return values


def empty_folder_rows(library: Library, cat: Catalog) -> list[tuple[str, str]]:
    """The folders with no sound, each with what to put in it (the first MAX_FOLDERS)."""
    return [
        (
            folder,
            cat.t("dash.empty_folder_others", count=files)
            if files
            else cat.t("dash.empty_folder_hint"),
        )
        for folder, files in library.empty_folders[:MAX_FOLDERS]
    ]


def binding_rows(board: ViewedBoard, cat: Catalog) -> list[tuple[str, str]]:
    rows = list(cat.derived(command_rows))
    for slug, rel in sorted(board.prefs.favourites().items()):
        st = board.states.get(rel)
        rows.append(
            (favourite_command(slug), cat.t("command.favourite", name=st.sound.name if st else rel))
        )
    return rows[:64]


def mode_number(mode: str | None) -> int:
    """A sound's own play mode as the panels number it (PlayMode; 0: none of its own)."""
    return MODES.index(mode) + 1 if mode is not None else 0
