"""Tile names fitted to two lines (cueboard.core.names)."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from cueboard.core.names import ELLIPSIS, clusters, shorten, width

TILE = 14  # columns of one tile line in the overlay's 4 x 3 grid


def widths(shown: str) -> list[int]:
    return [width(line) for line in shown.split("\n")]


def test_hype_train_levels_stay_distinct_at_the_tile_width() -> None:
    one, five = shorten("Hype Train Level 1", TILE), shorten("Hype Train Level 5", TILE)
    assert one == "Hype Train\nLevel 1"
    assert five == "Hype Train\nLevel 5"


def test_a_name_too_long_for_two_lines_keeps_its_end() -> None:
    one = shorten("Hype Train Level 1 — the final countdown remix 1", TILE)
    five = shorten("Hype Train Level 1 — the final countdown remix 5", TILE)
    assert one != five
    assert one.endswith("remix 1")
    assert five.endswith("remix 5")
    assert one.startswith("Hype Train\n")
    assert ELLIPSIS in one.split("\n")[1]
    assert max(widths(one)) <= TILE


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        ("Airhorn", "Airhorn"),
        ("", ""),
        ("  spaced\tout\nname  ", "spaced out\nname"),
        # kana and kanji count two columns each and break anywhere
        ("拍手", "拍手"),
        ("ものすごく長い効果音", "ものすごく長い\n効果音"),
        ("ものすごく長い日本語の効果音の名前その一", "ものすごく長い\n日本…前その一"),
        # full-width Latin is two columns too
        ("ＡＢＣＤＥＦＧＨ", "ＡＢＣＤＥＦＧ\nＨ"),
        # emoji are two columns; a family (ZWJ), a flag and a skin tone stay whole
        ("👨‍👩‍👧‍👦 family clap 🇯🇵 flag 👍🏽 thumbs 1", "👨‍👩‍👧‍👦 family clap\n🇯🇵 fl…thumbs 1"),
        ("🔥" * 17, "🔥" * 7 + "\n" + "🔥" * 2 + ELLIPSIS + "🔥" * 4),
        # one word longer than a line breaks where it must
        ("Supercalifragilisticexpialidocious", "Supercalifragi\nlisti…idocious"),
    ],
)
def test_names_fit_their_column_budget(name: str, expected: str) -> None:
    shown = shorten(name, TILE)
    assert shown == expected
    assert len(shown.split("\n")) <= 2
    assert max(widths(shown)) <= TILE


def test_japanese_and_emoji_are_counted_as_two_columns() -> None:
    assert width("拍手") == 4
    assert width("ﾊｸｼｭ") == 4  # half-width katakana: one column each
    assert width("👏") == 2
    assert width("❤️") == 2  # a text-default heart asked to show as emoji
    assert width("🇯🇵") == 2
    assert width("1️⃣") == 2
    assert width("é") == 1  # e + combining acute


def test_a_combining_mark_never_leaves_its_letter() -> None:
    name = "e\u0301" * 40
    shown = shorten(name, TILE)
    assert all(c in ("e\u0301", ELLIPSIS, "\n") for c in clusters(shown))


def test_one_line_mode_elides_the_middle() -> None:
    assert shorten("Hype Train Level 1", 12, lines=1) == "Hype…Level 1"


_pieces = st.sampled_from(
    [
        "a",
        "b",
        "Z",
        "1",
        " ",
        "拍",
        "ハ",
        "ｈ",
        "e\u0301",
        "👏",
        "👍🏽",
        "👨\u200d👩\u200d👧",
        "🇯🇵",
        "❤️",
        "-",
    ]
)
_names = st.lists(_pieces, max_size=40).map("".join)
_ends = st.sampled_from(["1", "5", "Z", "拍", "ハ", "👏", "🇯🇵", "é"])


@given(name=_names, columns=st.integers(min_value=4, max_value=30), lines=st.integers(1, 3))
def test_a_shortened_name_fits_and_is_made_of_the_names_own_characters(
    name: str, columns: int, lines: int
) -> None:
    shown = shorten(name, columns, lines)
    assert len(shown.split("\n")) <= lines
    assert max(widths(shown)) <= columns
    own = set(clusters(name))
    assert all(c in own or c in (ELLIPSIS, "\n") for c in clusters(shown))
    if name.strip():
        assert clusters(shown)[-1] == clusters(name.strip())[-1]
    if width(name) <= columns:
        assert shown == " ".join(name.split())  # runs of blanks count as one space


@given(
    stem=_names,
    pair=st.lists(_ends, min_size=2, max_size=2, unique=True),
    columns=st.integers(4, 30),
)
def test_names_that_differ_only_at_the_end_stay_different(
    stem: str, pair: list[str], columns: int
) -> None:
    a, b = (shorten(stem + end, columns) for end in pair)
    assert a != b
