"""Where each panel is in the library: a folder and a page of it, or a search and a page of
its hits.

The overlay and the dash-tab each have a :class:`Browser`, so a search typed in one never turns
the other into its results. A browser keeps its folder and page while it searches: clearing the
search goes back there, not to page 1.

The :class:`Shelf` is the library as places to go: the favourites first, then "Recent" and "Most
played" (:mod:`.played`; each only when it has sounds), then every folder in the library's
order, each split into pages of :data:`PAGE_SIZE`. Paging runs through a folder's pages, then on
into the next folder, and wraps at the end, the same for the ‹ › buttons and for the
``page-next``/``page-prev`` commands. Search is one flat list ranked
by :mod:`.search`, paged the same way.

The controller also steps along the strip itself: one place, :data:`FOLDER_JUMP` places, or to
the favourites and back, each landing on a place's first page; that is what keeps any sound of a
large library a few presses away (tests/cueboard/core/test_reach.py counts them).
"""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

from cueboard.core.library import Library, Sound, natural_key

from .ordering import OrderOf, ordered
from .search import PAGE_SIZE, Index, entries_of, page_count, search

__all__ = [
    "FAVOURITES",
    "FOLDER_JUMP",
    "FOLDER_KEY",
    "MOST_PLAYED",
    "RECENT",
    "Browser",
    "Folder",
    "Shelf",
    "View",
]

FAVOURITES = "*"  # the favourites' folder key; a library folder's is "c:" + its path
RECENT = "*recent"  # the last sounds played, newest first
MOST_PLAYED = "*most"  # the sounds played most
HEAD = (FAVOURITES, RECENT, MOST_PLAYED)  # the places before the library's folders
FOLDER_KEY = "c:"  # a library folder's key is this and its path
_HITS_KEPT = 4  # one query per panel, and a little room
FOLDER_JUMP = 5  # places a jump skips: about the square root of a 40-folder strip


@dataclass(frozen=True, slots=True)
class Folder:
    key: str
    category: str | None  # its path in the library; None for the places of HEAD
    sounds: tuple[Sound, ...]

    @property
    def pages(self) -> int:
        return page_count(len(self.sounds))


class Shelf:
    """The library's places and its search index. Rebuilt when the library changes; told when
    the favourites do (:meth:`set_favourites`)."""

    def __init__(self, library: Library | None = None, order_of: OrderOf | None = None) -> None:
        self.library = library if library is not None else Library(Path("."))
        self._groups: dict[str, list[Sound]] = {}
        for s in self.library.sounds:
            self._groups.setdefault(s.category, []).append(s)
        self._order_of: OrderOf = order_of or (lambda rel: None)
        self._categories = tuple(
            Folder(FOLDER_KEY + c, c, ordered(g, self._order_of)) for c, g in self._groups.items()
        )
        self._index: Index | None = None
        self._hits: dict[str, list[Sound]] = {}
        self._favourites: tuple[str, ...] = ()
        self._played: tuple[tuple[Sound, ...], tuple[Sound, ...]] = ((), ())
        self.folders: tuple[Folder, ...] = ()
        self._starts: list[int] = []
        self._place(())

    def scanned(self, category: str) -> Sequence[Sound]:
        """A folder's sounds in the scan's order (what :mod:`.ordering` counts from)."""
        return self._groups.get(category, ())

    def reorder(self, category: str) -> None:
        """A sound of ``category`` moved: sort that folder again (the search index stays)."""
        folders = list(self._categories)
        for i, folder in enumerate(folders):
            if folder.category == category:
                folders[i] = Folder(
                    folder.key, category, ordered(self.scanned(category), self._order_of)
                )
        self._categories = tuple(folders)
        favourites = [self.library.by_path[r] for r in self._favourites]
        self._place(favourites)

    def set_favourites(self, rels: Iterable[str]) -> None:
        by_path = self.library.by_path
        found = [by_path[r] for r in rels if r in by_path]
        found.sort(key=lambda s: (natural_key(s.name), s.rel_path))
        if tuple(s.rel_path for s in found) != self._favourites:
            self._place(found)

    def set_played(self, recent: Iterable[str], most: Iterable[str]) -> None:
        """The Recent and Most played places (rel paths in their order; a sound no longer in
        the library is left out)."""
        by_path = self.library.by_path
        played = (
            tuple(by_path[r] for r in recent if r in by_path),
            tuple(by_path[r] for r in most if r in by_path),
        )
        if played != self._played:
            self._played = played
            self._place([by_path[r] for r in self._favourites])

    def _place(self, favourites: Sequence[Sound]) -> None:
        self._favourites = tuple(s.rel_path for s in favourites)
        recent, most = self._played
        places = ((FAVOURITES, tuple(favourites)), (RECENT, recent), (MOST_PLAYED, most))
        head = tuple(Folder(key, None, sounds) for key, sounds in places if sounds)
        self.folders = head + self._categories
        self._starts = []
        total = 0
        for folder in self.folders:
            self._starts.append(total)
            total += folder.pages
        self.positions = max(1, total)

    @property
    def first(self) -> int:
        """Where a browser starts: the library's first folder, after the favourites, Recent and
        Most played (or the first of those when the library has no folder)."""
        return next((i for i, f in enumerate(self.folders) if f.key not in HEAD), 0)

    def find(self, key: str) -> int | None:
        return next((i for i, f in enumerate(self.folders) if f.key == key), None)

    def start(self, folder: int) -> int:
        """The position of a folder's first page in the paging order."""
        return self._starts[folder] if self._starts else 0

    def locate(self, position: int) -> tuple[int, int]:
        """(folder, page within it) of a position in the paging order."""
        folder = max(0, bisect_right(self._starts, position) - 1)
        return folder, position - self.start(folder)

    def search(self, query: str) -> list[Sound]:
        """Ranked hits, kept for the last few queries (a press on a result looks it up)."""
        hits = self._hits.get(query)
        if hits is None:
            if self._index is None:
                self._index = Index.of(entries_of(self.library.sounds))
            by_path = self.library.by_path
            hits = [by_path[h.key] for h in search(query, self._index)]
            if len(self._hits) >= _HITS_KEPT:
                self._hits.pop(next(iter(self._hits)))
            self._hits[query] = hits
        return hits


@dataclass(frozen=True, slots=True)
class View:
    """What a browser shows: a page of sounds and where it is."""

    sounds: Sequence[Sound]
    folder: Folder | None  # None while searching, or with no sounds at all
    query: str  # "" unless searching
    found: int  # hits of the query
    page: int  # 0-based, within the folder or the hits
    pages: int  # of the folder or the hits, at least 1
    position: int  # in the paging order the ‹ › buttons run through
    positions: int  # at least 1


@dataclass
class Browser:
    """One panel's place: a folder key and a page of it, and the search it may be in."""

    folder: str = ""  # "" or a key no longer there: the library's first folder
    page: int = 0
    query: str = ""
    hit_page: int = 0
    left: tuple[str, int] | None = None  # where open-favourites came from, while they show

    def where(self, shelf: Shelf) -> tuple[int, int]:
        """(folder, page) shown, each kept in range; a folder that went away gives the first."""
        index = shelf.find(self.folder)
        if index is None:  # the library's first folder; the favourites are a press away
            index, self.page = shelf.first, 0
            self.folder = shelf.folders[index].key if shelf.folders else ""
        if shelf.folders:
            self.page = min(max(self.page, 0), shelf.folders[index].pages - 1)
        return index, self.page

    def view(self, shelf: Shelf) -> View:
        if self.query:
            hits = shelf.search(self.query)
            pages = page_count(len(hits))
            self.hit_page %= pages
            shown = hits[self.hit_page * PAGE_SIZE : (self.hit_page + 1) * PAGE_SIZE]
            page = self.hit_page
            return View(shown, None, self.query, len(hits), page, pages, page, pages)
        index, page = self.where(shelf)
        if not shelf.folders:
            return View((), None, "", 0, 0, 1, 0, 1)
        folder = shelf.folders[index]
        shown = folder.sounds[page * PAGE_SIZE : (page + 1) * PAGE_SIZE]
        position = shelf.start(index) + page
        return View(shown, folder, "", 0, page, folder.pages, position, shelf.positions)

    def turn(self, shelf: Shelf, delta: int) -> None:
        """The next (or previous) page, into the next folder after a folder's last, wrapping."""
        if self.query:
            self.hit_page = (self.hit_page + delta) % page_count(len(shelf.search(self.query)))
            return
        if not shelf.folders:
            return
        index, page = self.where(shelf)
        index, self.page = shelf.locate((shelf.start(index) + page + delta) % shelf.positions)
        self.folder = shelf.folders[index].key
        if self.folder != FAVOURITES:
            self.left = None

    def open(self, shelf: Shelf, key: str) -> bool:
        """Go to a folder's first page (ending a search); False for a folder not there."""
        if shelf.find(key) is None:
            return False
        self.folder, self.page, self.query, self.hit_page = key, 0, "", 0
        if key != FAVOURITES:
            self.left = None  # the way back is kept only while the favourites show
        return True

    def search(self, query: str) -> None:
        """Search (its first page), or with an empty query go back to the folder page."""
        query = query.strip()
        if query != self.query:
            self.query, self.hit_page = query, 0

    def step(self, shelf: Shelf, delta: int) -> bool:
        """``delta`` places along the strip (the favourites first), at that place's first page,
        wrapping. A search ends, counting from the folder it was started in. False with no
        folder at all."""
        if not shelf.folders:
            return False
        index, _ = self.where(shelf)
        return self.open(shelf, shelf.folders[(index + delta) % len(shelf.folders)].key)

    def toggle_favourites(self, shelf: Shelf) -> bool:
        """The favourites' first page; on them already, back to the page they were opened from.
        False when there are no favourites."""
        if shelf.find(FAVOURITES) is None:
            return False
        index, page = self.where(shelf)
        if self.folder == FAVOURITES and not self.query:
            first = (shelf.folders[shelf.first].key, 0)
            key, page = self.left if self.left is not None else first
            self.left = None
            if not self.open(shelf, key):  # that folder went away
                key, page = first
                self.open(shelf, key)
            self.page = page  # kept in range by where()
            return True
        if self.folder != FAVOURITES:  # from a search over them, the way back stays
            self.left = (shelf.folders[index].key, page)
        self.open(shelf, FAVOURITES)
        return True
