"""The sounds folder: which one, its scans, and what is loaded ahead once one is in.

A feature object; its context is the soundboard and the icons it fills, the connection's
facts, where the default folder lives, and what to do once a scan is in (the import's next
step) as a callable.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from pathlib import Path

from .effects import Effect, Log, Scan, Watch
from .icons import IconsModel
from .inputs import Scanned, default_sounds_folder
from .link import HostLink
from .soundboard import Soundboard

__all__ = ["SoundsFolder"]


class SoundsFolder:
    def __init__(
        self,
        board: Soundboard,
        icons: IconsModel,
        link: HostLink,
        data_home: Path,
        *,
        after_scan: Callable[[float], list[Effect]],
        changed: Callable[[], None],
    ) -> None:
        self._board = board
        self._icons = icons
        self._link = link
        self._data_home = data_home
        self._after_scan = after_scan
        self._changed = changed
        self.scanned_root: Path | None = None  # the folder the library was last scanned from
        self._held: Scanned | None = None  # a scan in before the stored order

    def path(self) -> Path:
        configured = self._board.settings.sounds_folder
        if configured:
            return Path(configured)
        return default_sounds_folder(self._link.content_root, self._data_home)

    def rescan(self, reason: str) -> list[Effect]:
        folder = self.path()
        if folder != self.scanned_root:  # a folder not scanned yet: the grid says so
            self._board.scanning = str(folder)
            self._changed()
        return [Scan(folder, reason)]

    def rescan_pressed(self, now: float) -> list[Effect]:
        return self.rescan("dash-tab")

    def on_scanned(self, scanned: Scanned, now: float) -> list[Effect]:
        if self._board.prefs.loading:  # page 1 shows once, in the stored order: never reshuffled
            self._held = scanned
            return []
        library = scanned.library
        board = self._board
        out: list[Effect] = []
        if library.root != self.path():
            return []  # the folder setting changed meanwhile: its own scan follows
        if library.root != self.scanned_root:
            self.scanned_root = library.root
            out.append(Watch(library.root))
        board.scanning = None
        board.set_library(library)
        out.append(
            Log(
                logging.INFO,
                f"library ({scanned.reason}): {len(library.sounds)} sounds in "
                f"{len(library.categories)} categories from {library.root} in "
                f"{scanned.elapsed_ms:.0f} ms",
            )
        )
        # One message for a configured folder that is not there, in the grid (the watcher
        # notices it being created); a missing default folder is an empty library.
        configured = bool(board.settings.sounds_folder)
        missing = configured and not scanned.folder_exists
        board.folder_missing = str(library.root) if missing else None
        return out + self.load_ahead(now) + self._after_scan(now)

    def prefs_settled(self, now: float) -> list[Effect]:
        """The stored order is in (or its read failed): a scan held for it takes effect now."""
        held, self._held = self._held, None
        return [] if held is None else self.on_scanned(held, now)

    def load_ahead(self, now: float) -> list[Effect]:
        """The visible page changed (or the library): its icons and sounds come first."""
        out: list[Effect] = []
        if not self._link.connected:
            return out
        if self.scanned_root is not None:
            out += self._icons.want(self.scanned_root, self._board.visible_sounds(), now)
        return out + self._board.load_ahead(now)
