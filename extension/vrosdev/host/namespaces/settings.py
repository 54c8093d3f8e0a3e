"""settings (SET-15 … SET-20): values are kv rows under the declared keys, or the default."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .. import shapes as S
from ..errors import DomainErr
from .kv import store_for

if TYPE_CHECKING:
    from ..core import Connection, ExtensionHost


def install(host: ExtensionHost) -> None:
    store = store_for(host)
    settings = host.config.settings

    def entry(setting: Any) -> dict[str, Any]:
        value, revision = store.get(setting.key)
        stored = revision > 0
        return {
            "key": setting.key,
            "value": value if stored else setting.default,
            "is_default": not stored,
        }

    async def handle(conn: Connection, req: Any) -> dict[str, Any]:
        if not settings:
            raise DomainErr("no_schema", "the manifest declares no [[settings]]")
        if isinstance(req, S.SettingsGet):
            for s in settings:
                if s.key == req.key:
                    return {"result": "value", **entry(s)}
            raise DomainErr("no_such_key", f"no setting {req.key!r}")
        return {"result": "values", "entries": [entry(s) for s in settings]}

    host.register("settings", "1.1", None, handle)
