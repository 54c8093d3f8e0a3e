"""The dash-tab's editor of one sound, and its library tools: gains, play mode, place in the
folder, import from a link, backup and restore."""

from __future__ import annotations

from typing import TYPE_CHECKING

from . import backup
from .effects import Effect
from .prefs import MODES

if TYPE_CHECKING:
    from .app import CueboardCore

__all__ = ["pct", "register"]


def pct(value: int) -> int:
    """A gain from a panel, kept within the protocol's 0-100."""
    return min(100, max(0, value))


def register(core: CueboardCore) -> None:
    on = core.panel_events.on
    board = core.board

    def update(key: str, **changes: object) -> list[Effect]:
        """A change to one sound's preferences, when it is still in the library."""
        if key not in board.states:
            return []
        core.changed()
        return core.prefs.update(key, core.now, **changes)

    @on("dash-tab", "set-sound-gain")
    def set_gain(key: str, value: int) -> list[Effect]:
        return update(key, gain=pct(value))

    @on("dash-tab", "set-sound-mode")
    def set_mode(key: str, mode: int) -> list[Effect]:
        if not 0 <= mode <= len(MODES):
            return []
        return update(key, mode=MODES[mode - 1] if mode else None)

    @on("dash-tab", "set-sound-mic-gain")
    def set_sound_mic_gain(key: str, value: int) -> list[Effect]:
        return update(key, mic_gain=pct(value))

    @on("dash-tab", "set-sound-gains-linked")
    def set_linked(key: str, linked: bool) -> list[Effect]:
        return update(key, mic_gain=None if linked else core.prefs.get(key).gain)

    @on("dash-tab", "move-sound")
    def move_sound(key: str, position: int) -> list[Effect]:
        core.changed()
        return board.move(key, position - 1, core.now) + core.load_ahead(core.now)

    @on("dash-tab", "import-link")
    def import_link(link: str) -> list[Effect]:
        folder = core.dash.view(board.shelf).folder
        category = folder.category if folder is not None and folder.category else ""
        return core.importer.start(core, link, category)

    @on("dash-tab", "import-cancel")
    def import_cancel() -> list[Effect]:
        return core.importer.cancel(core)

    @on("dash-tab", "backup-export")
    def backup_export() -> list[Effect]:
        return backup.export_board(core)

    @on("dash-tab", "backup-import")
    def backup_import() -> list[Effect]:
        return backup.import_board(core)
