"""Per-sound prefs in kv: packed records in a few pages a folder, under quota at 10,000 sounds,
and boards of the first schema kept."""

from __future__ import annotations

import json
import random
from typing import Any

from cueboard.core.effects import Effect, Reply, Send, Tickets
from cueboard.core.prefs import FLUSH_DELAY_S, MODES, Prefs, SoundPrefs, key_for
from cueboard.core.records import read_records
from cueboard.core.tracker import Tracker
from vxp.models import kv as kvm


class DictKv:
    """A kv with the host's measure (compact JSON, docs/protocol-notes.md#r8, #r30), answering
    the core's requests in memory."""

    def __init__(self) -> None:
        self.data: dict[str, Any] = {}
        self.sizes: dict[str, int] = {}

    def answer(self, params: Any) -> Any:
        match params:
            case kvm.KvList():
                return kvm.KvKeys(result="keys", keys=list(self.data))
            case kvm.KvGet(key=key):
                return kvm.KvValue(result="value", value=self.data.get(key), revision=1)
            case kvm.KvSet(key=key, value=value):
                self.data[key] = value
                self.sizes[key] = len(key.encode()) + len(
                    json.dumps(value, separators=(",", ":"), ensure_ascii=False).encode()
                )
                over = self.bytes() > 1024 * 1024
                return kvm.KvWritten(result="written", revision=1, over_quota=over)
            case kvm.KvDelete(key=key):
                self.data.pop(key, None)
                self.sizes.pop(key, None)
                return kvm.KvDeleted(result="deleted")
            case _:
                raise AssertionError(params)

    def bytes(self) -> int:
        return sum(self.sizes.values())


def _store(kv: DictKv) -> tuple[Prefs, Any]:
    tracker = Tracker(Tickets(), random.Random(0))
    prefs = Prefs(tracker, lambda now: [])

    def drive(effects: list[Effect]) -> None:
        queue = list(effects)
        while queue:
            e = queue.pop(0)
            if isinstance(e, Send):
                queue += tracker.on_reply(Reply(e.ticket, kv.answer(e.params)), 0.0)

    return prefs, drive


def test_record_roundtrip_and_defaults_are_empty() -> None:
    for mode in MODES:
        p = SoundPrefs(gain=80, mode=mode, mic_gain=30, favourite="airhorn", order=2.5)
        assert SoundPrefs.from_record(p.to_record()) == p
    assert SoundPrefs().to_record() == {}
    assert SoundPrefs.from_record({"g": 500, "k": -1, "m": 9}) == SoundPrefs()
    assert SoundPrefs.from_record({"k": True, "m": "loop"}) == SoundPrefs()
    assert SoundPrefs.from_record("garbage") == SoundPrefs()


def test_a_stored_loop_flag_reads_as_loop_mode_and_is_written_again_in_the_new_shape() -> None:
    kv = DictKv()
    kv.data = {"schema": 1, "s:a.wav": {"l": 1, "g": 70}, "s:b.wav": {"g": 50}}
    store, drive = _store(kv)
    effects = store.load(0.0)
    drive(effects)
    assert store.get("a.wav") == SoundPrefs(gain=70, mode="loop")
    assert store.pending == 1  # their folder, written again as a page
    drive(store.on_tick(FLUSH_DELAY_S))
    assert kv.data == {"schema": 2, "d0:": {"a.wav": "1y,3", "b.wav": "1e"}}
    assert read_records(kv.data) == {"a.wav": store.get("a.wav"), "b.wav": SoundPrefs(gain=50)}


def test_ten_thousand_sounds_with_every_setting_stay_under_the_quota() -> None:
    """A mode and separate gains on every sound of a large library still fit kv's 1 MiB soft
    quota (docs/protocol-notes.md#r30)."""
    kv = DictKv()
    store, drive = _store(kv)
    drive(store.load(0.0))
    for n in range(10_000):
        rel = f"Folder {n % 40:02d}/Some longer sound name {n:05d}.ogg"
        store.update(rel, 0.0, gain=55, mic_gain=35, mode=MODES[n % len(MODES)])
    drive(store.flush(0.0))
    assert kv.bytes() - kv.sizes["schema"] == store.kv_bytes()
    assert kv.bytes() < 1024 * 1024


def test_long_paths_are_hashed_within_the_key_limit() -> None:
    long_path = "deep/" * 60 + "sound.wav"
    key = key_for(long_path)
    assert key.startswith("h:")
    assert len(key.encode()) <= 256
    assert key_for("a.wav") == "s:a.wav"


def test_ten_thousand_custom_gains_stay_under_the_quota() -> None:
    kv = DictKv()
    store, drive = _store(kv)
    drive(store.load(0.0))
    for i in range(10_000):
        store.update(f"Category {i // 500}/Some sound name {i:05d}.wav", 0.0, gain=1 + i % 99)
    drive(store.flush(0.0))
    used = kv.bytes()
    print(f"kv bytes for 10,000 sounds with custom gains: {used}")
    assert used < 1024 * 1024
    assert max(len(json.dumps(v)) for v in kv.data.values()) < 64 * 1024
    assert not store.over_quota and store.pending == 0
    reloaded, drive = _store(kv)
    drive(reloaded.load(0.0))
    assert reloaded.loaded
    assert reloaded.get("Category 3/Some sound name 01500.wav").gain == 1 + 1500 % 99


def test_resetting_to_defaults_deletes_the_page_and_hashed_folders_reload() -> None:
    kv = DictKv()
    store, drive = _store(kv)
    long_path = "deep/" * 60 + "x" * 200 + ".wav"
    drive(store.update("a.wav", 0.0, gain=50) + store.update(long_path, 0.0, favourite="long"))
    drive(store.flush(0.0))
    assert "d0:" in kv.data
    [hashed] = [k for k in kv.data if k.startswith("x0:")]
    assert len(hashed.encode()) <= 256
    store.update("a.wav", 0.0, gain=100)
    drive(store.flush(0.0))
    assert "d0:" not in kv.data
    again, drive = _store(kv)
    drive(again.load(0.0))
    assert again.get(long_path).favourite == "long"
    assert again.favourites() == {"long": long_path}


def test_a_write_that_fails_goes_with_the_next_flush() -> None:
    from cueboard.core.effects import Failure, HostFailure
    from cueboard.core.policy import GIVE_UP_MEMORY_S

    kv = DictKv()
    store, drive = _store(kv)
    tracker: Tracker = store._tracker  # pyright: ignore[reportPrivateUsage]
    [send] = [
        e for e in store.update("a.wav", 0.0, gain=5) + store.flush(0.0) if isinstance(e, Send)
    ]
    tracker.on_failure(Failure(send.ticket, HostFailure("domain", "value_too_large")), 0.0)
    assert store.pending == 1 and "d0:" not in kv.data
    drive(store.flush(1.0))  # the same record, refused a moment ago: not asked again yet
    assert store.pending == 1 and "d0:" not in kv.data
    drive(store.flush(GIVE_UP_MEMORY_S))
    assert kv.data["d0:"] == {"a.wav": "5"}
