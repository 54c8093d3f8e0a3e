"""The editor's preview: hear a sound as edited before friends do.

vrOS replaces a sound's playback when the same sound id plays again (AUD-22), so a preview
played under the soundboard's own id would cut a playback friends are hearing. A preview loads
the file again under a sound id of its own (the rendered file of an edited sound, the user's
file otherwise) and plays it on the soundboard channel alone, at the sound's own gain: never
into the mic. It is not one of the soundboard's plays: nothing is published on the bus, nothing
counted, nothing in now-playing. One preview id is kept at a time; previewing another sound,
or the same one edited since, unloads it first.
"""

from __future__ import annotations

from typing import Any

from vxp.models import audio
from vxp.prepared import prepare

from .effects import Effect, Log, Notice
from .loading import EARLY_KEPT, MIB, Board, on_audio_loaded
from .policy import Action
from .reasons import load_failed
from .render import SoundRendered, edit_of
from .tracker import Outcome, Tracker, notice_for

__all__ = ["Preview"]


class Preview:
    def __init__(self, tracker: Tracker, board: Board) -> None:
        self._tracker = tracker
        self._board = board
        self.rel: str | None = None  # the sound previewed
        self.path: str | None = None  # the file its preview id holds
        self.sound_id: str | None = None
        self.status = "idle"  # idle | rendering | loading | loaded
        self.early: dict[str, Any] = {}  # audio_loaded events that came before the reply

    def start(self, rel: str, now: float) -> list[Effect]:
        """The editor's Preview button."""
        board = self._board
        st = board.states.get(rel)
        if st is None:
            return []
        if not board.audio_granted:
            return [Notice("status.no_audio_grant")]
        if st.status in ("too_large", "unloadable"):
            return [load_failed(st.sound.name, st.code or "too_large")]
        source = board.library.root / rel
        edit = edit_of(board.prefs.get(rel))
        if edit is not None:
            rendered = board.renders.path_for(rel, edit, st.sound.fingerprint)
            if rendered is None:  # played once the render is in (on_rendered)
                out = self._unload(now) if self.rel != rel else []
                self.rel, self.status = rel, "rendering"
                cache_bytes = board.settings.render_cache_mb * MIB
                return out + list(
                    board.renders.ask(rel, source, edit, st.sound.fingerprint, cache_bytes)
                )
            source = rendered
        path = str(source)
        if self.rel == rel and self.path == path and self.status == "loaded":
            return self._play(now)
        out = self._unload(now)
        self.rel, self.path, self.status = rel, path, "loading"
        return out + self._tracker.request(
            now, "audio", audio.AudioLoad, expect=audio.AudioLoading, done=self._reply(path),
            user_asked=True, path=path, normalize=board.settings.normalize,
        )  # fmt: skip

    def on_rendered(self, item: SoundRendered, now: float) -> list[Effect]:
        """A render the preview waited for (the board has recorded it first)."""
        if self.status != "rendering" or item.rel != self.rel:
            return []
        self.status = "idle"
        if item.path is None:
            st = self._board.states.get(item.rel)
            return [] if st is None else [load_failed(st.sound.name, item.error or "")]
        return self.start(item.rel, now)

    def _reply(self, path: str) -> Any:
        def done(outcome: Outcome) -> list[Effect]:
            if self.path != path or self.status != "loading":
                if outcome.ok:  # a preview no longer wanted: its id goes at once
                    return self._unload_id(outcome.result.sound, outcome.now)
                return []
            if not outcome.ok:
                self.status, self.path = "idle", None
                return [] if outcome.reason is None else [notice_for(outcome, name=self._name())]
            sound_id: str = outcome.result.sound
            self.sound_id = sound_id
            early = self.early.pop(sound_id, None)
            self.early.clear()
            return [] if early is None else self._loaded(early, outcome.now)

        return done

    def on_audio_loaded(self, sound_id: str, outcome: Any, now: float) -> list[Effect]:
        """An ``audio_loaded``: the preview's own, or the soundboard's."""
        if sound_id == self.sound_id and self.status == "loading":
            return self._loaded(outcome, now)
        if self.status == "loading" and self.sound_id is None:  # its reply may name it yet
            self.early[sound_id] = outcome
            while len(self.early) > EARLY_KEPT:
                del self.early[next(iter(self.early))]
        return on_audio_loaded(self._board, sound_id, outcome, now)

    def _loaded(self, outcome: Any, now: float) -> list[Effect]:
        if isinstance(outcome, audio.Loaded):
            self.status = "loaded"
            return self._play(now)
        self.status, self.path, self.sound_id = "idle", None, None
        code = outcome.code if isinstance(outcome, audio.LoadFailed) else ""
        return [load_failed(self._name(), code)]

    def _play(self, now: float) -> list[Effect]:
        """The soundboard channel alone, at the sound's own gain; no bus message, no count."""
        board, sound_id, rel = self._board, self.sound_id, self.rel
        if sound_id is None or rel is None:
            return []
        gain = round(board.settings.soundboard_gain * board.prefs.get(rel).gain / 100)
        target = audio.PlayTarget(channel="soundboard", gain_pct=gain)
        play = prepare("audio", audio.AudioPlay(sound=sound_id, targets=[target], looping=False))

        def done(outcome: Outcome) -> list[Effect]:
            if outcome.ok:
                return [Log(20, f"preview {rel} -> soundboard {gain}%")]
            if outcome.action is Action.RELOAD and self.sound_id == sound_id:
                self.status, self.sound_id, self.path = "idle", None, None  # the host lost it
                return self.start(rel, outcome.now)
            if outcome.reason is None:
                return []
            return [notice_for(outcome, name=self._name())]

        return self._tracker.request(
            now, "audio", play, expect=audio.AudioOk, done=done, user_asked=True
        )

    def _unload(self, now: float) -> list[Effect]:
        sound_id, self.sound_id, self.path, self.status = self.sound_id, None, None, "idle"
        return [] if sound_id is None else self._unload_id(sound_id, now)

    def _unload_id(self, sound_id: str, now: float) -> list[Effect]:
        return self._tracker.request(
            now, "audio", audio.AudioUnload, expect=audio.AudioOk, sound=sound_id
        )

    def _name(self) -> str:
        st = self._board.states.get(self.rel or "")
        return st.sound.name if st is not None else ""

    def connection_lost(self) -> None:
        """A load in flight never reports; a loaded preview keeps its id (the host keeps its
        cache, and an ``unknown_sound`` loads it again)."""
        if self.status in ("loading", "rendering"):
            self.status, self.path, self.sound_id = "idle", None, None
        self.early.clear()
