"""face: vrosdev does not simulate face tracking. Without a face grant every op answers
``not_granted`` (FACE-1); with one, ``unsupported`` (a simulation can come later)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .. import shapes as S
from ..errors import DomainErr

if TYPE_CHECKING:
    from ..core import Connection, ExtensionHost


def install(host: ExtensionHost) -> None:
    async def handle(conn: Connection, req: Any) -> dict[str, Any]:
        reading = isinstance(req, S.FaceSubscribe | S.FaceUnsubscribe)
        needed = "face_read" if reading else "face_provide"
        if not host.granted(needed):
            raise DomainErr("not_granted", f"face {req.op} needs {needed}")
        raise DomainErr("unsupported", "vrosdev does not simulate face tracking")

    host.register("face", "1.5", None, handle)
