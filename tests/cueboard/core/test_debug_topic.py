"""The debug bus topic: ``cmd.debug`` asks the runtime what it runs, and the answer is
published on ``ext.<id>.debug`` (bench/bench_soak.py compares two idle moments with it)."""

from __future__ import annotations

from cueboard.core.effects import CountTasks
from cueboard.core.inputs import Disconnected, TaskCounts
from vxp.models import events

from .fakehost import EXT_ID, Driver

CMD = f"ext.{EXT_ID}.cmd.debug"


def _debug(payload: object = None) -> events.BusMessage:
    return events.BusMessage(event="bus", topic=CMD, payload=payload)


def test_cmd_debug_asks_the_runtime_to_count_and_nothing_else() -> None:
    d = Driver()
    d.connect()
    assert d.core.handle(_debug(), d.now) == [CountTasks()]


def test_the_runtime_counts_are_published_on_the_debug_topic() -> None:
    d = Driver()
    d.connect()
    d.tasks = 7
    before = len(d.host.of("bus.publish"))
    d.event(_debug({"anything": 1}))
    published = d.host.of("bus.publish")[before:]
    assert [(p.topic, p.payload) for p in published] == [
        (f"ext.{EXT_ID}.debug", {"tasks": 7, "timers": len(d.timers)})
    ]


def test_counts_that_arrive_while_disconnected_are_not_published() -> None:
    d = Driver()
    d.connect()
    d.feed(Disconnected())
    before = len(d.host.sent)
    assert d.core.handle(TaskCounts(3, 1), d.now) == []
    assert len(d.host.sent) == before
