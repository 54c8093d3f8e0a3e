"""Where a press sends a sound: each channel at its global gain x the sound's own gain for it,
as the sound's own targets say. Both (the soundboard channel and, while it is enabled, the
mic), only me (the soundboard channel alone: no mic target at all, not a mic at gain 0) or only
mic (the mic alone). A mic-only sound while the mic is off has no target: it cannot play, and a
press is refused with :func:`mic_off_notice`, never sent to the soundboard channel instead."""

from __future__ import annotations

from cueboard.core.contract import StatusLevel
from cueboard.core.settings import Settings

from .effects import Notice
from .records import SoundPrefs
from .sound_state import PressOptions, Targets

__all__ = ["MIC_ONLY_OFF", "mic_off", "mic_off_notice", "targets_for"]

MIC_ONLY_OFF = "status.mic_only_off"  # a mic-only sound pressed while the mic is off


def targets_for(own: SoundPrefs, settings: Settings, once: PressOptions | None = None) -> Targets:
    """The channels and their gains (0-100 ints); a press's own gains (a bus message) replace
    the sound's for that press. Empty for a mic-only sound while the mic is off."""
    gain = own.gain if once is None or once.gain is None else once.gain
    mic_gain = own.own_mic_gain if once is None or once.mic_gain is None else once.mic_gain
    board = ("soundboard", round(settings.soundboard_gain * gain / 100))
    mic = ("mic", round(settings.mic_gain * mic_gain / 100))
    match own.targets:
        case "me":
            return (board,)
        case "mic":
            return (mic,) if settings.mic_enabled else ()
        case _:
            return (board, mic) if settings.mic_enabled else (board,)


def mic_off(own: SoundPrefs, settings: Settings) -> bool:
    """A mic-only sound while the mic is switched off: it cannot play."""
    return not settings.mic_enabled and own.targets == "mic"


def mic_off_notice(name: str) -> Notice:
    return Notice(MIC_ONLY_OFF, StatusLevel.WARN, {"name": name})
