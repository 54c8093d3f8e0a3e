"""Blanking comments and string contents out of .slint source, keeping every offset.

The static rules and the declaration parser look for keywords; a keyword inside a comment or a
string must not count. Blanking (instead of removing) keeps offsets, so line:col in messages
point into the author's own text.
"""

from dataclasses import dataclass


def blank_comments_and_strings(source: str) -> str:
    """Comments become spaces; string literals keep their quotes, their contents become spaces."""
    out = list(source)
    i, n = 0, len(source)
    while i < n:
        ch = source[i]
        if source.startswith("//", i):
            while i < n and source[i] != "\n":
                out[i] = " "
                i += 1
        elif source.startswith("/*", i):
            end = source.find("*/", i + 2)
            end = n if end < 0 else end + 2
            for j in range(i, end):
                if source[j] != "\n":
                    out[j] = " "
            i = end
        elif ch == '"':
            i += 1
            while i < n and source[i] != '"':
                step = 2 if source[i] == "\\" else 1
                for j in range(i, min(i + step, n)):
                    if source[j] != "\n":
                        out[j] = " "
                i += step
            i += 1
        else:
            i += 1
    return "".join(out)


@dataclass(frozen=True)
class LineIndex:
    """Maps an offset to a 1-based line and column, as the Slint compiler reports them."""

    starts: tuple[int, ...]

    @classmethod
    def of(cls, source: str) -> "LineIndex":
        starts = [0]
        starts.extend(i + 1 for i, ch in enumerate(source) if ch == "\n")
        return cls(tuple(starts))

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


def matching_brace(blanked: str, open_at: int) -> int:
    """Offset of the `}` closing the `{` at open_at, or len(blanked) if it never closes."""
    depth = 0
    for i in range(open_at, len(blanked)):
        ch = blanked[i]
        if ch == "{":
            depth += 1
        elif ch == "}":
            depth -= 1
            if depth == 0:
                return i
    return len(blanked)


def depth_at(blanked: str, start: int, offset: int) -> int:
    """Brace depth at offset, counting from start (where depth is 0)."""
    segment = blanked[start:offset]
    return segment.count("{") - segment.count("}")
