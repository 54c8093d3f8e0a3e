# pyright: strict
"""The async Studio client: one connection, one reader task, requests matched to replies.

The reader answers the host's calls itself, so that a busy application still meets the host's
deadlines (docs/protocol-notes.md#m7): ``extension.v1.reportStatus`` from the current
:class:`StatusReport` (5 s),
``extension.v1.shutdown`` with a success at once, after which :meth:`MxClient.wait_for_shutdown`
returns and the application leaves the ``async with`` block and exits (2 s). Any other call the
host makes is answered ``-32601 method not found: <name>``.
"""

from __future__ import annotations

import contextlib
import logging
from collections.abc import AsyncGenerator, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass
from typing import Any, Final

import anyio
import anyio.abc

from .errors import (
    ConnectionClosed,
    MalformedResponse,
)
from .jsonrpc import APPLICATION_ERROR, METHOD_NOT_FOUND, OMIT, RpcId
from .models import (
    METHOD_LIST_VMS,
    METHOD_REPORT_STATUS,
    METHOD_SHUTDOWN,
    HelloResult,
    StatusReport,
    StatusState,
)
from .session import (
    ClientSession,
    Closed,
    Failed,
    HelloAccepted,
    HelloFailed,
    HostCall,
    Replied,
    SessionEvent,
    Skipped,
    State,
)
from .transport import READ_CHUNK, LaunchEnvironment, open_connection

__all__ = ["HELLO_TIMEOUT_S", "MxClient", "Reply", "StatusSource", "connect"]

log = logging.getLogger("mxproto")

HELLO_TIMEOUT_S: Final = 10.0

type StatusSource = StatusReport | Callable[[], StatusReport]

_LOST = (anyio.EndOfStream, anyio.BrokenResourceError, anyio.ClosedResourceError, OSError)


@dataclass(frozen=True, slots=True)
class Reply:
    """A request's result, with the framebuffer bytes when the result announced them
    (docs/protocol-notes.md#m5)."""

    result: Any
    framebuffer: bytes | None = None

    def __repr__(self) -> str:
        size = "none" if self.framebuffer is None else f"{len(self.framebuffer)} bytes"
        return f"Reply(result={self.result!r}, framebuffer={size})"


class _Waiter:
    __slots__ = ("done", "outcome")

    def __init__(self) -> None:
        self.done = anyio.Event()
        self.outcome: Replied | Failed | None = None


class MxClient:
    """A connected, greeted session. Obtain one with :func:`connect`."""

    def __init__(
        self,
        stream: anyio.abc.ByteStream,
        session: ClientSession,
        env: LaunchEnvironment,
        hello: HelloResult,
        status: StatusSource,
    ) -> None:
        self._stream = stream
        self._session = session
        self._env = env
        self._hello = hello
        self._status = status
        self._send_lock = anyio.Lock()
        self._waiters: dict[RpcId, _Waiter] = {}
        self._status_reported = anyio.Event()
        self._shutdown = anyio.Event()
        self._ended = anyio.Event()
        self._closed_reason: str | None = None
        self.shutdown_requested = False

    def __repr__(self) -> str:
        return f"MxClient(extension_id={self._env.extension_id!r}, session={self._session!r})"

    # -- the handshake's outcome ----------------------------------------------------------

    @property
    def hello(self) -> HelloResult:
        return self._hello

    @property
    def protocol_version(self) -> int:
        return self._hello.protocolVersion

    @property
    def host_capabilities(self) -> list[str]:
        return list(self._hello.hostCapabilities)

    @property
    def session_id(self) -> str:
        return self._hello.sessionId

    @property
    def extension_id(self) -> str:
        return self._env.extension_id

    @property
    def closed_reason(self) -> str | None:
        return self._closed_reason

    # -- status and lifecycle -------------------------------------------------------------

    def set_status(self, state: StatusState, message: str) -> None:
        """What the next ``reportStatus`` answers (keeps version and capabilities)."""
        current = self._current_status()
        self._status = current.model_copy(update={"state": state, "message": message})

    def _current_status(self) -> StatusReport:
        return self._status() if callable(self._status) else self._status

    async def wait_status_reported(self) -> None:
        """Until the host has asked for our status and been answered (or the connection ended)."""
        await self._status_reported.wait()

    async def wait_for_shutdown(self) -> None:
        """Until the host calls ``extension.v1.shutdown`` (answered already) or the link ends."""
        await self._ended.wait()

    # -- requests to the host -------------------------------------------------------------

    async def call(self, method: str, params: Any = OMIT) -> Reply:
        """One request; bound the wait with ``anyio.fail_after`` around it if needed."""
        if self._session.state is State.CLOSED:
            raise ConnectionClosed(self._closed_reason or "the connection is closed")
        rpc_id, frame = self._session.request(method, params)
        waiter = _Waiter()
        self._waiters[rpc_id] = waiter
        try:
            await self._send(frame)
            await waiter.done.wait()
        finally:
            self._waiters.pop(rpc_id, None)
        outcome = waiter.outcome
        assert outcome is not None
        if isinstance(outcome, Failed):
            raise outcome.error
        return Reply(outcome.result, outcome.attachment)

    async def list_vms(self) -> list[dict[str, Any]]:
        """``host.v1.listVms``: the VMs as opaque objects (docs/protocol-notes.md#m6)."""
        reply = await self.call(METHOD_LIST_VMS)
        vms: Any = reply.result
        if not isinstance(vms, list) or not all(isinstance(vm, dict) for vm in vms):  # pyright: ignore[reportUnknownVariableType]
            raise MalformedResponse("host.v1.listVms: the result is not an array of objects")
        return vms  # pyright: ignore[reportUnknownVariableType]

    # -- the reader -----------------------------------------------------------------------

    async def _send(self, frame: bytes) -> None:
        async with self._send_lock:
            # On a lost link the reader sees the loss and fails every waiter.
            with contextlib.suppress(*_LOST):
                await self._stream.send(frame)

    async def _read_loop(self, backlog: list[SessionEvent]) -> None:
        await self._dispatch(backlog)
        while self._session.state is not State.CLOSED:
            try:
                data = await self._stream.receive(READ_CHUNK)
            except _LOST:
                events = self._session.connection_lost()
            else:
                events = self._session.receive_data(data)
            await self._dispatch(events)
        with anyio.CancelScope(shield=True):
            await self._stream.aclose()

    async def _dispatch(self, events: list[SessionEvent]) -> None:
        for event in events:
            match event:
                case Replied() | Failed():
                    waiter = self._waiters.get(event.id)
                    if waiter is not None:
                        waiter.outcome = event
                        waiter.done.set()
                case HostCall():
                    await self._host_call(event)
                case Skipped(reason=reason, reply=reply):
                    log.warning("ignored from the host: %s", reason)
                    if reply is not None:
                        await self._send(reply)
                case Closed(reason=reason):
                    self._closed_reason = reason
                    self._ended.set()
                    self._status_reported.set()  # nobody will ask any more: stop waiting
                case HelloAccepted() | HelloFailed():
                    pass  # only during connect()

    async def _host_call(self, call: HostCall) -> None:
        if call.method == METHOD_REPORT_STATUS:
            if call.id is not None:
                try:
                    report = self._current_status()
                except Exception as exc:
                    log.exception("the status callback failed")
                    frame = self._session.reply_error(
                        call.id, APPLICATION_ERROR, f"status unavailable: {type(exc).__name__}"
                    )
                else:
                    frame = self._session.reply(call.id, report.model_dump(mode="json"))
                await self._send(frame)
            self._status_reported.set()
        elif call.method == METHOD_SHUTDOWN:
            if call.id is not None:
                await self._send(self._session.reply(call.id, None))
            self.shutdown_requested = True
            self._ended.set()
        elif call.id is not None:
            await self._send(
                self._session.reply_error(
                    call.id, METHOD_NOT_FOUND, f"method not found: {call.method}"
                )
            )


@asynccontextmanager
async def connect(
    env: LaunchEnvironment | None = None,
    *,
    version: str = "0.1.0",
    status: StatusSource | None = None,
    hello_timeout: float = HELLO_TIMEOUT_S,
) -> AsyncGenerator[MxClient]:
    """Connect to Studio, say hello, and keep the session served until the block ends.

    ``env`` defaults to the four ``MX_EXTENSION_*`` variables. ``status`` (a report, or a
    function returning one) answers ``reportStatus``; by default ``ready`` with ``version``.
    Raises :class:`~mxproto.errors.HelloRejected` with the host's code and message when the
    hello is refused.
    """
    env = env if env is not None else LaunchEnvironment.from_environ()
    source: StatusSource = (
        status
        if status is not None
        else StatusReport(state="ready", message="ready", version=version)
    )
    stream = await open_connection(env)
    try:
        session = ClientSession()
        hello, backlog = await _greet(stream, session, env, hello_timeout)
        client = MxClient(stream, session, env, hello, source)
        # The caller's own errors (a RemoteError from call(), say) leave the block as they are,
        # not wrapped in the task group's ExceptionGroup; cancellation is not caught here.
        raised: Exception | None = None
        async with anyio.create_task_group() as tg:
            tg.start_soon(client._read_loop, backlog)  # pyright: ignore[reportPrivateUsage]
            try:
                yield client
            except Exception as exc:
                raised = exc
            finally:
                tg.cancel_scope.cancel()
        if raised is not None:
            raise raised
    finally:
        with anyio.CancelScope(shield=True):
            await stream.aclose()


async def _greet(
    stream: anyio.abc.ByteStream, session: ClientSession, env: LaunchEnvironment, limit_s: float
) -> tuple[HelloResult, list[SessionEvent]]:
    """Send hello, read until its answer; return the result and the events that followed it."""
    await stream.send(session.start(env.token, env.extension_id, env.protocol_version))
    with anyio.move_on_after(limit_s):
        while True:
            try:
                data = await stream.receive(READ_CHUNK)
            except _LOST:
                events = session.connection_lost()
            else:
                events = session.receive_data(data)
            for index, event in enumerate(events):
                match event:
                    case HelloAccepted(result=result):
                        return result, events[index + 1 :]
                    case HelloFailed(error=error):
                        raise error
                    case Skipped(reason=reason, reply=reply):
                        log.warning("ignored from the host: %s", reason)
                        if reply is not None:
                            await stream.send(reply)
                    case _:
                        pass
    raise ConnectionClosed(f"no answer to host.v1.hello within {limit_s:g} s")
