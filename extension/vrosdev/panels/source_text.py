"""Blanking comments and string contents out of .slint source, keeping every offset.

The static rules and the declaration parser look for keywords; a keyword inside a comment or a
string must not count. Blanking (instead of removing) keeps offsets, so line:col in messages
point into the author's own text.
"""

import re
from bisect import bisect_left
from dataclasses import dataclass
from functools import lru_cache

# What gets blanked, in the order a reader meets it: a line comment, a block comment (to its end,
# or to the end of the source), or a string (an escape takes the character after the backslash,
# whatever it is; a string runs to the end of the source when nothing closes it).
_BLANKED = re.compile(r'//[^\n]*|/\*.*?(?:\*/|\Z)|"((?:\\.|\\\Z|[^"\\])*)("?)', re.S)
_NOT_NEWLINE = re.compile(r"[^\n]")
_NEWLINE = re.compile(r"\n")
_BRACE = re.compile(r"[{}]")


def _blank(match: re.Match[str]) -> str:
    content = match.group(1)
    if content is None:  # a comment
        return _NOT_NEWLINE.sub(" ", match.group())
    return '"' + _NOT_NEWLINE.sub(" ", content) + match.group(2)


@lru_cache(maxsize=8)
def blank_comments_and_strings(source: str) -> str:
    """Comments become spaces; string literals keep their quotes, their contents become spaces.

    Every line break stays where it was. The static rules and the declaration parser each ask
    for the same source: the last few answers are kept.
    """
    return _BLANKED.sub(_blank, source)


@dataclass(frozen=True)
class LineIndex:
    """Maps an offset to a 1-based line and column, as the Slint compiler reports them."""

    starts: tuple[int, ...]

    @classmethod
    def of(cls, source: str) -> "LineIndex":
        return cls((0, *(m.end() for m in _NEWLINE.finditer(source))))

    def position(self, offset: int) -> tuple[int, int]:
        lo, hi = 0, len(self.starts) - 1
        while lo < hi:
            mid = (lo + hi + 1) // 2
            if self.starts[mid] <= offset:
                lo = mid
            else:
                hi = mid - 1
        return lo + 1, offset - self.starts[lo] + 1

    def label(self, offset: int) -> str:
        line, col = self.position(offset)
        return f"{line}:{col}"


@dataclass(frozen=True)
class _Braces:
    """Where the braces of a blanked source are: the depth before each, and each pair."""

    at: list[int]  # offsets of every { and }, in order
    depth: list[int]  # depth[k]: { minus } among the first k braces
    closes: dict[int, int]  # offset of a { -> offset of the } that closes it


@lru_cache(maxsize=8)
def _braces(blanked: str) -> _Braces:
    at = [m.start() for m in _BRACE.finditer(blanked)]
    depth, closes, opened, d = [0], dict[int, int](), list[int](), 0
    for i in at:
        if blanked[i] == "{":
            d += 1
            opened.append(i)
        else:
            d -= 1
            if opened:
                closes[opened.pop()] = i
        depth.append(d)
    return _Braces(at, depth, closes)


def matching_brace(blanked: str, open_at: int) -> int:
    """Offset of the `}` closing the `{` at open_at, or len(blanked) if it never closes."""
    return _braces(blanked).closes.get(open_at, len(blanked))


def depth_at(blanked: str, start: int, offset: int) -> int:
    """Brace depth at offset, counting from start (where depth is 0)."""
    braces = _braces(blanked)
    return (
        braces.depth[bisect_left(braces.at, offset)] - braces.depth[bisect_left(braces.at, start)]
    )
