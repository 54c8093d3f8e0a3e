"""The namespaces vrosdev serves, each in its own module, installed into a host."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ..core import ExtensionHost


def install(host: ExtensionHost) -> None:
    from . import assets, audio, bus, commands, face, kv, media, panel, secrets, settings, strings

    for module in (
        kv,
        secrets,
        bus,
        panel,
        assets,
        commands,
        settings,
        strings,
        audio,
        media,
        face,
    ):
        module.install(host)
