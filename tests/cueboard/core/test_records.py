"""The records' shape in kv (core/records.py, docs/prefs-format.md): packed strings in pages a
folder, within kv's limits, and a board written by the first schema migrated whole."""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

from cueboard.core.effects import Failure, HostFailure, Send
from cueboard.core.prefs import FLUSH_DELAY_S, MODES, SoundPrefs
from cueboard.core.records import (
    PAGE_BYTES,
    TARGETS,
    pack,
    page_key,
    pages_for,
    parse_page_key,
    read_records,
    unpack,
)
from cueboard.core.tracker import Tracker
from vxp.limits import KV_KEY_MAX_BYTES, KV_SOFT_QUOTA_BYTES, KV_VALUE_MAX_BYTES, json_size

from .test_prefs import DictKv, _store  # pyright: ignore[reportPrivateUsage]

BOARD = Path(__file__).parent / "data" / "board_schema1.json"

EVERYTHING = SoundPrefs(
    gain=37, mode="toggle", mic_gain=0, favourite="air,horn, again", order=-12.345678,
    targets="me", trim_start_ms=1500, trim_end_ms=93_250, fade_in_ms=20, fade_out_ms=4000,
    plays=123_456, last_played=1_796_000_000,
)  # fmt: skip


def test_every_field_packs_and_unpacks_and_the_defaults_are_empty() -> None:
    assert unpack(pack(EVERYTHING)) == EVERYTHING
    assert unpack(pack(EVERYTHING) + ",zz,1") == EVERYTHING  # fields to come: ignored here
    for slug in ("%2C", "%25,%", "a-b"):
        assert unpack(pack(SoundPrefs(favourite=slug))).favourite == slug
    assert pack(SoundPrefs()) == ""
    assert pack(SoundPrefs(gain=0)) == "0"
    assert pack(SoundPrefs(plays=1)) == ",,,,,,,,,1"
    for order in (0.0, 3.0, -1.0, 2.5, 1e-6, 1234.000001):
        assert unpack(pack(SoundPrefs(order=order))).order == order
    for mode in MODES:
        for targets in TARGETS:
            p = SoundPrefs(mode=mode, targets=targets)
            assert unpack(pack(p)) == p


def test_what_cannot_be_read_is_its_default() -> None:
    assert unpack(None) == SoundPrefs() and unpack({"g": 5}) == SoundPrefs()
    assert unpack("2t,9,zz,?,7") == SoundPrefs()  # gain 101, mode 9, mic 1295, order, target 7
    assert unpack("-1,,,,,-5") == SoundPrefs()
    assert unpack("a") == SoundPrefs(gain=10)
    assert parse_page_key("d0:Memes") == ("Memes", 0)
    assert parse_page_key("x12:abc") == (None, 12)
    assert parse_page_key("schema") is None and parse_page_key("s:d0:x") is None


def test_a_folder_past_a_page_is_spread_over_pages_within_kv_limits() -> None:
    """Within kv's limits (keys up to 256 bytes, values up to 64 KiB) whatever a folder holds."""
    records = {f"A long enough sound name {n:05d}.ogg": EVERYTHING for n in range(5000)}
    for folder in ("Big", "deep/" * 60):
        pages = pages_for(folder, records)
        assert len(pages) > 1
        assert all(json_size(p) <= KV_VALUE_MAX_BYTES for p in pages)
        assert max(json_size(p) for p in pages) < 2 * PAGE_BYTES  # a write stays small
        stored = {page_key(folder, n): p for n, p in enumerate(pages)}
        assert all(len(k.encode()) <= KV_KEY_MAX_BYTES for k in stored)
        assert read_records(stored) == {f"{folder}/{name}": p for name, p in records.items()}


def test_a_board_of_the_first_schema_keeps_every_setting() -> None:
    """A board as the first schema's writer left it (data/board_schema1.json, made by
    data/board_schema1.py.txt with that version's core/prefs.py): every setting of every sound
    reads the same, is written again as pages, and reads the same from them alone."""
    board = json.loads(BOARD.read_text(encoding="utf-8"))
    expected = {rel: SoundPrefs(**fields) for rel, fields in board["expected"].items()}
    assert any(k.startswith("h:") for k in board["kv"])  # the hashed keys are in it too
    kv = DictKv()
    for key, value in board["kv"].items():
        kv.answer(_set(key, value))
    store, drive = _store(kv)
    drive(store.load(0.0))
    assert {rel: store.get(rel) for rel in expected} == expected
    drive(store.on_tick(FLUSH_DELAY_S))
    assert store.pending == 0
    assert not [k for k in kv.data if k.startswith(("s:", "h:"))]
    assert kv.data["schema"] == 2
    assert {rel: p for rel, p in read_records(kv.data).items()} == {
        rel: p for rel, p in expected.items() if not p.is_default
    }
    again, drive = _store(kv)
    drive(again.load(0.0))
    assert {rel: again.get(rel) for rel in expected} == expected
    assert again.pending == 0 and kv.bytes() < sum(
        len(k.encode()) + json_size(v) for k, v in board["kv"].items()
    )


def test_first_schema_keys_stay_until_their_page_is_written() -> None:
    kv = DictKv()
    kv.data = {"schema": 1, "s:M/a.wav": {"g": 5}}
    store, drive = _store(kv)
    drive(store.load(0.0))
    tracker: Tracker = store._tracker  # pyright: ignore[reportPrivateUsage]
    [send] = [e for e in store.on_tick(FLUSH_DELAY_S) if isinstance(e, Send)]
    assert send.params.key == "d0:M"  # pyright: ignore[reportAttributeAccessIssue]
    tracker.on_failure(Failure(send.ticket, HostFailure("domain", "value_too_large")), 1.0)
    assert "s:M/a.wav" in kv.data and store.pending == 1
    drive(store.flush(1000.0))
    assert kv.data == {"schema": 2, "d0:M": {"a.wav": "5"}}


def test_a_page_wins_over_a_first_schema_key_left_by_a_crash() -> None:
    """Killed between writing a page and deleting the old keys: both are read, the page wins,
    and the old key goes."""
    kv = DictKv()
    kv.data = {"schema": 2, "s:M/a.wav": {"g": 5}, "d0:M": {"a.wav": "6"}, "s:M/b.wav": {"g": 7}}
    store, drive = _store(kv)
    drive(store.load(0.0))
    assert store.get("M/a.wav").gain == 6 and store.get("M/b.wav").gain == 7
    drive(store.on_tick(FLUSH_DELAY_S))
    assert kv.data == {"schema": 2, "d0:M": {"a.wav": "6", "b.wav": "7"}}


def test_a_folder_shrinking_to_fewer_pages_deletes_the_rest() -> None:
    kv = DictKv()
    store, drive = _store(kv)
    names = [f"Sound number {n:04d}.wav" for n in range(1500)]
    for name in names:
        store.update(f"F/{name}", 0.0, gain=50, order=1.5, plays=99)
    drive(store.flush(0.0))
    many = [k for k in kv.data if k.startswith("d")]
    assert len(many) > 1
    for name in names[1:]:
        store.update(f"F/{name}", 1.0, gain=100, order=None, plays=0)
    drive(store.flush(1.0))
    assert [k for k in kv.data if k.startswith("d")] == ["d0:F"]
    assert read_records(kv.data) == {f"F/{names[0]}": SoundPrefs(gain=50, order=1.5, plays=99)}


def test_ten_thousand_realistic_sounds_with_every_field_fit_the_quota_with_room() -> None:
    """On 10,000 sounds of paths as long as people's (about 55 bytes), today's settings take
    little over half of kv's 1 MiB soft quota, and with those to come (trim, fades, targets,
    plays, last played) on every sound too, a seventh of it is still left."""
    rng = random.Random(5)
    paths = [f"Airhorn And Vine {n % 50:02d}/Bruh Dramatic Wow Fanfare ({n + 1}).mp3" for n in
             range(10_000)]  # fmt: skip
    for fields, share in ((_today, 0.6), (_every_field, 0.85)):
        kv = DictKv()
        store, drive = _store(kv)
        drive(store.load(0.0))
        for n, rel in enumerate(paths):
            store.update(rel, 0.0, **fields(rng, n))
        drive(store.flush(0.0))
        assert kv.bytes() - kv.sizes["schema"] == store.kv_bytes()
        assert kv.bytes() < share * KV_SOFT_QUOTA_BYTES and not store.over_quota
        assert max(json_size(v) for v in kv.data.values()) <= KV_VALUE_MAX_BYTES


def _today(rng: random.Random, n: int) -> dict[str, Any]:
    return {
        "gain": rng.randint(0, 99), "mic_gain": rng.randint(0, 99), "mode": MODES[n % 4],
        "order": n + round(rng.random(), 6),
    }  # fmt: skip


def _every_field(rng: random.Random, n: int) -> dict[str, Any]:
    return _today(rng, n) | {
        "targets": TARGETS[n % 3],
        "trim_start_ms": rng.randint(0, 5000), "trim_end_ms": rng.randint(5000, 60_000),
        "fade_in_ms": rng.randint(1, 2000), "fade_out_ms": rng.randint(1, 2000),
        "plays": rng.randint(1, 5000), "last_played": 1_790_000_000 + rng.randint(0, 10**7),
    }  # fmt: skip


def _set(key: str, value: Any) -> Any:
    from vxp.models import kv as kvm

    return kvm.KvSet(op="set", key=key, value=value)


def test_the_measured_bytes_follow_every_change_and_a_reload() -> None:
    """kv_bytes, measured again only for the folders that changed, is what kv holds."""
    kv = DictKv()
    store, drive = _store(kv)
    drive(store.load(0.0))
    steps: list[tuple[str, dict[str, Any]]] = [
        ("A/a.wav", {"gain": 5}),
        ("B/b.wav", {"plays": 3}),
        ("A/c.wav", {"favourite": "c", "order": 1.25}),
        ("A/a.wav", {"gain": 100}),
        ("top.wav", {"targets": "mic"}),
        ("B/b.wav", {"plays": 0}),
    ]
    for n, (rel, changes) in enumerate(steps):
        store.update(rel, float(n), **changes)
        drive(store.flush(float(n)))
        assert store.kv_bytes() == kv.bytes() - kv.sizes["schema"], (rel, changes)
    again, drive = _store(kv)
    drive(again.load(0.0))
    assert again.kv_bytes() == kv.bytes() - kv.sizes["schema"] > 0
