"""The one table of panel callbacks: which feature's method each goes to.

Every handler takes the callback's arguments, then the clock. The deck's callbacks are named
by method in :data:`cueboard.core.deck.DECK_CALLBACKS` and reach it without the clock, which
the deck reads itself.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import partial

from .backup import Backup
from .controls import Controls
from .deck import DECK_CALLBACKS, DeckCore
from .editing import Editing
from .effects import Effect
from .folder import SoundsFolder
from .importing import Importer
from .panels import Handler
from .screen import Screen
from .soundboard import Soundboard

__all__ = ["panel_routes"]


def panel_routes(
    c: Controls,
    s: Screen,
    board: Soundboard,
    folder: SoundsFolder,
    editing: Editing,
    importer: Importer,
    backup: Backup,
    deck: DeckCore,
    *,
    import_link: Handler,
    changed: Callable[[], None],
) -> dict[tuple[str, str], Handler]:
    routes: dict[tuple[str, str], Handler] = {
        ("overlay", "play-sound"): c.press_tile,
        ("overlay", "set-favourite"): c.set_favourite,
        ("overlay", "open-folder"): c.open_folder,
        ("overlay", "stop-sound"): board.stop,
        ("overlay", "stop-all"): board.stop_all,
        ("overlay", "page-next"): partial(c.on_command, "page-next"),
        ("overlay", "page-prev"): partial(c.on_command, "page-prev"),
        ("overlay", "search-changed"): c.search,
        ("overlay", "set-soundboard-gain"): partial(c.write_gain, "soundboard_gain"),
        ("overlay", "set-mic-gain"): partial(c.write_gain, "mic_gain"),
        ("overlay", "set-mic-enabled"): partial(c.write_setting, "mic_enabled"),
        ("overlay", "dismiss-status"): s.dismiss,
        ("dash-tab", "dismiss-status"): s.dismiss,
        ("dash-tab", "library-search"): s.library_search,
        ("dash-tab", "library-page-next"): partial(s.library_turn, 1),
        ("dash-tab", "library-page-prev"): partial(s.library_turn, -1),
        ("dash-tab", "open-folder"): s.library_open,
        ("dash-tab", "select-sound"): s.select,
        ("dash-tab", "set-sound-favourite"): c.set_favourite,
        ("dash-tab", "rescan"): folder.rescan_pressed,
        ("dash-tab", "refresh-devices"): s.refresh_devices,
        ("dash-tab", "set-sound-gain"): c.set_gain,
        ("dash-tab", "set-sound-mode"): c.set_mode,
        ("dash-tab", "set-sound-mic-gain"): c.set_mic_gain,
        ("dash-tab", "set-sound-gains-linked"): c.link_gains,
        ("dash-tab", "preview-sound"): editing.preview.start,
        ("dash-tab", "move-sound"): c.move,
        **s.editor_routes(c),
        ("dash-tab", "import-link"): import_link,
        ("dash-tab", "import-cancel"): importer.cancel,
        ("dash-tab", "backup-export"): backup.export_pressed,
        ("dash-tab", "backup-import"): backup.restore_pressed,
    }

    def deck_call(method: str, named: tuple[str, ...], *args: object) -> list[Effect]:
        """A deck callback: its arguments (the clock last, which the deck does not take)."""
        args = args[:-1]
        positional = args[: len(args) - len(named)]
        options = dict(zip(named, args[len(args) - len(named) :], strict=True))
        changed()
        effects: list[Effect] = getattr(deck, method)(*positional, **options)
        return effects

    for route, (method, named) in DECK_CALLBACKS.items():  # the deck's, by method name
        routes[route] = partial(deck_call, method, named)
    return routes
