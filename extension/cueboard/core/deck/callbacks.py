"""The panel callbacks the deck answers: which of :class:`~.state.DeckCore`'s methods each
calls. The router (:mod:`cueboard.core.app`) routes them; this table only names them."""

from __future__ import annotations

__all__ = ["DECK_CALLBACKS"]

# The deck's callbacks: (method of the deck, the trailing arguments it takes by name). Their
# arguments may hold a URL: they go to the deck as they are, never into a log line.
DECK_CALLBACKS: dict[tuple[str, str], tuple[str, tuple[str, ...]]] = {
    ("overlay", "media-open"): ("open", ()),
    ("overlay", "media-reload"): ("reload", ()),
    ("overlay", "media-close"): ("close", ()),
    ("overlay", "media-retry"): ("retry", ()),
    ("overlay", "media-pause-all"): ("pause_all", ()),
    ("overlay", "media-set-paused"): ("set_options", ("paused",)),
    ("overlay", "media-set-volume"): ("set_options", ("volume_pct",)),
    ("overlay", "media-set-muted"): ("set_options", ("muted",)),
    ("dash-tab", "set-media-show-video"): ("set_defaults", ("show_video",)),
    ("dash-tab", "set-media-max-fps"): ("set_defaults", ("max_fps",)),
    ("dash-tab", "set-media-native-controls"): ("set_defaults", ("native_controls",)),
    ("dash-tab", "set-media-controls-on-player"): ("set_defaults", ("controls_on_player",)),
}
