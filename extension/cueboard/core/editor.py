"""The dash-tab editor's trim, fades, targets and play count: what an edit may set, and what the
editor shows of it.

Every edit keeps the sound playable as edited: the trim start stays before its end, by at least
:data:`MIN_LENGTH_MS`, the end stays within the sound, and the two fades together never outlast
the trimmed length (a trim that shortens the sound shortens its fades with it). The panel only
sends the value it wants (a step from the shown one, or a touch on the waveform); the rules are
here, where a test can reach them, and an edit that changes nothing writes nothing.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from .i18n import Catalog, msgid
from .records import TARGETS, SoundPrefs

__all__ = [
    "FIELDS",
    "MIN_LENGTH_MS",
    "STEPS_MS",
    "EditorValues",
    "editor_values",
    "field_changes",
    "nearest_trim_changes",
    "targets_of",
]

STEPS_MS = (10, 100, 1000)
"""The editor's step sizes for trim and fades."""

MIN_LENGTH_MS = 10
"""The shortest trimmed sound: start stays before end by at least one fine step."""

FIELDS = ("trim_start_ms", "trim_end_ms", "fade_in_ms", "fade_out_ms")
"""The editor's rows, in the order the panel numbers them."""

_LABELS = (
    msgid("dash.trim_start"),
    msgid("dash.trim_end"),
    msgid("dash.fade_in"),
    msgid("dash.fade_out"),
)


def _end(prefs: SoundPrefs, duration_ms: int | None) -> int | None:
    """The effective trim end: the set one, else the sound's end when it is known."""
    if prefs.trim_end_ms is not None:
        return prefs.trim_end_ms if duration_ms is None else min(prefs.trim_end_ms, duration_ms)
    return duration_ms


def field_changes(
    prefs: SoundPrefs, duration_ms: int | None, field: int, ms: int
) -> dict[str, object]:
    """The changes that set editor row ``field`` (an index of :data:`FIELDS`) as near ``ms`` as
    the rules allow; empty when nothing changes or the field is unknown."""
    if not 0 <= field < len(FIELDS):
        return {}
    start, end = prefs.trim_start_ms, _end(prefs, duration_ms)
    fade_in, fade_out = prefs.fade_in_ms, prefs.fade_out_ms
    new_end: int | None = prefs.trim_end_ms
    match FIELDS[field]:
        case "trim_start_ms":
            high = None if end is None else end - MIN_LENGTH_MS
            start = max(0, ms if high is None else min(ms, high))
        case "trim_end_ms":
            if end is None:  # a step from an end not known yet would land anywhere
                return {}
            low = start + MIN_LENGTH_MS
            if duration_ms is not None and ms >= duration_ms:
                new_end = None  # the sound's end: follows the file if it grows
            else:
                new_end = max(low, ms)
            end = duration_ms if new_end is None else new_end
        case "fade_in_ms":
            fade_in = max(0, ms)
        case "fade_out_ms":
            fade_out = max(0, ms)
        case _:  # pragma: no cover - FIELDS is closed
            return {}
    if end is not None:
        length = max(0, end - start)
        if FIELDS[field] == "fade_out_ms":
            fade_out = min(fade_out, length)
            fade_in = min(fade_in, length - fade_out)
        else:
            fade_in = min(fade_in, length)
            fade_out = min(fade_out, length - fade_in)
    wanted: dict[str, object] = {
        "trim_start_ms": start,
        "trim_end_ms": new_end,
        "fade_in_ms": fade_in,
        "fade_out_ms": fade_out,
    }
    return {k: v for k, v in wanted.items() if getattr(prefs, k) != v}


def nearest_trim_changes(prefs: SoundPrefs, duration_ms: int | None, ms: int) -> dict[str, object]:
    """A touch on the waveform at ``ms``: it moves whichever of start and end is nearer (the
    end, on a tie, so a touch at the very start of an untrimmed sound trims nothing away)."""
    end = _end(prefs, duration_ms)
    if end is None:
        return {}
    field = 0 if abs(ms - prefs.trim_start_ms) < abs(ms - end) else 1
    return field_changes(prefs, duration_ms, field, ms)


def targets_of(index: int) -> str | None:
    """The panel's targets choice (0 both, 1 only me, 2 only mic), or None out of range."""
    return TARGETS[index] if 0 <= index < len(TARGETS) else None


@dataclass(frozen=True)
class EditorValues:
    """The editor's props for one sound (see the dash-tab contract)."""

    rows: list[tuple[str, int, str]]
    duration_ms: int
    targets: int
    plays: str
    waveform: tuple[str, ...] = ()  # its tiles' asset keys, once put

    def props(self) -> dict[str, object]:
        return {
            "selected-edits": self.rows,
            "selected-duration-ms": self.duration_ms,
            "selected-targets": self.targets,
            "selected-plays": self.plays,
            "selected-waveform": list(self.waveform),
        }


NO_EDITOR = EditorValues([], 0, 0, "")


def editor_values(
    cat: Catalog, prefs: SoundPrefs, duration_ms: int | None, waveform: Sequence[str] = ()
) -> EditorValues:
    """Each row's label, value and text; an end not set shows the sound's end (or says so,
    while its length is not known yet)."""
    end = _end(prefs, duration_ms)
    values = (prefs.trim_start_ms, end, prefs.fade_in_ms, prefs.fade_out_ms)
    rows = [
        (cat.t(label), value if value is not None else 0,
         cat.t("dash.seconds", seconds=f"{value / 1000:.2f}") if value is not None
         else cat.t("dash.trim_to_end"))
        for label, value in zip(_LABELS, values, strict=True)
    ]  # fmt: skip
    return EditorValues(
        rows=rows,
        duration_ms=duration_ms or 0,
        targets=TARGETS.index(prefs.targets),
        plays=cat.t("dash.plays", count=prefs.plays),
        waveform=tuple(waveform),
    )
