"""A sound's name fitted to its tile: two lines of a given number of columns.

Slint elides only at the end of a text, so "Hype Train Level 1" and "Hype Train Level 5" would
both read "Hype Train Lev…" on a tile. The core shortens names itself instead: it wraps a name
onto the tile's lines and, when it is still too long, cuts it in the middle of the last line and
keeps its end, where names in a series differ ("Hype Train\\nLevel 1 … remix 5").

Widths are counted in columns, as a terminal does: East Asian wide and full-width characters and
emoji take two, everything else one. A name is cut only between grapheme clusters (as the
``regex`` module's ``\\X`` finds them), so an emoji ZWJ sequence, a flag, a keycap or a letter
with its combining marks is kept whole or dropped whole. Lines are joined with ``\\n``; the panel
shows them as they are and does not wrap them again.
"""

from __future__ import annotations

import functools
import unicodedata

import regex

__all__ = ["ELLIPSIS", "clusters", "shorten", "width"]

ELLIPSIS = "…"

_CLUSTER = regex.compile(r"\X")
_EMOJI_PRESENTATION = "\ufe0f"
_ZWJ = "\u200d"
_KEYCAP = "\u20e3"
_REGIONAL_INDICATORS = range(0x1F1E6, 0x1F200)
_BLANKS = regex.compile(r"[\p{Cc}\p{Zl}\p{Zp}\s]+")


def clusters(text: str) -> list[str]:
    """The user-perceived characters of ``text`` (extended grapheme clusters)."""
    return _CLUSTER.findall(text)


def _cluster_width(cluster: str) -> int:
    if any(unicodedata.east_asian_width(c) in "WF" for c in cluster):
        return 2
    if any(c in (_EMOJI_PRESENTATION, _ZWJ, _KEYCAP) for c in cluster):
        return 2
    if any(ord(c) in _REGIONAL_INDICATORS for c in cluster):
        return 2
    return 1


def width(text: str) -> int:
    """Columns ``text`` takes on one line."""
    return sum(_cluster_width(c) for c in clusters(text))


def _take(parts: list[str], columns: int) -> int:
    """How many leading clusters of ``parts`` fit into ``columns``."""
    used = 0
    for n, part in enumerate(parts):
        used += _cluster_width(part)
        if used > columns:
            return n
    return len(parts)


def _first_line(parts: list[str], columns: int) -> int:
    """Clusters on a wrapped first line: up to the last space that fits, else as many as fit.

    Breaking anywhere is right for kana and kanji, which have no spaces between words.
    """
    fit = _take(parts, columns)
    if fit == len(parts):
        return fit
    if parts[fit] == " ":
        return fit
    for n in range(fit - 1, 0, -1):
        if parts[n] == " ":
            return n
    return max(fit, 1)


def _strip(parts: list[str]) -> list[str]:
    start, end = 0, len(parts)
    while start < end and parts[start] == " ":
        start += 1
    while end > start and parts[end - 1] == " ":
        end -= 1
    return parts[start:end]


def _middle_elide(parts: list[str], columns: int) -> str:
    """One line of ``columns`` holding the start and the end of ``parts``, "…" between them.

    The end gets a little more than half of the room, starting at a word when that costs less
    than a third of it, since the end is where names in a series differ.
    """
    room = max(columns - 1, 2)
    tail_room = room - room // 2 + (1 if room >= 6 else 0)
    tail_room = min(tail_room, room - 1)
    # The longest end that fits the tail's room; then pull its start forward to a word.
    tail_start = len(parts)
    used = 0
    while tail_start > 0:
        w = _cluster_width(parts[tail_start - 1])
        if used + w > tail_room:
            break
        used += w
        tail_start -= 1
    if tail_start == len(parts):
        tail_start -= 1  # a wide last cluster in a tiny room: keep it anyway
    for n in range(tail_start, len(parts) - 1):
        if parts[n] == " ":
            if width("".join(parts[tail_start : n + 1])) * 3 <= tail_room:
                tail_start = n + 1
            break
    tail = _strip(parts[tail_start:])
    head_room = room - sum(_cluster_width(p) for p in tail)
    head = _strip(parts[: _take(parts, head_room)])
    return "".join(head) + ELLIPSIS + "".join(tail)


@functools.lru_cache(maxsize=4096)  # a refresh shortens the same names again
def shorten(name: str, columns: int, lines: int = 2) -> str:
    """``name`` wrapped onto at most ``lines`` lines of ``columns``, elided in the middle of the
    last line when it does not fit.

    Line breaks, tabs and other blanks inside a name count as one space. ``columns`` below 4
    is taken as 4, so that a start, the ellipsis and an end always fit.
    """
    columns = max(columns, 4)
    lines = max(lines, 1)
    parts = _strip(clusters(_BLANKS.sub(" ", name)))
    out: list[str] = []
    while len(out) < lines - 1 and sum(_cluster_width(p) for p in parts) > columns:
        n = _first_line(parts, columns)
        out.append("".join(_strip(parts[:n])))
        parts = _strip(parts[n:])
    if sum(_cluster_width(p) for p in parts) <= columns:
        out.append("".join(parts))
    else:
        out.append(_middle_elide(parts, columns))
    return "\n".join(out)
