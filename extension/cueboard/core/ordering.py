"""A folder's order: each sound may carry a position of its own, kept in its kv record.

A folder-wide list in one kv value would pass kv's 64 KiB value limit near 1,000 sounds, so the
order lives per sound: a number, and a folder is sorted by it. A sound without one sits where
the scan put it (its index in the folder, by name). Moving a sound writes one record: its new
number is halfway between its new neighbours'. Only when two neighbours' numbers meet (a tie
between a set position and an index, or halving worn down) is every sound of the folder given
a whole number again. Positions keep six decimals, so a record stays short.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from cueboard.core.library import Sound

__all__ = ["OrderOf", "move", "ordered", "sort_keys"]

type OrderOf = Callable[[str], float | None]

PLACES = 6  # decimals of a stored position


def sort_keys(sounds: Sequence[Sound], order_of: OrderOf) -> list[float]:
    """Each sound's sort number, in the scan's order: its own position, or its index."""
    keys: list[float] = []
    for index, sound in enumerate(sounds):
        own = order_of(sound.rel_path)
        keys.append(float(index) if own is None else own)
    return keys


def ordered(sounds: Sequence[Sound], order_of: OrderOf) -> tuple[Sound, ...]:
    """A folder's sounds in the user's order (ties keep the scan's order)."""
    keys = sort_keys(sounds, order_of)
    return tuple(sounds[i] for i in sorted(range(len(sounds)), key=lambda i: (keys[i], i)))


def move(scanned: Sequence[Sound], order_of: OrderOf, rel: str, to: int) -> dict[str, float]:
    """The positions to store so that ``rel`` comes at index ``to`` of its folder (``scanned``:
    the folder in the scan's order); empty when it is there already or not in the folder."""
    key_of = {s.rel_path: k for s, k in zip(scanned, sort_keys(scanned, order_of), strict=True)}
    paths = [s.rel_path for s in ordered(scanned, order_of)]
    if rel not in key_of:
        return {}
    start = paths.index(rel)
    to = min(max(to, 0), len(paths) - 1)
    if to == start:
        return {}
    rest_paths = paths[:start] + paths[start + 1 :]
    rest = [key_of[p] for p in rest_paths]
    if to == 0:
        new = rest[0] - 1.0
    elif to == len(rest):
        new = rest[-1] + 1.0
    else:  # six decimals keep a record short; a midpoint lost to rounding renumbers below
        new = round((rest[to - 1] + rest[to]) / 2, PLACES)
    after = to == 0 or rest[to - 1] < new
    before = to == len(rest) or new < rest[to]
    if after and before and key_of[rel] != new:
        return {rel: new}
    final = [*rest_paths[:to], rel, *rest_paths[to:]]
    return {path: float(index) for index, path in enumerate(final)}
