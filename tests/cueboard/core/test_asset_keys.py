"""Props name an asset key only once its put answered ok on the connection
(docs/protocol-notes.md#r33): the blank icon and the page's icons, at start-up and after a
reconnect; a refused put leaves the tile without a key (issue 21, item 5)."""

from __future__ import annotations

from dataclasses import replace

from cueboard.core.effects import HostFailure, Send
from cueboard.core.inputs import Disconnected
from cueboard.core.overlay import BLANK_ICON_KEY, icon_keys
from vxp.models import panel

from .fakehost import Driver, FakeHost, library

NAMES = ("01 Beep.wav", "02 Boop.wav")


def _icons(d: Driver) -> list[str]:
    return d.core.props.desired("overlay")["slot-icons"]["v"]


def _has_icon(d: Driver) -> list[bool]:
    return [row[6]["v"] for row in d.core.props.desired("overlay")["slots"]["v"]]


def _kinds(d: Driver) -> list[str]:
    return [s.kind for s in d.host.sent]


def test_a_refused_blank_put_leaves_tiles_without_a_key() -> None:
    refused = HostFailure("domain", "bad_key")
    d = Driver(FakeHost(faults={"assets.put": [refused]}), library(*NAMES))
    d.connect()
    assert d.core.board.states["01 Beep.wav"].status == "loaded"
    assert BLANK_ICON_KEY not in _icons(d)
    assert _icons(d) == []
    assert not d.host.named_unput


def test_a_refused_blank_put_keeps_the_real_icons_and_names_only_them() -> None:
    lib = library(*NAMES, icons=True)
    lib.sounds[0] = replace(lib.sounds[0], icon=None)
    d = Driver(FakeHost(faults={"assets.put": [HostFailure("domain", "bad_key")]}), lib)
    d.connect()
    icons = _icons(d)
    assert len(icons) == 2 and icons[0] == icons[1] and icons[0].startswith("cb:icon:")
    assert _has_icon(d) == [False, True]  # the first tile names the second's icon, hidden
    assert not d.host.named_unput


def test_after_a_reconnect_the_blank_and_the_icons_are_put_before_they_are_named() -> None:
    d = Driver(lib=library(*NAMES, icons=True))
    d.connect()
    before = _icons(d)
    assert all(k.startswith("cb:icon:") for k in before)
    sent = len(d.host.sent)
    d.feed(Disconnected())
    d.connect()
    again = _kinds(d)[sent:]
    assert again.count("assets.put") == 3  # the blank and both icons, again on this table
    assert _icons(d) == before
    assert not d.host.named_unput


def test_the_blank_names_a_tile_without_an_icon_once_it_is_put() -> None:
    d = Driver(lib=library(*NAMES))
    d.connect()
    assert _icons(d) == [BLANK_ICON_KEY, BLANK_ICON_KEY]
    assert not d.host.named_unput
    assert icon_keys([None, "k", None], blank=False) == ["k", "k"]
    assert icon_keys([None, None], blank=False) == []


def test_the_fake_host_notes_a_key_named_before_its_put() -> None:
    """The checks above can fail: props naming a key with no put answered ok are noted."""
    host = FakeHost()
    icons = panel.AssetsValue(v=["cb:icon:a", "cb:blank"])
    props = panel.PanelProps(panel="overlay", props=[("slot-icons", icons)])
    host.put_ok.add("cb:blank")
    host.answer(Send(1, "panel", props))
    assert host.named_unput == ["cb:icon:a"]
