"""The flat, ranked search (cueboard.core.search)."""

from __future__ import annotations

from dataclasses import dataclass

import pytest
from hypothesis import given
from hypothesis import strategies as st

from cueboard.core.search import (
    FOLDER,
    FOLDER_PHRASE,
    NAME_PREFIX,
    SUBSTRING,
    WORD_START,
    WORDS,
    Entry,
    Index,
    entries_of,
    fold,
    page,
    page_count,
    rank,
    search,
)

LIBRARY = [
    Entry("Memes/boss fight.ogg", "Boss fight", "Memes"),
    Entry("Memes/final boss.ogg", "Final boss", "Memes"),
    Entry("Memes/bossa nova.ogg", "Bossa nova", "Memes"),
    Entry("Jingles/embossed.ogg", "Embossed", "Jingles"),
    Entry("Boss/theme.ogg", "Theme", "Boss"),
    Entry("Memes/airhorn.ogg", "Airhorn", "Memes"),
    Entry("効果音/拍手.ogg", "拍手", "効果音"),
    Entry("効果音/大きな拍手.ogg", "大きな拍手", "効果音"),
    Entry("効果音/ハクシュ.ogg", "ハクシュ", "効果音"),
    Entry("Hype/level 10.ogg", "Hype Train Level 10", "Hype"),
    Entry("Hype/level 2.ogg", "Hype Train Level 2", "Hype"),
    Entry("Hype/level 1.ogg", "Hype Train Level 1", "Hype"),
]


def keys(query: str, entries: list[Entry] = LIBRARY) -> list[str]:
    return [h.key for h in search(query, entries)]


@pytest.mark.parametrize(
    ("query", "expected"),
    [
        # name prefix (by name), then word start, then substring, then the folder name
        (
            "boss",
            [
                "Memes/boss fight.ogg",
                "Memes/bossa nova.ogg",
                "Memes/final boss.ogg",
                "Jingles/embossed.ogg",
                "Boss/theme.ogg",
            ],
        ),
        # case- and width-insensitive: full-width Latin, upper case
        ("ＢＯＳＳ ＦＩＧ", ["Memes/boss fight.ogg"]),
        ("AIRHORN", ["Memes/airhorn.ogg"]),
        # kanji substrings: a prefix first, then the rest
        ("拍手", ["効果音/拍手.ogg", "効果音/大きな拍手.ogg"]),
        # hiragana finds katakana, half-width katakana finds full-width
        ("はくしゅ", ["効果音/ハクシュ.ogg"]),
        ("ﾊｸｼｭ", ["効果音/ハクシュ.ogg"]),
        # a folder name alone finds every sound in it (by name: kana before kanji)
        ("効果音", ["効果音/ハクシュ.ogg", "効果音/大きな拍手.ogg", "効果音/拍手.ogg"]),
        # numbers sort naturally within a rank
        ("hype", ["Hype/level 1.ogg", "Hype/level 2.ogg", "Hype/level 10.ogg"]),
        # every word must match, in the name or the folder
        ("memes fight", ["Memes/boss fight.ogg"]),
        ("train 10", ["Hype/level 10.ogg"]),
        ("nothing like this", []),
        ("", []),
        ("   ", []),
    ],
)
def test_ranked_results_for_a_query(query: str, expected: list[str]) -> None:
    assert keys(query) == expected


def test_each_hit_carries_the_rank_it_was_found_by() -> None:
    ranks = {h.key: h.rank for h in search("boss", LIBRARY)}
    assert ranks == {
        "Memes/boss fight.ogg": NAME_PREFIX,
        "Memes/bossa nova.ogg": NAME_PREFIX,
        "Memes/final boss.ogg": WORD_START,
        "Jingles/embossed.ogg": SUBSTRING,
        "Boss/theme.ogg": FOLDER_PHRASE,
    }


def _forty_folders() -> list[Entry]:
    """The issue's library: 40 folders of 50, "Sound 0001" ... "Sound 0050" in each."""
    return [
        Entry(f"Category {f:02d}/Sound {n:04d}.wav", f"Sound {n:04d}", f"Category {f:02d}")
        for f in range(1, 41)
        for n in range(1, 51)
    ]


def test_a_folder_named_by_the_whole_phrase_comes_before_words_found_apart() -> None:
    """ "category 33": the 50 sounds of Category 33 fill the first pages, and the "Sound 0033"
    of each other folder (its "33" in the name, "category" in the folder) come after them."""
    hits = search("category 33", _forty_folders())
    assert len(hits) == 89
    assert [h.key.split("/")[0] for h in hits[:50]] == ["Category 33"] * 50
    assert [h.rank for h in hits[:50]] == [FOLDER_PHRASE] * 50
    assert {h.rank for h in hits[50:]} == {FOLDER}
    assert all(h.key.endswith("/Sound 0033.wav") for h in hits[50:])
    assert page(hits, 0)[0].key == "Category 33/Sound 0001.wav"


@pytest.mark.parametrize(
    ("name", "folder", "expected"),
    [
        ("Boss fight", "Memes", NAME_PREFIX),
        ("Final boss fight", "Memes", WORD_START),
        ("Theme", "Memes", None),
        ("Theme", "Boss fight", FOLDER_PHRASE),
        ("Theme", "Old boss fight", FOLDER_PHRASE),
        ("Fight the boss", "Memes", WORDS),
        ("Fight", "Boss", FOLDER),
        ("Theme", "Emboss fight", FOLDER),
    ],
)
def test_rank_table_for_a_two_word_phrase(name: str, folder: str, expected: int | None) -> None:
    """The ranks for "boss fight", best first: the phrase in the name, then the phrase as a
    folder's name, then its words apart in the name, then words found only with the folder."""
    assert rank("boss fight", name, folder) == expected


def test_the_folder_phrase_outranks_its_words_apart_in_a_name() -> None:
    entries = [
        Entry("Memes/fight the boss.ogg", "Fight the boss", "Memes"),
        Entry("Boss fight/theme.ogg", "Theme", "Boss fight"),
    ]
    assert keys("boss fight", entries) == ["Boss fight/theme.ogg", "Memes/fight the boss.ogg"]


def test_two_hits_fill_one_page_instead_of_one_tile_per_folder_page() -> None:
    entries = [Entry(f"F{n}/x{n}.ogg", f"sound {n}", f"F{n}") for n in range(40)]
    entries += [Entry("A/boss.ogg", "boss", "A"), Entry("Z/boss 2.ogg", "boss 2", "Z")]
    hits = search("boss", entries)
    assert page_count(len(hits)) == 1
    assert [h.key for h in page(hits, 0)] == ["A/boss.ogg", "Z/boss 2.ogg"]


def test_same_names_keep_a_stable_order_by_path() -> None:
    entries = [Entry("b/x.ogg", "Clap", "b"), Entry("a/x.ogg", "Clap", "a")]
    assert keys("clap", entries) == ["a/x.ogg", "b/x.ogg"]
    assert keys("clap", entries[::-1]) == ["a/x.ogg", "b/x.ogg"]


def test_paging_runs_twelve_at_a_time_and_wraps() -> None:
    items = list(range(30))
    assert page_count(30) == 3
    assert page_count(0) == 1
    assert list(page(items, 0)) == list(range(12))
    assert list(page(items, 2)) == list(range(24, 30))
    assert list(page(items, 3)) == list(range(12))
    assert list(page(items, -1)) == list(range(24, 30))
    assert list(page([], 0)) == []


def test_the_library_sounds_are_read_as_they_are() -> None:
    @dataclass(frozen=True)
    class Sound:  # the fields of cueboard.core.library.Sound that search reads
        rel_path: str
        name: str
        category: str

    assert entries_of([Sound("Memes/a.ogg", "A", "Memes")]) == [Entry("Memes/a.ogg", "A", "Memes")]


def test_fold_is_nfkc_casefold_and_kana_insensitive() -> None:
    assert fold("  Ｂｏｓｓ\u3000 FIGHT ") == "boss fight"
    assert fold("ｶﾞｰﾄﾞ") == fold("ガード") == "がーど"
    assert fold("Straße") == "strasse"


# A small alphabet so that random queries often hit.
_text = st.text(alphabet="abAB ｂ拍手ハはく1", max_size=8)
_entries = st.lists(
    st.builds(
        Entry, key=st.text(alphabet="xyz/", min_size=1, max_size=6), name=_text, folder=_text
    ),
    max_size=12,
    unique_by=lambda e: e.key,  # a key is a sound's path: one per sound
)


@given(query=_text, entries=_entries)
def test_every_hit_holds_each_query_word_in_its_name_or_folder(
    query: str, entries: list[Entry]
) -> None:
    words = fold(query).split()
    for hit in search(query, entries):
        found = [e for e in entries if e.key == hit.key]
        assert any(all(w in fold(e.name) or w in fold(e.folder) for w in words) for e in found)


@given(query=_text, entries=_entries)
def test_ranks_never_go_down_the_list_and_no_match_is_left_out(
    query: str, entries: list[Entry]
) -> None:
    hits = search(query, entries)
    ranks = [h.rank for h in hits]
    assert ranks == sorted(ranks)
    words = fold(query).split()
    matching = [
        e for e in entries if words and all(w in fold(e.name + " " + e.folder) for w in words)
    ]
    # A word may only match across the name/folder seam in the joined text, so this bounds hits.
    assert len(hits) <= len(matching)
    names_holding_all = [e for e in entries if words and all(w in fold(e.name) for w in words)]
    assert len(hits) >= len(names_holding_all)


@given(query=_text, entries=_entries)
def test_a_name_prefix_always_ranks_first(query: str, entries: list[Entry]) -> None:
    q = fold(query)
    for hit in search(query, entries):
        name_starts = any(e.key == hit.key and fold(e.name).startswith(q) for e in entries)
        if name_starts:
            assert hit.rank == NAME_PREFIX


@given(query=_text, entries=_entries)
def test_an_index_answers_as_the_entries_do(query: str, entries: list[Entry]) -> None:
    assert search(query, Index.of(entries)) == search(query, entries)
    for hit in search(query, entries):
        assert hit.rank in {rank(query, e.name, e.folder) for e in entries if e.key == hit.key}
