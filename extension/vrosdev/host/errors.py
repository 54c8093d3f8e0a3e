"""How a namespace handler answers with something other than its result."""

from __future__ import annotations


class DomainErr(Exception):
    """A namespace's ``err`` result (E-2): ``{"result":"err","code":…,"message":…}``."""

    def __init__(self, code: str, message: str | None = None) -> None:
        super().__init__(code if message is None else f"{code}: {message}")
        self.code = code
        self.message = message

    def result(self) -> dict[str, object]:
        out: dict[str, object] = {"result": "err", "code": self.code}
        if self.message is not None:
            out["message"] = self.message
        return out


class RpcError(Exception):
    """A JSON-RPC error object (E-4): the request never reached the namespace."""

    def __init__(self, code: int, message: str) -> None:
        super().__init__(f"{code}: {message}")
        self.code = code
        self.message = message


PARSE_ERROR = -32700
INVALID_REQUEST = -32600
METHOD_NOT_FOUND = -32601
INVALID_PARAMS = -32602
INTERNAL_ERROR = -32603
CAPABILITY_DENIED = -32001
BEFORE_HELLO = -32002
