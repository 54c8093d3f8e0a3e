"""Edited sounds: what a sound's trim and fades ask of the renderer, and which rendered file
stands in for the user's file.

A sound whose trim or fades differ from the defaults is never loaded from the user's file: a
worker renders it (:class:`RenderSound`, carried out by the runtime, which keys its cache by
the source's size, modification time and a hash of its content) and reports the rendered file
(:class:`SoundRendered`); that file is what ``audio.load`` gets. The core keeps only which
rendered file stands for which (sound, edit, source fingerprint): no file, no clock here.

A sound in loop mode is rendered with its seam crossfaded (the worker's), so its end runs into
its start without a click whatever its fades: the loop flag is part of the edit.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from .records import SoundPrefs

__all__ = [
    "DropRenders", "Edit", "RenderSound", "Renders", "SoundRendered", "TouchRender", "edit_of",
]  # fmt: skip


@dataclass(frozen=True, slots=True)
class Edit:
    """What the renderer does to a sound (milliseconds; ``end_ms`` None: the sound's end)."""

    start_ms: int = 0
    end_ms: int | None = None
    fade_in_ms: int = 0
    fade_out_ms: int = 0
    loop: bool = False

    def token(self) -> str:
        """The edit in a file name's characters (part of the cache's key)."""
        end = "e" if self.end_ms is None else str(self.end_ms)
        loop = "l" if self.loop else "o"
        return f"{self.start_ms}-{end}-{self.fade_in_ms}-{self.fade_out_ms}-{loop}"


def edit_of(prefs: SoundPrefs) -> Edit | None:
    """The sound's edit, or None when it plays whole as the user's file is."""
    if (
        prefs.trim_start_ms == 0
        and prefs.trim_end_ms is None
        and prefs.fade_in_ms == 0
        and prefs.fade_out_ms == 0
    ):
        return None
    return Edit(
        prefs.trim_start_ms, prefs.trim_end_ms, prefs.fade_in_ms, prefs.fade_out_ms,
        loop=prefs.mode == "loop",
    )  # fmt: skip


# -- what the core asks, what the runtime reports -------------------------------------------


@dataclass(frozen=True, slots=True)
class RenderSound:
    """Render ``source`` as ``edit`` into the render cache (bounded to ``cache_bytes``, the
    least recently used evicted first); report :class:`SoundRendered`."""

    rel: str
    source: Path
    edit: Edit
    fingerprint: tuple[int, int]
    cache_bytes: int


@dataclass(frozen=True, slots=True)
class DropRenders:
    """Remove every rendered file of this sound (its edit was reset)."""

    rel: str


@dataclass(frozen=True, slots=True)
class TouchRender:
    """This rendered file was played: the last to evict."""

    path: Path


@dataclass(frozen=True, slots=True)
class SoundRendered:
    """The rendered file for ``rel`` as ``edit``, or why there is none (``error``: a reason
    code, ``render_failed`` or ``too_large``)."""

    rel: str
    edit: Edit
    fingerprint: tuple[int, int]
    path: Path | None
    error: str | None = None


# -- the core's record of renders -------------------------------------------------------------


class Renders:
    """Which rendered file stands for which sound, and the renders asked for and not in."""

    def __init__(self) -> None:
        self.ready: dict[str, tuple[Edit, tuple[int, int], Path]] = {}
        self.asked: dict[str, tuple[Edit, tuple[int, int]]] = {}

    def path_for(self, rel: str, edit: Edit, fingerprint: tuple[int, int]) -> Path | None:
        known = self.ready.get(rel)
        if known is None or known[0] != edit or known[1] != fingerprint:
            return None
        return known[2]

    def ask(
        self, rel: str, source: Path, edit: Edit, fingerprint: tuple[int, int], cache_bytes: int
    ) -> list[RenderSound]:
        """A render job, unless the same one is already asked for."""
        if self.asked.get(rel) == (edit, fingerprint):
            return []
        self.asked[rel] = (edit, fingerprint)
        return [RenderSound(rel, source, edit, fingerprint, cache_bytes)]

    def done(self, item: SoundRendered) -> bool:
        """Record a report; False when it answers a render no longer wanted."""
        if self.asked.get(item.rel) != (item.edit, item.fingerprint):
            return False
        del self.asked[item.rel]
        if item.path is not None:
            self.ready[item.rel] = (item.edit, item.fingerprint, item.path)
        return True

    def played(self, rel: str, edit: Edit | None) -> list[TouchRender]:
        """A play of the sound: its rendered file, if it played one, is the last to evict."""
        known = self.ready.get(rel)
        return [] if known is None or edit is None else [TouchRender(known[2])]

    def reset(self, rel: str) -> list[DropRenders]:
        """The sound plays whole again: its renders go."""
        self.asked.pop(rel, None)
        self.ready.pop(rel, None)
        return [DropRenders(rel)]

    def connection_lost(self) -> None:
        """A job's report goes to the connection that asked: ask again on the next one."""
        self.asked.clear()
