"""The outbox keeps at most one large request unanswered, and a press still goes first.

The client is a stand-in that records what the outbox hands it: the pacing is the outbox's own
decision, made before a byte reaches a socket (the socket's side is in test_ordered_stream.py).
"""

from __future__ import annotations

from typing import Any

import anyio
import anyio.lowlevel
import pytest

from cueboard.core.effects import Send
from cueboard.runtime.outbox import LARGE_BYTES, Outbox
from vxp.models.audio import AudioPlay, PlayTarget
from vxp.prepared import Prepared

pytestmark = pytest.mark.anyio


def _put(ticket: int, size: int) -> Send:
    body = b'{"op":"put","key":"k%d","pixels":"%s"}' % (ticket, b"A" * size)
    return Send(ticket, "assets", Prepared("assets", body))


class Recorder:
    def __init__(self) -> None:
        self.written: list[int] = []

    async def submit(self, namespace: str, params: Any, tag: Send) -> None:
        self.written.append(tag.ticket)
        await anyio.lowlevel.checkpoint()


async def test_a_large_put_waits_for_the_previous_ones_answer_and_a_press_does_not() -> None:
    outbox = Outbox(lambda send, exc: None)
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
