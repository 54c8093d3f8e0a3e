"""Sound icons: which to decode, and the asset puts and removes that show them in the grid.

Decoding is a job for a worker (:class:`DecodeIcons`); its results come back as
:class:`IconsDecoded`, each a put prepared in the worker (the event loop only frames it). The
:class:`~cueboard.core.asset_table.AssetTable` plans what to remove and put so the host never
evicts a shown icon; the plan goes out as tracked requests, removes first, then puts, one plan
at a time (:class:`~cueboard.core.asset_plan.PlanSend`, as the editor's waveform sends its
own). A put that fails for good (after the policy's retries of ``budget_full``) is not shown.
A key is named in props only once its put answered ``ok`` on this connection, the blank icon's
too (docs/protocol-notes.md#r33): :attr:`IconsModel.shown` and :attr:`IconsModel.blank_ok` say
which, and both start empty with each connection.

What a decode gave is kept in two bounded caches, least recently used out first: each sound's
asset refs (small: enough to plan without decoding again while the host's table still holds
the icon), and the prepared puts themselves (the pixels, tens of kilobytes to megabytes each),
needed again only after a reconnect or when the table had to remove the icon. Neither ever
drops what the page shown needs; an icon needed again after it was dropped is decoded again.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from cueboard.core.asset_table import AssetTable, AssetTableFull, Icon, PanelPlan
from cueboard.core.library import Sound
from vxp.prepared import Prepared

from .asset_plan import PlanSend
from .effects import DecodeIcons, Effect, Log
from .inputs import Decoded, IconsDecoded, Put
from .tracker import Outcome, Tracker

__all__ = [
    "MAX_KNOWN",
    "MAX_PREPARED_BYTES",
    "DecodeIcons",
    "Decoded",
    "IconsDecoded",
    "IconsModel",
    "Put",
]

PANEL = "overlay"
MAX_KNOWN = 1024  # sounds whose refs are kept: as many as the host's table holds (AST-13)
MAX_PREPARED_BYTES = 1024 * 1024  # prepared puts kept in all (more while the page needs more)


@dataclass
class _Applying:
    send: PlanSend
    rels: list[str]


class IconsModel:
    def __init__(self, tracker: Tracker) -> None:
        self._tracker = tracker
        self.table = AssetTable()
        # rel path -> its icon's refs, or None when it cannot be shown; then its prepared puts
        self.decoded: OrderedDict[str, Icon | None] = OrderedDict()
        self.prepared: OrderedDict[str, dict[str, Prepared]] = OrderedDict()
        self.prepared_bytes = 0
        self.shown: dict[str, str] = {}  # rel path -> key shown in the grid
        self.failures: dict[str, str] = {}
        self.blank_ok = False  # the blank icon's put answered ok on this connection
        self.changed = False
        self._page: list[tuple[str, Path]] = []
        self._decoding = False
        self._applying: _Applying | None = None
        self._again = False

    def want(self, root: Path, sounds: Sequence[Sound], now: float) -> list[Effect]:
        """The grid shows these now; their icons follow as soon as they are decoded."""
        self._page = [(s.rel_path, root / s.icon) for s in sounds if s.icon]
        for rel, _ in self._page:  # the caches' use order
            if rel in self.decoded:
                self.decoded.move_to_end(rel)
            if rel in self.prepared:
                self.prepared.move_to_end(rel)
        return self._next(now)

    def _next(self, now: float) -> list[Effect]:
        if self._decoding or self._applying is not None:
            self._again = True
            return []
        self._again = False
        todo = tuple((rel, path) for rel, path in self._page if self._needs_decoding(rel))
        if todo:
            self._decoding = True
            return [DecodeIcons(todo)]
        return self._show(now)

    @property
    def applying(self) -> bool:
        """A plan of the asset table is under way (its removes and puts not all answered)."""
        return self._applying is not None

    def on_decoded(self, decoded: IconsDecoded, now: float) -> list[Effect]:
        self._decoding = False
        out: list[Effect] = []
        for rel, result in decoded.results:
            if isinstance(result, str):
                out.append(Log(20, f"icon of {rel} not shown: {result}"))
                self.failures[rel] = result
                self._know(rel, None)
                continue
            (anim_ref, anim), still = result
            puts = {anim_ref.key: anim}
            still_ref = anim_ref
            if still is not None:
                still_ref, puts[still[0].key] = still
            self._know(rel, Icon(anim_ref, still_ref))
            self._keep_prepared(rel, puts)
        self._trim()
        if self._again:
            return out + self._next(now)
        return out + self._show(now)

    def _show(self, now: float) -> list[Effect]:
        rels: list[str] = []
        icons: list[Icon] = []
        params: dict[str, Prepared] = {}
        for rel, _ in self._page:
            icon = self.decoded.get(rel)
            if icon is not None:
                rels.append(rel)
                icons.append(icon)
                params.update(self.prepared.get(rel, {}))
        try:
            plan = self.table.plan_panel(PANEL, icons)
        except AssetTableFull as exc:
            return [Log(30, f"icons: {exc}")]
        lost = {ref.key for ref in plan.put if ref.key not in params}
        if lost:  # the table lost them (a reconnect) after their puts were dropped: decode
            for rel, icon in zip(rels, icons, strict=True):
                if icon.animated.key in lost or icon.still.key in lost:
                    del self.decoded[rel]
            return self._next(now)
        if not plan.remove and not plan.put and self._shown_of(plan, rels) == self.shown:
            self.table.commit_panel(plan)
            return []
        send = PlanSend(self._tracker, self.table, plan, params, self._commit)
        self._applying = _Applying(send, rels)
        return send.start(now)

    def _commit(self, failed: frozenset[str], now: float) -> list[Effect]:
        applying = self._applying
        assert applying is not None
        plan = applying.send.plan
        self.table.commit_panel(plan, failed)
        self.shown = {
            rel: key
            for rel, key in self._shown_of(plan, applying.rels).items()
            if key not in failed
        }
        self._applying = None
        self.changed = True
        if self._again:
            return self._next(now)
        return []

    # -- the caches ---------------------------------------------------------------------------

    def _needs_decoding(self, rel: str) -> bool:
        """Never decoded, or its puts were dropped while the host's table lacks one of them."""
        if rel not in self.decoded:
            return True
        icon = self.decoded[rel]
        if icon is None or rel in self.prepared:
            return False
        return icon.animated.key not in self.table or icon.still.key not in self.table

    def _know(self, rel: str, icon: Icon | None) -> None:
        self.decoded[rel] = icon
        self.decoded.move_to_end(rel)

    def _keep_prepared(self, rel: str, puts: dict[str, Prepared]) -> None:
        self._drop_prepared(rel)
        self.prepared[rel] = puts
        self.prepared_bytes += sum(len(p.params_json) for p in puts.values())

    def _drop_prepared(self, rel: str) -> None:
        puts = self.prepared.pop(rel, None)
        if puts is not None:
            self.prepared_bytes -= sum(len(p.params_json) for p in puts.values())

    def _trim(self) -> None:
        """Least recently decoded out first, never a sound of the page shown: its puts may
        be about to be sent (the page's own may exceed the bound)."""
        page = {rel for rel, _ in self._page}
        for rel in [r for r in self.prepared if r not in page]:
            if self.prepared_bytes <= MAX_PREPARED_BYTES:
                break
            self._drop_prepared(rel)
        for rel in [r for r in self.decoded if r not in page]:
            if len(self.decoded) <= MAX_KNOWN:
                break
            del self.decoded[rel]
            self._drop_prepared(rel)

    @staticmethod
    def _shown_of(plan: PanelPlan, rels: list[str]) -> dict[str, str]:
        return {rel: key for rel, key in zip(rels, plan.keys, strict=True) if key}

    def blank_put(self, outcome: Outcome) -> list[Effect]:
        """The blank icon may be named once its put answered ok; a refused one never is."""
        self.blank_ok = outcome.ok
        self.changed = True
        return [] if outcome.ok else [Log(20, f"blank icon not put ({outcome.code})")]

    def connection_lost(self) -> None:
        """The host's table died with the connection (AST-17): everything is put again."""
        self.table.connection_lost()
        self.shown.clear()
        self.blank_ok = False
        if self._applying is not None:
            self._applying.send.cancel()
        self._applying = None
        self._decoding = False
        self._again = False
