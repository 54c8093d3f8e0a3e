"""The sound library as values: sounds, pages of :data:`SLOTS_PER_PAGE`, and their order.

Subfolders are categories; each category is split into pages of :data:`SLOTS_PER_PAGE`.
A sound that cannot be loaded (``problem``, ``too_large``) is still listed, so it shows as a
tile that cannot load instead of vanishing from the counts (AUD-15). The folder is read by
:mod:`cueboard.workers.scan`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

SLOTS_PER_PAGE = 12
MAX_SOUND_BYTES = 256 * 1024 * 1024
SOUND_EXTENSIONS = frozenset({".wav", ".wave", ".flac", ".ogg", ".oga", ".opus", ".mp3"})
ICON_EXTENSIONS = (".gif", ".png", ".apng", ".webp", ".jpg", ".jpeg", ".mp4", ".webm")
ROOT_CATEGORY = ""


@dataclass(frozen=True, slots=True)
class Sound:
    rel_path: str  # posix, relative to the library root: the stable identity of a sound
    name: str
    category: str
    size: int
    mtime_ns: int
    icon: str | None = None  # rel path of the icon, if any
    too_large: bool = False
    problem: str | None = None  # "not_audio" or "unreadable": listed, never loaded

    @property
    def fingerprint(self) -> tuple[int, int]:
        return (self.size, self.mtime_ns)


@dataclass(frozen=True, slots=True)
class Page:
    category: str
    number: int  # 1-based within its category
    of: int
    sounds: tuple[Sound, ...]


@dataclass
class Library:
    root: Path
    sounds: list[Sound] = field(default_factory=list[Sound])
    skipped: list[str] = field(
        default_factory=list[str]
    )  # files named like sounds that are not (listed in sounds too, with their problem)
    empty_folders: list[tuple[str, int]] = field(
        default_factory=list[tuple[str, int]]
    )  # folders with no sound in or below them: (rel path, how many other files they hold)

    def __post_init__(self) -> None:
        self.by_path = {s.rel_path: s for s in self.sounds}

    @property
    def categories(self) -> list[str]:
        seen: dict[str, None] = {}
        for s in self.sounds:
            seen.setdefault(s.category, None)
        return list(seen)

    def pages(self, sounds: list[Sound] | None = None) -> list[Page]:
        """Pages of 12, a category never sharing a page with another."""
        pool = self.sounds if sounds is None else sounds
        out: list[Page] = []
        groups: dict[str, list[Sound]] = {}
        for s in pool:
            groups.setdefault(s.category, []).append(s)
        for category, items in groups.items():
            count = max(1, -(-len(items) // SLOTS_PER_PAGE))
            for n in range(count):
                chunk = tuple(items[n * SLOTS_PER_PAGE : (n + 1) * SLOTS_PER_PAGE])
                out.append(Page(category, n + 1, count, chunk))
        return out

    def search(self, query: str) -> list[Sound]:
        """Case-insensitive match on every word, across the whole library."""
        words = query.casefold().split()
        if not words:
            return list(self.sounds)
        return [
            s for s in self.sounds if all(w in f"{s.category} {s.name}".casefold() for w in words)
        ]


_DIGITS = re.compile(r"(\d+)")


def natural_key(text: str) -> tuple[tuple[int, int | str], ...]:
    """``Sound 2`` before ``Sound 10``; case-insensitive."""
    parts: list[tuple[int, int | str]] = []
    for chunk in _DIGITS.split(text.casefold()):
        if not chunk:
            continue
        parts.append((0, int(chunk)) if chunk.isdigit() else (1, chunk))
    return tuple(parts)
