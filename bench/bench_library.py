"""Library scan time and kv bytes for a 10,000-sound library (generated).

    .venv/bin/python bench/bench_library.py [--files 10000] [--folders 50] [--runs 5] [--quick]

Scan: a tree of ``--folders`` folders holding ``--files`` tiny valid WAV files in all (a 44-byte
RIFF/WAVE header and a few samples: enough for the sniffing, which reads 12 bytes), plus one
icon every 20 sounds. ``cueboard.workers.scan.scan`` is timed beside two baselines on the same tree:
``os.walk`` + ``stat`` of every file (what any scan must at least do), and ``os.walk`` + ``stat``
+ reading 12 bytes of each file (the same I/O as the scan, without its Python around it).
Variants are interleaved, median of ``--runs``. The files were just written, so this is the
warm page cache: the scan's own cost, not the disk's.

kv: every sound gets a custom gain through the core's ``cueboard.core.prefs.Prefs``, its writes
answered by a kv stand-in that counts like the host: per key, its UTF-8 bytes plus the compact
JSON UTF-8 bytes of the value (docs/protocol-notes.md#r8, #r30), and the same records put into
vrosdev's own ``KvStore`` as a cross-check. Measured for the generated paths and for longer,
more realistic ones, the realistic ones with every per-sound setting of today (both gains, a
play mode and a fractional place in the folder), and with the coming ones too (targets, trim
start and end, fade in and out, a play count and the time last played), against the 1 MiB soft
quota (KV-11). Beside each, the same settings in the first schema's format (one key a sound,
docs/prefs-format.md), which cannot hold the coming fields.
Nothing is asserted.
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import struct
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from cueboard.core.effects import Effect, Reply, Send, Tickets
from cueboard.core.prefs import MODES, TARGETS, Prefs, key_for
from cueboard.core.records import HASH_PREFIX
from cueboard.core.tracker import Tracker
from cueboard.workers.scan import scan
from vrosdev.host.namespaces.kv import KvStore as HostKvStore
from vxp.limits import KV_SOFT_QUOTA_BYTES, json_size, utf8_len
from vxp.models import kv as kvm

ICON_EVERY = 20


# -- the tree ------------------------------------------------------------------------------------


def tiny_wav(samples: int = 4) -> bytes:
    """A valid 16-bit mono 48 kHz WAV: the 44-byte header and ``samples`` silent samples."""
    data = b"\0\0" * samples
    header = b"RIFF" + struct.pack("<I", 36 + len(data)) + b"WAVE"
    fmt = b"fmt " + struct.pack("<IHHIIHH", 16, 1, 1, 48000, 96000, 2, 16)
    return header + fmt + b"data" + struct.pack("<I", len(data)) + data


def make_tree(root: Path, files: int, folders: int) -> int:
    wav = tiny_wav()
    gif = b"GIF89a" + b"\0" * 26
    per_folder = -(-files // folders)
    made = 0
    for f in range(folders):
        folder = root / f"Category {f + 1:02d}"
        folder.mkdir(parents=True)
        for n in range(per_folder):
            if made == files:
                break
            name = f"Sound {n + 1:04d}"
            (folder / f"{name}.wav").write_bytes(wav)
            if n % ICON_EVERY == 0:
                (folder / f"{name}.gif").write_bytes(gif)
            made += 1
    return made


def walk_stat(root: Path) -> int:
    count = 0
    for folder, _dirs, names in os.walk(root):
        for name in names:
            os.stat(os.path.join(folder, name))
            count += 1
    return count


def walk_stat_read(root: Path) -> int:
    count = 0
    for folder, _dirs, names in os.walk(root):
        for name in names:
            path = os.path.join(folder, name)
            os.stat(path)
            with open(path, "rb") as f:
                f.read(12)
            count += 1
    return count


def scan_sounds(root: Path) -> int:
    return len(scan(root).sounds)


def time_interleaved(
    variants: dict[str, Callable[[Path], int]], root: Path, runs: int
) -> dict[str, tuple[float, int]]:
    """Median seconds and the count each variant found; one run of each per round."""
    times: dict[str, list[float]] = {name: [] for name in variants}
    counts: dict[str, int] = {}
    for name, fn in variants.items():  # warm-up: page cache, imports
        counts[name] = fn(root)
    for _ in range(runs):
        for name, fn in variants.items():
            started = time.perf_counter()
            counts[name] = fn(root)
            times[name].append(time.perf_counter() - started)
    return {name: (statistics.median(t), counts[name]) for name, t in times.items()}


# -- kv ------------------------------------------------------------------------------------------


class MeasuringKv:
    """A kv stand-in that counts like the host (docs/protocol-notes.md#r8,
    docs/protocol-notes.md#r30), and mirrors into vrosdev's store."""

    def __init__(self) -> None:
        self.values: dict[str, Any] = {}
        self.sizes: dict[str, int] = {}
        self.host = HostKvStore(None)

    @property
    def bytes_used(self) -> int:
        return sum(self.sizes.values())

    def answer(self, params: Any) -> Any:
        """The host's result for one kv request."""
        match params:
            case kvm.KvList():
                return kvm.KvKeys(result="keys", keys=list(self.values))
            case kvm.KvGet(key=key):
                return kvm.KvValue(result="value", value=self.values.get(key), revision=1)
            case kvm.KvSet(key=key, value=value):
                self.values[key] = value
                self.sizes[key] = utf8_len(key) + json_size(value)
                self.host.set(key, value)
                over = self.bytes_used > KV_SOFT_QUOTA_BYTES
                return kvm.KvWritten(result="written", revision=1, over_quota=over)
            case kvm.KvDelete(key=key):
                self.values.pop(key, None)
                self.sizes.pop(key, None)
                self.host.delete(key)
                return kvm.KvDeleted(result="deleted")
            case _:
                raise AssertionError(f"not a kv request: {params!r}")

    def drive(self, tracker: Tracker, effects: list[Effect]) -> None:
        """Answer every request the core sends, and those its answers lead to."""
        queue = list(effects)
        while queue:
            effect = queue.pop(0)
            if isinstance(effect, Send):
                queue += tracker.on_reply(Reply(effect.ticket, self.answer(effect.params)), 0.0)


def kv_for(
    rel_paths: list[str], seed: int = 7, *, every_setting: bool = False, coming: bool = False
) -> tuple[MeasuringKv, Prefs]:
    """Every sound a custom gain; with ``every_setting`` also its own mic gain, a play mode
    and a place in its folder (a moved sound's number is a fraction: the longest case); with
    ``coming`` also targets, a trim, fades, a play count and the time last played."""
    rng = random.Random(seed)
    kv = MeasuringKv()
    tracker = Tracker(Tickets(), random.Random(0))
    prefs = Prefs(tracker, lambda now: [])
    kv.drive(tracker, prefs.load(0.0))  # writes the schema key, as on a first start
    for n, rel in enumerate(rel_paths):  # 100 is the default and is not stored
        extra: dict[str, Any] = {}
        if every_setting:
            extra = {"mic_gain": rng.randint(0, 99), "mode": MODES[n % len(MODES)]}
            extra["order"] = n + round(rng.random(), 6)  # as core/ordering.py stores them
        if coming:
            extra |= {
                "targets": TARGETS[n % len(TARGETS)],
                "trim_start_ms": rng.randint(0, 5_000),
                "trim_end_ms": rng.randint(5_000, 60_000),
                "fade_in_ms": rng.randint(1, 2_000),
                "fade_out_ms": rng.randint(1, 2_000),
                "plays": rng.randint(1, 5_000),
                "last_played": 1_790_000_000 + rng.randint(0, 10**7),
            }
        prefs.update(rel, 0.0, gain=rng.randint(1, 99), **extra)
    kv.drive(tracker, prefs.flush(0.0))
    return kv, prefs


def first_schema_bytes(prefs: Prefs) -> int:
    """The same records as the first schema wrote them, one key a sound, and its schema key."""
    total = utf8_len("schema") + json_size(1)
    for rel, p in prefs.prefs.items():
        if not p.is_default:
            key = key_for(rel)
            total += utf8_len(key) + json_size(
                p.to_record(rel if key.startswith(HASH_PREFIX) else None)
            )
    return total


def realistic_paths(count: int, seed: int = 11) -> list[str]:
    """Folder and file names of the length people give them (about 55 characters a path)."""
    rng = random.Random(seed)
    words = [
        *("airhorn", "applause", "bruh", "crickets", "drumroll", "fail", "laugh", "track"),
        *("wow", "sad", "trombone", "vine", "boom", "bonk", "oof", "yeet", "dramatic"),
        *("chipmunk", "record", "scratch", "windows", "error", "victory", "fanfare"),
    ]
    folders = [f"{rng.choice(words).title()} and {rng.choice(words).title()}" for _ in range(50)]
    out: list[str] = []
    for n in range(count):
        name = " ".join(rng.choice(words) for _ in range(4)).title()
        out.append(f"{folders[n % 50]}/{name} ({n + 1}).mp3")
    return out


# -- the run -------------------------------------------------------------------------------------


def main() -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n")[0])
    parser.add_argument("--files", type=int, default=10_000)
    parser.add_argument("--folders", type=int, default=50)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--quick", action="store_true", help="one run, small sizes")
    args = parser.parse_args()
    if args.quick:
        args.files, args.folders, args.runs = 500, 10, 1

    with tempfile.TemporaryDirectory(prefix="bench-library-") as tmp:
        root = Path(tmp) / "Sounds"
        started = time.perf_counter()
        made = make_tree(root, args.files, args.folders)
        icons = -(-made // ICON_EVERY)
        print(
            f"tree: {made} WAV files ({len(tiny_wav())} bytes each) and {icons} icons in "
            f"{args.folders} folders, written in {time.perf_counter() - started:.1f} s"
        )
        results = time_interleaved(
            {
                "os.walk + stat (baseline)": walk_stat,
                "os.walk + stat + read 12 bytes": walk_stat_read,
                "cueboard.workers.scan.scan": scan_sounds,
            },
            root,
            args.runs,
        )
        library = scan(root)
        rel_paths = [s.rel_path for s in library.sounds]

    base = results["os.walk + stat (baseline)"][0]
    print()
    title = f"scan, median of {args.runs}"
    head = f"{title:<34} {'ms':>9} {'found':>7} {'files/s':>10} {'x base':>7}"
    print(head)
    print("-" * len(head))
    for name, (seconds, count) in results.items():
        print(
            f"{name:<34} {seconds * 1000:>9.1f} {count:>7} {made / seconds:>10,.0f} "
            f"{seconds / base:>6.2f}x"
        )
    print("(files/s: WAV files in the tree per second of the variant; the baselines also")
    print(" stat the icons, the scan stats and reads only what has a sound extension)")

    print()
    realistic = realistic_paths(len(rel_paths))
    cases = [
        ("generated paths", rel_paths, False, False),
        ("realistic paths", realistic, False, False),
        ("realistic, every setting", realistic, True, False),
        ("realistic, and coming fields", realistic, True, True),
    ]
    head = (
        f"{'kv, every sound a custom gain':<30} {'records':>8} {'avg path':>9} {'bytes':>10} "
        f"{'host count':>11} {'of 1 MiB':>9} {'over?':>6} {'left/sound':>11} {'1st schema':>11}"
    )
    print(head)
    print("-" * len(head))
    for label, paths, every_setting, coming in cases:
        kv, prefs = kv_for(paths, every_setting=every_setting, coming=coming)
        used = kv.bytes_used
        records = len(prefs.prefs)
        avg_path = statistics.fmean(utf8_len(p) for p in paths)
        old = "-" if coming else f"{first_schema_bytes(prefs):,}"
        print(
            f"{label:<30} {records:>8} {avg_path:>9.1f} {used:>10,} {kv.host.bytes_used:>11,} "
            f"{used / KV_SOFT_QUOTA_BYTES:>8.1%} {'yes' if prefs.over_quota else 'no':>6} "
            f"{(KV_SOFT_QUOTA_BYTES - used) / records:>11.0f} {old:>11}"
        )
    print(
        "(left/sound: the quota left over, per sound. 1st schema: the same records one key a "
        "sound, as the\n first schema wrote them; it has no room for the coming fields. "
        "docs/prefs-format.md)"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
