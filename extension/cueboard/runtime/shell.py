"""The shell around :class:`~cueboard.core.app.CueboardCore` for one process: it feeds the core
what happens and carries out what the core asks, over one connection at a time.

What the host says reaches the core in the order its bytes arrived: events, and the answer to
each request, read from the client's one ordered stream (``Client.incoming``), so a load's
reply is handled before the ``audio_loaded`` the host sent after it. Every :class:`Send` goes to
the :class:`~cueboard.runtime.outbox.Outbox`, whose task writes it (presses first), and ends in
exactly one :class:`Reply` or :class:`Failure` fed back with its ticket: from the stream, or,
for a request never written, when the client refused it or the connection ended first. A
:class:`Wake` becomes a :class:`Tick` from the timer task; jobs go to the workers. Feeding is
synchronous and never waits on a write.
"""

from __future__ import annotations

import logging
import math
import os
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any, assert_never

import anyio
import anyio.abc

import cueboard.runtime.files as files
import vxp
from cueboard.core.app import CueboardCore
from cueboard.core.effects import (
    CancelFetch,
    CountTasks,
    DecodeIcons,
    DiscardSound,
    DrawWaveform,
    DropRenders,
    Effect,
    Exit,
    FetchSound,
    LoadCatalog,
    Log,
    Notice,
    ReadFile,
    RenderSound,
    Scan,
    Send,
    TouchRender,
    Wake,
    Watch,
    WriteFile,
)
from cueboard.core.inputs import CatalogLoaded, Connected, Failure, Input, Reply, TaskCounts, Tick
from cueboard.runtime.catalogs import load_catalog
from vxp.client import Answered, HostEvent, Incoming, RequestFailed

from .failures import failure_of
from .imports import Downloads
from .outbox import Outbox
from .renders import RenderCache, render_folder
from .workers import Workers

log = logging.getLogger("cueboard")
DEBUG = os.environ.get("CUEBOARD_LOG", "").upper() == "DEBUG"


class CountedTasks:
    """The connection's task group, counting the tasks started through it that still run:
    the figure the debug topic reports (anyio's task group does not tell)."""

    def __init__(self, tg: anyio.abc.TaskGroup) -> None:
        self.tg = tg
        self.running = 0

    def start_soon(self, fn: Callable[..., Awaitable[Any]], *args: Any) -> None:
        self.running += 1
        self.tg.start_soon(self._counted, fn, args)

    async def _counted(self, fn: Callable[..., Awaitable[Any]], args: tuple[Any, ...]) -> None:
        try:
            await fn(*args)
        finally:
            self.running -= 1


class Shell:
    def __init__(self, core: CueboardCore, data_home: Path | None = None) -> None:
        """``data_home``: where Cueboard keeps its own files (the rendered sounds); none for
        a shell that renders nothing."""
        self.core = core
        folder = render_folder(data_home) if data_home is not None else None
        self.renders = RenderCache(folder, self.feed) if folder is not None else None
        self.client: vxp.Client | None = None
        self.exit_code: int | None = None
        self.workers = Workers(self.feed)
        self.downloads = Downloads(self.feed)
        self.outbox = Outbox(self._refused)
        self._timers: dict[str, float] = {}
        self._unsent: list[Send] = []
        self._timer_changed: anyio.Event | None = None
        self._tg: CountedTasks | None = None
        self._scope: anyio.CancelScope | None = None

    # -- in and out -------------------------------------------------------------------------

    def feed(self, item: Input) -> None:
        """Hand one input to the core and carry out its effects."""
        self.carry(self._handle(item))

    def feed_event(self, event: Input) -> None:
        """A host event (a press's Send goes to the outbox's press lane, ahead of the rest)."""
        self.feed(event)

    def feed_incoming(self, item: Incoming) -> None:
        """One item of the ordered stream, as the core's input."""
        match item:
            case HostEvent(event=event):
                self.feed_event(event)
            case Answered(tag=Send(ticket=ticket) as send, result=result):
                self.outbox.answered(send)
                self.feed(Reply(ticket, result))
            case RequestFailed(tag=Send(ticket=ticket) as send, error=error):
                self.outbox.answered(send)
                self.feed(Failure(ticket, failure_of(error)))
            case _:  # a tag the shell did not give: not ours
                log.debug("an answer to no request of the core")

    def _handle(self, item: Input) -> list[Effect]:
        """The core's effects. A bug in the core on a strange input is logged, never raised:
        the next input is handled as usual."""
        try:
            return self.core.handle(item, anyio.current_time())
        except Exception as exc:
            log.error("could not handle %s: %s", type(item).__name__, type(exc).__name__)
            if DEBUG:
                log.exception("details")
            return []

    def carry(self, effects: list[Effect]) -> None:
        tg = self._tg
        for effect in effects:
            match effect:
                case Send():
                    if tg is not None:
                        self.outbox.put(effect)
                    else:  # between connections: it ends as closed before the next one
                        self._unsent.append(effect)
                case Wake(key=key, at=at):
                    self._timers[key] = at
                    if self._timer_changed is not None:
                        self._timer_changed.set()
                case Log(level=level, message=message):
                    log.log(level, "%s", message)
                case Notice(key=key):  # the core shows notices itself; one here is only logged
                    log.info("notice %s", key)
                case Watch(root=root):
                    self.workers.watch(root)
                case CancelFetch():
                    self.downloads.cancel(effect)
                case LoadCatalog(locale=locale):
                    self.feed(CatalogLoaded(load_catalog(locale)))
                case CountTasks():
                    tasks = tg.running if tg is not None else 0
                    self.feed(TaskCounts(tasks, len(self._timers)))
                case Exit(code=code):
                    self.exit_code = code
                    if self._scope is not None:
                        self._scope.cancel()
                case (
                    Scan()
                    | DecodeIcons()
                    | DrawWaveform()
                    | FetchSound()
                    | DiscardSound()
                    | WriteFile()
                    | ReadFile()
                    | RenderSound()
                    | DropRenders()
                    | TouchRender()
                ):
                    if tg is not None:
                        self._start_job(tg, effect)
                    else:  # the job would report into a connection that is gone
                        log.debug("%s dropped (no connection)", type(effect).__name__)
                case _:
                    assert_never(effect)

    def _start_job(
        self,
        tg: CountedTasks,
        job: Scan
        | DecodeIcons
        | DrawWaveform
        | FetchSound
        | DiscardSound
        | WriteFile
        | ReadFile
        | RenderSound
        | DropRenders
        | TouchRender,
    ) -> None:
        """A job for a worker or a file, in the connection's task group."""
        match job:
            case Scan():
                tg.start_soon(self.workers.scan, job)
            case DecodeIcons():
                tg.start_soon(self.workers.decode, job)
            case DrawWaveform():
                tg.start_soon(self.workers.draw_waveform, job)
            case FetchSound():
                self.downloads.start(tg, job, self.core.sounds_folder())
            case DiscardSound():
                self.downloads.discard(tg, job, self.core.sounds_folder())
            case WriteFile():
                tg.start_soon(files.write_file, job, self.feed)
            case ReadFile():
                tg.start_soon(files.read_file, job, self.feed)
            case RenderSound():
                if self.renders is not None:
                    tg.start_soon(self.renders.render, job)
            case DropRenders():
                if self.renders is not None:
                    tg.start_soon(self.renders.drop, job)
            case TouchRender():
                if self.renders is not None:
                    tg.start_soon(self.renders.touch, job)
            case _:
                assert_never(job)

    def _fail_unsent(self) -> None:
        """Requests asked for while no connection existed end as closed, before the next
        connection starts (a few rounds: what they lead to may ask again)."""
        for _ in range(3):
            unsent, self._unsent = self._unsent, []
            for send in unsent:
                self.feed(Failure(send.ticket, failure_of(vxp.ConnectionClosed())))
        if self._unsent:
            log.debug("%d requests dropped between connections", len(self._unsent))
            self._unsent = []

    def _refused(self, send: Send, exc: Exception) -> None:
        """The client wrote nothing for ``send``: no answer will come on the stream."""
        self.feed(Failure(send.ticket, failure_of(exc)))

    def _fail_unwritten(self) -> None:
        """The connection ended with requests still waiting to be written: they end as
        closed, as those in flight did on the stream."""
        for send in self.outbox.take_all():
            self.feed(Failure(send.ticket, failure_of(vxp.ConnectionClosed())))

    # -- timers -----------------------------------------------------------------------------

    async def _timer(self) -> None:
        while True:
            self._timer_changed = anyio.Event()
            now = anyio.current_time()
            due = sorted((at, key) for key, at in self._timers.items() if at <= now)
            for _, key in due:
                del self._timers[key]
            for _, key in due:
                self.feed(Tick(key, anyio.current_time()))
            if due:
                continue
            next_at = min(self._timers.values(), default=math.inf)
            with anyio.move_on_after(next_at - now):
                await self._timer_changed.wait()

    # -- one connection ---------------------------------------------------------------------

    async def serve(self, client: vxp.Client) -> None:
        """Run one connection until the core exits or the connection goes (then raises
        :class:`vxp.ConnectionClosed`)."""
        self.client = client
        lost: vxp.ConnectionClosed | None = None
        catalog = load_catalog(client.welcome.locale)
        self._fail_unsent()
        async with anyio.create_task_group() as task_group:
            tg = self._tg = CountedTasks(task_group)
            with anyio.CancelScope() as scope:
                self._scope = scope
                tg.start_soon(self._timer)
                tg.start_soon(self.workers.watcher)
                tg.start_soon(self.outbox.write, client)
                welcome = client.welcome
                self.feed(
                    Connected(
                        welcome, client.ext_id, client.host_version, catalog, unix_s=time.time()
                    )
                )
                try:
                    async for item in client.incoming():
                        self.feed_incoming(item)
                except* vxp.ConnectionClosed as group:
                    lost = _first(group)
            self._scope = None
            self._tg = None
            self.workers.stop_watching()
            task_group.cancel_scope.cancel()
        self.client = None
        self._fail_unwritten()
        if self.exit_code is None and lost is None:
            lost = vxp.ConnectionClosed("the host ended the connection")
        if lost is not None and self.exit_code is None:
            raise lost


def _first(group: BaseExceptionGroup[vxp.ConnectionClosed]) -> vxp.ConnectionClosed:
    first = group.exceptions[0]
    return first if isinstance(first, vxp.ConnectionClosed) else _first(first)
