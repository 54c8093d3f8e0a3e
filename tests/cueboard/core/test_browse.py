"""Finding a sound (issue 16, items 1-3), through the core and a host in memory: one flat ranked
search paged 12 at a time, a search per panel, folders as places with paging that runs on
through them and wraps, and the controller commands following what the overlay shows."""

from __future__ import annotations

from typing import Any

import pytest

from cueboard.core.browse import FAVOURITES, Browser, Shelf
from vxp.models import audio

from .fakehost import Driver, FakeHost, library


def _overlay(d: Driver, name: str) -> Any:
    d.advance(0.1)  # the views' refresh
    return d.core.props.desired("overlay")[name]["v"]


def _heading(d: Driver) -> str:
    """The overlay's header as it reads: the title, then the page counter beside it."""
    title, counter = _overlay(d, "page-name"), _overlay(d, "page-counter")
    return f"{title} · {counter}" if counter else title


def _dash(d: Driver, name: str) -> Any:
    d.advance(0.1)
    return d.core.props.desired("dash-tab")[name]["v"]


def _tiles(d: Driver) -> list[str]:
    return [row[0]["v"] for row in _overlay(d, "slots")]


def _rows(d: Driver) -> list[str]:
    return [row[0]["v"] for row in _dash(d, "library")]


def _played(d: Driver) -> list[str]:
    plays = [audio.AudioPlay.model_validate_json(p.params_json) for p in d.host.of("audio.play")]
    return [d.host.sounds[p.sound].rsplit("/", 1)[-1] for p in plays]


def _big() -> list[str]:
    """Memes: 30 sounds (3 pages), Jingles: 5 (1 page), Zeta: 13 (2 pages); two hits for
    "boss", one of them only by its folder's name."""
    names = [f"Memes/m{n:02d}.wav" for n in range(1, 29)]
    names += ["Memes/Final boss.wav", "Memes/Boss fight.wav"]
    names += [f"Jingles/j{n}.wav" for n in range(1, 6)]
    names += [f"Zeta/z{n:02d}.wav" for n in range(1, 14)]
    return names


def _driver(names: list[str] | None = None, locale: str = "en-US") -> Driver:
    d = Driver(FakeHost(), library(*(names or _big())), locale=locale)
    d.connect()
    return d


# -- 1. one flat, ranked list ----------------------------------------------------------------


def test_a_search_is_one_ranked_list_on_one_page_with_how_many_it_found() -> None:
    names = ["Alpha/Final boss.wav", "Boss/theme.wav", "Beta/Boss fight.wav", "Gamma/embossed.wav"]
    names += [f"Alpha/a{n:02d}.wav" for n in range(1, 15)]
    d = _driver(names)
    d.click("overlay", "search-changed", "boss")
    # prefix, then word start, then substring, then only the folder: not one tile per folder
    assert _tiles(d) == [
        "Beta/Boss fight.wav",
        "Alpha/Final boss.wav",
        "Gamma/embossed.wav",
        "Boss/theme.wav",
    ]
    assert _heading(d) == "“boss”: 4 found"
    assert (_overlay(d, "page-index"), _overlay(d, "page-count")) == (0, 1)


def test_the_search_header_is_localized() -> None:
    d = _driver(locale="ja-JP")
    d.click("overlay", "search-changed", "boss")
    assert _heading(d) == "「boss」：2 件"


def test_many_hits_are_paged_twelve_at_a_time_and_wrap() -> None:
    d = _driver()
    d.click("overlay", "search-changed", "m")  # 28 names start with m, 2 more hold it
    assert len(_tiles(d)) == 12
    assert _heading(d) == "“m”: 30 found · 1 / 3"
    d.click("overlay", "page-next")
    d.click("overlay", "page-next")
    assert len(_tiles(d)) == 6
    d.click("overlay", "page-next")
    assert _heading(d) == "“m”: 30 found · 1 / 3"


# -- 2. a search per panel -------------------------------------------------------------------


def test_a_search_in_the_dash_tab_leaves_the_overlay_where_it_was() -> None:
    d = _driver()
    before = _tiles(d)
    d.click("dash-tab", "library-search", "boss")
    assert _tiles(d) == before
    assert _overlay(d, "search-query") == ""
    assert _rows(d) == ["Memes/Boss fight.wav", "Memes/Final boss.wav"]
    assert _dash(d, "library-query") == "boss"
    assert _dash(d, "library-page-name") == "“boss”: 2 found"


def test_the_overlay_search_is_its_own_and_its_field_is_told_it() -> None:
    d = _driver()
    d.click("overlay", "search-changed", "boss")
    assert _overlay(d, "search-query") == "boss"
    assert _dash(d, "library-query") == ""
    assert len(_rows(d)) == 12  # the dash-tab still shows its folder page


def test_clearing_a_search_returns_to_the_folder_and_page_the_user_was_on() -> None:
    d = _driver()
    d.click("overlay", "page-next")  # Memes · 2 / 3
    place = (_heading(d), _tiles(d))
    d.click("overlay", "search-changed", "boss")
    d.click("overlay", "page-next")
    d.click("overlay", "search-changed", "")
    assert (_heading(d), _tiles(d)) == place
    assert place[0] == "Memes · 2 / 3"


# -- 3. folders are places -------------------------------------------------------------------


def test_each_panel_lists_the_folders_and_one_press_jumps_to_one() -> None:
    d = _driver()
    folders = [("c:Memes", "Memes"), ("c:Jingles", "Jingles"), ("c:Zeta", "Zeta")]
    assert [(r[0]["v"], r[1]["v"]) for r in _overlay(d, "folders")] == folders
    assert [(r[0]["v"], r[1]["v"]) for r in _dash(d, "folders")] == folders
    d.click("overlay", "open-folder", "c:Zeta")
    assert _heading(d) == "Zeta · 1 / 2"
    assert _overlay(d, "folder-key") == "c:Zeta"
    assert _tiles(d)[0] == "Zeta/z01.wav"
    assert _dash(d, "folder-key") == "c:Memes"  # the dash-tab stays where it was
    d.click("dash-tab", "open-folder", "c:Jingles")
    assert _rows(d) == [f"Jingles/j{n}.wav" for n in range(1, 6)]
    assert _dash(d, "library-page-name") == "Jingles"
    assert _overlay(d, "folder-key") == "c:Zeta"


def test_opening_a_folder_ends_the_search() -> None:
    d = _driver()
    d.click("overlay", "search-changed", "boss")
    d.click("overlay", "open-folder", "c:Jingles")
    assert _overlay(d, "search-query") == ""
    assert _heading(d) == "Jingles"


def test_paging_runs_through_a_folders_pages_into_the_next_folder_and_wraps() -> None:
    d = _driver()
    seen = [_heading(d)]
    for _ in range(6):
        d.click("overlay", "page-next")
        seen.append(_heading(d))
    assert seen == [
        "Memes · 1 / 3",
        "Memes · 2 / 3",
        "Memes · 3 / 3",
        "Jingles",
        "Zeta · 1 / 2",
        "Zeta · 2 / 2",
        "Memes · 1 / 3",  # wrapped at the end of the library
    ]
    assert _overlay(d, "page-count") == 6
    d.click("overlay", "page-prev")
    assert _heading(d) == "Zeta · 2 / 2"
    assert _overlay(d, "page-index") == 5


def test_the_folder_header_is_localized() -> None:
    d = _driver(locale="ja-JP")
    d.click("overlay", "page-next")
    assert _heading(d) == "Memes · 2 / 3"


@pytest.mark.parametrize("direction", ["next", "prev"])
def test_the_page_commands_and_the_buttons_go_the_same_way(direction: str) -> None:
    by_command, by_button = _driver(), _driver()
    for _ in range(7):
        by_command.invoke(f"page-{direction}")
        by_button.click("overlay", f"page-{direction}")
        assert _heading(by_command) == _heading(by_button)
        assert _tiles(by_command) == _tiles(by_button)


def test_the_dash_tab_pages_through_folders_too() -> None:
    d = _driver()
    for _ in range(3):
        d.click("dash-tab", "library-page-next")
    assert _dash(d, "library-page-name") == "Jingles"
    d.click("dash-tab", "library-page-prev")
    assert _dash(d, "library-page-name") == "Memes · 3 / 3"
    assert _heading(d) == "Memes · 1 / 3"


def test_controller_commands_follow_the_overlay_never_the_dash_tab() -> None:
    d = _driver()
    d.click("dash-tab", "open-folder", "c:Zeta")
    d.click("overlay", "open-folder", "c:Jingles")
    d.invoke("play-slot-2")
    d.click("dash-tab", "library-search", "m0")
    d.click("overlay", "search-changed", "boss")
    d.invoke("play-slot-1")
    d.invoke("play-slot-2")
    d.invoke("play-random")
    assert _played(d)[:3] == ["j2.wav", "Boss fight.wav", "Final boss.wav"]
    assert _played(d)[3] in ("Boss fight.wav", "Final boss.wav")
    d.invoke("page-next")  # one page of hits: it wraps onto itself
    assert _heading(d) == "“boss”: 2 found"
    assert _dash(d, "library-page-name") == "“m0”: 9 found"


def test_a_rescan_keeps_each_panel_in_its_folder() -> None:
    d = _driver()
    d.click("overlay", "open-folder", "c:Zeta")
    d.click("overlay", "page-next")
    d.invoke("rescan")
    assert _heading(d) == "Zeta · 2 / 2"


# -- the browser and the shelf on their own --------------------------------------------------


def test_a_folder_that_goes_away_sends_the_browser_to_the_librarys_first() -> None:
    lib = library("A/a.wav", "B/b.wav")
    shelf = Shelf(lib)
    browser = Browser()
    assert browser.open(shelf, "c:B")
    assert not browser.open(shelf, "c:nowhere")
    assert browser.view(Shelf(library("A/a.wav"))).folder is not None
    assert browser.folder == "c:A"


def test_favourites_come_first_but_a_browser_starts_in_the_library() -> None:
    lib = library("A/a.wav", "B/b.wav")
    shelf = Shelf(lib)
    shelf.set_favourites(["B/b.wav"])
    assert [f.key for f in shelf.folders] == [FAVOURITES, "c:A", "c:B"]
    browser = Browser()
    assert browser.view(shelf).folder == shelf.folders[1]
    browser.turn(shelf, -1)
    assert browser.view(shelf).folder == shelf.folders[0]
