"""What the user plays most: each sound's play count and the time it was last played, and the
two places they make in the folder strip, "Recent" and "Most played".

A play is counted when the host confirmed it (the soundboard's play path), never for a preview.
Its time is wall-clock seconds, which the sans-IO core has no clock for: the runtime gives the
Unix time with :class:`~cueboard.core.inputs.Connected` and :class:`PlayHistory` keeps its offset
from the monotonic clock every input carries. Counts go to kv through the preferences' coalesced
writer, like every other per-sound setting.

The two lists are kept in memory and updated in place on a play (a few list operations, not a
sort of the library). A count that went down (a reset, a restore, the bus API) marks them
:attr:`PlayHistory.stale`: they are built again from every record once the input that lowered
it is handled, however many records it changed (a restore changes them all).
"""

from __future__ import annotations

import heapq
from collections.abc import Callable, Mapping

from .records import NO_PREFS, SoundPrefs

__all__ = ["MOST_PLAYED_KEPT", "RECENT_KEPT", "PlayHistory"]

RECENT_KEPT = 12  # "Recent": the last sounds played, newest first (one page of the grid)
MOST_PLAYED_KEPT = 24  # "Most played": two pages, ties the most recently played first


class PlayHistory:
    """The counts' writer and the Recent / Most played lists, rebuilt from ``records`` (the
    preferences, rel path -> :class:`SoundPrefs`) when one of their counts goes down."""

    def __init__(self, records: Mapping[str, SoundPrefs]) -> None:
        self._records = records
        self._seq: dict[str, int] = {}  # rel -> order of its last play in this process
        self._next = 0
        self._offset: float | None = None  # Unix seconds minus the monotonic clock
        self.recent: list[str] = []
        self.most: list[str] = []
        self.stale = False  # a count went down: rebuild() before the lists are read again

    def set_wall_clock(self, unix_s: float, now: float) -> None:
        """The Unix time at the monotonic ``now`` (the runtime reads it when it connects)."""
        self._offset = unix_s - now

    def unix(self, now: float) -> int | None:
        """Whole Unix seconds at the monotonic ``now``; None before the runtime said."""
        return None if self._offset is None else int(now + self._offset)

    def counted(self, rel: str, now: float) -> dict[str, int | None]:
        """The changes a confirmed play of ``rel`` makes to its record."""
        own = self._records.get(rel, NO_PREFS)
        last = self.unix(now)
        return {"plays": own.plays + 1, "last_played": own.last_played if last is None else last}

    def _key(self, rel: str) -> tuple[int, int, int]:
        own = self._records.get(rel, NO_PREFS)
        return own.plays, own.last_played or 0, self._seq.get(rel, -1)

    def _recent_key(self, rel: str) -> tuple[int, int]:
        own = self._records.get(rel, NO_PREFS)
        return own.last_played or 0, self._seq.get(rel, -1)

    def playing(self, rel: str) -> None:
        """``rel`` is being counted: it is the most recent play, whatever the wall clock says."""
        self._seq[rel] = self._next
        self._next += 1

    def changed(self, rel: str, before: SoundPrefs) -> None:
        """``rel``'s record changed its count or its time (a play, or any other writer: the
        editor's reset, a restore, the bus API): the lists follow, in place when it went up,
        else built again."""
        after = self._records.get(rel, NO_PREFS)
        if after.plays == 0 and after.last_played is None:  # reset: never played, as far as known
            self._seq.pop(rel, None)
        went_down = after.plays < before.plays
        if went_down or (after.last_played or 0) < (before.last_played or 0) or self.stale:
            self.stale = True
            return
        self.recent = _placed(self.recent, rel, self._recent_key, RECENT_KEPT,
                              keep=after.last_played is not None or rel in self._seq)  # fmt: skip
        self.most = _placed(self.most, rel, self._key, MOST_PLAYED_KEPT, keep=after.plays > 0)

    def rebuild(self) -> None:
        """Both lists from every record (the preferences were read, or a count went down)."""
        self.stale = False
        recent: list[tuple[int, int, str]] = []
        most: list[tuple[int, int, int, str]] = []
        for rel, own in self._records.items():
            seq = self._seq.get(rel, -1)
            if own.last_played is not None or seq >= 0:
                recent.append((own.last_played or 0, seq, rel))
            if own.plays > 0:
                most.append((own.plays, own.last_played or 0, seq, rel))
        self.recent = [k[-1] for k in heapq.nlargest(RECENT_KEPT, recent)]
        self.most = [k[-1] for k in heapq.nlargest(MOST_PLAYED_KEPT, most)]


def _placed(
    ranked: list[str], rel: str, key: Callable[[str], tuple[int, ...]], kept: int, *, keep: bool
) -> list[str]:
    """``ranked`` with ``rel`` moved to where its key now puts it (before the ones it ties
    with: the one just played is the most recent), or dropped when not ``keep``."""
    out = [r for r in ranked if r != rel]
    if not keep:
        return out
    mine = key(rel)
    at = next((i for i, r in enumerate(out) if key(r) <= mine), len(out))
    out.insert(at, rel)
    return out[:kept]
