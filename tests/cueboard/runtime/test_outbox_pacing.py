"""The outbox keeps at most one large request unanswered, a press still goes first, and while
someone is pressing a large request goes only right behind a press.

The client is a stand-in that records what the outbox hands it: the pacing is the outbox's own
decision, made before a byte reaches a socket (the socket's side is in test_ordered_stream.py).
"""

from __future__ import annotations

from typing import Any

import anyio
import anyio.lowlevel
import pytest

from cueboard.core.effects import Send
from cueboard.runtime.outbox import LARGE_BYTES, PRESS_GAP_S, Outbox
from vxp.models.audio import AudioPlay, PlayTarget
from vxp.prepared import Prepared

pytestmark = pytest.mark.anyio


def _put(ticket: int, size: int) -> Send:
    body = b'{"op":"put","key":"k%d","pixels":"%s"}' % (ticket, b"A" * size)
    return Send(ticket, "assets", Prepared("assets", body))


class Recorder:
    def __init__(self) -> None:
        self.written: list[int] = []
        self.wrote = anyio.Event()

    async def submit(self, namespace: str, params: Any, tag: Send) -> None:
        self.written.append(tag.ticket)
        self.wrote.set()
        self.wrote = anyio.Event()
        await anyio.lowlevel.checkpoint()


def _on_a_clock() -> tuple[list[float], Outbox, Recorder]:
    """An outbox whose clock the test moves (``clock[0]``), and what it writes."""
    clock = [100.0]
    return clock, Outbox(lambda send, exc: None, clock=lambda: clock[0]), Recorder()


def _play(ticket: int) -> Send:
    target = PlayTarget(channel="soundboard", gain_pct=80)
    return Send(ticket, "audio", AudioPlay(sound="s-00000001", targets=[target]))


async def test_a_large_put_waits_for_the_previous_ones_answer_and_a_press_does_not() -> None:
    outbox = Outbox(lambda send, exc: None, press_gap_s=0.0)  # the answer's pacing alone
    client = Recorder()
    first, second = _put(1, LARGE_BYTES), _put(2, LARGE_BYTES)
    small = Send(3, "kv", Prepared("kv", b'{"op":"get","key":"a"}'))
    play = Send(
        4,
        "audio",
        AudioPlay(sound="s-00000001", targets=[PlayTarget(channel="soundboard", gain_pct=80)]),
    )
    for send in (first, second, small):
        outbox.put(send)
    async with anyio.create_task_group() as tg:
        tg.start_soon(outbox.write, client)  # type: ignore[arg-type]
        await anyio.wait_all_tasks_blocked()
        assert client.written == [1]  # the second put, and the request behind it, wait
        outbox.put(play)
        await anyio.wait_all_tasks_blocked()
        assert client.written == [1, 4]
        outbox.answered(second)  # not the one in flight: nothing changes
        await anyio.wait_all_tasks_blocked()
        assert client.written == [1, 4]
        outbox.answered(first)
        await anyio.wait_all_tasks_blocked()
        assert client.written == [1, 4, 2, 3]
        tg.cancel_scope.cancel()


async def test_a_connection_that_ends_leaves_no_put_counted_as_unanswered() -> None:
    outbox = Outbox(lambda send, exc: None)
    client = Recorder()
    outbox.put(_put(1, LARGE_BYTES))
    outbox.put(_put(2, LARGE_BYTES))
    async with anyio.create_task_group() as tg:
        tg.start_soon(outbox.write, client)  # type: ignore[arg-type]
        await anyio.wait_all_tasks_blocked()
        assert [s.ticket for s in outbox.take_all()] == [2]
        outbox.put(_put(5, LARGE_BYTES))
        await anyio.wait_all_tasks_blocked()
        assert client.written == [1, 5]
        tg.cancel_scope.cancel()


async def test_while_someone_presses_a_large_put_goes_only_right_behind_a_press() -> None:
    """A put that becomes ready between two presses waits for the second, then follows it at
    once: the next press is then as far away as a person's presses are apart. What the core
    asked after the put waits with it: requests keep the core's order, presses excepted."""
    clock, outbox, client = _on_a_clock()
    async with anyio.create_task_group() as tg:
        tg.start_soon(outbox.write, client)  # type: ignore[arg-type]
        outbox.put(_play(1))
        await anyio.wait_all_tasks_blocked()
        clock[0] += PRESS_GAP_S / 10  # the worker's result comes in between the presses
        outbox.put(_put(2, LARGE_BYTES))
        outbox.put(Send(3, "kv", Prepared("kv", b'{"op":"get","key":"a"}')))
        await anyio.wait_all_tasks_blocked()
        assert client.written == [1]  # the put waits, and what the core asked after it
        outbox.put(_play(4))
        await anyio.wait_all_tasks_blocked()
        assert client.written == [1, 4, 2, 3]
        tg.cancel_scope.cancel()


async def test_one_large_put_per_press_and_none_behind_a_press_it_was_not_ready_for() -> None:
    _, outbox, client = _on_a_clock()  # the clock stands still: only presses move it on
    first, second = _put(2, LARGE_BYTES), _put(3, LARGE_BYTES)
    async with anyio.create_task_group() as tg:
        tg.start_soon(outbox.write, client)  # type: ignore[arg-type]
        outbox.put(_play(1))
        await anyio.wait_all_tasks_blocked()
        outbox.put(first)  # after the press was written and the writer went idle: it waits
        await anyio.wait_all_tasks_blocked()
        assert client.written == [1]
        outbox.put(_play(4))
        outbox.put(second)
        await anyio.wait_all_tasks_blocked()
        assert client.written == [1, 4, 2]
        outbox.answered(first)  # the second may go as far as pacing goes, but not behind no press
        await anyio.wait_all_tasks_blocked()
        assert client.written == [1, 4, 2]
        outbox.put(_play(5))
        await anyio.wait_all_tasks_blocked()
        assert client.written == [1, 4, 2, 5, 3]
        tg.cancel_scope.cancel()


async def test_once_the_presses_stop_for_the_gap_large_puts_flow_again() -> None:
    clock, outbox, client = _on_a_clock()
    async with anyio.create_task_group() as tg:
        tg.start_soon(outbox.write, client)  # type: ignore[arg-type]
        outbox.put(_play(1))
        await anyio.wait_all_tasks_blocked()
        outbox.put(_put(2, LARGE_BYTES))
        await anyio.wait_all_tasks_blocked()
        assert client.written == [1]
        clock[0] += PRESS_GAP_S  # no press since: the writer's own timer lets it go
        with anyio.fail_after(30):  # a hang fails; the pace is the gap, never asserted
            while client.written != [1, 2]:
                await client.wrote.wait()
        tg.cancel_scope.cancel()
