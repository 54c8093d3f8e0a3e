"""The user's settings, from the manifest's ``[[settings]]`` (read with ``settings list``,
changed live by ``settings_changed``). Defaults here mirror the manifest's, for a host that
answers ``no_schema``."""

from __future__ import annotations

from dataclasses import dataclass, fields, replace
from typing import Any

OVERLAP_POLICIES = ("overlap", "stop_others", "toggle")


@dataclass(frozen=True, slots=True)
class Settings:
    sounds_folder: str = ""
    soundboard_gain: int = 80
    mic_gain: int = 40
    mic_enabled: bool = True
    overlap: str = "overlap"
    normalize: bool = True
    now_playing_toast: bool = False
    render_cache_mb: int = 1024  # the rendered edits' cache (core/render.py), at most

    def with_value(self, key: str, value: Any) -> Settings:
        """A copy with one setting changed; unknown keys and ill-typed values are ignored."""
        for f in fields(self):
            if f.name != key:
                continue
            current = getattr(self, key)
            if isinstance(current, bool):
                ok = isinstance(value, bool)
            elif isinstance(current, int):
                ok = type(value) is int
            else:
                ok = isinstance(value, str)
            if key == "overlap" and value not in OVERLAP_POLICIES:
                ok = False
            return replace(self, **{key: value}) if ok else self
        return self

    @classmethod
    def from_entries(cls, entries: list[tuple[str, Any]]) -> Settings:
        s = cls()
        for key, value in entries:
            s = s.with_value(key, value)
        return s
