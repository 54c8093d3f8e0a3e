"""Soundboard state without a host: targets, changed files, expiry (issue 6)."""

from __future__ import annotations

from pathlib import Path

from cueboard.library import Library, Sound
from cueboard.prefs import PrefsStore
from cueboard.settings import Settings
from cueboard.soundboard import Playing, Soundboard

from .test_prefs import DictKv


def _board() -> Soundboard:
    return Soundboard(PrefsStore(DictKv()), on_change=lambda: None)


def _lib(*sounds: Sound) -> Library:
    return Library(Path("/lib"), list(sounds))


def test_targets_multiply_channel_gain_by_the_sounds_own_gain() -> None:
    board = _board()
    board.set_library(_lib(Sound("a.wav", "a", "", 1, 1)))
    board.settings = Settings(soundboard_gain=80, mic_gain=40, mic_enabled=True)
    board.prefs.update("a.wav", gain=50)
    assert board.targets("a.wav") == [("soundboard", 40), ("mic", 20)]
    board.settings = Settings(soundboard_gain=80, mic_gain=40, mic_enabled=False)
    assert board.targets("a.wav") == [("soundboard", 40)]


def test_a_changed_file_is_loaded_again_and_an_unchanged_failure_is_not() -> None:
    board = _board()
    board.set_library(_lib(Sound("a.wav", "a", "", 10, 1), Sound("b.wav", "b", "", 10, 1)))
    for rel in ("a.wav", "b.wav"):
        st = board.states[rel]
        st.status, st.code, st.fingerprint = "failed", "undecodable", (10, 1)
    changed = board.set_library(
        _lib(Sound("a.wav", "a", "", 12, 2), Sound("b.wav", "b", "", 10, 1))
    )
    assert changed == ["a.wav"]
    assert board.states["b.wav"].status == "failed"


def test_one_shots_expire_and_loops_do_not() -> None:
    board = _board()
    board.playing["a"] = Playing("a", 0.0, False, (("soundboard", 80),), ends=1.0)
    board.playing["b"] = Playing("b", 0.0, True, (("soundboard", 80),), ends=None)
    assert board.expire(2.0)
    assert list(board.playing) == ["b"]
