"""The runtime's task count (the debug topic's ``tasks``): a task counts from its start until it
ends, however it ends."""

from __future__ import annotations

import anyio
import pytest

from cueboard.runtime.shell import CountedTasks


async def _count_while_tasks_run_and_end() -> list[int]:
    seen: list[int] = []
    release = anyio.Event()

    async def waits() -> None:
        await release.wait()

    async def fails() -> None:
        raise LookupError("ends by raising")

    with pytest.raises(ExceptionGroup):
        async with anyio.create_task_group() as group:
            tasks = CountedTasks(group)
            tasks.start_soon(waits)
            tasks.start_soon(waits)
            seen.append(tasks.running)
            release.set()
            await anyio.sleep(0.01)
            seen.append(tasks.running)
            tasks.start_soon(fails)
            seen.append(tasks.running)
            await anyio.sleep(0.01)
    seen.append(tasks.running)
    return seen


def test_a_task_counts_from_start_until_it_returns_or_raises() -> None:
    assert anyio.run(_count_while_tasks_run_and_end) == [2, 0, 1, 0]


async def _cancelled() -> int:
    async with anyio.create_task_group() as group:
        tasks = CountedTasks(group)
        tasks.start_soon(anyio.sleep_forever)
        await anyio.sleep(0.01)
        group.cancel_scope.cancel()
    return tasks.running


def test_a_cancelled_task_no_longer_counts() -> None:
    assert anyio.run(_cancelled) == 0
