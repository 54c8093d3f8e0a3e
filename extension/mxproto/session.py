# pyright: strict
"""The extension's side of a Studio connection as a state machine, sans-IO.

Theory of operation (everything that changes the connection's state lives here):

    IDLE --start()--> HELLO_SENT --hello result--> READY --loss/corruption/close--> CLOSED
                                 \\--error / bad result / loss--> CLOSED

* :meth:`ClientSession.start` returns the ``host.v1.hello`` frame, id 1: the first kind-0 frame
  on the connection, as the seed requires.
* :meth:`ClientSession.request` allocates the next numeric id and returns the frame. Calling it
  before READY or after CLOSED raises :class:`LocalProtocolError`: a bug in the caller.
* :meth:`ClientSession.reply` answers a call the host made; only ids the host is waiting on.
* :meth:`ClientSession.receive_data` takes bytes and returns what happened as events. Whatever
  the host sends, it never raises: a message that breaks the protocol becomes :class:`Skipped`
  (carrying the JSON-RPC error reply to send when one is due), corruption
  (docs/protocol-notes.md#m2, docs/protocol-notes.md#m3) closes the
  session with :class:`Closed` and fails every pending request.

Framebuffer correlation (docs/protocol-notes.md#m5): a result ``{"encoding": "mxfb0001",
"byteLength": N}`` is held
until the kind-1 ``framebuffer`` attachment with the same id arrives, or completed at once when
the attachment came first; its bytes must be exactly N long. An early attachment is kept only
for an id we are waiting on, one per id, so the host cannot make us buffer unasked-for data.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass
from typing import Any, Final

from pydantic import ValidationError

from .errors import (
    AttachmentMismatch,
    ConnectionClosed,
    FrameCorrupt,
    HelloRejected,
    LocalProtocolError,
    MalformedAttachment,
    MalformedResponse,
    MxError,
    RemoteError,
)
from .framing import (
    FRAMEBUFFER_ROLE,
    KIND_ATTACHMENT,
    KIND_JSON,
    Frame,
    FrameDecoder,
    decode_attachment,
    encode_json,
)
from .jsonrpc import (
    OMIT,
    PARSE_ERROR,
    ErrorReply,
    Invalid,
    Request,
    Result,
    RpcId,
    error_reply,
    parse_message,
    request,
    result_reply,
)
from .models import METHOD_HELLO, PROTOCOL_VERSION, FramebufferInfo, HelloParams, HelloResult
from .secret import Secret

__all__ = [
    "HELLO_ID",
    "ClientSession",
    "Closed",
    "Failed",
    "HelloAccepted",
    "HelloFailed",
    "HostCall",
    "Replied",
    "SessionEvent",
    "Skipped",
    "State",
]

HELLO_ID: Final = 1


class State(enum.Enum):
    IDLE = "idle"
    HELLO_SENT = "hello sent"
    READY = "ready"
    CLOSED = "closed"


@dataclass(frozen=True, slots=True)
class HelloAccepted:
    result: HelloResult


@dataclass(frozen=True, slots=True)
class HelloFailed:
    """The host refused the hello (:class:`HelloRejected`) or answered it with a bad result."""

    error: MxError


@dataclass(frozen=True, slots=True)
class HostCall:
    """The host called a method on us; ``id`` is None for a notification (no reply due)."""

    id: RpcId | None
    method: str
    params: Any


@dataclass(frozen=True, slots=True)
class Replied:
    id: RpcId
    result: Any
    attachment: bytes | None = None

    def __repr__(self) -> str:
        size = "none" if self.attachment is None else f"{len(self.attachment)} bytes"
        return f"Replied(id={self.id!r}, result={self.result!r}, attachment={size})"


@dataclass(frozen=True, slots=True)
class Failed:
    id: RpcId
    error: MxError


@dataclass(frozen=True, slots=True)
class Skipped:
    """Something the host sent that we ignore; ``reply`` is a frame to send back, if one is due."""

    reason: str
    reply: bytes | None = None


@dataclass(frozen=True, slots=True)
class Closed:
    reason: str


type SessionEvent = HelloAccepted | HelloFailed | HostCall | Replied | Failed | Skipped | Closed


class ClientSession:
    __slots__ = ("_decoder", "_early", "_held", "_host_pending", "_next_id", "_pending", "state")

    def __init__(self) -> None:
        self.state = State.IDLE
        self._decoder = FrameDecoder()
        self._next_id = HELLO_ID + 1
        self._pending: dict[RpcId, str] = {}  # our requests awaiting a response -> method
        self._held: dict[RpcId, tuple[Any, int]] = {}  # framebuffer results awaiting bytes
        self._early: dict[RpcId, bytes] = {}  # framebuffer bytes awaiting their result
        self._host_pending: set[RpcId] = set()  # host calls we have not answered yet

    def __repr__(self) -> str:
        return f"ClientSession(state={self.state.value}, pending={len(self._pending)})"

    @property
    def pending(self) -> int:
        return len(self._pending)

    # -- what we send ---------------------------------------------------------------------

    def start(
        self, token: Secret, extension_id: str, protocol_version: int = PROTOCOL_VERSION
    ) -> bytes:
        if self.state is not State.IDLE:
            raise LocalProtocolError("host.v1.hello is sent once, first on a new connection")
        params = HelloParams(
            token=token.reveal(), protocolVersion=protocol_version, extensionId=extension_id
        )
        self.state = State.HELLO_SENT
        return encode_json(request(HELLO_ID, METHOD_HELLO, params.model_dump()))

    def request(self, method: str, params: Any = OMIT) -> tuple[int, bytes]:
        """Frame a request; ``params`` left out of the message when not given."""
        self._require_ready(f"calling {method}")
        if method == METHOD_HELLO:
            raise LocalProtocolError("host.v1.hello is only valid as the first message")
        rpc_id = self._next_id
        self._next_id += 1
        frame = encode_json(request(rpc_id, method, params))
        self._pending[rpc_id] = method
        return rpc_id, frame

    def reply(self, rpc_id: RpcId, result: Any) -> bytes:
        self._take_host_call(rpc_id)
        return encode_json(result_reply(rpc_id, result))

    def reply_error(self, rpc_id: RpcId, code: int, message: str) -> bytes:
        self._take_host_call(rpc_id)
        return encode_json(error_reply(rpc_id, code, message))

    def _take_host_call(self, rpc_id: RpcId) -> None:
        self._require_ready("replying")
        if rpc_id not in self._host_pending:
            raise LocalProtocolError(f"the host is not waiting for a reply to id {rpc_id!r}")
        self._host_pending.discard(rpc_id)

    def _require_ready(self, what: str) -> None:
        if self.state is not State.READY:
            raise LocalProtocolError(f"{what} needs an accepted hello (state: {self.state.value})")

    def close(self, reason: str = "closed locally") -> list[SessionEvent]:
        return self._close(reason)

    def _is_closed(self) -> bool:
        return self.state is State.CLOSED

    # -- what we receive ------------------------------------------------------------------

    def connection_lost(self) -> list[SessionEvent]:
        cut = " in the middle of a frame" if self._decoder.in_frame else ""
        return self._close(f"the host closed the connection{cut}")

    def receive_data(self, data: bytes) -> list[SessionEvent]:
        if self.state is State.CLOSED:
            return []
        try:
            frames = self._decoder.feed(data)
        except FrameCorrupt as exc:
            return self._close(f"corrupt stream: {exc}")
        events: list[SessionEvent] = []
        for frame in frames:
            events.extend(self._frame(frame))
            if self._is_closed():  # a refused hello ends the session mid-chunk
                break
        return events

    def _frame(self, frame: Frame) -> list[SessionEvent]:
        if frame.kind == KIND_JSON:
            return self._json(frame.body)
        if frame.kind == KIND_ATTACHMENT:
            return self._attachment(frame.body)
        return [Skipped(f"a frame of unknown kind {frame.kind} (docs/protocol-notes.md#m4)")]

    def _attachment(self, body: bytes) -> list[SessionEvent]:
        try:
            att = decode_attachment(body)
        except MalformedAttachment as exc:
            return [Skipped(str(exc))]
        if att.role != FRAMEBUFFER_ROLE:
            return [Skipped(f"an attachment with role {att.role!r} nobody asked for")]
        held = self._held.pop(att.id, None)
        if held is not None:
            return [self._complete(att.id, held[0], held[1], att.data)]
        if att.id in self._pending and att.id not in self._early:
            self._early[att.id] = att.data
            return []
        return [Skipped(f"a framebuffer attachment for id {att.id!r}, which awaits none")]

    def _complete(self, rpc_id: RpcId, result: Any, declared: int, data: bytes) -> SessionEvent:
        if len(data) != declared:
            return Failed(
                rpc_id,
                AttachmentMismatch(
                    f"the framebuffer attachment is {len(data)} bytes, "
                    f"its result declared byteLength {declared}"
                ),
            )
        return Replied(rpc_id, result, data)

    def _json(self, body: bytes) -> list[SessionEvent]:
        msg = parse_message(body)
        if isinstance(msg, Invalid):
            reply = None
            if msg.reply_expected:
                reply_id = None if msg.code == PARSE_ERROR else msg.id
                reply = encode_json(error_reply(reply_id, msg.code, msg.reason))
            return [Skipped(msg.reason, reply)]
        if self.state is State.HELLO_SENT:
            return self._hello_answer(msg)
        if isinstance(msg, Request):
            if msg.id is not None:
                if msg.id in self._host_pending:
                    return [Skipped(f"the host reused id {msg.id!r} before our reply")]
                self._host_pending.add(msg.id)
            return [HostCall(msg.id, msg.method, msg.params)]
        if msg.id is None:
            return [Skipped(f"the host reported an error without an id: {msg.message}")]
        method = self._pending.pop(msg.id, None)
        if method is None:
            return [Skipped(f"a response to id {msg.id!r}, which awaits none")]
        early = self._early.pop(msg.id, None)
        if isinstance(msg, ErrorReply):
            return [Failed(msg.id, RemoteError(msg.code, msg.message, msg.data))]
        return self._result(msg, method, early)

    def _result(self, msg: Result, method: str, early: bytes | None) -> list[SessionEvent]:
        try:
            info = FramebufferInfo.recognise(msg.result)
        except ValidationError as exc:
            return [Failed(msg.id, MalformedResponse(f"{method}: {_first_error(exc)}"))]
        if info is None:
            return [Replied(msg.id, msg.result)]
        if early is not None:
            return [self._complete(msg.id, msg.result, info.byteLength, early)]
        self._held[msg.id] = (msg.result, info.byteLength)
        return []

    def _hello_answer(self, msg: Request | Result | ErrorReply) -> list[SessionEvent]:
        if isinstance(msg, Request):
            return [Skipped(f"the host called {msg.method} before answering hello")]
        if msg.id not in (HELLO_ID, None):
            return [Skipped(f"a response to id {msg.id!r} before the hello result")]
        if isinstance(msg, ErrorReply):
            self.state = State.CLOSED
            return [HelloFailed(HelloRejected(msg.code, msg.message, msg.data))]
        try:
            result = HelloResult.model_validate(msg.result)
        except ValidationError as exc:
            self.state = State.CLOSED
            return [HelloFailed(MalformedResponse(f"host.v1.hello: {_first_error(exc)}"))]
        self.state = State.READY
        return [HelloAccepted(result)]

    def _close(self, reason: str) -> list[SessionEvent]:
        if self.state is State.CLOSED:
            return []
        was = self.state
        self.state = State.CLOSED
        events: list[SessionEvent] = []
        if was is State.HELLO_SENT:
            events.append(HelloFailed(ConnectionClosed(reason)))
        events.extend(Failed(rpc_id, ConnectionClosed(reason)) for rpc_id in self._pending)
        events.extend(Failed(rpc_id, ConnectionClosed(reason)) for rpc_id in self._held)
        self._pending.clear()
        self._held.clear()
        self._early.clear()
        self._host_pending.clear()
        events.append(Closed(reason))
        return events


def _first_error(exc: ValidationError) -> str:
    err = exc.errors()[0]
    where = ".".join(str(part) for part in err["loc"]) or "result"
    return f"{where}: {err['msg']}"
