"""What the soundboard knows of each sound and of each play: the values its parts share (the
board, its loading, the views), kept apart so that none of them imports another back."""

from __future__ import annotations

from dataclasses import dataclass

from cueboard.core.library import Sound
from cueboard.core.render import Edit

__all__ = ["Playing", "PressOptions", "SoundState", "Targets"]

type Targets = tuple[tuple[str, int], ...]


@dataclass(frozen=True, slots=True)
class PressOptions:
    """What one press may carry for itself alone (a bus message): a mode and gains that
    replace the sound's own for this play."""

    mode: str | None = None
    gain: int | None = None
    mic_gain: int | None = None
    request_id: str | int | None = None  # echoed in what the play publishes


@dataclass
class SoundState:
    sound: Sound
    sound_id: str | None = None
    status: str = "idle"  # idle | rendering | loading | loaded | failed | too_large | unloadable
    code: str | None = None  # the host's failure code
    duration_ms: int | None = None
    fingerprint: tuple[int, int] | None = None  # of the file that was loaded
    edit: Edit | None = None  # the edit its load (or render) is of; None: the file whole
    press_at: float | None = None  # a press waiting for the load to finish
    press_options: PressOptions | None = None  # what that press carried for itself
    retried_cache_full: bool = False
    reloaded: bool = False  # loaded again after unknown_sound: a second one is final
    failed_at: float = 0.0  # when the last load failed
    last_played: float = 0.0


@dataclass
class Playing:
    rel_path: str
    started: float
    looping: bool
    channels: Targets
    ends: float | None  # the clock value a one-shot should be over
