"""The library scan: a folder read into a :class:`~cueboard.core.library.Library`, synchronous
(run it off the loop).

A file is a sound when its extension says so; one whose first bytes disagree (a renamed text
file) or that cannot be read is listed with its ``problem`` and never loaded; files over 256 MiB
are listed as too large and never loaded (AUD-15). An image or clip with the same stem beside a
sound is its icon. A subfolder with no sound in or below it is listed apart, for the dash-tab
to say what to put in it.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path, PurePosixPath

from cueboard.core.library import (
    ICON_EXTENSIONS,
    MAX_SOUND_BYTES,
    SOUND_EXTENSIONS,
    Library,
    Sound,
    natural_key,
)


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
    others: dict[str, int] = {}  # every subfolder: how many files it holds
    if not root.is_dir():
        return Library(root)
    for folder, files in _walk(root):
        rel_folder = PurePosixPath(Path(folder).relative_to(root).as_posix())
        category = "" if str(rel_folder) == "." else str(rel_folder)
        if category:
            others[category] = len(files)
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
    return Library(root, sounds, skipped, _empty_folders(others, set(categories)))


def _empty_folders(files: dict[str, int], categories: set[str]) -> list[tuple[str, int]]:
    """The subfolders with no sound in them or in a folder below, and how many files each holds
    (none of them a sound), in the folders' order."""
    full = set(categories)
    for category in categories:
        parts = category.split("/")
        full.update("/".join(parts[:n]) for n in range(1, len(parts)))
    empty = [(folder, count) for folder, count in files.items() if folder not in full]
    return sorted(empty, key=lambda e: natural_key(e[0]))
