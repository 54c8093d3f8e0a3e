# pyright: strict
"""The launch environment and the TCP connection: the only module that touches a socket.

Studio injects four variables (seed, "Handshake"): ``MX_EXTENSION_HOST`` (``host:port``; an
IPv6 host in brackets), ``MX_EXTENSION_TOKEN`` (read here and nowhere else: never a CLI flag,
never logged), ``MX_EXTENSION_ID`` and ``MX_EXTENSION_PROTOCOL``.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Final

import anyio
import anyio.abc

from .errors import ConnectionClosed, InvalidEnvironment
from .secret import Secret

__all__ = [
    "ENV_HOST",
    "ENV_ID",
    "ENV_PROTOCOL",
    "ENV_TOKEN",
    "READ_CHUNK",
    "LaunchEnvironment",
    "open_connection",
]

ENV_HOST: Final = "MX_EXTENSION_HOST"
ENV_TOKEN: Final = "MX_EXTENSION_TOKEN"
ENV_ID: Final = "MX_EXTENSION_ID"
ENV_PROTOCOL: Final = "MX_EXTENSION_PROTOCOL"
READ_CHUNK: Final = 256 * 1024


@dataclass(frozen=True, slots=True)
class LaunchEnvironment:
    host: str
    port: int
    token: Secret = field(repr=False)
    extension_id: str
    protocol_version: int

    @classmethod
    def from_environ(cls, environ: Mapping[str, str] | None = None) -> LaunchEnvironment:
        env = os.environ if environ is None else environ

        def need(name: str) -> str:
            value = env.get(name)
            if not value:
                raise InvalidEnvironment(f"{name} is not set: start the extension from Studio")
            return value

        address = need(ENV_HOST)
        host, sep, port_text = address.rpartition(":")
        host = host.removeprefix("[").removesuffix("]")
        if not sep or not host or not port_text.isdigit() or not 0 < int(port_text) < 65536:
            raise InvalidEnvironment(f"{ENV_HOST} must be host:port, got {address!r}")
        token = Secret(need(ENV_TOKEN))
        extension_id = need(ENV_ID)
        protocol_text = need(ENV_PROTOCOL)
        try:
            protocol = int(protocol_text)
        except ValueError:
            raise InvalidEnvironment(
                f"{ENV_PROTOCOL} must be a number, got {protocol_text!r}"
            ) from None
        return cls(host, int(port_text), token, extension_id, protocol)

    @property
    def address(self) -> str:
        return f"[{self.host}]:{self.port}" if ":" in self.host else f"{self.host}:{self.port}"


async def open_connection(env: LaunchEnvironment) -> anyio.abc.SocketStream:
    try:
        return await anyio.connect_tcp(env.host, env.port)
    except OSError as exc:
        reason = exc.strerror or type(exc).__name__
        raise ConnectionClosed(f"cannot connect to Studio at {env.address}: {reason}") from None
