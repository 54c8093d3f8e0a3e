"""docs/packaging.md lists the commands users bind in SteamVR."""

from __future__ import annotations

import re

from cueboard.core.commands import FAVOURITE_PREFIX, STATIC_COMMANDS
from tests.packaging.conftest import REPO


def test_every_command_is_in_the_binding_table() -> None:
    text = (REPO / "docs" / "packaging.md").read_text(encoding="utf-8")
    table = text.split("## Binding commands in SteamVR", 1)[1]
    named = set(re.findall(r"`([a-z0-9<>-]+)`", table))
    slots = re.search(r"`play-slot-1` … `play-slot-(\d+)`", table)
    assert slots is not None
    named |= {f"play-slot-{n}" for n in range(1, int(slots[1]) + 1)}
    assert {spec.name for spec in STATIC_COMMANDS} <= named
    assert f"{FAVOURITE_PREFIX}<slug>" in named
