"""The dash-tab at scale (issue 25, item 7): a sound moves to a place typed as a number, the
list follows it to its page and says which page that is, and folders with no sound are listed
with what to put in them."""

from __future__ import annotations

from typing import Any

import pytest

from cueboard.core.library import Library

from .fakehost import Driver, FakeHost, library

FOLDER = [f"Big/s{n:02d}.wav" for n in range(1, 51)]  # 50 sounds: 5 pages


def _driver(lib: Library | None = None, locale: str = "en-US") -> Driver:
    d = Driver(FakeHost(), lib or library(*FOLDER, "Small/a.wav"), locale=locale)
    d.connect()
    return d


def _dash(d: Driver) -> dict[str, Any]:
    d.advance(0.5)
    return {k: v["v"] for k, v in d.core.props.desired("dash-tab").items()}


def _rows(d: Driver) -> list[str]:
    return [row[0]["v"] for row in _dash(d)["library"]]


def test_a_sound_moves_from_place_40_to_1_in_one_move_and_the_list_follows_it() -> None:
    d = _driver()
    d.click("dash-tab", "open-folder", "c:Big")
    for _ in range(3):
        d.click("dash-tab", "library-page-next")
    d.click("dash-tab", "select-sound", "Big/s40.wav")
    assert _dash(d)["selected-position-text"] == "40 of 50 · page 4 / 5"
    d.click("dash-tab", "move-sound", "Big/s40.wav", 1)
    values = _dash(d)
    assert (values["selected-position"], values["selected-position-text"]) == (
        1,
        "1 of 50 · page 1 / 5",
    )
    assert _rows(d)[0] == "Big/s40.wav"  # the list turned to page 1, where it went
    assert values["library-page-name"] == "Big · 1 / 5"


@pytest.mark.parametrize(("typed", "place"), [(45, 45), (99, 50), (0, 1), (-3, 1)])
def test_a_number_past_either_end_keeps_the_sound_within_its_folder(typed: int, place: int) -> None:
    d = _driver()
    d.click("dash-tab", "select-sound", "Big/s10.wav")
    d.click("dash-tab", "move-sound", "Big/s10.wav", typed)
    values = _dash(d)
    assert values["selected-position"] == place
    assert _rows(d)[(place - 1) % 12] == "Big/s10.wav"


def test_a_move_leaves_the_list_alone_while_it_searches() -> None:
    d = _driver()
    d.click("dash-tab", "library-search", "s1")
    before = _rows(d)
    d.click("dash-tab", "select-sound", "Big/s10.wav")
    d.click("dash-tab", "move-sound", "Big/s10.wav", 50)
    assert _dash(d)["library-query"] == "s1"
    assert set(_rows(d)) == set(before)


def test_the_selected_sounds_page_is_said_in_japanese_too() -> None:
    d = _driver(locale="ja-JP")
    d.click("dash-tab", "select-sound", "Big/s13.wav")
    assert _dash(d)["selected-position-text"] == "50 個中 13 番目・2 / 5 ページ"


@pytest.mark.parametrize(
    ("locale", "nothing", "others"),
    [
        (
            "en-US",
            "Empty: put wav, flac, ogg, opus or mp3 files here; "
            "an image with a sound's name is its icon.",
            "2 files, none a sound: add wav, flac, ogg, opus or mp3 files; "
            "an image with a sound's name is its icon.",
        ),
        (
            "ja-JP",
            "空です。wav・flac・ogg・opus・mp3 のファイルを入れてください。"
            "サウンドと同じ名前の画像はそのアイコンになります。",
            "ファイル 2 個、サウンドはありません。wav・flac・ogg・opus・mp3 のファイルを"
            "入れてください。サウンドと同じ名前の画像はそのアイコンになります。",
        ),
    ],
)
def test_empty_folders_are_listed_with_what_to_put_in_them(
    locale: str, nothing: str, others: str
) -> None:
    lib = library("Memes/a.wav")
    lib.empty_folders = [("New", 0), ("Pictures", 2)]
    d = _driver(lib, locale)
    assert _dash(d)["empty-folders"] == [
        [{"t": "str", "v": "New"}, {"t": "str", "v": nothing}],
        [
            {"t": "str", "v": "Pictures"},
            {"t": "str", "v": others},
        ],
    ]
    assert [f[0]["v"] for f in _dash(d)["folders"]] == ["c:Memes"]  # no place in the strip


def test_no_empty_folder_no_rows() -> None:
    assert _dash(_driver())["empty-folders"] == []
