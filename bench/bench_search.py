"""The flat, ranked search and the tile-name fitting over a 2,000-sound library (generated).

    .venv/bin/python bench/bench_search.py [--sounds 2000] [--folders 40] [--runs 7] [--quick]

The library mixes Latin, Japanese and emoji names in ``--folders`` folders. For each query,
``cueboard.core.search.search`` (fold, rank, sort) is timed beside the search it replaces,
``cueboard.core.library.Library.search`` (every word a substring of "folder name", case-folded, no
ranking), on the same sounds; variants interleaved, median of ``--runs``. Then
``cueboard.core.names.shorten`` for one page of 12 names and for the whole library. A search
and a page of names happen per keystroke in the overlay; the issue's budget for a whole
answer to the panel is tens of milliseconds. Nothing is asserted.
"""

from __future__ import annotations

import argparse
import statistics
import time
from collections.abc import Callable
from pathlib import Path

from cueboard.core.library import Library, Sound
from cueboard.core.names import shorten
from cueboard.core.search import Index, entries_of, search

WORDS = ["Boss", "Hype Train", "Level", "Airhorn", "Clap", "Final", "Drum", "Laser", "Win"]
JAPANESE = ["拍手", "ドラムロール", "ものすごく長い効果音", "勝利のファンファーレ", "ハクシュ"]
EMOJI = ["👏", "🔥", "🎉", "👨‍👩‍👧‍👦", "🇯🇵"]
QUERIES = ["boss", "hype train level 1", "拍手", "はくしゅ", "a", "🔥", "no such sound"]


def library(sounds: int, folders: int) -> Library:
    items: list[Sound] = []
    for n in range(sounds):
        folder = f"Folder {n % folders + 1:02d}"
        if n % 5 == 0:
            name = f"{JAPANESE[(n // 5) % len(JAPANESE)]} {n}"
        elif n % 7 == 0:
            name = f"{EMOJI[n % len(EMOJI)]} {WORDS[n % len(WORDS)]} {n}"
        else:
            name = f"{WORDS[n % len(WORDS)]} {WORDS[(n // 3) % len(WORDS)]} Level {n % 12}"
        items.append(Sound(f"{folder}/{name}.ogg", name, folder, 1000, 0))
    return Library(Path("."), items)


def median_ms(fns: dict[str, Callable[[], int]], runs: int) -> dict[str, tuple[float, int]]:
    times: dict[str, list[float]] = {k: [] for k in fns}
    counts = {k: fn() for k, fn in fns.items()}  # warm-up
    for _ in range(runs):
        for k, fn in fns.items():
            started = time.perf_counter()
            counts[k] = fn()
            times[k].append((time.perf_counter() - started) * 1000)
    return {k: (statistics.median(v), counts[k]) for k, v in times.items()}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sounds", type=int, default=2000)
    parser.add_argument("--folders", type=int, default=40)
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument("--quick", action="store_true", help="one run, small sizes")
    args = parser.parse_args()
    if args.quick:
        args.sounds, args.runs = 200, 1
    lib = library(args.sounds, args.folders)
    index = Index.of(entries_of(lib.sounds))
    print(f"{args.sounds} sounds in {args.folders} folders, median of {args.runs} runs\n")
    header = f"{'query':<22}{'ranked (ms)':>12}{'hits':>7}{'old (ms)':>10}{'hits':>7}{'ratio':>7}"
    print(header)
    print("-" * len(header))
    for q in QUERIES:
        got = median_ms(
            {
                "ranked": lambda q=q: len(search(q, index)),
                "old": lambda q=q: len(lib.search(q)),
            },
            args.runs,
        )
        (new_ms, new_hits), (old_ms, old_hits) = got["ranked"], got["old"]
        print(
            f"{q:<22}{new_ms:>12.2f}{new_hits:>7}{old_ms:>10.2f}{old_hits:>7}"
            f"{new_ms / old_ms if old_ms else float('nan'):>7.1f}"
        )
    names = [s.name for s in lib.sounds]
    got = median_ms(
        {
            "page": lambda: len([shorten(n, 14) for n in names[:12]]),
            "all": lambda: len([shorten(n, 14) for n in names]),
        },
        args.runs,
    )
    print(f"\nshorten, one page of 12 names: {got['page'][0]:.3f} ms")
    print(f"shorten, all {len(names)} names: {got['all'][0]:.1f} ms")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
