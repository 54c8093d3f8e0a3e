"""The client side of a VXP connection as a state machine, sans-IO.

Theory of operation (everything that changes the connection's state lives here):

    IDLE --start()--> HELLO_SENT --welcome--> READY --close/loss/corruption--> CLOSED
                                 \\-rejected/error--> CLOSED

* :meth:`Session.start` returns the hello frame (H-1: the first frame on the connection).
* :meth:`Session.request` allocates an unsigned id (T-11), remembers which namespace it went to,
  and returns the frame. Calling it before READY, after CLOSED, or with an op or option newer
  than the host's version raises a *local* error: that is a bug in the caller.
* :meth:`Session.receive_data` takes bytes and returns what happened, as a list of
  :data:`SessionEvent` values. Whatever the host sends, it never raises: a violation by the
  host becomes a :class:`HostViolation` (the frame is skipped), corruption (an oversized frame,
  T-9) closes the session with :class:`Closed` and fails every pending request.
"""

from __future__ import annotations

import enum
import json
from typing import TYPE_CHECKING, Any

from .errors import (
    BEFORE_HELLO,
    ConnectionClosed,
    FrameTooLarge,
    LocalProtocolError,
    MalformedResponse,
    NotSupportedByHost,
    ProtocolError,
    protocol_error_of,
    validation_summary,
)
from .framing import FrameDecoder, encode_frame
from .prepared import Prepared
from .secret import Secret
from .session_events import (
    Closed,
    EventReceived,
    Failed,
    HelloAccepted,
    HelloRefused,
    HostViolation,
    Replied,
    SessionEvent,
)
from .version import CLIENT_VERSION, Version, fields_newer_than

if TYPE_CHECKING:
    from pydantic import BaseModel, ValidationError

    from .models.handshake import Welcome

__all__ = [
    "Closed",
    "EventReceived",
    "Failed",
    "HelloAccepted",
    "HelloRefused",
    "HostViolation",
    "Replied",
    "Session",
    "SessionEvent",
    "State",
]


class State(enum.Enum):
    IDLE = "idle"
    HELLO_SENT = "hello_sent"
    READY = "ready"
    CLOSED = "closed"


# A named tuple's generated ``__new__`` is a Python function; for the one or two built per
# frame, ``tuple.__new__(Cls, (items))`` builds the same value in well under its time.
_new: Any = tuple.__new__  # pyright: ignore[reportUnknownMemberType,reportUnknownVariableType]

_HELLO_ID = 1


class Session:
    def __init__(self, ext_id: str, token: Secret, version: Version = CLIENT_VERSION) -> None:
        self.ext_id = ext_id
        self._token = token
        self.version = version
        self.state = State.IDLE
        self.welcome: Welcome | None = None
        self.host_version: Version | None = None
        self._decoder = FrameDecoder()
        self._next_id = _HELLO_ID + 1
        self._pending: dict[int, str] = {}

    def __repr__(self) -> str:
        state, pending = self.state.value, len(self._pending)
        return f"Session(ext_id={self.ext_id!r}, state={state}, pending={pending})"

    @property
    def pending(self) -> int:
        return len(self._pending)

    # -- sending ----------------------------------------------------------------------------

    def start(self) -> bytes:
        if self.state is not State.IDLE:
            raise LocalProtocolError("hello is sent once, as the first frame (H-1)")
        # By hand, without pydantic: hello is due within 5 s of launch (H-2) and pydantic
        # is imported while the host answers. json.dumps escapes like model_dump_json.
        params = {
            "id": self.ext_id,
            "vxp_version": str(self.version),
            "token": self._token.reveal(),
        }
        body = json.dumps(params, separators=(",", ":"), ensure_ascii=False)
        self.state = State.HELLO_SENT
        return encode_frame(
            b'{"jsonrpc":"2.0","id":%d,"method":"hello","params":%s}' % (_HELLO_ID, body.encode())
        )

    def request(self, namespace: str, params: BaseModel | Prepared) -> tuple[int, bytes]:
        if self.state is not State.READY:
            raise LocalProtocolError(f"cannot send {namespace} while {self.state.value}")
        from .models import registry

        spec = registry.NAMESPACES.get(namespace)
        if spec is None:
            raise LocalProtocolError(f"unknown namespace {namespace!r}")
        host = self.host_version or self.version
        if not host.at_least(spec.since):
            raise NotSupportedByHost(f"{namespace} needs VXP {spec.since}; the host speaks {host}")
        if isinstance(params, Prepared):
            if params.namespace != namespace:
                raise LocalProtocolError(f"a {params.namespace} request sent as {namespace}")
            newer = [name for name, since in params.gated if not host.at_least(since)]
            body = params.params_json
        else:
            newer = fields_newer_than(params, host)
            body = params.model_dump_json(exclude_none=True).encode()
        if newer:
            raise NotSupportedByHost(
                f"{namespace}: {', '.join(newer)} need a newer host than VXP {host}"
            )
        request_id = self._next_id
        self._next_id += 1
        frame = encode_frame(
            b'{"jsonrpc":"2.0","id":%d,"method":"%s","params":%s}'
            % (request_id, namespace.encode(), body)
        )
        self._pending[request_id] = namespace
        return request_id, frame

    def forget(self, request_id: int) -> None:
        """The caller stopped waiting (a timeout): a late answer becomes a violation."""
        self._pending.pop(request_id, None)

    # -- receiving --------------------------------------------------------------------------

    def receive_data(self, data: bytes) -> list[SessionEvent]:
        """What the bytes mean, frame by frame; never raises.

        Each line is parsed once, by jiter (``pydantic_core.from_json``, in Rust, well ahead
        of ``json.loads``: bench_frames.py), which refuses invalid UTF-8 and lone surrogate
        escapes as ValueError. The frames a ready connection mostly carries, an event or a
        result for a pending request, are taken inline; any other frame goes through
        :meth:`_handle_frame`, which checks each rule in turn (the same rules, in the same
        order, so both ways give the same outcome).
        """
        if self.state is State.CLOSED:
            return []
        if _registry is None:
            _load_pydantic()
        try:
            lines = self._decoder.feed(data)
        except FrameTooLarge as exc:
            return self._close(str(exc))
        out: list[SessionEvent] = []
        pending = self._pending
        ready = self.state is State.READY
        for line in lines:
            try:
                frame: Any = _from_json(line)
            except ValueError:
                out.append(HostViolation("a frame is not JSON (E-5)"))
                continue
            if ready and type(frame) is dict:
                msg: dict[str, Any] = frame  # pyright: ignore[reportUnknownVariableType]
                if msg.get("jsonrpc") == "2.0":
                    if "method" in msg:
                        if msg["method"] == "event" and "id" not in msg:
                            try:
                                event = _validate_event(msg.get("params"))
                                out.append(_new(EventReceived, (event,)))
                            except _ValidationError as exc:
                                out.append(_malformed_event(exc))
                            continue
                    elif "result" in msg and "error" not in msg:
                        rid = msg.get("id")
                        if type(rid) is int and rid in pending:
                            namespace = pending.pop(rid)
                            validate = _validate_response.get(namespace) or _response_validator(
                                namespace
                            )
                            try:
                                result = validate(msg["result"])
                                out.append(_new(Replied, (rid, namespace, result)))
                            except _ValidationError as exc:
                                out.extend(_malformed_result(rid, namespace, exc))
                            continue
            self._handle_frame(frame, out)
            if self.closed:
                break
            ready = self.state is State.READY
        return out

    @property
    def closed(self) -> bool:
        return self.state is State.CLOSED

    def connection_lost(self, reason: str = "the host closed the connection") -> list[SessionEvent]:
        if self.state is State.CLOSED:
            return []
        out: list[SessionEvent] = []
        tail = self._decoder.eof()
        if tail is not None:
            out.append(HostViolation("the connection ended inside a frame (T-7)"))
        out.extend(self._close(reason))
        return out

    def close(self) -> list[SessionEvent]:
        """We close: pending requests fail, nothing more is accepted."""
        return self._close("the connection was closed by the extension")

    def _close(self, reason: str) -> list[SessionEvent]:
        if self.state is State.CLOSED:
            return []
        self.state = State.CLOSED
        out: list[SessionEvent] = [
            Failed(rid, ns, ConnectionClosed(reason)) for rid, ns in self._pending.items()
        ]
        self._pending.clear()
        out.append(Closed(reason))
        return out

    def _handle_frame(self, frame: Any, out: list[SessionEvent]) -> None:
        if not isinstance(frame, dict):
            kind = "a batch" if isinstance(frame, list) else "not an object"
            out.append(HostViolation(f"a frame is {kind} (T-7, T-8)"))
            return
        msg: dict[str, Any] = frame  # pyright: ignore[reportUnknownVariableType]
        if msg.get("jsonrpc") != "2.0":
            out.append(HostViolation("a frame without jsonrpc 2.0 (T-7)"))
            return
        if "method" in msg:
            self._handle_notification(msg, out)
        elif "error" in msg or "result" in msg:
            self._handle_response(msg, out)
        else:
            out.append(HostViolation("a frame that is neither a response nor an event"))

    def _handle_notification(self, msg: dict[str, Any], out: list[SessionEvent]) -> None:
        if msg.get("method") != "event" or "id" in msg:
            out.append(HostViolation("the host sent a request; hosts only send events (T-15)"))
            return
        if self.state is not State.READY:
            out.append(HostViolation("an event before welcome (H-1)"))
            return
        try:
            out.append(EventReceived(_validate_event(msg.get("params"))))
        except _ValidationError as exc:
            out.append(_malformed_event(exc))

    def _handle_response(self, msg: dict[str, Any], out: list[SessionEvent]) -> None:
        rid = msg.get("id")
        if self.state is State.HELLO_SENT:
            self._handle_hello_response(rid, msg, out)
            return
        if type(rid) is not int or rid not in self._pending:
            if rid is None and "error" in msg:
                error = protocol_error_of(msg.get("error"), None)
                out.append(HostViolation(f"an error without a request id: {error}"))
                if isinstance(error, ProtocolError) and error.code == BEFORE_HELLO:
                    out.extend(self._close(str(error)))
                return
            out.append(HostViolation(f"a response to no pending request (id {rid!r})"))
            return
        namespace = self._pending.pop(rid)
        if "error" in msg:
            out.append(Failed(rid, namespace, protocol_error_of(msg["error"], namespace)))
            return
        validate = _validate_response.get(namespace) or _response_validator(namespace)
        try:
            out.append(Replied(rid, namespace, validate(msg["result"])))
        except _ValidationError as exc:
            out.extend(_malformed_result(rid, namespace, exc))

    def _handle_hello_response(
        self, rid: Any, msg: dict[str, Any], out: list[SessionEvent]
    ) -> None:
        if rid != _HELLO_ID:
            out.append(HostViolation(f"a response to no pending request (id {rid!r})"))
            return
        if "error" in msg:
            error = protocol_error_of(msg["error"], "hello")
            out.append(HelloRefused(str(getattr(error, "code", "error")), str(error)))
            out.extend(self._close(f"hello failed: {error}"))
            return
        try:
            result = _registry.hello_adapter().validate_python(msg["result"])
        except _ValidationError as exc:
            out.extend(self._close(f"a malformed hello response: {validation_summary(exc)}"))
            return
        from .models.handshake import Rejected, Welcome

        if isinstance(result, Welcome):
            try:
                host = Version.parse(result.vxp_version)
            except ValueError:
                out.extend(self._close("welcome carries no valid vxp_version"))
                return
            self.welcome = result
            self.host_version = min(host, self.version)
            self.state = State.READY
            out.append(HelloAccepted(result))
        elif isinstance(result, Rejected):
            out.append(HelloRefused(result.code, result.message))
            out.extend(self._close(f"hello rejected: {result.code}"))
        else:
            out.extend(self._close("hello answered with an unknown result"))


def _malformed_event(exc: ValidationError) -> HostViolation:
    return HostViolation(f"a malformed event: {validation_summary(exc)}")


def _malformed_result(
    rid: int, namespace: str, exc: ValidationError
) -> tuple[HostViolation, Failed]:
    brief = validation_summary(exc)
    return (
        HostViolation(f"{namespace}: a malformed response: {brief}"),
        Failed(rid, namespace, MalformedResponse(f"{namespace}: {brief}")),
    )


_registry: Any = None
_ValidationError: Any = None
_from_json: Any = None


def _load_pydantic() -> None:
    """The models and pydantic, imported on the first bytes from the host: after hello."""
    global _registry, _ValidationError, _from_json
    if _registry is None:
        from pydantic import ValidationError
        from pydantic_core import from_json

        from .models import registry

        _registry, _ValidationError, _from_json = registry, ValidationError, from_json


# The validators are the adapters' pydantic-core validators, called without the adapter's
# Python wrapper (the same call, minus a frame per message). Each adapter is still built on
# the first message that needs it.


def _validator_of(adapter: Any) -> Any:
    from pydantic_core import SchemaValidator

    validator = adapter.validator
    if isinstance(validator, SchemaValidator):
        return validator.validate_python
    return adapter.validate_python  # not built yet (deferred) or wrapped by a plugin


def _first_event(params: Any) -> Any:
    global _validate_event
    _validate_event = _validator_of(_registry.event_adapter())
    return _validate_event(params)


_validate_event: Any = _first_event
_validate_response: dict[str, Any] = {}


def _response_validator(namespace: str) -> Any:
    validate = _validator_of(_registry.NAMESPACES[namespace].response)
    _validate_response[namespace] = validate
    return validate
