"""How a panel names where it is: the header over its page, its folder list, its tile names
and their last line, the play-mode legend, a playing sound's name.

Pure functions from a :class:`~.browse.View` and the :class:`~.browse.Shelf` to prop values.
A header says the folder and the page within it ("Memes · 2 / 3") or what a search found
("“boss”: 2 found"), never a page number across the whole library. The overlay gets the
title and the counter ("2 / 3") apart, so that eliding a long title never hides the counter.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from cueboard.core.contract import MAX_FOLDERS
from cueboard.core.i18n import Catalog
from cueboard.core.library import Sound

from .browse import FAVOURITES, MOST_PLAYED, RECENT, Folder, Shelf, View
from .names import shorten

__all__ = [
    "MAX_FOLDERS",
    "MODE_MARKS",
    "NOTE_COLUMNS",
    "PLAYING_COLUMNS",
    "TILE_COLUMNS",
    "counter",
    "folder_index",
    "folder_name",
    "folder_rows",
    "header",
    "mode_legend",
    "playing_name",
    "sound_folder_name",
    "tile_name",
    "tile_note",
    "title",
]

TILE_COLUMNS = 14  # what one line of a tile holds at the overlay's preferred size
NOTE_COLUMNS = 16  # a tile's line in the smaller data type
# What one line of the now-playing card and of the toast holds at their preferred sizes.
PLAYING_COLUMNS = 20


def tile_name(name: str) -> str:
    """A name on a tile's two lines, its end kept ("Hype Train\\nLev…remix 5")."""
    return shorten(name, TILE_COLUMNS, 2)


# The mark a tile shows after its length for its own play mode (PlayMode 1-4), as the overlay
# draws it (tests/panels check the two agree). Stop-others is not a square: ■ is Stop all's.
MODE_MARKS = {1: "+", 2: "⇄", 3: "⇥", 4: "↻"}
_MODE_NAMES = {
    1: "dash.mode_mix",
    2: "dash.mode_toggle",
    3: "dash.mode_stop_others",
    4: "dash.mode_loop",
}


def mode_legend(cat: Catalog, modes: Iterable[int]) -> str:
    """What the marks on the page mean ("Marks: + Mix · ↻ Loop"), in PlayMode order; empty
    when no tile on the page has a mode of its own."""
    shown = sorted({m for m in modes if m in MODE_MARKS})
    if not shown:
        return ""
    marks = " · ".join(f"{MODE_MARKS[m]} {cat.t(_MODE_NAMES[m])}" for m in shown)
    return cat.t("grid.mode_legend", marks=marks)


def sound_folder_name(cat: Catalog, sound: Sound, shelf: Shelf) -> str:
    """The name of the folder a sound is in, as the strip names it."""
    return sound.category or shelf.library.root.name or cat.t("grid.all_sounds")


def tile_note(cat: Catalog, *, folder: str | None, command: str | None) -> str:
    """A tile's last line: its folder while searching (hits come from every folder), else a
    favourite's command, which is what a controller binding needs. Shortened in the middle to
    one line of the tile, so that the end of a command ("fav-…fanfare") stays; the header
    names the command of the tile pressed last in full."""
    if folder is not None:
        return cat.t("grid.tile_folder", folder=shorten(folder, NOTE_COLUMNS - 3, 1))
    if command is not None:
        return shorten(command, NOTE_COLUMNS, 1)
    return ""


def playing_name(name: str) -> str:
    """A playing sound's name on one line, shortened in the middle like a tile's, so that the
    end that tells "Level 1" from "Level 5" stays."""
    return shorten(name, PLAYING_COLUMNS, 1)


def folder_name(cat: Catalog, folder: Folder, shelf: Shelf) -> str:
    if folder.key == FAVOURITES:
        return cat.t("grid.favourites")
    if folder.key == RECENT:
        return cat.t("grid.recent")
    if folder.key == MOST_PLAYED:
        return cat.t("grid.most_played")
    if folder.category:
        return folder.category
    # Sounds loose in the sounds folder itself: it is named as the user named it.
    return shelf.library.root.name or cat.t("grid.all_sounds")


def title(cat: Catalog, view: View, shelf: Shelf) -> str:
    """Where the page is, without its page number: the folder, or what the search found."""
    if view.query:
        return cat.t("grid.search_page", query=view.query, count=view.found)
    if view.folder is not None:
        return folder_name(cat, view.folder, shelf)
    return cat.t("grid.all_sounds")


def counter(cat: Catalog, view: View) -> str:
    """The page within the folder or the search ("2 / 3"); empty when there is one page. The
    overlay shows it apart from the title, so a long title that is elided never hides it."""
    if view.pages <= 1:
        return ""
    return cat.t("grid.page_counter", page=view.page + 1, pages=view.pages)


def header(cat: Catalog, view: View, shelf: Shelf, columns: int | None = None) -> str:
    """The title and the counter on one line ("Memes · 2 / 3"), for a panel with no room of
    its own for the counter. With ``columns``, the title is shortened in the middle so that the
    line fits them and the counter after a long folder name stays whole (the place toast)."""
    name = title(cat, view, shelf)
    count = counter(cat, view)
    if columns is not None:
        room = max(columns - len(count) - 3, 4) if count else columns
        name = shorten(name, room, 1)
    if not count:
        return name
    return cat.t("grid.page_of", name=name, page=view.page + 1, pages=view.pages)


def folder_rows(cat: Catalog, shelf: Shelf, current: str) -> list[tuple[str, str]]:
    """(key, name) of each folder, favourites first; at most MAX_FOLDERS, around ``current``."""
    folders = shelf.folders
    start = 0
    if len(folders) > MAX_FOLDERS:
        at = shelf.find(current) or 0
        start = min(max(0, at - MAX_FOLDERS // 2), len(folders) - MAX_FOLDERS)
    return [(f.key, folder_name(cat, f, shelf)) for f in folders[start : start + MAX_FOLDERS]]


def folder_index(rows: list[tuple[str, str]], current: str) -> int:
    """Where the current folder is in the strip's rows; -1 when it is not there (a search)."""
    return next((i for i, (key, _) in enumerate(rows) if key == current), -1)


def place_values(
    cat: Catalog, view: View, shelf: Shelf, folder_key: str, *, counter_apart: bool = False
) -> dict[str, Any]:
    """The header, the paging position and the folder list, as one panel's props (named as
    the overlay names them). ``counter_apart``: the panel shows the page counter on its own
    (`page-counter`) and scrolls its strip to the current folder (`folder-index`)."""
    rows = folder_rows(cat, shelf, folder_key)
    shown = "" if view.query else folder_key
    values: dict[str, Any] = {
        "page-name": header(cat, view, shelf),
        "page-index": view.position,
        "page-count": view.positions,
        "folders": rows,
        "folder-key": shown,
    }
    if counter_apart:
        values["page-name"] = title(cat, view, shelf)
        values["page-counter"] = counter(cat, view)
        values["folder-index"] = folder_index(rows, shown)
    return values
