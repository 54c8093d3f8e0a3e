"""How a panel names where it is: the header over its page, its folder list, its tile names.

Pure functions from a :class:`~.browse.View` and the :class:`~.browse.Shelf` to prop values.
A header says the folder and the page within it ("Memes · 2 / 3") or what a search found
("“boss”: 2 found"), never a page number across the whole library.
"""

from __future__ import annotations

from typing import Any

from cueboard.core.contract import MAX_FOLDERS
from cueboard.core.i18n import Catalog

from .browse import FAVOURITES, Folder, Shelf, View
from .names import shorten

__all__ = ["MAX_FOLDERS", "TILE_COLUMNS", "folder_name", "folder_rows", "header", "tile_name"]

TILE_COLUMNS = 14  # what one line of a tile holds at the overlay's preferred size


def tile_name(name: str) -> str:
    """A name on a tile's two lines, its end kept ("Hype Train\\nLev…remix 5")."""
    return shorten(name, TILE_COLUMNS, 2)


def folder_name(cat: Catalog, folder: Folder, shelf: Shelf) -> str:
    if folder.key == FAVOURITES:
        return cat.t("grid.favourites")
    if folder.category:
        return folder.category
    # Sounds loose in the sounds folder itself: it is named as the user named it.
    return shelf.library.root.name or cat.t("grid.all_sounds")


def header(cat: Catalog, view: View, shelf: Shelf) -> str:
    if view.query:
        text = cat.t("grid.search_page", query=view.query, count=view.found)
    elif view.folder is not None:
        text = folder_name(cat, view.folder, shelf)
    else:
        text = cat.t("grid.all_sounds")
    if view.pages > 1:
        text = cat.t("grid.page_of", name=text, page=view.page + 1, pages=view.pages)
    return text


def folder_rows(cat: Catalog, shelf: Shelf, current: str) -> list[tuple[str, str]]:
    """(key, name) of each folder, favourites first; at most MAX_FOLDERS, around ``current``."""
    folders = shelf.folders
    start = 0
    if len(folders) > MAX_FOLDERS:
        at = shelf.find(current) or 0
        start = min(max(0, at - MAX_FOLDERS // 2), len(folders) - MAX_FOLDERS)
    return [(f.key, folder_name(cat, f, shelf)) for f in folders[start : start + MAX_FOLDERS]]


def place_values(cat: Catalog, view: View, shelf: Shelf, folder_key: str) -> dict[str, Any]:
    """The header, the paging position and the folder list, as one panel's props (named as
    the overlay names them)."""
    return {
        "page-name": header(cat, view, shelf),
        "page-index": view.position,
        "page-count": view.positions,
        "folders": folder_rows(cat, shelf, folder_key),
        "folder-key": "" if view.query else folder_key,
    }
