"""The sound library: a folder scanned into pages, pure and synchronous (run it off the loop).

Subfolders are categories; each category is split into pages of :data:`SLOTS_PER_PAGE`.
A file is a sound when its extension says so; one whose first bytes disagree (a renamed text
file) or that cannot be read is listed with its ``problem`` and never loaded, so it shows as a
tile that cannot load instead of vanishing from the counts; files over 256 MiB are listed as too
large and never loaded (AUD-15).
An image or clip with the same stem beside a sound is its icon.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath

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


def sniff_sound(head: bytes) -> bool:
    """The first bytes of a wav, flac, ogg/opus or mp3 file."""
    if head[:4] == b"RIFF" and head[8:12] == b"WAVE":
        return True
    if head[:4] in (b"fLaC", b"OggS") or head[:3] == b"ID3":
        return True
    return len(head) >= 2 and head[0] == 0xFF and (head[1] & 0xE0) == 0xE0  # MPEG frame sync


def _walk(root: Path) -> Iterator[tuple[str, list[os.DirEntry[str]]]]:
    stack = [root]
    while stack:
        folder = stack.pop()
        try:
            entries = sorted(os.scandir(folder), key=lambda e: natural_key(e.name))
        except OSError:
            continue
        files = [e for e in entries if not e.name.startswith(".") and e.is_file()]
        yield str(folder), files
        stack.extend(
            Path(e.path)
            for e in reversed(entries)
            if not e.name.startswith(".") and e.is_dir(follow_symlinks=False)
        )


def scan(root: Path) -> Library:
    """Scan ``root`` recursively. A missing folder is an empty library, not an error."""
    sounds: list[Sound] = []
    skipped: list[str] = []
    if not root.is_dir():
        return Library(root)
    for folder, files in _walk(root):
        rel_folder = PurePosixPath(Path(folder).relative_to(root).as_posix())
        category = "" if str(rel_folder) == "." else str(rel_folder)
        icons: dict[str, str] = {}
        for e in files:
            stem, ext = os.path.splitext(e.name)
            if ext.lower() in ICON_EXTENSIONS:
                icons.setdefault(stem.casefold(), e.name)
        for e in files:
            stem, ext = os.path.splitext(e.name)
            if ext.lower() not in SOUND_EXTENSIONS:
                continue
            rel = e.name if not category else f"{category}/{e.name}"
            problem: str | None = None
            size = mtime_ns = 0
            try:
                st = e.stat()
                size, mtime_ns = st.st_size, st.st_mtime_ns
                with open(e.path, "rb") as f:
                    head = f.read(12)
                if not sniff_sound(head):
                    problem = "not_audio"
            except OSError:
                problem = "unreadable"
            if problem is not None:
                skipped.append(rel)
            icon = icons.get(stem.casefold())
            sounds.append(
                Sound(
                    rel_path=rel,
                    name=stem,
                    category=category,
                    size=size,
                    mtime_ns=mtime_ns,
                    icon=(icon if not category else f"{category}/{icon}") if icon else None,
                    too_large=size > MAX_SOUND_BYTES,
                    problem=problem,
                )
            )
    categories = {c: natural_key(c) for c in {s.category for s in sounds}}  # a few, many sounds
    sounds.sort(key=lambda s: (categories[s.category], natural_key(s.name)))
    return Library(root, sounds, skipped)
