"""What the emulated Studio accepts from an extension, checked as strictly as a serde host would.

Types are strict (``"1"`` is not a protocol version), unknown fields are ignored (serde's
default), and a failure is reported with the deserializer's own message (seed: "params that
fail to deserialize become -32602 with the serde error in message").
"""

from __future__ import annotations

from typing import Final, Literal

from pydantic import BaseModel, ConfigDict, ValidationError

__all__ = [
    "HOST_CAPABILITIES",
    "MSG_FIRST_NOT_HELLO",
    "MSG_HELLO_NOT_FIRST",
    "MSG_WRONG_EXTENSION",
    "MSG_WRONG_TOKEN",
    "SUPPORTED_PROTOCOL",
    "HelloParamsIn",
    "StatusReplyIn",
    "deserializer_message",
    "method_not_found",
    "wrong_protocol",
]

HOST_CAPABILITIES: Final = ("runtime.v1",)
SUPPORTED_PROTOCOL: Final = 1

# The seed's own messages.
MSG_HELLO_NOT_FIRST: Final = "host.v1.hello is only valid as the first message on a new connection"
MSG_WRONG_TOKEN: Final = "hello token is not the token issued for this extension"
# The seed names no message for these; ours say what went wrong.
MSG_FIRST_NOT_HELLO: Final = "host.v1.hello must be the first message on a new connection"
MSG_WRONG_EXTENSION: Final = "hello extensionId does not match the extension of this socket"


def method_not_found(method: str) -> str:
    return f"method not found: {method}"


def wrong_protocol(version: int) -> str:
    return f"protocolVersion must be {SUPPORTED_PROTOCOL}, got {version}"


class _Strict(BaseModel):
    model_config = ConfigDict(strict=True, extra="ignore", frozen=True)


class HelloParamsIn(_Strict):
    token: str
    protocolVersion: int
    extensionId: str


class StatusReplyIn(_Strict):
    state: Literal["ready", "degraded", "failed"]
    message: str
    version: str
    protocolVersion: int
    capabilities: list[str]


def deserializer_message(exc: ValidationError) -> str:
    """Every error as ``field: reason``, joined; input values are left out (one may be a token)."""
    parts: list[str] = []
    for err in exc.errors(include_input=False, include_url=False):
        where = ".".join(str(part) for part in err["loc"]) or "params"
        parts.append(f"{where}: {err['msg']}")
    return "; ".join(parts)
