"""commands (CMD-1 … CMD-9): registrations live as long as the connection (CMD-6)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from vxp.limits import NAME_RE

from .. import shapes as S
from ..errors import DomainErr

if TYPE_CHECKING:
    from ..core import Connection, ExtensionHost


def registered(conn: Connection) -> set[str]:
    return conn.data.setdefault("commands", set())


def install(host: ExtensionHost) -> None:
    async def handle(conn: Connection, req: Any) -> dict[str, Any]:
        name: str = req.name
        if not NAME_RE.fullmatch(name):
            raise DomainErr("invalid_name", "command names are 1-64 characters of [a-z0-9-]")
        if isinstance(req, S.CommandRegister):
            registered(conn).add(name)
        else:
            registered(conn).discard(name)
        return {"result": "ok"}

    host.register("commands", "1.0", None, handle)


async def invoke(host: ExtensionHost, command: str) -> bool:
    """A bound controller button was pressed (CMD-5); unregistered commands are not sent."""
    conn = host.connection
    if conn is None or command not in registered(conn):
        host.recorder.note(f"invoke {command}: not registered on this connection, not sent")
        return False
    return await conn.emit({"event": "command_invoked", "command": command})
