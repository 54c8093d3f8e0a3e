"""What the host checks before a namespace sees a line: the request's JSON-RPC shape and the
hello's params and refusals (E-6, H-5, H-13..H-16). Pure decisions: the connection sends and
closes."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from vxp.version import Version

from . import errors as E
from .errors import RpcError

if TYPE_CHECKING:
    from .core import Connection, ExtensionHost

REJECT_IDS = {
    "bad_token": "H-13",
    "wrong_id": "H-14",
    "version_unsupported": "H-15",
    "already_connected": "H-16",
}


@dataclass(frozen=True, slots=True)
class Refusal:
    code: str
    message: str
    forced: bool  # asked for by ``--reject``: not the extension's fault, so no violation


def check_request(frame: Any) -> tuple[str, Any]:
    """The method and params of a valid JSON-RPC request, or the -32600 it earns."""
    if isinstance(frame, list):
        raise RpcError(E.INVALID_REQUEST, "batches are rejected (T-8)")
    if not isinstance(frame, dict):
        raise RpcError(E.INVALID_REQUEST, "a frame must be a JSON object (T-7)")
    if frame.get("jsonrpc") != "2.0":
        raise RpcError(E.INVALID_REQUEST, 'jsonrpc must be "2.0"')
    method = frame.get("method")
    if not isinstance(method, str):
        raise RpcError(E.INVALID_REQUEST, "a request needs a method")
    rid = frame.get("id")
    if type(rid) is not int or rid < 0:
        raise RpcError(
            E.INVALID_REQUEST,
            "a request id is an unsigned integer (T-11, docs/protocol-notes.md#r17)",
        )
    return method, frame.get("params")


def parse_hello(params: Any) -> tuple[str, Version, str]:
    """The hello's id, version and token, or the -32602 its params earn."""
    if not isinstance(params, dict):
        raise RpcError(E.INVALID_PARAMS, "hello params must be {id, vxp_version, token}")
    ext_id, version, token = params.get("id"), params.get("vxp_version"), params.get("token")
    if not (isinstance(ext_id, str) and isinstance(version, str) and isinstance(token, str)):
        raise RpcError(E.INVALID_PARAMS, "hello params must be {id, vxp_version, token}")
    try:
        client = Version.parse(version)
    except ValueError:
        raise RpcError(E.INVALID_PARAMS, "vxp_version must be major.minor (H-5)") from None
    return ext_id, client, token


def hello_refusal(
    host: ExtensionHost, conn: Connection, ext_id: str, client: Version, token: str
) -> Refusal | None:
    """Why this hello is rejected, in the spec's order, or None for a welcome."""
    cfg = host.config
    if token == cfg.token and ext_id == cfg.ext_id and (forced := host.hook.rejection()):
        return Refusal(forced, "refused by vrosdev --reject", True)
    if token != cfg.token:
        return Refusal("bad_token", "the token does not match this launch", False)
    if ext_id != cfg.ext_id:
        return Refusal("wrong_id", f"this endpoint is for {cfg.ext_id}", False)
    if client.major < host.version.major - 1 or client.major > host.version.major:
        message = f"host speaks {host.version} (N and N-1 majors)"
        return Refusal("version_unsupported", message, False)
    live = host.connection
    if live is not None and live is not conn and not live.peer_gone():
        return Refusal("already_connected", "this extension is already connected", False)
    return None


def rpc_check_id(code: int) -> str:
    """The checklist id a protocol error's code stands for."""
    return {
        E.PARSE_ERROR: "E-5",
        E.INVALID_REQUEST: "E-6",
        E.METHOD_NOT_FOUND: "E-7",
        E.INVALID_PARAMS: "E-8",
        E.CAPABILITY_DENIED: "E-10",
        E.BEFORE_HELLO: "E-11",
    }.get(code, "E-9")
