"""secrets (SEC-1 … SEC-11). vrOS on Linux has no credential backend: ``set`` answers
``not_persistable`` and nothing is ever stored (SEC-9); ``--secrets memory`` offers a store
that lives as long as vrosdev, to test the other path. Values never reach a log (SEC-8)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from vxp.limits import SECRET_MAX_BYTES, utf8_len

from .. import shapes as S
from ..errors import DomainErr

if TYPE_CHECKING:
    from ..core import Connection, ExtensionHost


def install(host: ExtensionHost) -> None:
    slots: dict[str, str] = host.services.setdefault("secrets", {})
    persistable = host.config.secrets_mode == "memory"

    async def handle(conn: Connection, req: Any) -> dict[str, Any]:
        match req:
            case S.SecretSet(slot=slot, value=value):
                if utf8_len(value) > SECRET_MAX_BYTES:
                    raise DomainErr("too_large", f"secrets are at most {SECRET_MAX_BYTES} bytes")
                if not persistable:
                    raise DomainErr(
                        "not_persistable", "no credential store on this platform: ask each session"
                    )
                slots[slot] = value
                return {"result": "ok"}
            case S.SecretGet(slot=slot):
                return {"result": "value", "value": slots.get(slot)}
            case S.SecretDelete(slot=slot):
                slots.pop(slot, None)
                return {"result": "ok"}
            case S.SecretExists(slot=slot):
                return {"result": "exists", "exists": slot in slots}
            case _:
                raise DomainErr("internal")

    host.register("secrets", "1.0", "secrets", handle)
