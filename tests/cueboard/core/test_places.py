"""A board read at a glance (issue 25, items 2-6, the core's half): the header's counter apart
from its title, where the strip scrolls to, search tiles that name their folder, the
favourite's command on its tile, the mode marks explained, now-playing names shortened in the
middle. The panels' half is in tests/panels."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

from cueboard.core.names import width
from cueboard.core.places import (
    MODE_MARKS,
    NOTE_COLUMNS,
    PLAYING_COLUMNS,
    mode_legend,
    playing_name,
    tile_note,
)
from cueboard.runtime.catalogs import load_catalog
from vxp.models import events
from vxp.models.handshake import Granted

from .fakehost import Driver, FakeHost, library

PANELS = Path(__file__).resolve().parents[3] / "panels"

LONG = "An Extremely Long Folder Name For Stingers And Transitions"


def _overlay(d: Driver, name: str) -> Any:
    d.advance(0.1)  # the views' refresh
    return d.core.props.desired("overlay")[name]["v"]


def _driver(names: list[str], locale: str = "en-US") -> Driver:
    d = Driver(FakeHost(), library(*names), locale=locale)
    d.connect()
    return d


def _notes(d: Driver) -> list[str]:
    return [row[8]["v"] for row in _overlay(d, "slots")]


# -- the header: the counter is always whole ----------------------------------------------------


@pytest.mark.parametrize("locale", ["en-US", "ja-JP"])
def test_a_long_folder_name_with_pages_keeps_its_counter_apart(locale: str) -> None:
    d = _driver([f"{LONG}/s{n:02d}.wav" for n in range(1, 30)], locale)
    d.click("overlay", "page-next")
    assert _overlay(d, "page-name") == LONG
    assert _overlay(d, "page-counter") == "2 / 3"
    # the dash-tab, which has no room of its own for it, keeps the one-line form
    d.advance(0.1)
    assert d.core.props.desired("dash-tab")["library-page-name"]["v"] == f"{LONG} · 1 / 3"


def test_one_page_has_no_counter_and_a_search_counts_its_own_pages() -> None:
    d = _driver([f"Memes/m{n:02d}.wav" for n in range(1, 6)])
    assert (_overlay(d, "page-name"), _overlay(d, "page-counter")) == ("Memes", "")
    d = _driver([f"Memes/m{n:02d}.wav" for n in range(1, 30)])
    d.click("overlay", "search-changed", "m")
    assert (_overlay(d, "page-name"), _overlay(d, "page-counter")) == ("“m”: 29 found", "1 / 3")


# -- the strip: where it scrolls to -------------------------------------------------------------


def _forty() -> list[str]:
    return [f"Category {f:02d}/Sound {n:02d}.wav" for f in range(1, 41) for n in range(1, 3)]


def test_the_strip_is_told_where_folder_33_of_40_is() -> None:
    d = _driver(_forty())
    for _ in range(32):
        d.click(
            "overlay",
            "open-folder",
            _overlay(d, "folders")[_overlay(d, "folder-index") + 1][0]["v"],
        )
    rows = _overlay(d, "folders")
    at = _overlay(d, "folder-index")
    assert rows[at][1]["v"] == "Category 33"
    assert rows[at][0]["v"] == _overlay(d, "folder-key")
    assert at == 32
    # a search shows no folder: the strip is told so rather than keeping a stale place
    d.click("overlay", "search-changed", "sound")
    assert (_overlay(d, "folder-key"), _overlay(d, "folder-index")) == ("", -1)


# -- search tiles name their folder; a favourite names its command ------------------------------


@pytest.mark.parametrize(
    ("locale", "note"), [("en-US", "in Category 33"), ("ja-JP", "Category 33 内")]
)
def test_search_tiles_name_their_folder(locale: str, note: str) -> None:
    d = _driver(_forty(), locale)
    assert set(_notes(d)) == {""}  # a folder's own page needs no folder on each tile
    d.click("overlay", "search-changed", "category 33")
    assert _notes(d) == [note, note]


def test_a_favourite_tile_names_its_command() -> None:
    d = _driver(["Memes/airhorn.wav", "Memes/boo.wav"])
    d.click("overlay", "set-favourite", "Memes/airhorn.wav", True)
    d.click("overlay", "open-folder", "c:Memes")
    slots = {row[0]["v"]: row[8]["v"] for row in _overlay(d, "slots")}
    command = next(p.name for p in d.host.of("commands.register") if p.name.startswith("fav-"))
    assert slots == {"Memes/airhorn.wav": command, "Memes/boo.wav": ""}
    # the header's line for the tile pressed last names it whole, which a tile may not
    d.click("overlay", "play-sound", "Memes/airhorn.wav")
    assert _overlay(d, "pressed-name") == f"airhorn · command {command}"
    d.click("overlay", "play-sound", "Memes/boo.wav")
    assert _overlay(d, "pressed-name") == "boo"


def test_a_long_command_or_folder_on_a_tile_keeps_its_end() -> None:
    en = load_catalog("en-US")
    note = tile_note(en, folder=None, command="fav-boss-defeated-fanfare")
    assert note.startswith("fav-") and note.endswith("fanfare") and "…" in note
    assert width(note) <= NOTE_COLUMNS
    note = tile_note(en, folder="Stingers and Transitions 12", command="fav-x")
    assert note.startswith("in Sting") and note.endswith("12") and width(note) <= NOTE_COLUMNS


# -- the mode marks, explained where they appear ------------------------------------------------


def test_the_legend_explains_only_the_marks_on_the_page_in_both_languages() -> None:
    en, ja = load_catalog("en-US"), load_catalog("ja-JP")
    assert mode_legend(en, [0, 0]) == ""
    assert mode_legend(en, [4, 1, 4, 0]) == "Marks: + Mix · ↻ Loop"
    assert mode_legend(ja, [3]) == "記号：⇥ 他を止める"


def test_the_legend_marks_are_the_ones_the_tiles_draw_and_none_is_stop_alls() -> None:
    source = (PANELS / "overlay.slint").read_text(encoding="utf-8")
    found = re.search(r"property <string> mode-mark:([^;]+);", source)
    assert found is not None
    drawn = {
        int(m): mark for m, mark in re.findall(r'root\.mode == (\d) \? "\s*(\S+)"', found.group(1))
    }
    assert drawn == MODE_MARKS
    assert "■" not in MODE_MARKS.values()  # the ■ is Stop all's (CueButton's danger mark)


def test_the_overlay_sends_the_legend_for_its_page() -> None:
    d = _driver(["Memes/airhorn.wav", "Memes/boo.wav"])
    assert _overlay(d, "mode-legend") == ""
    d.click("dash-tab", "select-sound", "Memes/boo.wav")
    d.click("dash-tab", "set-sound-mode", "Memes/boo.wav", 4)
    assert _overlay(d, "mode-legend") == "Marks: ↻ Loop"


# -- now-playing names, shortened in the middle -------------------------------------------------


def test_a_playing_name_keeps_its_end_on_one_line() -> None:
    one, five = (playing_name(f"Hype Train Level Up Fanfare Remix {n}") for n in (1, 5))
    assert one != five
    assert one.endswith("Remix 1") and "…" in one and "\n" not in one
    assert width(one) <= PLAYING_COLUMNS
    assert playing_name("Airhorn") == "Airhorn"


def test_the_now_playing_list_and_toast_show_the_shortened_name() -> None:
    name = "Hype Train Level Up Fanfare Remix 5"
    host = FakeHost(granted=Granted(audio=True, overlays=True, bus=["vr.lifecycle"]))
    d = Driver(host, library(f"Memes/{name}.wav"))
    d.core.toast.source = "export component NowPlaying {}"
    d.connect()
    setting = {"event": "settings_changed", "key": "now_playing_toast", "value": True}
    d.event(events.SettingsChanged.model_validate(setting))
    d.invoke("play-slot-1", 0.1)
    assert _overlay(d, "playing")[0][1]["v"] == playing_name(name)
    assert d.core.props.desired("now-playing")["sound-name"]["v"] == playing_name(name)
