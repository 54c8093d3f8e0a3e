"""One plan of the asset table sent to the host: removes first, the puts only once every remove
is answered (the host never evicts, AST-13), a put that fails for good taken out of the table
and named to the model, and nothing after the connection is gone."""

from __future__ import annotations

import json
import random
from typing import Any

from cueboard.core.asset_plan import PlanSend
from cueboard.core.asset_table import AssetRef, AssetTable, Icon, PanelPlan
from cueboard.core.effects import Effect, Failure, HostFailure, Reply, Send, Tickets
from cueboard.core.tracker import Tracker
from vxp.models import assets
from vxp.prepared import Prepared


def _ref(name: str) -> AssetRef:
    return AssetRef(f"k:{name}", 64 * 64 * 4, 1)


def _prepared(ref: AssetRef) -> Prepared:
    return Prepared("assets", json.dumps({"op": "put", "key": ref.key}).encode())


class Sent:
    """The plan's sends, answered when a test says so."""

    def __init__(self, table: AssetTable) -> None:
        self.tracker = Tracker(Tickets(), random.Random(0))
        self.table = table
        self.waiting: list[Send] = []
        self.finished: list[frozenset[str]] = []

    def finish(self, failed: frozenset[str], now: float) -> list[Effect]:
        self.finished.append(failed)
        return []

    def take(self, effects: list[Effect]) -> None:
        self.waiting += [e for e in effects if isinstance(e, Send)]

    def ops(self) -> list[tuple[str, str]]:
        return [("put" if isinstance(s.params, Prepared) else s.op, _key(s)) for s in self.waiting]

    def answer(self, key: str, code: str | None = None) -> None:
        (send,) = [s for s in self.waiting if _key(s) == key]
        self.waiting.remove(send)
        if code is None:
            reply = Reply(send.ticket, assets.AssetOk(result="ok"))
            self.take(self.tracker.on_reply(reply, 0.0))
        else:
            failure = Failure(send.ticket, HostFailure("domain", code))
            self.take(self.tracker.on_failure(failure, 0.0))


def _key(send: Send) -> str:
    p: Any = send.params
    return json.loads(p.params_json)["key"] if isinstance(p, Prepared) else p.key


def _full_table() -> tuple[AssetTable, PanelPlan, dict[str, Prepared]]:
    """A table of two entries holding a and b (shown by no panel); the plan shows c and d."""
    table = AssetTable(max_entries=2)
    for name in ("a", "b"):
        table.record_put(_ref(name))
    refs = [_ref("c"), _ref("d")]
    plan = table.plan_panel("overlay", [Icon(r, r) for r in refs])
    return table, plan, {r.key: _prepared(r) for r in refs}


def test_the_puts_go_only_once_every_remove_is_answered() -> None:
    table, plan, params = _full_table()
    sent = Sent(table)
    sent.take(PlanSend(sent.tracker, table, plan, params, sent.finish).start(0.0))
    assert sent.ops() == [("remove", "k:a"), ("remove", "k:b")]
    sent.answer("k:a")
    assert sent.ops() == [("remove", "k:b")]
    sent.answer("k:b")
    assert sent.ops() == [("put", "k:c"), ("put", "k:d")]
    sent.answer("k:c")
    sent.answer("k:d")
    assert sent.finished == [frozenset()]
    assert sorted(table.keys_by_age()) == ["k:c", "k:d"]


def test_puts_count_in_the_table_as_sent_and_one_refused_is_taken_out_and_named() -> None:
    table = AssetTable()
    refs = [_ref("c"), _ref("d")]
    plan = table.plan_panel("overlay", [Icon(r, r) for r in refs])
    sent = Sent(table)
    sent.take(
        PlanSend(sent.tracker, table, plan, {r.key: _prepared(r) for r in refs}, sent.finish)
        .start(0.0)
    )  # fmt: skip
    assert "k:c" in table and "k:d" in table  # a plan of another panel meanwhile sees them
    sent.answer("k:c", "too_large")  # not retried (AST-20's codes: final)
    assert "k:c" not in table and sent.finished == []
    sent.answer("k:d")
    assert sent.finished == [frozenset({"k:c"})]


def test_after_cancel_the_answers_change_nothing() -> None:
    table, plan, params = _full_table()
    sent = Sent(table)
    send = PlanSend(sent.tracker, table, plan, params, sent.finish)
    sent.take(send.start(0.0))
    send.cancel()
    sent.answer("k:a")
    sent.answer("k:b")
    assert sent.waiting == [] and sent.finished == []
