"""The sound editor's work apart from its controls: edited sounds rendered and loaded as edited
(:mod:`.loading`, :mod:`.render`), and the preview (:mod:`.preview`), wired to the board."""

from __future__ import annotations

from functools import partial
from typing import Any

from .effects import Effect
from .loading import RENDER_WAIT, edit_changed, on_rendered, render_waited
from .pacing import WAKE as PACE_WAKE
from .preview import Preview
from .render import SoundRendered
from .soundboard import Soundboard
from .tracker import Tracker

__all__ = ["WAITS", "Editing", "SoundRendered"]

WAITS = (PACE_WAKE, RENDER_WAIT)  # the Wake keys of a press waiting: see Editing.waited


class Editing:
    def __init__(self, tracker: Tracker, board: Soundboard) -> None:
        self._board = board
        self.preview = Preview(tracker, board)
        board.prefs.edited = partial(edit_changed, board)  # an edit's change renders again

    def on_rendered(self, item: SoundRendered, now: float) -> list[Effect]:
        return on_rendered(self._board, item, now) + self.preview.on_rendered(item, now)

    def audio_loaded(self, sound_id: str, outcome: Any, now: float) -> list[Effect]:
        """An ``audio_loaded``: the preview's, or the soundboard's."""
        return self.preview.on_audio_loaded(sound_id, outcome, now)

    def waited(self, key: str, now: float) -> list[Effect]:
        """A press that waited for its sound: for its render (refused if still not in), or for
        its pace (:mod:`.pacing`)."""
        if key.startswith(RENDER_WAIT):
            return render_waited(self._board, key.removeprefix(RENDER_WAIT), now)
        return self._board.paced(key, now)
