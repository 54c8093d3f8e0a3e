"""Blanking comments and strings out of .slint source (vrosdev.panels.source_text)."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from vrosdev.panels.source_text import (
    LineIndex,
    blank_comments_and_strings,
    depth_at,
    matching_brace,
)


def _by_hand(source: str) -> str:
    """The rule read one character at a time: the meaning the pattern must keep."""
    out = list(source)
    i, n = 0, len(source)
    while i < n:
        if source.startswith("//", i):
            while i < n and source[i] != "\n":
                out[i] = " "
                i += 1
        elif source.startswith("/*", i):
            end = source.find("*/", i + 2)
            end = n if end < 0 else end + 2
            out[i:end] = [c if c == "\n" else " " for c in source[i:end]]
            i = end
        elif source[i] == '"':
            i += 1
            while i < n and source[i] != '"':
                step = 2 if source[i] == "\\" else 1
                out[i : i + step] = [c if c == "\n" else " " for c in source[i : i + step]]
                i += step
            i += 1
        else:
            i += 1
    return "".join(out)


def test_comments_and_string_contents_become_spaces_and_line_breaks_stay() -> None:
    source = 'a // "x"\nb /* c\n d */ e "f // g\\" h" i "j\nk" /*/ l'
    blanked = blank_comments_and_strings(source)
    assert blanked == 'a       \nb     \n      e "          " i " \n "' + " " * 6
    assert len(blanked) == len(source)


def test_an_unclosed_string_or_comment_runs_to_the_end() -> None:
    assert blank_comments_and_strings('x "abc\\') == 'x "    '
    assert blank_comments_and_strings('x "ab\\"') == 'x "    '
    assert blank_comments_and_strings("x /* a\nb") == "x     \n "


@given(st.text(alphabet='/*"\\\nab', max_size=60))
def test_any_source_is_blanked_as_read_one_character_at_a_time(source: str) -> None:
    assert blank_comments_and_strings(source) == _by_hand(source)


def _close_by_hand(blanked: str, open_at: int) -> int:
    depth = 0
    for i in range(open_at, len(blanked)):
        depth += {"{": 1, "}": -1}.get(blanked[i], 0)
        if blanked[i] == "}" and depth == 0:
            return i
    return len(blanked)


@given(st.text(alphabet="{}a", max_size=40), st.data())
def test_braces_pair_and_count_as_read_one_character_at_a_time(
    blanked: str, data: st.DataObject
) -> None:
    for open_at in (i for i, c in enumerate(blanked) if c == "{"):
        assert matching_brace(blanked, open_at) == _close_by_hand(blanked, open_at)
    start = data.draw(st.integers(0, len(blanked)))
    offset = data.draw(st.integers(start, len(blanked)))
    segment = blanked[start:offset]
    assert depth_at(blanked, start, offset) == segment.count("{") - segment.count("}")


def test_a_line_and_column_are_one_based() -> None:
    lines = LineIndex.of("ab\n\ncd")
    assert [lines.label(o) for o in (0, 1, 2, 3, 4, 5)] == [
        "1:1",
        "1:2",
        "1:3",
        "2:1",
        "3:1",
        "3:2",
    ]
