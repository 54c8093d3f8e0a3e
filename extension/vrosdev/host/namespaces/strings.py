"""strings (STR-1 … STR-6): vrOS's own catalog; only ``ext.`` keys; en-US fallback."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ..errors import DomainErr

if TYPE_CHECKING:
    from ..core import Connection, ExtensionHost

# Keys of vrOS's bundled extensions (a small sample: the real catalog is vrOS's).
CATALOG: dict[str, dict[str, str]] = {
    "en-US": {
        "ext.vros.clock.title": "Clock",
        "ext.vros.clock.alarm": "Alarm",
        "ext.vros.media.title": "Media",
        "ext.vros.media.unsupported": "Media needs vrOS on Windows",
    },
    "ja-JP": {
        "ext.vros.clock.title": "時計",
        "ext.vros.clock.alarm": "アラーム",
        "ext.vros.media.title": "メディア",
        "ext.vros.media.unsupported": "メディアには Windows 版の vrOS が必要です",
    },
}


def install(host: ExtensionHost) -> None:
    async def handle(conn: Connection, req: Any) -> dict[str, Any]:
        prefix: str = req.prefix
        if not prefix.startswith("ext."):
            raise DomainErr("prefix_not_allowed", "only keys under ext. are returned")
        locale = req.locale or host.config.locale
        if locale not in CATALOG:
            locale = "en-US"
        entries = {k: v for k, v in CATALOG[locale].items() if k.startswith(prefix)}
        return {"result": "strings", "locale": locale, "entries": entries}

    host.register("strings", "1.1", None, handle)
