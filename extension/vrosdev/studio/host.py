"""The emulated Studio host: one state machine per extension connection, every seed rule enforced.

Per connection:

    AWAIT_HELLO --valid host.v1.hello--> READY --close / corruption / end of session--> CLOSED
         \\--anything else first, or a refused hello--> CLOSED

* ``host.v1.hello`` must be the first kind-0 frame. A hello without an id is dropped (it is not
  a notification) and the connection still waits for one. Any other first message is answered
  ``-32600`` (when it has an id) and the connection is closed; so is a refused hello, after its
  ``-32602`` answer (the seed does not say whether a refused connection may retry; this host
  does not let it). Checks, in order: params deserialize (strict types), ``protocolVersion``
  is 1, ``extensionId`` is the id this socket was opened for, the token is the one issued.
* After the hello result: ``extension.v1.reportStatus`` (params null) is called; no valid reply
  within the status deadline, an error reply, or a malformed one, marks the extension
  ``failed`` (docs/protocol-notes.md#m7).
* ``host.v1.hello`` again: ``-32600`` with the seed's message. ``host.v1.listVms``: the
  configured list, or an ``mxfb0001`` result with its kind-1 attachment (``--framebuffer``).
  Any other method: ``-32601 method not found: <name>``. Notifications are never answered.
* Framing (docs/protocol-notes.md#m1 to #m4): a declared length over 64 MiB or a
  zero-length payload closes the connection at once; a frame of unknown kind is read and
  dropped; kind-1 frames from the extension have no use here and are recorded and dropped.
"""

from __future__ import annotations

import contextlib
import enum
import hmac
import json
import secrets
from dataclasses import dataclass, field
from typing import Any, Final

import anyio
import anyio.abc
from pydantic import ValidationError

from mxproto.errors import EmptyFrame, FrameCorrupt, MalformedAttachment
from mxproto.framing import (
    FRAMEBUFFER_ROLE,
    KIND_ATTACHMENT,
    KIND_JSON,
    Attachment,
    Frame,
    FrameDecoder,
    decode_attachment,
    encode_attachment,
    encode_json,
)
from mxproto.jsonrpc import (
    INVALID_PARAMS,
    INVALID_REQUEST,
    METHOD_NOT_FOUND,
    PARSE_ERROR,
    ErrorReply,
    Invalid,
    Request,
    Result,
    RpcId,
    classify,
    error_reply,
    request,
    result_reply,
)

from .config import StudioConfig
from .transcript import Transcript
from .wire import (
    HOST_CAPABILITIES,
    MSG_FIRST_NOT_HELLO,
    MSG_HELLO_NOT_FIRST,
    MSG_WRONG_EXTENSION,
    MSG_WRONG_TOKEN,
    SUPPORTED_PROTOCOL,
    HelloParamsIn,
    StatusReplyIn,
    deserializer_message,
    method_not_found,
    wrong_protocol,
)

__all__ = ["FRAMEBUFFER_BYTES", "StudioConnection", "StudioHost", "demo_framebuffer"]

HELLO: Final = "host.v1.hello"
LIST_VMS: Final = "host.v1.listVms"
REPORT_STATUS: Final = "extension.v1.reportStatus"
SHUTDOWN: Final = "extension.v1.shutdown"
READ_CHUNK: Final = 256 * 1024
FB_WIDTH, FB_HEIGHT = 64, 48
FRAMEBUFFER_BYTES: Final = FB_WIDTH * FB_HEIGHT * 4
_LOST = (anyio.EndOfStream, anyio.BrokenResourceError, anyio.ClosedResourceError, OSError)


def demo_framebuffer() -> bytes:
    """A small RGBA gradient; mxfb0001's pixel layout is not in the seed, so it is just bytes."""
    return bytes(
        channel
        for y in range(FB_HEIGHT)
        for x in range(FB_WIDTH)
        for channel in (x * 4 & 0xFF, y * 5 & 0xFF, (x + y) & 0xFF, 0xFF)
    )


class ConnState(enum.Enum):
    AWAIT_HELLO = "awaiting hello"
    READY = "ready"
    CLOSED = "closed"


@dataclass
class _Outgoing:
    """A call the host made, waiting for the extension's answer."""

    method: str
    done: anyio.Event = field(default_factory=anyio.Event)
    answer: Result | ErrorReply | None = None


@dataclass(frozen=True)
class StatusOutcome:
    state: str
    message: str
    report: dict[str, Any] | None = None


class StudioHost:
    """Serves one extension's connections; the launcher ends the session through it."""

    def __init__(self, config: StudioConfig, transcript: Transcript) -> None:
        self.config = config
        self.transcript = transcript
        self.connections: list[StudioConnection] = []
        self.session_ids: list[str] = []
        self.status: StatusOutcome | None = None
        self.status_settled = anyio.Event()
        self.vms_answered = anyio.Event()
        self.shutdown_acknowledged = anyio.Event()
        self._framebuffer = demo_framebuffer() if config.framebuffer else b""

    def __repr__(self) -> str:
        return f"StudioHost(extension_id={self.config.extension_id!r})"

    async def serve(self, listener: anyio.abc.Listener[anyio.abc.SocketStream]) -> None:
        await listener.serve(self.handle)

    async def handle(self, stream: anyio.abc.SocketStream) -> None:
        conn = StudioConnection(self, stream, len(self.connections) + 1)
        self.connections.append(conn)
        await conn.run()

    def settle_status(self, outcome: StatusOutcome) -> None:
        self.status = outcome
        self.transcript.note(f"status: {outcome.state} ({outcome.message})")
        self.status_settled.set()

    async def end_session(self) -> int:
        """Call ``extension.v1.shutdown`` on every greeted connection; how many were called."""
        called = 0
        for conn in self.connections:
            if conn.state is ConnState.READY:
                await conn.call_shutdown()
                called += 1
        return called


class StudioConnection:
    def __init__(self, host: StudioHost, stream: anyio.abc.SocketStream, number: int) -> None:
        self.host = host
        self.stream = stream
        self.number = number
        self.state = ConnState.AWAIT_HELLO
        self.session_id: str | None = None
        self._next_id = 1
        self._outgoing: dict[int, _Outgoing] = {}
        self._send_lock = anyio.Lock()
        self._tasks: anyio.abc.TaskGroup | None = None

    def __repr__(self) -> str:
        return f"StudioConnection(#{self.number}, {self.state.value})"

    @property
    def _t(self) -> Transcript:
        return self.host.transcript

    # -- reading --------------------------------------------------------------------------

    async def run(self) -> None:
        self._t.note(f"connection #{self.number} opened")
        decoder = FrameDecoder()
        try:
            async with anyio.create_task_group() as tasks:
                self._tasks = tasks
                await self._read(decoder)
                tasks.cancel_scope.cancel()
        finally:
            self.state = ConnState.CLOSED
            with anyio.CancelScope(shield=True):
                await self.stream.aclose()

    async def _read(self, decoder: FrameDecoder) -> None:
        while self.state is not ConnState.CLOSED:
            try:
                data = await self.stream.receive(READ_CHUNK)
            except _LOST:
                cut = " in the middle of a frame" if decoder.in_frame else ""
                self._t.note(f"connection #{self.number} closed by the extension{cut}")
                return
            try:
                frames = decoder.feed(data)
            except FrameCorrupt as exc:
                rule = (
                    "docs/protocol-notes.md#m3"
                    if isinstance(exc, EmptyFrame)
                    else "docs/protocol-notes.md#m2"
                )
                self._t.violation(rule, f"{exc}: closing connection #{self.number}")
                return
            for frame in frames:
                await self._frame(frame)
                if self.state is ConnState.CLOSED:
                    return

    async def _frame(self, frame: Frame) -> None:
        if frame.kind == KIND_JSON:
            await self._json(frame.body)
        elif frame.kind == KIND_ATTACHMENT:
            try:
                att = decode_attachment(frame.body)
            except MalformedAttachment as exc:
                self._t.violation("docs/protocol-notes.md#m1", f"{exc}: dropped")
                return
            self._t.attachment("ext>host", att)
            self._t.note("an attachment from the extension has no use on this host: dropped")
        else:
            self._t.unknown_kind("ext>host", frame.kind, len(frame.body))
            self._t.note(
                f"a frame of unknown kind {frame.kind}: skipped (docs/protocol-notes.md#m4)"
            )

    async def _json(self, body: bytes) -> None:
        try:
            obj = json.loads(body.decode("utf-8"))
        except (UnicodeDecodeError, json.JSONDecodeError, RecursionError) as exc:
            self._t.raw("ext>host", body)
            reason = "the body is not UTF-8" if isinstance(exc, UnicodeDecodeError) else str(exc)
            await self._send(error_reply(None, PARSE_ERROR, f"parse error: {reason}"))
            if self.state is ConnState.AWAIT_HELLO:
                await self._refuse_connection("the first message is not JSON")
            return
        self._t.frame("ext>host", obj)
        msg = classify(obj)
        if self.state is ConnState.AWAIT_HELLO:
            await self._first_message(msg)
        else:
            await self._ready_message(msg)

    # -- before hello ---------------------------------------------------------------------

    async def _first_message(self, msg: Request | Result | ErrorReply | Invalid) -> None:
        if isinstance(msg, Request) and msg.method == HELLO:
            if msg.id is None:
                self._t.note(
                    "a hello without an id is dropped: host.v1.hello is not a notification"
                )
                return
            await self._hello(msg.id, msg.params)
            return
        if isinstance(msg, Invalid):
            if msg.reply_expected:
                await self._send(error_reply(msg.id, msg.code, msg.reason))
        elif isinstance(msg, Request) and msg.id is not None:
            await self._send(error_reply(msg.id, INVALID_REQUEST, MSG_FIRST_NOT_HELLO))
        await self._refuse_connection("the first message is not host.v1.hello")

    async def _hello(self, rpc_id: RpcId, params: Any) -> None:
        cfg = self.host.config
        try:
            hello = HelloParamsIn.model_validate(params)
        except ValidationError as exc:
            await self._refuse_hello(rpc_id, deserializer_message(exc))
            return
        if hello.protocolVersion != SUPPORTED_PROTOCOL:
            await self._refuse_hello(rpc_id, wrong_protocol(hello.protocolVersion))
            return
        if hello.extensionId != cfg.extension_id:
            await self._refuse_hello(rpc_id, MSG_WRONG_EXTENSION)
            return
        if not hmac.compare_digest(hello.token.encode(), cfg.token.encode()):
            await self._refuse_hello(rpc_id, MSG_WRONG_TOKEN)
            return
        self.session_id = f"{cfg.extension_id}-{secrets.token_hex(8)}"
        self.host.session_ids.append(self.session_id)
        self.state = ConnState.READY
        result = {
            "protocolVersion": SUPPORTED_PROTOCOL,
            "hostCapabilities": list(HOST_CAPABILITIES),
            "sessionId": self.session_id,
        }
        await self._send(result_reply(rpc_id, result))
        self._t.note(f"connection #{self.number}: session {self.session_id}")
        assert self._tasks is not None
        self._tasks.start_soon(self._ask_status)

    async def _refuse_hello(self, rpc_id: RpcId, message: str) -> None:
        await self._send(error_reply(rpc_id, INVALID_PARAMS, message))
        await self._refuse_connection(f"hello refused: {message}")

    async def _refuse_connection(self, why: str) -> None:
        self._t.violation("handshake", f"{why}: closing connection #{self.number}")
        self.state = ConnState.CLOSED

    # -- after hello ----------------------------------------------------------------------

    async def _ready_message(self, msg: Request | Result | ErrorReply | Invalid) -> None:
        match msg:
            case Invalid():
                self._t.violation("JSON-RPC", msg.reason)
                if msg.reply_expected:
                    await self._send(error_reply(msg.id, msg.code, msg.reason))
            case Request(id=None, method=method):
                self._t.note(f"notification {method} dropped (host methods need an id)")
            case Request(id=rpc_id, method=method, params=params, has_params=has_params):
                assert rpc_id is not None
                await self._call_from_extension(rpc_id, method, params, has_params)
            case Result() | ErrorReply():
                self._answer_from_extension(msg)

    async def _call_from_extension(
        self, rpc_id: RpcId, method: str, params: Any, has_params: bool
    ) -> None:
        if method == HELLO:
            await self._send(error_reply(rpc_id, INVALID_REQUEST, MSG_HELLO_NOT_FIRST))
        elif method == LIST_VMS:
            if has_params and params not in (None, [], {}):
                await self._send(
                    error_reply(rpc_id, INVALID_PARAMS, "host.v1.listVms takes no params")
                )
                return
            await self._list_vms(rpc_id)
        else:
            await self._send(error_reply(rpc_id, METHOD_NOT_FOUND, method_not_found(method)))

    async def _list_vms(self, rpc_id: RpcId) -> None:
        order = self.host.config.framebuffer
        if order is None:
            await self._send(result_reply(rpc_id, self.host.config.vms))
        else:
            pixels = self.host._framebuffer  # pyright: ignore[reportPrivateUsage]
            info = {"encoding": "mxfb0001", "byteLength": len(pixels)}
            attachment = Attachment(rpc_id, FRAMEBUFFER_ROLE, pixels)
            if order == "before":
                await self._send_attachment(attachment)
            await self._send(result_reply(rpc_id, info))
            if order == "after":
                await self._send_attachment(attachment)
        self._t.note(f"connection #{self.number}: host.v1.listVms answered")
        self.host.vms_answered.set()

    def _answer_from_extension(self, msg: Result | ErrorReply) -> None:
        outgoing = self._outgoing.pop(msg.id, None) if isinstance(msg.id, int) else None
        if outgoing is None:
            self._t.violation("JSON-RPC", f"a response to id {msg.id!r}, which the host never sent")
            return
        outgoing.answer = msg
        outgoing.done.set()
        if outgoing.method == SHUTDOWN:
            self._t.note(f"connection #{self.number}: extension.v1.shutdown answered")
            self.host.shutdown_acknowledged.set()

    # -- calls the host makes -------------------------------------------------------------

    async def _call(self, method: str) -> _Outgoing:
        rpc_id = self._next_id
        self._next_id += 1
        outgoing = _Outgoing(method)
        self._outgoing[rpc_id] = outgoing
        await self._send(request(rpc_id, method, None))
        return outgoing

    async def _ask_status(self) -> None:
        deadline = self.host.config.status_deadline_s
        outcome: StatusOutcome | None = None
        try:
            call = await self._call(REPORT_STATUS)
            with anyio.move_on_after(deadline):
                await call.done.wait()
            outcome = _judge_status(call.answer, deadline)
            if outcome.state == "failed" and outcome.report is None:
                self._t.violation("docs/protocol-notes.md#m7", outcome.message)
        finally:
            if outcome is None:
                outcome = StatusOutcome("failed", "the connection ended before the status reply")
            self.host.settle_status(outcome)

    async def call_shutdown(self) -> None:
        await self._call(SHUTDOWN)

    # -- writing --------------------------------------------------------------------------

    async def _send(self, message: dict[str, Any]) -> None:
        self._t.frame("host>ext", message)
        await self._write(encode_json(message))

    async def _send_attachment(self, attachment: Attachment) -> None:
        self._t.attachment("host>ext", attachment)
        await self._write(encode_attachment(attachment))

    async def _write(self, data: bytes) -> None:
        async with self._send_lock:
            # A lost connection is noticed, and noted, by the reader.
            with contextlib.suppress(*_LOST):
                await self.stream.send(data)


def _judge_status(answer: Result | ErrorReply | None, deadline: float) -> StatusOutcome:
    if answer is None:
        return StatusOutcome("failed", f"no extension.v1.reportStatus reply within {deadline:g} s")
    if isinstance(answer, ErrorReply):
        return StatusOutcome(
            "failed", f"extension.v1.reportStatus answered error {answer.code}: {answer.message}"
        )
    try:
        report = StatusReplyIn.model_validate(answer.result)
    except ValidationError as exc:
        return StatusOutcome("failed", f"a malformed status: {deserializer_message(exc)}")
    return StatusOutcome(report.state, report.message, report.model_dump())
