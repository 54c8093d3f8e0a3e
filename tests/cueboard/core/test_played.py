"""What you play most (issue 26, item 6): a confirmed play counts and stamps its wall-clock time;
"Recent" (the last 12, newest first) and "Most played" (by count, ties the most recent first)
sit after the favourites in the strip, hidden while empty, reachable by the overlay and by the
controller's folder commands."""

from __future__ import annotations

import json
from typing import Any

import pytest

from cueboard.core.browse import MOST_PLAYED, RECENT
from cueboard.core.effects import HostFailure
from cueboard.core.played import RECENT_KEPT
from cueboard.core.prefs import FLUSH_DELAY_S
from cueboard.core.records import SoundPrefs, read_records
from vxp.models import events

from .fakehost import UNIX_AT_START, Driver, FakeHost, library
from .test_reach import PER_FOLDER, _core, _readme_figure, worst_presses

PREFIX = "ext.com.cueboard.soundboard."
NAMES = ["A/a1.wav", "A/a2.wav", "A/a3.wav", "B/b1.wav", "B/b2.wav"]


def _driver(names: list[str] = NAMES, host: FakeHost | None = None) -> Driver:
    d = Driver(host or FakeHost(), library(*names))
    d.connect()
    return d


def _play(d: Driver, *rels: str) -> None:
    for rel in rels:
        d.click("overlay", "play-sound", rel)
        d.advance(1.0)  # past the pace of one sound's presses


def _overlay(d: Driver, name: str) -> Any:
    d.advance(0.1)  # the views' refresh
    return d.core.props.desired("overlay")[name]["v"]


def _strip(d: Driver) -> list[tuple[str, str]]:
    return [(row[0]["v"], row[1]["v"]) for row in _overlay(d, "folders")]


def _tiles(d: Driver) -> list[str]:
    return [row[0]["v"] for row in _overlay(d, "slots")]


def test_a_confirmed_play_counts_and_stamps_the_wall_clock_and_is_written_to_kv() -> None:
    d = _driver()
    d.advance(10.0)
    at = d.now
    _play(d, "A/a1.wav", "A/a1.wav")
    own = d.core.prefs.get("A/a1.wav")
    assert own.plays == 2
    assert own.last_played == int(UNIX_AT_START + at + 1.0)  # the second play's second
    d.advance(FLUSH_DELAY_S)
    assert read_records(d.host.kv)["A/a1.wav"].plays == 2


def test_a_play_the_host_refused_is_not_counted() -> None:
    host = FakeHost()
    d = _driver(host=host)
    host.faults["audio.play"] = [HostFailure("domain", "no_valid_targets")]
    _play(d, "A/a1.wav")
    assert d.core.prefs.get("A/a1.wav") == SoundPrefs()
    assert RECENT not in dict(_strip(d))


def test_without_a_wall_clock_a_play_is_counted_with_no_time() -> None:
    d = Driver(FakeHost(), library(*NAMES))
    d.unix_s = None
    d.connect()
    _play(d, "B/b1.wav")
    assert d.core.prefs.get("B/b1.wav") == SoundPrefs(plays=1)
    assert d.core.board.history.recent == ["B/b1.wav"]


def test_recent_and_most_played_follow_the_favourites_and_hide_while_empty() -> None:
    d = _driver()
    assert [k for k, _ in _strip(d)] == ["c:A", "c:B"]
    d.click("dash-tab", "set-sound-favourite", "B/b2.wav", True)
    _play(d, "A/a2.wav", "B/b1.wav", "A/a2.wav", "A/a3.wav")
    assert _strip(d) == [
        ("*", "Favourites"),
        (RECENT, "Recent"),
        (MOST_PLAYED, "Most played"),
        ("c:A", "A"),
        ("c:B", "B"),
    ]
    d.click("overlay", "open-folder", RECENT)
    assert _tiles(d) == ["A/a3.wav", "A/a2.wav", "B/b1.wav"]  # newest first
    d.click("overlay", "open-folder", MOST_PLAYED)
    assert _tiles(d) == ["A/a2.wav", "A/a3.wav", "B/b1.wav"]  # a tie: the most recent first


def test_recent_keeps_the_last_12_newest_first() -> None:
    names = [f"F/s{n:02d}.wav" for n in range(1, 16)]
    d = _driver(names)
    _play(d, *names)
    assert d.core.board.history.recent == names[::-1][:RECENT_KEPT]


def _reset(d: Driver, rel: str) -> None:
    """What the editor's reset writes, through the bus API's cmd.set."""
    payload = {"path": rel, "plays": 0, "last_played": None}
    d.event(events.BusMessage(event="bus", topic=f"{PREFIX}cmd.set", payload=payload))


def test_a_count_reset_leaves_both_places_and_they_hide_once_empty() -> None:
    d = _driver()
    _play(d, "A/a1.wav", "A/a2.wav", "A/a2.wav")
    _reset(d, "A/a2.wav")
    history = d.core.board.history
    assert (history.recent, history.most) == (["A/a1.wav"], ["A/a1.wav"])
    _reset(d, "A/a1.wav")
    assert [k for k, _ in _strip(d)] == ["c:A", "c:B"]
    _play(d, "B/b2.wav")
    assert (history.recent, history.most) == (["B/b2.wav"], ["B/b2.wav"])


def test_a_restore_that_lowers_every_count_builds_the_places_once() -> None:
    """A restore changes every record in one input: the lists are built again once, after it,
    not once a record (a 10,000-sound board would take minutes)."""
    d = _driver()
    _play(d, "A/a1.wav", "A/a2.wav", "A/a3.wav", "B/b1.wav")
    d.core.prefs.update("B/b1.wav", d.now, plays=9)
    history = d.core.board.history
    builds: list[int] = []
    rebuild = history.rebuild

    def counted() -> None:
        builds.append(1)
        rebuild()

    history.rebuild = counted  # type: ignore[method-assign]
    backup = {
        "format": "cueboard-backup",
        "version": 1,
        "sounds": {rel: {"gain": 100, "plays": 1} for rel in NAMES},
    }
    d.files[d.core.backup.path()] = json.dumps(backup)
    d.event(events.BusMessage(event="bus", topic=f"{PREFIX}cmd.import", payload={}))
    assert len(builds) == 1
    assert sorted(history.most) == sorted(NAMES)  # every count is 1 now
    assert d.core.board.shelf.folders[1].key == MOST_PLAYED


def test_the_counts_read_from_kv_make_the_places_at_start_up() -> None:
    host = FakeHost()
    first = _driver(host=host)
    _play(first, "A/a1.wav", "B/b2.wav", "B/b2.wav")
    first.advance(FLUSH_DELAY_S)
    again = _driver(host=FakeHost(kv=dict(host.kv)))
    history = again.core.board.history
    assert history.recent == ["B/b2.wav", "A/a1.wav"]
    assert history.most == ["B/b2.wav", "A/a1.wav"]
    assert [k for k, _ in _strip(again)][:2] == [RECENT, MOST_PLAYED]


def test_the_controller_steps_through_recent_and_most_played_and_opens_on_a_folder() -> None:
    d = _driver()
    _play(d, "B/b1.wav")
    d.click("overlay", "open-folder", "c:B")
    d.invoke("folder-next")  # wraps to the strip's start
    assert _overlay(d, "folder-key") == RECENT
    d.invoke("folder-next")
    assert _overlay(d, "folder-key") == MOST_PLAYED
    d.invoke("folder-next")
    assert _overlay(d, "folder-key") == "c:A"
    d.invoke("folder-prev")
    d.invoke("folder-prev")
    assert _overlay(d, "folder-key") == RECENT
    assert _tiles(d) == ["B/b1.wav"]
    # A new start opens on the library's first folder, not on Recent.
    assert d.core.board.shelf.folders[d.core.board.shelf.first].key == "c:A"


@pytest.mark.parametrize("favourites", [0, 16])
def test_recent_and_most_played_keep_any_sound_within_the_readmes_presses(
    favourites: int,
) -> None:
    """Two more places lead the strip once sounds were played: the worst case from the
    controller to any of 2,000 sounds stays what the README says (tests/.../test_reach.py)."""
    core = _core(favourites)
    history = core.board.history
    for f in range(1, 31):  # a sound of 30 folders played, some more often than others
        rel = f"F{f:02d}/s{PER_FOLDER - 1:02d}.wav"
        for _ in range(f % 3 + 1):
            history.playing(rel)
            core.prefs.update(rel, 0.0, **history.counted(rel, 0.0))
    keys = [f.key for f in core.board.shelf.folders]
    assert {RECENT, MOST_PLAYED} <= set(keys[:3])
    assert worst_presses(core)[0] <= _readme_figure()
