# pyright: strict
"""JSON-RPC 2.0 messages as the Studio protocol uses them: classify what arrives, build what leaves.

The seed pins the version string ``"2.0"`` and ids that are a number or a string; a float, a
boolean or ``null`` id on a request is an invalid request. Batches (JSON arrays) are not part of
the Studio protocol and classify as invalid.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any, Final, TypeGuard, cast

__all__ = [
    "APPLICATION_ERROR",
    "INVALID_PARAMS",
    "INVALID_REQUEST",
    "JSONRPC_VERSION",
    "METHOD_NOT_FOUND",
    "OMIT",
    "PARSE_ERROR",
    "ErrorReply",
    "Invalid",
    "Message",
    "Request",
    "Result",
    "RpcId",
    "error_reply",
    "parse_message",
    "request",
    "result_reply",
]

JSONRPC_VERSION: Final = "2.0"
PARSE_ERROR: Final = -32700
INVALID_REQUEST: Final = -32600
METHOD_NOT_FOUND: Final = -32601
INVALID_PARAMS: Final = -32602
APPLICATION_ERROR: Final = -32000

type RpcId = int | str


class _Omitted:
    """The type of :data:`OMIT`: "no params key at all", which differs from ``params: null``."""

    __slots__ = ()

    def __repr__(self) -> str:
        return "OMIT"


OMIT: Final = _Omitted()
_MISSING: Final = object()


@dataclass(frozen=True, slots=True)
class Request:
    """A call (``id`` set) or a notification (``id`` None). ``params`` is None when absent."""

    id: RpcId | None
    method: str
    params: Any
    has_params: bool

    @property
    def is_notification(self) -> bool:
        return self.id is None


@dataclass(frozen=True, slots=True)
class Result:
    id: RpcId
    result: Any


@dataclass(frozen=True, slots=True)
class ErrorReply:
    id: RpcId | None
    code: int
    message: str
    data: Any = None


@dataclass(frozen=True, slots=True)
class Invalid:
    """Not a usable message. ``code`` is what a reply would carry, ``id`` the id if one was read."""

    code: int
    reason: str
    id: RpcId | None = None
    reply_expected: bool = True  # False for a broken response: answering it could echo forever


type Message = Request | Result | ErrorReply | Invalid


def _is_id(value: Any) -> TypeGuard[RpcId]:
    return isinstance(value, str) or (isinstance(value, int) and not isinstance(value, bool))


def parse_message(body: bytes) -> Message:
    try:
        obj = json.loads(body.decode("utf-8"))
    except UnicodeDecodeError:
        return Invalid(PARSE_ERROR, "parse error: the body is not UTF-8")
    except json.JSONDecodeError as exc:
        where = f"line {exc.lineno} column {exc.colno}"
        return Invalid(PARSE_ERROR, f"parse error: {exc.msg} at {where}")
    except RecursionError:
        return Invalid(PARSE_ERROR, "parse error: nested too deeply")
    return classify(obj)


def classify(value: Any) -> Message:
    if not isinstance(value, dict):
        return Invalid(INVALID_REQUEST, "a message is a JSON object")
    obj = cast(dict[str, Any], value)
    raw_id = obj.get("id", _MISSING)
    rpc_id: RpcId | None = raw_id if _is_id(raw_id) else None
    if obj.get("jsonrpc") != JSONRPC_VERSION:
        return Invalid(INVALID_REQUEST, 'jsonrpc must be "2.0"', rpc_id)
    if "method" in obj:
        method = obj["method"]
        if not isinstance(method, str):
            return Invalid(INVALID_REQUEST, "method must be a string", rpc_id)
        if raw_id is not _MISSING and rpc_id is None:
            return Invalid(INVALID_REQUEST, "id must be a number or a string")
        params = obj.get("params", _MISSING)
        has_params = params is not _MISSING
        return Request(rpc_id, method, params if has_params else None, has_params)
    has_result = "result" in obj
    error = obj.get("error", _MISSING)
    if has_result == (error is not _MISSING):
        return Invalid(
            INVALID_REQUEST, "a response carries exactly one of result and error", rpc_id, False
        )
    if has_result:
        if rpc_id is None:
            return Invalid(INVALID_REQUEST, "a result must carry the id it answers", None, False)
        return Result(rpc_id, obj["result"])
    if raw_id is not None and rpc_id is None:
        return Invalid(INVALID_REQUEST, "id must be a number, a string or null", None, False)
    if not isinstance(error, dict):
        return Invalid(INVALID_REQUEST, "error must be an object", rpc_id, False)
    error = cast(dict[str, Any], error)
    code = error.get("code")
    message = error.get("message")
    if isinstance(code, bool) or not isinstance(code, int) or not isinstance(message, str):
        return Invalid(
            INVALID_REQUEST, "error needs an integer code and a string message", rpc_id, False
        )
    return ErrorReply(rpc_id, code, message, error.get("data"))


def request(rpc_id: RpcId | None, method: str, params: Any = OMIT) -> dict[str, Any]:
    """A request object; a notification when ``rpc_id`` is None; no params key when omitted."""
    msg: dict[str, Any] = {"jsonrpc": JSONRPC_VERSION}
    if rpc_id is not None:
        msg["id"] = rpc_id
    msg["method"] = method
    if params is not OMIT:
        msg["params"] = params
    return msg


def result_reply(rpc_id: RpcId, result: Any) -> dict[str, Any]:
    return {"jsonrpc": JSONRPC_VERSION, "id": rpc_id, "result": result}


def error_reply(rpc_id: RpcId | None, code: int, message: str, data: Any = None) -> dict[str, Any]:
    error: dict[str, Any] = {"code": code, "message": message}
    if data is not None:
        error["data"] = data
    return {"jsonrpc": JSONRPC_VERSION, "id": rpc_id, "error": error}
