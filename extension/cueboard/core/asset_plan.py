"""One plan of the asset table on its way to the host: its removes, then its puts, then done.

The icons and the editor's waveform share the host's one table (:class:`AssetTable`) and take
turns planning in it; each sends its plan the same way, so the table's bookkeeping is in one
place. The removes go first and the puts only once every remove is answered, so the host never
has to evict (AST-13). The puts are counted in the table as they are sent, so a plan of the
other panel meanwhile sees them; a put that fails for good is taken out again and named to
``finished`` with the others that failed.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping

from vxp.models import assets
from vxp.prepared import Prepared

from .asset_table import AssetRef, AssetTable, PanelPlan
from .effects import Effect
from .tracker import Done, Outcome, Tracker

__all__ = ["Finished", "PlanSend"]

type Finished = Callable[[frozenset[str], float], list[Effect]]


class PlanSend:
    """Sends ``plan`` with the prepared puts in ``params`` (by key); calls ``finished`` with
    the keys whose put failed once every request is answered. After :meth:`cancel` (the
    connection is gone), answers still to come change nothing."""

    def __init__(
        self,
        tracker: Tracker,
        table: AssetTable,
        plan: PanelPlan,
        params: Mapping[str, Prepared],
        finished: Finished,
    ) -> None:
        self._tracker = tracker
        self._table = table
        self.plan = plan
        self._params = params
        self._finished = finished
        self._pending = len(plan.remove)
        self._failed: set[str] = set()
        self._cancelled = False

    def start(self, now: float) -> list[Effect]:
        out: list[Effect] = []
        for key in self.plan.remove:
            self._table.record_removed(key)
            out += self._tracker.request(
                now, "assets", assets.AssetRemove, expect=assets.AssetOk,
                done=self._removed, key=key,
            )  # fmt: skip
        for ref in self.plan.put:
            self._table.record_put(ref)
        return out if self.plan.remove else out + self._puts(now)

    def cancel(self) -> None:
        self._cancelled = True

    def _removed(self, outcome: Outcome) -> list[Effect]:
        if self._cancelled:
            return []
        self._pending -= 1
        return self._puts(outcome.now) if self._pending == 0 else []

    def _puts(self, now: float) -> list[Effect]:
        put = self.plan.put
        if not put:
            return self._finished(frozenset(), now)
        self._pending = len(put)
        out: list[Effect] = []
        for ref in put:
            out += self._tracker.request(
                now, "assets", self._params[ref.key], expect=assets.AssetOk,
                done=self._put_done(ref),
            )  # fmt: skip
        return out

    def _put_done(self, ref: AssetRef) -> Done:
        def done(outcome: Outcome) -> list[Effect]:
            if self._cancelled:
                return []
            if not outcome.ok:
                self._table.record_removed(ref.key)
                self._failed.add(ref.key)
            self._pending -= 1
            if self._pending:
                return []
            return self._finished(frozenset(self._failed), outcome.now)

        return done
