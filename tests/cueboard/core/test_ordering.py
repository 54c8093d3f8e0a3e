"""A folder's order in memory: a move writes one record, the order decides what play-slot-N
plays, and a tie or worn-down halving gives the folder whole numbers again."""

from __future__ import annotations

from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from cueboard.core.effects import Send
from cueboard.core.library import Sound
from cueboard.core.ordering import move, ordered

from .fakehost import Driver, library
from .test_soundboard import _plays

NAMES = [f"{n:02d} Sound.wav" for n in range(1, 7)]


def _order(d: Driver) -> list[str]:
    return [s.rel_path for s in d.core.board.visible_sounds()]


def _sounds(n: int) -> tuple[Sound, ...]:
    return library(*[f"{i:03d}.wav" for i in range(n)]).sounds


def test_moving_a_sound_earlier_writes_one_record_and_play_slot_follows() -> None:
    d = Driver(lib=library(*NAMES))
    d.connect()
    kv_sets = len(d.host.of("kv.set"))
    d.click("dash-tab", "move-sound", "05 Sound.wav", 2)
    assert _order(d)[:3] == ["01 Sound.wav", "05 Sound.wav", "02 Sound.wav"]
    d.advance(1.0)
    assert len(d.host.of("kv.set")) == kv_sets + 1
    d.invoke("play-slot-2")
    assert d.host.sounds[_plays(d)[-1].sound].endswith("05 Sound.wav")


def test_the_order_survives_a_restart_from_kv() -> None:
    first = Driver(lib=library(*NAMES))
    first.connect()
    first.click("dash-tab", "move-sound", "06 Sound.wav", 1)
    first.click("dash-tab", "move-sound", "01 Sound.wav", 6)
    first.advance(1.0)
    second = Driver(first.host, library(*NAMES))
    second.connect()
    assert _order(second) == _order(first)
    assert _order(second)[0] == "06 Sound.wav" and _order(second)[-1] == "01 Sound.wav"


def test_after_a_restart_page_1_shows_once_in_the_stored_order() -> None:
    """A scan that comes in before the stored order is held until the order is read: the
    board never holds the scan's order meanwhile (the overlay would show it, then reshuffle)."""
    first = Driver(lib=library(*NAMES))
    first.connect()
    first.click("dash-tab", "move-sound", "06 Sound.wav", 1)
    first.advance(1.0)
    second = Driver(first.host, library(*NAMES))
    while_reading: list[list[str]] = []
    answer = first.host.answer

    def noting(send: Send) -> Any:
        if send.kind == "kv.get":
            while_reading.append(_order(second))
        return answer(send)

    first.host.answer = noting
    second.connect()
    assert while_reading
    assert all(not order or order[0] == "06 Sound.wav" for order in while_reading)
    assert _order(second)[0] == "06 Sound.wav"


def test_the_dash_tab_shows_the_place_of_the_selected_sound() -> None:
    d = Driver(lib=library(*NAMES))
    d.connect()
    d.click("dash-tab", "select-sound", "03 Sound.wav")
    d.click("dash-tab", "move-sound", "03 Sound.wav", 1)
    d.advance(0.5)
    values = d.core.props.desired("dash-tab")
    assert values["selected-position"] == {"t": "i64", "v": 1}
    assert values["selected-position-text"] == {"t": "str", "v": "1 of 6 · page 1 / 1"}


def test_a_tie_gives_the_whole_folder_whole_numbers() -> None:
    sounds = _sounds(4)
    own = {"003.wav": 1.0}  # ties with 001.wav's index: 000, 001, 003, 002
    updates = move(sounds, own.get, "000.wav", 1)  # between the two at 1.0
    assert len(updates) == 4
    after = [s.rel_path for s in ordered(sounds, {**own, **updates}.get)]
    assert after == ["001.wav", "000.wav", "003.wav", "002.wav"]


@given(st.lists(st.tuples(st.integers(0, 7), st.integers(0, 7)), max_size=40))
def test_any_sequence_of_moves_puts_each_sound_where_it_was_asked(
    moves: list[tuple[int, int]],
) -> None:
    sounds = _sounds(8)
    own: dict[str, float] = {}
    for pick, to in moves:
        current = ordered(sounds, own.get)
        rel = current[pick].rel_path
        own.update(move(sounds, own.get, rel, to))
        after = [s.rel_path for s in ordered(sounds, own.get)]
        expected = [r.rel_path for r in current if r.rel_path != rel]
        expected.insert(to, rel)
        assert after == expected
