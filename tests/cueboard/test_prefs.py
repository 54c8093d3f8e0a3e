"""Per-sound prefs in kv: compact records, one key each, under quota at 10,000 sounds."""

from __future__ import annotations

import json
from typing import Any

import pytest

from cueboard.prefs import PrefsStore, SoundPrefs, key_for

pytestmark = pytest.mark.anyio


class DictKv:
    """A kv with the host's measure (compact JSON, docs/protocol-notes.md#r8, #r30), in memory."""

    def __init__(self) -> None:
        self.data: dict[str, Any] = {}
        self.sizes: dict[str, int] = {}

    async def get_value(self, key: str) -> Any:
        return self.data.get(key)

    async def set_value(self, key: str, value: Any) -> bool:
        self.data[key] = value
        self.sizes[key] = len(key.encode()) + len(
            json.dumps(value, separators=(",", ":"), ensure_ascii=False).encode()
        )
        return self.bytes() > 1024 * 1024

    async def delete(self, key: str) -> None:
        self.data.pop(key, None)
        self.sizes.pop(key, None)

    async def keys(self) -> list[str]:
        return list(self.data)

    def bytes(self) -> int:
        return sum(self.sizes.values())


def test_record_roundtrip_and_defaults_are_empty() -> None:
    p = SoundPrefs(gain=80, loop=True, favourite="airhorn", slot=3)
    assert SoundPrefs.from_record(p.to_record()) == p
    assert SoundPrefs().to_record() == {}
    assert SoundPrefs.from_record({"g": 500, "l": 1}) == SoundPrefs(loop=True)
    assert SoundPrefs.from_record("garbage") == SoundPrefs()


def test_long_paths_are_hashed_within_the_key_limit() -> None:
    long_path = "deep/" * 60 + "sound.wav"
    key = key_for(long_path)
    assert key.startswith("h:")
    assert len(key.encode()) <= 256
    assert key_for("a.wav") == "s:a.wav"


async def test_ten_thousand_custom_gains_stay_under_the_quota() -> None:
    kv = DictKv()
    store = PrefsStore(kv)
    await store.load()
    for i in range(10_000):
        store.update(f"Category {i // 500}/Some sound name {i:05d}.wav", gain=1 + i % 99)
    await store.flush()
    used = kv.bytes()
    print(f"kv bytes for 10,000 sounds with custom gains: {used}")
    assert used < 1024 * 1024
    assert max(len(json.dumps(v)) for v in kv.data.values()) < 64 * 1024
    assert not store.over_quota
    reloaded = PrefsStore(kv)
    await reloaded.load()
    assert reloaded.get("Category 3/Some sound name 01500.wav").gain == 1 + 1500 % 99


async def test_resetting_to_defaults_deletes_the_key_and_hashed_records_reload() -> None:
    kv = DictKv()
    store = PrefsStore(kv)
    long_path = "x" * 300 + ".wav"
    store.update("a.wav", gain=50)
    store.update(long_path, favourite="long")
    await store.flush()
    store.update("a.wav", gain=100)
    await store.flush()
    assert "s:a.wav" not in kv.data
    again = PrefsStore(kv)
    await again.load()
    assert again.get(long_path).favourite == "long"
    assert again.favourites() == {"long": long_path}
