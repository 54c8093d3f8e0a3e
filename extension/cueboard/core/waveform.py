"""The editor's waveform: which to draw, and the asset puts that show it in the dash-tab.

The core only says what it wants shown (the selected sound, as edited, while the editor's trim
page is in view); a worker reads the file and draws (:class:`DrawWaveform`). One drawing at a
time: what is wanted meanwhile waits, and only the latest is drawn next, so a run of +/-
presses costs one drawing after the one under way. The peaks of the last sounds drawn are
kept (the file's size and mtime with them: a changed file is read again), so a redraw after an
edit never reads the file.

Its tiles go into the extension's one asset table (:class:`~.asset_table.AssetTable`, shared
with the icons) as a panel of their own, so a plan of either never evicts what the other
shows; they are named in props only once every put answered ``ok`` on this connection.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from vxp.prepared import Prepared

from .asset_plan import PlanSend
from .asset_table import AssetRef, AssetTable, AssetTableFull, Icon
from .effects import DrawWaveform, Effect, Log
from .inputs import WaveEdit, WaveformDrawn
from .records import SoundPrefs
from .tracker import Tracker

__all__ = ["MAX_PEAKS_KEPT", "PANEL", "UNEDITED", "WaveWanted", "WaveformModel", "edit_of"]

PANEL = "dash-tab:waveform"
MAX_PEAKS_KEPT = 32  # sounds whose peaks are kept (a few kilobytes each)


UNEDITED: WaveEdit = (0, None, 0, 0)


def edit_of(prefs: SoundPrefs) -> WaveEdit:
    return (prefs.trim_start_ms, prefs.trim_end_ms, prefs.fade_in_ms, prefs.fade_out_ms)


@dataclass(frozen=True, slots=True)
class WaveWanted:
    rel: str
    path: Path
    fingerprint: tuple[int, int]
    edit: WaveEdit


@dataclass
class _Applying:
    wanted: WaveWanted
    send: PlanSend


class WaveformModel:
    def __init__(
        self, tracker: Tracker, table: AssetTable, *, busy: Callable[[], bool] = lambda: False
    ) -> None:
        self._tracker = tracker
        self._table = table
        self._busy = busy  # another plan of the same table is under way: ours waits for it
        self._failed: WaveWanted | None = None  # drawn in vain: not again until it changes
        self._wanted: WaveWanted | None = None
        self._drawing: WaveWanted | None = None
        self._peaks: OrderedDict[str, tuple[tuple[int, int], tuple[float, ...], int]] = (
            OrderedDict()
        )
        self._applying: _Applying | None = None
        self._shown: tuple[WaveWanted, tuple[str, ...]] | None = None
        self._tiles: tuple[WaveWanted, tuple[AssetRef, ...], dict[str, Prepared]] | None = None
        self.failures: dict[str, str] = {}
        self.changed = False

    def length_of(self, rel: str) -> int | None:
        """The sound's length as its file said when its peaks were read, if they were."""
        known = self._peaks.get(rel)
        return known[2] if known is not None else None

    def keys_for(self, rel: str | None) -> tuple[str, ...]:
        """The tiles to name in props: the wanted sound's, as wanted, once all are in."""
        shown, wanted = self._shown, self._wanted
        if shown is None or wanted is None or rel != wanted.rel or shown[0] != wanted:
            return ()
        return shown[1]

    def want(self, wanted: WaveWanted | None, now: float) -> list[Effect]:
        """Show this (None: nothing; the tiles may then be evicted for icons). Asked with
        every refresh of the views: what waited (a plan of the icons, a reconnect) goes on."""
        if wanted != self._wanted:
            self._wanted = wanted
            if wanted is None:
                self._table.panel_closed(PANEL)
        return self._next(now)

    def _next(self, now: float) -> list[Effect]:
        wanted = self._wanted
        if wanted is None or self._drawing is not None or self._applying is not None:
            return []
        if self._shown is not None and self._shown[0] == wanted:
            return []
        if self._tiles is not None and self._tiles[0] == wanted:  # drawn: put them (again)
            return [] if self._busy() else self._show(now)
        if self._failed == wanted:
            return []
        known = self._peaks.get(wanted.rel)
        peaks, duration = (None, 0)
        if known is not None and known[0] == wanted.fingerprint:
            peaks, duration = known[1], known[2]
            self._peaks.move_to_end(wanted.rel)
        self._drawing = wanted
        return [
            DrawWaveform(wanted.rel, wanted.path, wanted.fingerprint, peaks, duration, wanted.edit)
        ]

    def on_drawn(self, drawn: WaveformDrawn, now: float) -> list[Effect]:
        drawing, self._drawing = self._drawing, None
        if drawing is None:
            return []
        if isinstance(drawn.result, str):
            self.failures[drawn.rel] = drawn.result
            self._peaks.pop(drawn.rel, None)
            self._failed = drawing  # the same would fail again; a change tries again
            out: list[Effect] = [Log(20, f"waveform of {drawn.rel} not shown: {drawn.result}")]
            return out + self._next(now)
        peaks, duration, puts = drawn.result
        self.failures.pop(drawn.rel, None)
        self._peaks[drawn.rel] = (drawn.fingerprint, peaks, duration)
        self._peaks.move_to_end(drawn.rel)
        while len(self._peaks) > MAX_PEAKS_KEPT:
            self._peaks.popitem(last=False)
        self._tiles = (drawing, tuple(ref for ref, _ in puts), {r.key: p for r, p in puts})
        return self._next(now)

    def _show(self, now: float) -> list[Effect]:
        assert self._tiles is not None
        wanted, refs, params = self._tiles
        try:
            plan = self._table.plan_panel(PANEL, [Icon(ref, ref) for ref in refs])
        except AssetTableFull as exc:
            return [Log(30, f"waveform: {exc}")]
        if any(key is None for key in plan.keys):
            return [Log(30, "waveform: no room in the asset table")]
        send = PlanSend(self._tracker, self._table, plan, params, self._commit)
        self._applying = _Applying(wanted, send)
        return send.start(now)

    def _commit(self, failed: frozenset[str], now: float) -> list[Effect]:
        """A tile whose put failed leaves the whole waveform unnamed: half a picture would
        misplace what a touch means."""
        applying = self._applying
        assert applying is not None
        self._applying = None
        plan = applying.send.plan
        keys = tuple(key for key in plan.keys if key is not None)
        failed = failed | {k for k in keys if k not in self._table}
        self._table.commit_panel(plan, failed)
        out: list[Effect] = []
        if failed:
            out.append(Log(20, f"waveform of {applying.wanted.rel}: a tile was not put"))
        else:
            self._shown = (applying.wanted, keys)
            self.changed = True
        if self._wanted is None:  # the editor closed meanwhile: nothing of it stays pinned
            self._table.panel_closed(PANEL)
            return out
        return out if failed else out + self._next(now)

    def connection_lost(self) -> None:
        """The host's table died with the connection (AST-17): the tiles are put again."""
        self._shown = None
        if self._applying is not None:
            self._applying.send.cancel()
        self._applying = None
        self._drawing = None
        self.changed = True
