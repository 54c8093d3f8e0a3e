"""One flat, ranked search over the library, so that a few hits fill one page in a useful order.

Results are not grouped by folder: a query with two hits shows two tiles on one page, the best
first. A sound's rank says how well its name answers the query:

0. the name starts with the query ("boss" finds "Boss fight");
1. a word of the name starts with it ("boss" finds "Final boss");
2. the name holds it elsewhere ("oss");
3. its folder's name holds the whole phrase from the start of a word ("category 33" finds every
   sound in "Category 33"): a user who types a folder's name wants that folder, not the sounds
   elsewhere that happen to hold each of its words;
4. the name holds each of its words, apart ("boss final");
5. only with its folder does it hold every word ("memes fight", "category 33" for "Sound 0033"
   in "Category 12"), or the folder holds the phrase inside a word.

Both sides are folded before they are compared: NFKC (so full-width "ｂｏｓｓ" and half-width
katakana match their usual forms), case folding, and katakana to hiragana, so "はくしゅ" finds
"ハクシュ". Kana and kanji have no spaces, so in Japanese names a substring is what matches.
Within a rank, hits keep one stable order: by name (numbers in their natural order), then path.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Protocol

__all__ = [
    "PAGE_SIZE",
    "Entry",
    "Hit",
    "Index",
    "Rank",
    "entries_of",
    "fold",
    "page",
    "page_count",
    "rank",
    "search",
]

PAGE_SIZE = 12  # the overlay's 4 x 3 grid

# Ranks, best first.
type Rank = int
NAME_PREFIX: Rank = 0
WORD_START: Rank = 1
SUBSTRING: Rank = 2
FOLDER_PHRASE: Rank = 3
WORDS: Rank = 4
FOLDER: Rank = 5

_KATAKANA_FIRST, _KATAKANA_LAST = 0x30A1, 0x30F6  # ァ … ヶ, each 0x60 above its hiragana
_TO_HIRAGANA = {cp: cp - 0x60 for cp in range(_KATAKANA_FIRST, _KATAKANA_LAST + 1)}
_SPACES = re.compile(r"\s+")
_DIGITS = re.compile(r"(\d+)")


class SoundLike(Protocol):
    """What search reads from the library's ``Sound``: its key, its name and its folder."""

    @property
    def rel_path(self) -> str: ...
    @property
    def name(self) -> str: ...
    @property
    def category(self) -> str: ...


@dataclass(frozen=True, slots=True)
class Entry:
    """A searchable sound: ``key`` is what a hit returns (the sound's rel_path)."""

    key: str
    name: str
    folder: str


@dataclass(frozen=True, slots=True)
class Hit:
    key: str
    rank: Rank


def entries_of(sounds: Iterable[SoundLike]) -> list[Entry]:
    return [Entry(s.rel_path, s.name, s.category) for s in sounds]


def fold(text: str) -> str:
    """The form both a query and a name take before they are compared."""
    text = unicodedata.normalize("NFKC", text)
    text = unicodedata.normalize("NFKC", text.casefold()).translate(_TO_HIRAGANA)
    return _SPACES.sub(" ", text).strip()


def _word_starts(folded: str, query: str) -> bool:
    start = folded.find(query)
    while start != -1:
        if start == 0 or not folded[start - 1].isalnum():
            return True
        start = folded.find(query, start + 1)
    return False


def _rank(query: str, words: list[str], name: str, folder: str) -> Rank | None:
    if name.startswith(query):
        return NAME_PREFIX
    if _word_starts(name, query):
        return WORD_START
    if query in name:
        return SUBSTRING
    if _word_starts(folder, query):
        return FOLDER_PHRASE
    if all(w in name for w in words):
        return WORDS
    if query in folder or all(w in name or w in folder for w in words):
        return FOLDER
    return None


def rank(query: str, name: str, folder: str) -> Rank | None:
    """How well a sound answers ``query``; None for no match (and for an empty query)."""
    q = fold(query)
    return _rank(q, q.split(" "), fold(name), fold(folder)) if q else None


def _natural(folded: str) -> tuple[tuple[int, int | str], ...]:
    return tuple(
        (0, int(part)) if part.isdigit() else (1, part) for part in _DIGITS.split(folded) if part
    )


@dataclass(frozen=True, slots=True)
class _Folded:
    key: str
    name: str
    folder: str
    order: tuple[tuple[tuple[int, int | str], ...], str]


@dataclass(frozen=True, slots=True)
class Index:
    """The library folded once, so that a keystroke only compares strings. Rebuild it when the
    library changes (a scan, a rename); it holds no reference to the sounds themselves."""

    items: tuple[_Folded, ...]

    @classmethod
    def of(cls, entries: Iterable[Entry]) -> Index:
        folded: list[_Folded] = []
        for e in entries:
            name = fold(e.name)
            folded.append(_Folded(e.key, name, fold(e.folder), (_natural(name), e.key)))
        return cls(tuple(folded))


def search(query: str, entries: Index | Iterable[Entry]) -> list[Hit]:
    """Every entry that matches, best rank first; an empty query matches nothing.

    (What the panel shows for an empty query is the folder the user was on, not a search.)
    Pass an :class:`Index` when searching the same library again and again.
    """
    q = fold(query)
    if not q:
        return []
    words = q.split(" ")
    index = entries if isinstance(entries, Index) else Index.of(entries)
    scored: list[tuple[Rank, tuple[tuple[tuple[int, int | str], ...], str]]] = []
    for item in index.items:
        r = _rank(q, words, item.name, item.folder)
        if r is not None:
            scored.append((r, item.order))
    scored.sort()
    return [Hit(order[1], r) for r, order in scored]


def page_count(total: int, size: int = PAGE_SIZE) -> int:
    """Pages needed for ``total`` hits; at least one, so an empty result still has a page."""
    return max(1, -(-total // size))


def page[T](items: Sequence[T], index: int, size: int = PAGE_SIZE) -> Sequence[T]:
    """The ``index``-th (0-based) page of ``items``, wrapping like the page buttons do."""
    index %= page_count(len(items), size)
    return items[index * size : (index + 1) * size]
