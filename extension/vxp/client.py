"""The async client: a session, a byte stream, a reader task, typed namespaces.

One task group per connection (structured concurrency): the reader feeds the sans-IO
:class:`Session` and resolves waiters; senders write under a lock, so the path from a caller to the
socket is one serialisation and one write. Events are delivered in arrival order through
:meth:`Client.events`.

Two ways to hear what the host says, for two kinds of caller:

* awaiting: ``await client.request(...)`` (or :meth:`Client.send_request` then
  :meth:`Pending.result`) gives one answer to one caller, and ``async for event in
  client.events()`` gives the events. The answer and the events reach their awaiters through
  different tasks, so their relative order is the scheduler's.
* one ordered stream: :meth:`Client.submit` writes a request with a tag of the caller's own, and
  ``async for item in client.incoming()`` yields every event (:class:`HostEvent`), every answer
  to a submitted request (:class:`Answered`, with its tag) and every submitted request that got
  no usable answer (:class:`RequestFailed`: a JSON-RPC error, a domain ``err``, a timeout, the
  connection's end) in the order the host's bytes arrived. Each submitted request ends in
  exactly one :class:`Answered` or :class:`RequestFailed`. A program that keeps state across
  answers and events (a reply, then the event it announces) reads this one.
"""

from __future__ import annotations

import heapq
import logging
import math
from collections.abc import AsyncGenerator, AsyncIterator, Mapping
from contextlib import asynccontextmanager
from typing import TYPE_CHECKING, Any, TypeVar

import anyio
import anyio.abc
from anyio.streams.memory import MemoryObjectReceiveStream, MemoryObjectSendStream

from ._namespaces import Namespaces
from .errors import (
    ConnectionClosed,
    DomainError,
    HelloRejected,
    MalformedResponse,
    VxpError,
)
from .limits import HELLO_DEADLINE_S
from .prepared import Prepared
from .session import (
    Closed,
    EventReceived,
    Failed,
    HelloAccepted,
    HelloRefused,
    HostViolation,
    Replied,
    Session,
    SessionEvent,
)
from .stream import Answered, HostEvent, Incoming, RequestFailed
from .transport import CONNECT_RETRY_S, LaunchEnvironment, Opener, open_endpoint
from .version import CLIENT_VERSION, Version

if TYPE_CHECKING:
    from pydantic import BaseModel

    from .models.handshake import Welcome

__all__ = [
    "Answered",
    "Client",
    "HostEvent",
    "Incoming",
    "Pending",
    "RequestFailed",
    "connect",
]

log = logging.getLogger("vxp")
T = TypeVar("T")
DEFAULT_REQUEST_TIMEOUT_S = 30.0


class _Waiter:
    __slots__ = ("done", "error", "result")

    def __init__(self) -> None:
        self.done = anyio.Event()
        self.result: Any = None
        self.error: VxpError | None = None


class Pending:
    """A request already written; :meth:`result` waits for its answer (once)."""

    __slots__ = ("_client", "_namespace", "_request_id", "_waiter")

    def __init__(self, client: Client, namespace: str, request_id: int, waiter: _Waiter) -> None:
        self._client = client
        self._namespace = namespace
        self._request_id = request_id
        self._waiter = waiter

    async def result(self) -> Any:
        """The namespace's result (``err`` raises DomainError); TimeoutError after the
        client's ``request_timeout``."""
        client, waiter = self._client, self._waiter
        try:
            with anyio.fail_after(client.request_timeout):
                await waiter.done.wait()
        except TimeoutError:
            client._session.forget(self._request_id)  # pyright: ignore[reportPrivateUsage]
            raise
        finally:
            client._waiters.pop(self._request_id, None)  # pyright: ignore[reportPrivateUsage]
        if waiter.error is not None:
            raise waiter.error
        result = waiter.result
        if getattr(result, "result", None) == "err":
            raise DomainError(self._namespace, result.code, result.message)
        return result


class Client(Namespaces):
    """A connected, welcomed VXP client. Create it with :func:`connect`."""

    def __init__(self, stream: anyio.abc.ByteStream, session: Session) -> None:
        self._stream = stream
        self._session = session
        # fast_acquire: an uncontended send writes at once, without yielding to the loop first
        self._send_lock = anyio.Lock(fast_acquire=True)
        self._waiters: dict[int, _Waiter] = {}
        self._hello: _Waiter = _Waiter()
        send, receive = anyio.create_memory_object_stream[Incoming](math.inf)
        self._incoming_send: MemoryObjectSendStream[Incoming] = send
        self._incoming_receive: MemoryObjectReceiveStream[Incoming] = receive
        # submitted requests: id -> (tag, namespace); their deadlines, a heap of (when, id)
        self._tagged: dict[int, tuple[object, str]] = {}
        self._deadlines: list[tuple[float, int]] = []
        self._deadline_changed = anyio.Event()
        self.closed_reason: str | None = None
        self._closing = False
        self._surfaced = False
        self.request_timeout = DEFAULT_REQUEST_TIMEOUT_S
        self.violations = 0
        super().__init__()

    def __repr__(self) -> str:
        return f"Client({self._session!r})"

    # -- what the host told us ----------------------------------------------------------------

    @property
    def welcome(self) -> Welcome:
        welcome = self._session.welcome
        if welcome is None:
            raise ConnectionClosed("no welcome yet")
        return welcome

    @property
    def host_version(self) -> Version:
        version = self._session.host_version
        if version is None:
            raise ConnectionClosed("no welcome yet")
        return version

    @property
    def ext_id(self) -> str:
        return self._session.ext_id

    @property
    def is_open(self) -> bool:
        return self.closed_reason is None

    # -- requests ---------------------------------------------------------------------------

    async def request(self, namespace: str, params: BaseModel | Prepared) -> Any:
        """Send one request and return the namespace's result (``err`` raises DomainError)."""
        return await (await self.send_request(namespace, params)).result()

    async def send_request(self, namespace: str, params: BaseModel | Prepared) -> Pending:
        """Write one request now and return without waiting for its answer: a caller on a hot
        path (a press) writes first and waits elsewhere. :meth:`Pending.result` gives the
        answer as :meth:`request` would."""
        if self.closed_reason is not None:
            raise ConnectionClosed(self.closed_reason)
        request_id, frame = self._session.request(namespace, params)
        waiter = _Waiter()
        self._waiters[request_id] = waiter
        try:
            await self._send(frame)
        except BaseException:
            self._waiters.pop(request_id, None)
            raise
        return Pending(self, namespace, request_id, waiter)

    async def submit(self, namespace: str, params: BaseModel | Prepared, tag: object) -> None:
        """Write one request; its outcome arrives on :meth:`incoming` with ``tag``, as one
        :class:`Answered` or one :class:`RequestFailed` (a timeout after ``request_timeout``,
        counted from now). Raises only when nothing was written and nothing will arrive: the
        connection is already closed (:class:`ConnectionClosed`), or the request is refused
        locally (:class:`InvalidRequest`, :class:`NotSupportedByHost`,
        :class:`LocalProtocolError`). Losing the connection while writing is told on the stream.
        """
        if self.closed_reason is not None:
            raise ConnectionClosed(self.closed_reason)
        request_id, frame = self._session.request(namespace, params)
        self._tagged[request_id] = (tag, namespace)
        deadline = anyio.current_time() + self.request_timeout
        heapq.heappush(self._deadlines, (deadline, request_id))
        if self._deadlines[0][1] == request_id:
            self._deadline_changed.set()
        await self._write(frame)

    async def call(self, namespace: str, params: BaseModel | Prepared, expect: type[T]) -> T:
        """:meth:`request`, checked to be of the expected result model."""
        result = await self.request(namespace, params)
        if not isinstance(result, expect):
            tag = getattr(result, "result", "?")
            raise MalformedResponse(f"{namespace}: expected {expect.__name__}, got result {tag!r}")
        return result

    async def _send(self, frame: bytes) -> None:
        if not await self._write(frame):
            raise ConnectionClosed(self.closed_reason or "the connection is gone")

    async def _write(self, frame: bytes) -> bool:
        """Write one frame; False when the connection is gone (its end already dispatched)."""
        try:
            async with self._send_lock:
                await self._stream.send(frame)
        except (anyio.BrokenResourceError, anyio.ClosedResourceError, OSError) as exc:
            self._dispatch(self._session.connection_lost(f"sending failed: {type(exc).__name__}"))
            return False
        return True

    # -- events -----------------------------------------------------------------------------

    async def events(self) -> AsyncIterator[Any]:
        """Events in arrival order. Ends when the connection ends; an unexpected end raises
        :class:`ConnectionClosed` once, after the events that came before it. Answers to
        :meth:`submit` are not here: a program that submits reads :meth:`incoming` instead."""
        async for item in self._incoming_receive:
            if isinstance(item, HostEvent):
                yield item.event
        self._surface_end()

    async def incoming(self) -> AsyncIterator[Incoming]:
        """Everything the host sends, in the order its bytes arrived: events, and the answers
        and failures of :meth:`submit`'s requests (see the module's docstring). Ends when the
        connection ends, after the failures of the requests still unanswered; an unexpected
        end raises :class:`ConnectionClosed` once, after the items that came before it. One
        reader: two loops at once share the items between them."""
        async for item in self._incoming_receive:
            yield item
        self._surface_end()

    def _surface_end(self) -> None:
        if self.closed_reason is not None and not self._closing and not self._surfaced:
            self._surfaced = True
            raise ConnectionClosed(self.closed_reason)

    # -- the reader -------------------------------------------------------------------------

    async def _read_loop(self) -> None:
        try:
            while True:
                try:
                    data = await self._stream.receive()
                except (anyio.EndOfStream, anyio.BrokenResourceError, OSError):
                    self._dispatch(self._session.connection_lost())
                    return
                except anyio.ClosedResourceError:
                    self._dispatch(self._session.close())
                    return
                self._dispatch(self._session.receive_data(data))
                if self.closed_reason is not None:
                    return
        finally:
            self._incoming_send.close()
            if self.closed_reason is not None:
                await self._stream.aclose()

    async def _expire(self) -> None:
        """Submitted requests unanswered by their deadline end as a :class:`RequestFailed`
        holding a :class:`TimeoutError`, on the stream; a late answer is then a violation."""
        while self.closed_reason is None:
            self._deadline_changed = anyio.Event()
            now = anyio.current_time()
            while self._deadlines and self._deadlines[0][0] <= now:
                _, request_id = heapq.heappop(self._deadlines)
                entry = self._tagged.pop(request_id, None)
                if entry is None:
                    continue  # answered in time
                tag, namespace = entry
                self._session.forget(request_id)
                error = TimeoutError(f"{namespace}: no answer within {self.request_timeout:g} s")
                self._incoming_send.send_nowait(RequestFailed(tag, namespace, error))
            next_at = self._deadlines[0][0] if self._deadlines else math.inf
            with anyio.move_on_after(next_at - now):
                await self._deadline_changed.wait()

    def _dispatch(self, events: list[SessionEvent]) -> None:
        for ev in events:
            match ev:
                case EventReceived(event=event):
                    self._incoming_send.send_nowait(HostEvent(event))
                case Replied(request_id=rid, namespace=namespace, result=result):
                    if rid in self._tagged:
                        self._answered(self._tagged.pop(rid)[0], namespace, result)
                        continue
                    waiter = self._waiters.get(rid)
                    if waiter is not None:
                        waiter.result = result
                        waiter.done.set()
                case Failed(request_id=rid, namespace=namespace, error=error):
                    if rid in self._tagged:
                        failed = RequestFailed(self._tagged.pop(rid)[0], namespace, error)
                        self._incoming_send.send_nowait(failed)
                        continue
                    waiter = self._waiters.get(rid)
                    if waiter is not None:
                        waiter.error = error
                        waiter.done.set()
                case HelloAccepted():
                    self._hello.done.set()
                case HelloRefused(code=code, message=message):
                    self._hello.error = HelloRejected(code, message)
                    self._hello.done.set()
                case HostViolation(description=text):
                    self.violations += 1
                    log.warning("host violation: %s", text)
                case Closed(reason=reason):
                    if self.closed_reason is None:
                        self.closed_reason = reason
                        # A refused hello is told once, by the HelloRejected the caller gets.
                        refused = isinstance(self._hello.error, HelloRejected)
                        if not self._closing and not refused:
                            log.warning("connection closed: %s", reason)
                    if not self._hello.done.is_set():
                        self._hello.error = self._hello.error or ConnectionClosed(reason)
                        self._hello.done.set()
                    # every submitted request has had its failure: the stream ends here
                    self._incoming_send.close()
                    self._deadline_changed.set()

    def _answered(self, tag: object, namespace: str, result: Any) -> None:
        if getattr(result, "result", None) == "err":
            error = DomainError(namespace, result.code, result.message)
            self._incoming_send.send_nowait(RequestFailed(tag, namespace, error))
        else:
            self._incoming_send.send_nowait(Answered(tag, namespace, result))

    async def _handshake(self, deadline: float) -> None:
        await self._send(self._session.start())
        with anyio.fail_after(max(deadline - anyio.current_time(), 0.001)):
            await self._hello.done.wait()
        if self._hello.error is not None:
            raise self._hello.error

    async def aclose(self) -> None:
        self._closing = True
        if self.closed_reason is None:
            self._dispatch(self._session.close())
        await self._stream.aclose()


@asynccontextmanager
async def connect(
    env: Mapping[str, str] | None = None,
    *,
    version: Version = CLIENT_VERSION,
    hello_deadline: float = HELLO_DEADLINE_S,
    connect_retry: float = CONNECT_RETRY_S,
    opener: Opener | None = None,
) -> AsyncGenerator[Client]:
    """Connect to the endpoint vrOS gave us, say hello, and yield the welcomed client.

    ``version`` is what we announce (H-17): the SDK understands 1.7; announcing less makes the
    host withhold newer events. Raises :class:`HelloRejected` on ``rejected``.
    """
    started = anyio.current_time()
    launch = LaunchEnvironment.from_environ(env)
    stream = await open_endpoint(launch.endpoint, retry_for=connect_retry, opener=opener)
    client = Client(stream, Session(launch.ext_id, launch.token, version))
    try:
        async with anyio.create_task_group() as tg:
            tg.start_soon(client._read_loop)  # pyright: ignore[reportPrivateUsage]
            tg.start_soon(client._expire)  # pyright: ignore[reportPrivateUsage]
            try:
                await client._handshake(started + hello_deadline)  # pyright: ignore[reportPrivateUsage]
                yield client
            finally:
                with anyio.CancelScope(shield=True):
                    await client.aclose()
    except BaseExceptionGroup as group:
        # The reader never raises, so a group holds the one error of the handshake or of the
        # caller's own block: give it back as itself, not wrapped.
        if len(group.exceptions) == 1:
            raise group.exceptions[0]  # noqa: B904
        raise
