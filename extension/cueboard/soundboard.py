"""The soundboard: what is loaded, what plays, and the path from a press to ``audio.play``.

Theory of operation. Every sound of the library has a :class:`SoundState`. A sound is loaded
ahead when it is on the visible page or a favourite; any other loads on its first press. A press
on a loaded sound sends ``audio.play`` at once: a few dict look-ups and one write, nothing else
on that path (no scan, no decode, no kv). A press on a sound still loading is remembered and
played when its ``audio_loaded`` arrives, if that is within :data:`PLAY_ON_LOAD_S`; a press that
waits longer only shows the loading state. A sound is played only after the host reported it
``loaded`` (AUD-18). ``cache_full`` unloads the least recently played sound and retries once;
``unknown_sound`` (after a reconnect to a host that lost its cache, R21) reloads and plays once.
"""

from __future__ import annotations

import logging
import random
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .library import Library, Sound
from .prefs import PrefsStore
from .settings import Settings

if TYPE_CHECKING:
    import vxp

log = logging.getLogger("cueboard")

PLAY_ON_LOAD_S = 2.0
STATUS_RECONCILE_S = 1.0


@dataclass
class SoundState:
    sound: Sound
    sound_id: str | None = None
    status: str = "idle"  # idle | loading | loaded | failed | too_large
    code: str | None = None  # the host's failure code
    duration_ms: int | None = None
    fingerprint: tuple[int, int] | None = None  # of the file that was loaded
    press_at: float | None = None  # a press waiting for the load to finish
    retried_cache_full: bool = False
    last_played: float = 0.0


@dataclass
class Playing:
    rel_path: str
    started: float
    looping: bool
    channels: tuple[tuple[str, int], ...]
    ends: float | None  # monotonic time a one-shot should be over


@dataclass
class Status:
    key: str | None = None  # i18n key; None: nothing to show
    params: dict[str, Any] = field(default_factory=dict[str, Any])
    level: int = 0  # 0 info, 1 warn, 2 error
    render: Callable[[Any], str] | None = None  # when the text needs more than key + params


class Soundboard:
    def __init__(self, prefs: PrefsStore, *, on_change: Callable[[], None]) -> None:
        self.prefs = prefs
        self.settings = Settings()
        self.library = Library(Path("."))
        self.states: dict[str, SoundState] = {}
        self.by_id: dict[str, str] = {}  # host sound id -> rel path
        self.playing: dict[str, Playing] = {}
        self.status = Status()
        self.client: vxp.Client | None = None
        self.audio_granted = False
        self.page_index = 0
        self.query = ""
        self._on_change = on_change
        self.published: list[tuple[str, dict[str, Any]]] = []  # bus messages to publish
        self.plays_sent = 0

    # -- library ----------------------------------------------------------------------------

    def set_library(self, library: Library) -> list[str]:
        """Adopt a new scan; returns the rel paths whose file changed (to reload)."""
        changed: list[str] = []
        old = self.states
        self.states = {}
        for s in library.sounds:
            st = old.get(s.rel_path)
            if st is None:
                st = SoundState(s, status="too_large" if s.too_large else "idle")
            else:
                if st.fingerprint is not None and st.fingerprint != s.fingerprint:
                    changed.append(s.rel_path)
                st.sound = s
            self.states[s.rel_path] = st
        for rel, st in old.items():
            if rel not in self.states and st.sound_id is not None:
                self.by_id.pop(st.sound_id, None)
        self.library = library
        self.page_index = min(self.page_index, max(0, len(self.pages()) - 1))
        self._on_change()
        return changed

    def visible_sounds(self) -> list[Sound]:
        pages = self.pages()
        if not pages:
            return []
        return list(pages[self.page_index].sounds)

    def pages(self) -> list[Any]:
        if self.query:
            return self.library.pages(self.library.search(self.query))
        return self.library.pages()

    def turn_page(self, delta: int) -> None:
        count = len(self.pages())
        if count:
            self.page_index = (self.page_index + delta) % count
            self._on_change()

    def search(self, query: str) -> None:
        self.query = query.strip()
        self.page_index = 0
        self._on_change()

    def wanted_ahead(self) -> list[str]:
        """Sounds to load before they are pressed: the visible page and favourites."""
        wanted = [s.rel_path for s in self.visible_sounds()]
        wanted += [rel for rel in self.prefs.favourites().values() if rel in self.states]
        return list(dict.fromkeys(wanted))

    # -- loading ----------------------------------------------------------------------------

    async def ensure_loaded(self, rel: str) -> None:
        st = self.states.get(rel)
        client = self.client
        if st is None or client is None or not self.audio_granted:
            return
        if st.status in ("loading", "loaded", "too_large"):
            return
        if st.status == "failed" and st.fingerprint == st.sound.fingerprint:
            return  # no retry storm: only a changed file is tried again
        await self._load(st)

    async def _load(self, st: SoundState) -> None:
        assert self.client is not None
        import vxp

        path = str(self.library.root / st.sound.rel_path)
        st.status, st.code = "loading", None
        st.fingerprint = st.sound.fingerprint
        try:
            sound_id = await self.client.audio.load(path, normalize=self.settings.normalize)
        except vxp.DomainError as exc:
            self._failed(st, exc.code)
            return
        except vxp.InvalidRequest as exc:
            self._failed(st, exc.code or "not_found")
            return
        if st.sound_id is not None:
            self.by_id.pop(st.sound_id, None)
        st.sound_id = sound_id
        self.by_id[sound_id] = st.sound.rel_path
        self._on_change()

    def _failed(self, st: SoundState, code: str) -> None:
        st.status, st.code = "failed", code
        st.press_at = None
        self.set_status("status.load_failed", 2, name=st.sound.name, code=code)

    async def on_audio_loaded(self, sound_id: str, outcome: Any) -> None:
        rel = self.by_id.get(sound_id)
        st = self.states.get(rel) if rel else None
        if st is None or st.sound_id != sound_id:
            return  # an outcome for a load we replaced or a sound no longer in the library
        kind = getattr(outcome, "kind", None)
        if kind == "loaded":
            st.status = "loaded"
            st.duration_ms = getattr(outcome, "duration_ms", None)
            pressed = st.press_at
            st.press_at = None
            self._on_change()
            if pressed is not None and time.monotonic() - pressed <= PLAY_ON_LOAD_S:
                await self._play(st)
        elif kind == "failed":
            code = str(getattr(outcome, "code", "internal"))
            if code == "cache_full" and not st.retried_cache_full:
                st.retried_cache_full = True
                if await self._evict_one(exclude=st.sound.rel_path):
                    await self._load(st)
                    return
            self._failed(st, code)
            self._on_change()

    async def _evict_one(self, exclude: str) -> bool:
        assert self.client is not None
        loaded = [
            s
            for s in self.states.values()
            if s.status == "loaded"
            and s.sound.rel_path != exclude
            and s.sound.rel_path not in self.playing
        ]
        if not loaded:
            return False
        victim = min(loaded, key=lambda s: s.last_played)
        if victim.sound_id is not None:
            try:
                await self.client.audio.unload(victim.sound_id)
            except Exception as exc:  # the host may have dropped it already
                log.debug("unload %s: %s", victim.sound_id, exc)
            self.by_id.pop(victim.sound_id, None)
        victim.sound_id, victim.status = None, "idle"
        self.set_status("status.cache_full", 1, name=victim.sound.name)
        return True

    # -- playing ----------------------------------------------------------------------------

    def targets(self, rel: str) -> list[tuple[str, int]]:
        """soundboard at its gain x the sound's gain, mic likewise when enabled (0-100 ints)."""
        own = self.prefs.get(rel).gain
        out = [("soundboard", round(self.settings.soundboard_gain * own / 100))]
        if self.settings.mic_enabled:
            out.append(("mic", round(self.settings.mic_gain * own / 100)))
        return out

    async def press(self, rel: str) -> None:
        """A button, a bound command or a bus message asked for ``rel``."""
        st = self.states.get(rel)
        if st is None:
            return
        if not self.audio_granted:
            self.set_status("status.no_audio_grant", 2)
            return
        if self.settings.overlap == "toggle" and rel in self.playing:
            await self.stop(rel)
            return
        if st.status == "loaded":
            await self._play(st)
            return
        if st.status == "too_large":
            return
        if st.status == "failed" and st.fingerprint == st.sound.fingerprint:
            # The same file fails the same way: say so again rather than load again (no
            # retry storm); a changed file is loaded again by the rescan that notices it.
            self.set_status("status.load_failed", 2, name=st.sound.name, code=st.code or "")
            return
        st.press_at = time.monotonic()
        if st.status != "loading":
            await self.ensure_loaded(rel)
        self._on_change()

    async def _play(self, st: SoundState, *, retried: bool = False) -> None:
        client = self.client
        if client is None or st.sound_id is None:
            return
        import vxp

        rel = st.sound.rel_path
        looping = self.prefs.get(rel).loop
        targets = self.targets(rel)
        try:
            await client.audio.play(st.sound_id, targets, looping=looping)
        except vxp.DomainError as exc:
            if exc.code == "unknown_sound" and not retried:
                st.status, st.sound_id = "idle", None
                st.press_at = time.monotonic()
                await self.ensure_loaded(rel)
                return
            key = {
                "no_valid_targets": "status.no_valid_targets",
                "no_endpoint": "status.no_endpoint",
            }.get(exc.code, "status.play_failed")
            self.set_status(key, 2, name=st.sound.name, code=exc.code, channel="mic")
            return
        except vxp.InvalidRequest as exc:
            self.set_status("status.play_failed", 2, name=st.sound.name, code=exc.code or "invalid")
            return
        self.plays_sent += 1
        now = time.monotonic()
        st.last_played = now
        ends = None if looping or st.duration_ms is None else now + st.duration_ms / 1000
        self.playing[rel] = Playing(rel, now, looping, tuple(targets), ends)
        self.published.append(("played", {"name": st.sound.name, "path": rel}))
        log.info(
            "play %s -> %s%s",
            rel,
            ", ".join(f"{ch} {g}%" for ch, g in targets),
            " (loop)" if looping else "",
        )
        if self.settings.overlap == "stop_others":
            for other in [r for r in self.playing if r != rel]:
                await self.stop(other)
        self._on_change()

    async def stop(self, rel: str) -> None:
        st = self.states.get(rel)
        client = self.client
        self.playing.pop(rel, None)
        if st is None or client is None or st.sound_id is None:
            return
        import vxp

        try:
            await client.audio.stop(st.sound_id)
        except vxp.DomainError as exc:
            log.debug("stop %s: %s", rel, exc.code)
        self.published.append(("stopped", {"name": st.sound.name, "path": rel}))
        self._on_change()

    async def stop_all(self) -> None:
        client = self.client
        self.expire(time.monotonic())
        stopped = list(self.playing)
        self.playing.clear()
        if client is not None and self.audio_granted:
            await client.audio.stop_all()
        for rel in stopped:
            st = self.states.get(rel)
            if st is not None:
                self.published.append(("stopped", {"name": st.sound.name, "path": rel}))
        log.info("stop all")
        self._on_change()

    async def stop_looping(self) -> None:
        for rel in [r for r, p in self.playing.items() if p.looping]:
            await self.stop(rel)

    async def play_slot(self, slot: int) -> None:
        sounds = self.visible_sounds()
        if 1 <= slot <= len(sounds):
            await self.press(sounds[slot - 1].rel_path)

    async def play_random(self, rng: random.Random | None = None) -> None:
        sounds = [s for s in self.visible_sounds() if not s.too_large]
        if sounds:
            await self.press((rng or random).choice(sounds).rel_path)

    def expire(self, now: float) -> bool:
        """Drop one-shots whose time is over; True if anything changed."""
        over = [r for r, p in self.playing.items() if p.ends is not None and p.ends <= now]
        for rel in over:
            del self.playing[rel]
        return bool(over)

    async def reconcile(self) -> None:
        """Trust the host's status rows over our own clock (once a second while playing)."""
        client = self.client
        if client is None or not self.playing:
            return
        rows = await client.audio.get_status()
        alive = {self.by_id.get(r.sound) for r in rows}
        gone = [rel for rel in self.playing if rel not in alive]
        for rel in gone:
            del self.playing[rel]
        if gone:
            self._on_change()

    # -- status line ------------------------------------------------------------------------

    def set_status(self, key: str | None, level: int = 0, **params: Any) -> None:
        self.status = Status(key, params, level)
        self._on_change()

    def set_notice(self, key: str, level: int, render: Callable[[Any], str]) -> None:
        self.status = Status(key, {}, level, render)
        self._on_change()
