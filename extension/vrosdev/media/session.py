"""One simulated player session: its options, its two state machines, its snapshot row.

Theory of operation. Playback and video are separate machines (MED-19, MED-20), driven by
deadlines on an injected clock; :meth:`MediaSession.advance` fires every deadline that is due,
in order, computing each next deadline from the previous one (not from ``now``), so the
result of a late tick is the same as that of many punctual ones.

Playback runs through *phases*: ``opening`` -> ``buffering`` -> ``started`` (reported as
``playing`` or, while the ``paused`` option is on, ``paused``) -> ``ended``; or ``failed``
with a code after buffering. Only ``reload`` restarts the phases (MED-16); changing options or
hiding the video never touches them (MED-15).

Video follows: ``disabled`` while ``show_video`` is off; otherwise ``warming`` until playback
starts (or, when the video is switched back on mid-stream, for ``video_warm_s``), then
``ready``, or ``recovering`` when the source's video fails or playback failed.
"""

from __future__ import annotations

from collections.abc import Hashable
from dataclasses import dataclass, field, fields
from typing import Any, Literal

from .behaviour import SourceBehaviour

__all__ = ["MediaOptions", "MediaSession", "MediaTimings", "Phase", "VideoState"]

Phase = Literal["opening", "buffering", "started", "ended", "failed"]
VideoState = Literal["disabled", "warming", "ready", "recovering"]


@dataclass(frozen=True, slots=True)
class MediaTimings:
    """How long the simulated player takes; the defaults look plausible in a demo."""

    opening_s: float = 0.2
    buffering_s: float = 0.3
    video_warm_s: float = 0.25
    play_s: float = 1.0  # unpaused playing time of an `end-soon` source


@dataclass(slots=True)
class MediaOptions:
    """MED-8 defaults."""

    max_fps: int = 30
    volume_pct: int = 100
    muted: bool = False
    paused: bool = False
    show_video: bool = True
    native_controls: bool = False
    controls_on_player: bool = False

    def updated(self, changes: dict[str, bool | int]) -> MediaOptions:
        values: dict[str, Any] = {f.name: getattr(self, f.name) for f in fields(self)}
        values.update(changes)
        return MediaOptions(**values)


@dataclass(slots=True)
class MediaSession:
    """Holds no URL: the source is known only by its behaviour (MED-12)."""

    session_id: str
    key: str
    owner: Hashable
    title: str
    options: MediaOptions
    behaviour: SourceBehaviour = field(repr=False)
    source_generation: int = 1
    phase: Phase = "opening"
    failure_code: str | None = None
    video: VideoState = "warming"
    phase_deadline: float | None = None
    video_deadline: float | None = None
    play_left_s: float | None = None  # remaining play time of an ending source while paused

    def start_source(self, behaviour: SourceBehaviour, now: float, timings: MediaTimings) -> None:
        """A new source (open or reload): playback starts over from `opening`."""
        self.behaviour = behaviour
        self.phase = "opening"
        self.failure_code = None
        self.phase_deadline = now + timings.opening_s
        self.video = "warming" if self.options.show_video else "disabled"
        self.video_deadline = None
        self.play_left_s = None

    def apply_options(self, new: MediaOptions, now: float, timings: MediaTimings) -> None:
        old = self.options
        self.options = new
        if old.paused != new.paused and self.phase == "started":
            if new.paused:
                self._pause_clock(now)
            else:
                self._resume_clock(now)
        if old.show_video != new.show_video:
            self._set_video_shown(new.show_video, now, timings)

    def _pause_clock(self, now: float) -> None:
        if self.phase_deadline is not None:
            self.play_left_s = max(0.0, self.phase_deadline - now)
            self.phase_deadline = None

    def _resume_clock(self, now: float) -> None:
        if self.play_left_s is not None:
            self.phase_deadline = now + self.play_left_s
            self.play_left_s = None

    def _set_video_shown(self, shown: bool, now: float, timings: MediaTimings) -> None:
        self.video_deadline = None
        if not shown:
            self.video = "disabled"
        elif self.phase == "failed":
            self.video = "recovering"
        else:
            self.video = "warming"
            if self.phase in ("started", "ended"):
                self.video_deadline = now + timings.video_warm_s

    def _video_after_warming(self) -> VideoState:
        return "recovering" if self.behaviour.video_fails else "ready"

    def next_deadline(self) -> float | None:
        due = [d for d in (self.phase_deadline, self.video_deadline) if d is not None]
        return min(due, default=None)

    def advance(self, now: float, timings: MediaTimings) -> None:
        """Fire every deadline at or before ``now``, earliest first."""
        while True:
            deadline = self.next_deadline()
            if deadline is None or deadline > now:
                return
            if deadline == self.video_deadline:
                self.video_deadline = None
                self.video = self._video_after_warming()
            else:
                self._next_phase(deadline, timings)

    def _next_phase(self, at: float, timings: MediaTimings) -> None:
        self.phase_deadline = None
        if self.phase == "opening":
            self.phase = "buffering"
            self.phase_deadline = at + timings.buffering_s
        elif self.phase == "buffering":
            self._buffered(at, timings)
        elif self.phase == "started":
            self.phase = "ended"

    def _buffered(self, at: float, timings: MediaTimings) -> None:
        failure = self.behaviour.playback_failure
        if failure is not None:
            self.phase = "failed"
            self.failure_code = failure
            if self.options.show_video:
                self.video = "recovering"
            return
        self.phase = "started"
        if self.options.show_video:
            self.video = self._video_after_warming()
        if self.behaviour.ends:
            if self.options.paused:
                self.play_left_s = timings.play_s
            else:
                self.phase_deadline = at + timings.play_s

    def fail(self, code: str) -> None:
        """Playback fails now with ``code``, as a ``fail-play`` source does after buffering."""
        self.phase = "failed"
        self.failure_code = code
        self.phase_deadline = None
        self.play_left_s = None
        self.video_deadline = None
        self.video = "recovering" if self.options.show_video else "disabled"

    def playback_json(self) -> dict[str, Any]:
        if self.phase == "failed":
            return {"kind": "failed", "code": self.failure_code}
        if self.phase == "started":
            return {"kind": "paused" if self.options.paused else "playing"}
        return {"kind": self.phase}

    def snapshot_json(self) -> dict[str, Any]:
        """This session's row of a ``media_snapshot``.

        Its shape: docs/protocol-notes.md#shapes-the-page-does-not-give
        """
        o = self.options
        return {
            "key": self.key,
            "session": self.session_id,
            "source_generation": self.source_generation,
            "title": self.title,
            "playback": self.playback_json(),
            "video": self.video,
            "paused": o.paused,
            "volume_pct": o.volume_pct,
            "muted": o.muted,
            "show_video": o.show_video,
            "max_fps": o.max_fps,
            "native_controls": o.native_controls,
            "controls_on_player": o.controls_on_player,
        }
