"""Any sound from the controller (issue 25, item 1): the folder commands step along the overlay's
folder strip, and the worst case from the controller to any sound of a 2,000-sound library in 40
folders of 50 is counted here, by a breadth-first search over what the core's commands do."""

from __future__ import annotations

import random
import re
from collections import deque
from dataclasses import astuple, replace
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from cueboard.core.app import CueboardCore
from cueboard.core.browse import FAVOURITES, Browser, Shelf
from cueboard.core.commands import FOLDER_STEPS, STATIC_COMMANDS, favourite_command
from vxp.models import events
from vxp.models.handshake import Granted

from .fakehost import Driver, FakeHost, library

REPO = Path(__file__).resolve().parents[3]
MOVES = [c.name for c in STATIC_COMMANDS if c.name.startswith(("page-", "folder-", "open-"))]
FOLDERS, PER_FOLDER, FAVOURITE_COUNT = 40, 50, 16


def _names(folders: int = FOLDERS, per_folder: int = PER_FOLDER) -> list[str]:
    return [
        f"F{f:02d}/s{n:02d}.wav" for f in range(1, folders + 1) for n in range(1, per_folder + 1)
    ]


def _core(favourites: int) -> CueboardCore:
    """A core with the library and its favourites (the last sound of every other folder, the
    ones paging reaches last), never connected: the commands only move the overlay's place."""
    core = CueboardCore(rng=random.Random(1), data_home=Path("/data"))
    core.board.set_library(library(*_names()))
    for f in range(favourites):
        core.prefs.update(f"F{2 * f + 1:02d}/s{PER_FOLDER}.wav", 0.0, favourite=f"f{f}")
    core.board.favourites_changed()
    return core


def worst_presses(
    core: CueboardCore, moves: list[str] = MOVES, start: Browser | None = None
) -> tuple[int, str]:
    """The most presses any sound needs from ``start`` (by default where the overlay opens):
    moves to a page that shows it and ``play-slot-N``, or its ``fav-<slug>``; and one sound
    that needs them."""
    board = core.board
    presses: dict[str, int] = {}
    for slug, rel in core.prefs.favourites().items():
        assert favourite_command(slug).startswith("fav-")
        presses[rel] = 1

    def key(browser: Browser) -> tuple[object, ...]:
        browser.where(board.shelf)
        return astuple(browser)

    start = replace(start) if start is not None else Browser()
    seen = {key(start)}
    queue = deque([(start, 0)])
    while queue:
        state, cost = queue.popleft()
        board.browser = replace(state)
        for sound in board.visible_sounds():  # play-slot-N, one press more
            presses[sound.rel_path] = min(presses.get(sound.rel_path, cost + 1), cost + 1)
        for command in moves:
            board.browser = replace(state)
            core.controls.on_command(command, 0.0)
            after = board.browser
            if key(after) not in seen:
                seen.add(key(after))
                queue.append((replace(after), cost + 1))
    assert set(presses) == set(board.states), "a sound no command reaches"
    worst = max(presses.values())
    return worst, next(rel for rel, n in presses.items() if n == worst)


def _readme_figure() -> int:
    text = " ".join((REPO / "README.md").read_text(encoding="utf-8").split())
    said = "any sound of a 2,000-sound library in 40 folders of 50 is at most "
    found = re.search(re.escape(said) + r"(\d+) presses", text)
    assert found is not None, "the README states the worst case"
    return int(found[1])


@pytest.mark.parametrize("favourites", [0, FAVOURITE_COUNT])
@pytest.mark.parametrize(
    "start",
    [
        None,  # where the overlay opens
        Browser(folder="c:F17", page=3),
        Browser(folder=FAVOURITES, page=1),  # the library's first folder without favourites
        Browser(folder="c:F05", query="s1"),  # a search in the overlay
    ],
)
def test_any_of_2000_sounds_is_at_most_twelve_presses_away_as_the_readme_says(
    favourites: int, start: Browser | None
) -> None:
    worst, sound = worst_presses(_core(favourites), start=start)
    assert worst <= 12, sound
    assert worst <= _readme_figure(), sound


def test_the_readme_figure_is_the_worst_case_without_favourites() -> None:
    assert worst_presses(_core(0))[0] == _readme_figure()


def test_page_commands_alone_would_not_do() -> None:
    """Without the folder commands the search finds what the issue reported: over 100."""
    assert worst_presses(_core(0), ["page-next", "page-prev"])[0] > 100


# -- what each folder command does, on a small strip --------------------------------------------


def _shelf(favourites: tuple[str, ...] = ()) -> Shelf:
    shelf = Shelf(library(*_names(folders=7, per_folder=13)))  # 7 folders of 2 pages
    shelf.set_favourites(favourites)
    return shelf


@pytest.mark.parametrize(
    ("start", "delta", "landed"),
    [
        ("c:F01", 1, "c:F02"),
        ("c:F01", -1, "c:F07"),  # wraps backwards
        ("c:F07", 1, "c:F01"),  # and forwards
        ("c:F01", 5, "c:F06"),
        ("c:F04", 5, "c:F02"),
        ("c:F03", -5, "c:F05"),
    ],
)
def test_a_folder_step_lands_on_a_places_first_page_wrapping(
    start: str, delta: int, landed: str
) -> None:
    shelf = _shelf()
    browser = Browser(folder=start, page=1)
    browser.step(shelf, delta)
    assert (browser.folder, browser.page) == (landed, 0)


def test_the_favourites_are_a_place_of_the_strip_for_the_steps() -> None:
    shelf = _shelf(("F03/s01.wav",))
    browser = Browser(folder="c:F01")
    browser.step(shelf, -1)
    assert browser.folder == FAVOURITES
    browser.step(shelf, -1)
    assert browser.folder == "c:F07"


def test_a_step_ends_a_search_counting_from_the_folder_it_was_started_in() -> None:
    shelf = _shelf()
    browser = Browser(folder="c:F03", page=1)
    browser.search("s05")
    browser.step(shelf, 1)
    assert (browser.folder, browser.page, browser.query) == ("c:F04", 0, "")


def test_open_favourites_twice_goes_back_to_the_page_it_left() -> None:
    shelf = _shelf(("F03/s01.wav",))
    browser = Browser(folder="c:F05", page=1)
    assert browser.toggle_favourites(shelf)
    assert (browser.folder, browser.page) == (FAVOURITES, 0)
    assert browser.toggle_favourites(shelf)
    assert browser.where(shelf) == (shelf.find("c:F05"), 1)


def test_leaving_the_favourites_another_way_forgets_the_way_back() -> None:
    shelf = _shelf(("F03/s01.wav",))
    browser = Browser(folder="c:F05")
    browser.toggle_favourites(shelf)
    browser.step(shelf, 2)
    assert browser.left is None
    browser.toggle_favourites(shelf)  # from F02 now
    browser.toggle_favourites(shelf)
    assert browser.folder == "c:F02"


_SHELF = _shelf(("F03/s01.wav", "F06/s13.wav"))
_PLACES = st.integers(0, len(_SHELF.folders) - 1)


@given(place=_PLACES, page=st.integers(0, 1), delta=st.integers(-12, 12))
def test_a_step_and_the_step_back_land_on_the_first_page_of_the_place_left(
    place: int, page: int, delta: int
) -> None:
    browser = Browser(folder=_SHELF.folders[place].key, page=page)
    browser.step(_SHELF, delta)
    browser.step(_SHELF, -delta)
    assert (browser.folder, browser.page) == (_SHELF.folders[place].key, 0)


@given(
    place=_PLACES.filter(lambda i: _SHELF.folders[i].key != FAVOURITES),
    page=st.integers(0, 1),
    turns=st.integers(0, 3),
)
def test_open_favourites_and_again_returns_to_the_same_page_whatever_paging_between(
    place: int, page: int, turns: int
) -> None:
    """Paging within the favourites (two pages of them would do the same) keeps the way back;
    paging out of them is another way out."""
    browser = Browser(folder=_SHELF.folders[place].key, page=page)
    browser.toggle_favourites(_SHELF)
    for _ in range(turns):
        browser.turn(_SHELF, 1)
    browser.toggle_favourites(_SHELF)
    if turns == 0:
        assert (browser.folder, browser.page) == (_SHELF.folders[place].key, page)
    else:  # paged out of the one page of favourites: open-favourites opens them again
        assert browser.folder == FAVOURITES


@given(st.lists(st.sampled_from([*MOVES, "search"]), max_size=25))
def test_any_run_of_commands_leaves_the_overlay_on_a_page_that_exists(moves: list[str]) -> None:
    browser = Browser()
    for move in moves:
        match move:
            case "page-next" | "page-prev":
                browser.turn(_SHELF, 1 if move == "page-next" else -1)
            case "open-favourites":
                assert browser.toggle_favourites(_SHELF)
            case "search":
                browser.search("s1")
            case _:
                browser.step(_SHELF, FOLDER_STEPS[move])
    view = browser.view(_SHELF)
    assert 1 <= len(view.sounds) <= 12
    assert 0 <= view.page < view.pages
    assert view.query or (view.folder is not None and _SHELF.find(view.folder.key) is not None)


def test_open_favourites_without_any_stays_and_says_so_briefly() -> None:
    d = Driver(FakeHost(), library(*_names(folders=3, per_folder=5)))
    d.connect()
    d.invoke("open-favourites")
    assert d.core.board.browser.folder == "c:F01"
    assert d.status_key() == "status.no_favourites"
    d.advance(3.0)
    assert d.status_key() is None


# -- the toast that says where a command landed, with the overlay closed ------------------------


def _toast_driver(
    locale: str = "en-US", *, overlay: str = "hidden", folder: str = "Memes"
) -> Driver:
    """``overlay``: "hidden" (shown, then hidden), "shown", or "never" (no word from the host,
    as when no one has opened it yet)."""
    host = FakeHost(granted=Granted(audio=True, overlays=True, bus=["vr.lifecycle"]))
    names = [f"{folder}/m{n:02d}.wav" for n in range(1, 31)] + ["Zeta/z1.wav", "Zeta/z2.wav"]
    d = Driver(host, library(*names), locale=locale)
    d.core.toast.source = "export component NowPlaying {}"
    d.connect()
    if overlay != "never":
        d.event(events.PanelShown(event="panel_shown", panel="overlay"))
    if overlay == "hidden":
        d.event(events.PanelHidden(event="panel_hidden", panel="overlay"))
    return d


def _toast(d: Driver) -> dict[str, object]:
    return {k: v["v"] for k, v in d.core.props.desired("now-playing").items()}


@pytest.mark.parametrize(
    ("locale", "commands", "name", "line"),
    [
        ("en-US", ["page-next"], "Memes · 2 / 3", "Folder 1 of 2"),
        ("en-US", ["folder-next"], "Zeta", "Folder 2 of 2"),
        ("en-US", ["folder-jump-prev", "page-prev"], "Memes · 3 / 3", "Folder 1 of 2"),
        ("ja-JP", ["page-next"], "Memes · 2 / 3", "フォルダー 1 / 2"),
        ("ja-JP", ["folder-prev"], "Zeta", "フォルダー 2 / 2"),
    ],
)
def test_with_the_overlay_closed_a_toast_names_where_paging_landed(
    locale: str, commands: list[str], name: str, line: str
) -> None:
    d = _toast_driver(locale)
    for command in commands:
        d.invoke(command, 0.1)
    toast = _toast(d)
    assert (toast["sound-name"], toast["channels-text"]) == (name, line)
    assert toast["showing"] is True and toast["has-icon"] is False
    d.advance(3.0)
    assert _toast(d)["showing"] is False  # brief


def test_a_long_folder_name_in_the_toast_is_shortened_so_its_counter_stays_whole() -> None:
    d = _toast_driver(folder="Very long folder name of the weekly stream highlights")
    d.invoke("page-next", 0.1)
    name = str(_toast(d)["sound-name"])
    assert name.endswith(" · 2 / 3") and "…" in name
    assert name.startswith("Very") and name[: -len(" · 2 / 3")].endswith("lights")


def test_open_favourites_without_any_says_so_in_the_toast() -> None:
    d = _toast_driver()
    d.invoke("open-favourites", 0.1)
    assert _toast(d)["sound-name"] == "No favourites yet: the ☆ on a tile makes one."


def test_with_the_overlay_open_the_page_shows_it_and_no_toast_comes() -> None:
    d = _toast_driver(overlay="shown")
    d.invoke("folder-next", 0.1)
    assert d.core.props.desired("overlay")["page-name"]["v"] == "Zeta"
    assert d.host.of("panel.define") == []
    assert _toast(d).get("showing") is not True


def test_an_overlay_the_host_never_said_was_shown_is_closed() -> None:
    d = _toast_driver(overlay="never")
    d.invoke("folder-next", 0.1)
    assert (_toast(d)["sound-name"], _toast(d)["showing"]) == ("Zeta", True)
