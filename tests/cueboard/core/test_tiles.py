"""Tiles a person can read and favourites set where the sounds are (issue 16, items 4-6 and the
failed tile's reason), through the core and a host in memory."""

from __future__ import annotations

from typing import Any

import pytest

from cueboard.core.browse import FAVOURITES
from cueboard.core.commands import MAX_FAVOURITES
from cueboard.core.names import width
from cueboard.core.places import TILE_COLUMNS
from cueboard.core.records import read_records
from vxp.models import audio

from .fakehost import ROOT, Driver, FakeHost, library


def _overlay(d: Driver, name: str) -> Any:
    d.advance(0.1)  # the views' refresh
    return d.core.props.desired("overlay")[name]["v"]


def _slots(d: Driver) -> list[dict[str, Any]]:
    cells = (
        "key", "name", "duration", "state", "detail", "favourite", "has-icon", "mode", "note",
        "target",
    )  # fmt: skip
    return [dict(zip(cells, (c["v"] for c in row), strict=True)) for row in _overlay(d, "slots")]


def _registered(d: Driver) -> list[str]:
    return [p.name for p in d.host.of("commands.register") if p.name.startswith("fav-")]


# -- 4. readable names -------------------------------------------------------------------------


def test_tile_names_use_two_lines_and_keep_the_ends_that_differ() -> None:
    names = [f"Hype/Hype Train extended remix Level {n}.wav" for n in (1, 5)]
    names += ["Hype/ボス戦のテーマ曲オーケストラ版ロング.wav"]
    d = Driver(FakeHost(), library(*names))
    d.connect()
    shown = [s["name"] for s in _slots(d)]
    assert shown[0] != shown[1]
    assert shown[0].endswith("Level 1") and shown[1].endswith("Level 5")
    for name in shown:
        lines = name.split("\n")
        assert len(lines) == 2
        assert all(width(line) <= TILE_COLUMNS for line in lines), lines
    assert shown[2].endswith("ロング")  # wide characters count twice, and the end stays


def test_the_overlay_names_the_last_pressed_tile_in_full() -> None:
    full = "Hype Train Level 5 extended remix"
    d = Driver(FakeHost(), library("Hype/Hype Train Level 1.wav", f"Hype/{full}.wav"))
    d.connect()
    assert _overlay(d, "pressed-name") == ""
    d.click("overlay", "play-sound", f"Hype/{full}.wav")
    assert _overlay(d, "pressed-name") == full
    d.invoke("play-slot-1")
    assert _overlay(d, "pressed-name") == "Hype Train Level 1"


# -- 5. favourites from the overlay, first in the folder list -----------------------------------


@pytest.mark.parametrize(("locale", "label"), [("en-US", "Favourites"), ("ja-JP", "お気に入り")])
def test_a_star_on_a_tile_makes_a_favourite_with_its_own_first_folder(
    locale: str, label: str
) -> None:
    d = Driver(FakeHost(), library("A/a1.wav", "B/b1.wav", "B/b2.wav"), locale=locale)
    d.connect()
    d.click("overlay", "open-folder", "c:B")
    d.click("overlay", "set-favourite", "B/b2.wav", True)
    assert [s["favourite"] for s in _slots(d)] == [False, True]
    assert _registered(d) == ["fav-b2"]
    folders = [(r[0]["v"], r[1]["v"]) for r in _overlay(d, "folders")]
    assert folders[0] == (FAVOURITES, label)
    d.click("overlay", "open-folder", FAVOURITES)
    assert [s["key"] for s in _slots(d)] == ["B/b2.wav"]
    d.click("overlay", "set-favourite", "B/b2.wav", False)
    assert [r[0]["v"] for r in _overlay(d, "folders")] == ["c:A", "c:B"]
    assert [p.name for p in d.host.of("commands.unregister")] == ["fav-b2"]


# -- 6. command names ------------------------------------------------------------------------


def test_a_japanese_favourite_gets_a_readable_command() -> None:
    d = Driver(FakeHost(), library("効果音/拍手.wav", "効果音/大きな拍手.wav"))
    d.connect()
    d.click("overlay", "set-favourite", "効果音/拍手.wav", True)
    d.click("dash-tab", "set-sound-favourite", "効果音/大きな拍手.wav", True)
    assert _registered(d) == ["fav-hakushu", "fav-ooki-na-hakushu"]


def test_names_already_given_never_change() -> None:
    host = FakeHost()
    host.kv["s:Clap.wav"] = {"f": "my-own-clap"}  # given by an older version: users bound it
    d = Driver(host, library("Clap.wav", "Other/Clap.wav", "Third/Clap.wav"))
    d.connect()
    d.click("overlay", "set-favourite", "Other/Clap.wav", True)
    d.click("overlay", "set-favourite", "Third/Clap.wav", True)
    d.advance(1.0)
    stored = read_records(host.kv)
    assert stored["Clap.wav"].favourite == "my-own-clap"
    assert stored["Other/Clap.wav"].favourite == "clap"
    assert stored["Third/Clap.wav"].favourite == "clap-2"


@pytest.mark.parametrize(("locale", "words"), [("en-US", "All 16"), ("ja-JP", "16 個")])
def test_the_favourite_past_the_limit_says_why_it_cannot_be_bound(locale: str, words: str) -> None:
    names = [f"s{n:02d}.wav" for n in range(1, MAX_FAVOURITES + 2)]
    d = Driver(FakeHost(), library(*names), locale=locale)
    d.connect()
    for name in names[:MAX_FAVOURITES]:
        d.click("dash-tab", "set-sound-favourite", name, True)
    assert d.status_key() is None
    d.invoke("page-next")  # the 17th is on page 2
    d.click("overlay", "set-favourite", names[-1], True)
    assert d.status_key() == "status.favourites_full"
    assert words in _overlay(d, "status-text")
    assert len(_registered(d)) == MAX_FAVOURITES
    assert not d.core.prefs.get(names[-1]).favourite
    assert not _slots(d)[-1]["favourite"]


# -- a failed tile's reason ----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("code", "locale", "reason"),
    [
        ("undecodable", "en-US", "Can't decode"),
        ("undecodable", "ja-JP", "非対応の形式"),
        ("not_found", "en-US", "File missing"),
        ("a_code_from_a_newer_host", "en-US", "Can't load"),
    ],
)
def test_a_failed_tile_shows_a_short_localized_reason_never_the_code(
    code: str, locale: str, reason: str
) -> None:
    failed = audio.LoadFailed(kind="failed", code=code)
    host = FakeHost(load_outcomes={str(ROOT / "01 Beep.wav"): [failed]})
    d = Driver(host, library("01 Beep.wav", "02 Boop.wav"), locale=locale)
    d.connect()
    tile = _slots(d)[0]
    assert tile["state"] == 4
    assert tile["detail"] == reason
    assert code not in tile["detail"]
