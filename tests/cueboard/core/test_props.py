"""The props model: only differences, at most 30 frames a second per panel with the final state
always sent, nothing to hidden panels, frames under 64 KiB with a 10,000-sound library
(PAN-6, PAN-7, PAN-8, AST-16). Time is the clock value handed in: the pacing is exact."""

from __future__ import annotations

import json
import math
import random
from typing import Any

import pytest

from cueboard.core.contract import DASH_TAB, OVERLAY, SLOTS_PER_PAGE, SlotState, WireError
from cueboard.core.effects import Effect, Failure, HostFailure, Reply, Send, Tickets, Wake
from cueboard.core.overlay import (
    BLANK_ICON_KEY,
    Tile,
    blank_icon_asset,
    channels_text,
    format_duration,
    grid_values,
    page_of,
)
from cueboard.core.props import (
    MAX_FRAMES_PER_SECOND,
    MAX_PROPS_FRAME_BYTES,
    PropPairs,
    PropsModel,
    split_frames,
)
from cueboard.core.tracker import Tracker
from cueboard.runtime.catalogs import load_catalog
from vxp.models import panel as vp


class Recorder:
    """The host's side of props: records each frame, answers ``applied`` (or fails)."""

    def __init__(self) -> None:
        self.tracker = Tracker(Tickets(), random.Random(0))
        self.frames: list[tuple[str, PropPairs]] = []
        self.fail_next = 0
        self.wake_at: float | None = None

    def model(self, **kwargs: Any) -> PropsModel:
        return PropsModel(self.tracker, **kwargs)

    def carry(self, effects: list[Effect], now: float = 0.0) -> None:
        for e in effects:
            if isinstance(e, Wake):
                self.wake_at = e.at
            elif isinstance(e, Send):
                assert isinstance(e.params, vp.PanelProps)
                if self.fail_next:
                    self.fail_next -= 1
                    closed = Failure(e.ticket, HostFailure("closed"))
                    self.carry(self.tracker.on_failure(closed, now), now)
                    continue
                props = [(n, v.model_dump()) for n, v in e.params.props]
                self.frames.append((e.params.panel, props))
                applied = Reply(e.ticket, vp.PanelApplied(result="applied"))
                self.carry(self.tracker.on_reply(applied, now), now)

    def to(self, panel: str) -> list[PropPairs]:
        return [p for name, p in self.frames if name == panel]

    def shown(self, panel: str) -> dict[str, Any]:
        """What the panel shows after applying every frame in order (PAN-6: last wins)."""
        state: dict[str, Any] = {}
        for props in self.to(panel):
            state.update(props)
        return state


def frame_bytes(panel: str, props: PropPairs) -> int:
    request = {
        "jsonrpc": "2.0",
        "id": 4294967295,
        "method": "panel",
        "params": {"op": "props", "panel": panel, "props": [list(p) for p in props]},
    }
    return len((json.dumps(request, ensure_ascii=False) + "\n").encode())


def test_only_changed_props_are_sent() -> None:
    sent = Recorder()
    model = sent.model()
    model.update("overlay", {"page-index": 1, "page-count": 3, "page-name": "Memes"})
    sent.carry(model.flush(0.0))
    model.update("overlay", {"page-index": 2, "page-count": 3, "page-name": "Memes"})
    model.set("overlay", "page-index", 2)
    sent.carry(model.flush(1.0))
    model.set("overlay", "page-name", "Memes")  # unchanged: nothing to send
    sent.carry(model.flush(2.0))
    assert sent.to("overlay") == [
        [
            ("page-index", {"t": "i64", "v": 1}),
            ("page-count", {"t": "i64", "v": 3}),
            ("page-name", {"t": "str", "v": "Memes"}),
        ],
        [("page-index", {"t": "i64", "v": 2})],
    ]


def test_a_change_reverted_before_sending_sends_nothing() -> None:
    sent = Recorder()
    model = sent.model()
    model.set("overlay", "mic-gain", 40)
    sent.carry(model.flush(0.0))
    model.set("overlay", "mic-gain", 41)
    model.set("overlay", "mic-gain", 40)
    sent.carry(model.flush(1.0))
    assert len(sent.frames) == 1
    assert model.pending("overlay") == []


def test_an_update_after_a_set_of_the_same_prop_still_counts() -> None:
    """A refresh repeats its values and :meth:`PropsModel.update` skips the ones it stored last;
    a prop set by another route in between is the refresh's to set back."""
    sent = Recorder()
    model = sent.model()
    model.update("overlay", {"page-name": "Memes"})
    model.set("overlay", "page-name", "Loops")
    model.update("overlay", {"page-name": "Memes"})
    sent.carry(model.flush(0.0))
    assert sent.shown("overlay")["page-name"] == {"t": "str", "v": "Memes"}
    model.set_wire("overlay", "page-name", {"t": "str", "v": "Loops"})
    model.update("overlay", {"page-name": "Memes"})
    assert model.desired("overlay")["page-name"] == {"t": "str", "v": "Memes"}


def test_a_tagged_value_repeated_is_kept_and_one_set_by_another_route_is_set_back() -> None:
    """The deck's tagged values repeat on every refresh and are not checked again; a prop set
    by another route in between is the refresh's to set back, and a changed one is checked."""
    sent = Recorder()
    model = sent.model()
    memes = {"t": "str", "v": "Memes"}
    model.set_wire("overlay", "page-name", memes)
    model.set("overlay", "page-name", "Loops")
    model.set_wire("overlay", "page-name", dict(memes))
    assert model.desired("overlay")["page-name"] == memes
    model.update("overlay", {"page-name": "Loops"})
    model.set_wire("overlay", "page-name", dict(memes))
    assert model.desired("overlay")["page-name"] == memes
    with pytest.raises(WireError):
        model.set_wire("overlay", "page-name", {"t": "i64", "v": 1})
    sent.carry(model.flush(0.0))
    assert sent.shown("overlay")["page-name"] == memes


def test_an_invalid_update_stores_nothing_and_is_checked_again() -> None:
    sent = Recorder()
    model = sent.model()
    with pytest.raises(WireError):
        model.update("overlay", {"page-name": "Memes", "page-index": "one"})
    assert "page-name" not in model.desired("overlay")
    with pytest.raises(WireError):
        model.update("overlay", {"page-name": "Memes", "page-index": "one"})


def test_hidden_panel_gets_nothing_and_shown_gets_the_whole_difference() -> None:
    sent = Recorder()
    model = sent.model()
    model.set("dash-tab", "library-page-index", 0)
    sent.carry(model.flush(0.0))
    model.panel_hidden("dash-tab")
    for i in range(50):
        model.set("dash-tab", "library-page-index", i)
        model.set("dash-tab", "kv-fraction", i / 100)
    model.set("dash-tab", "toast-note", "why")
    model.set("overlay", "page-index", 5)
    sent.carry(model.flush(1.0))
    assert [p for p, _ in sent.frames] == ["dash-tab", "overlay"], "hidden dash-tab got a frame"
    model.panel_shown("dash-tab")
    sent.carry(model.flush(2.0))
    assert sent.to("dash-tab")[-1] == [
        ("library-page-index", {"t": "i64", "v": 49}),
        ("kv-fraction", {"t": "f64", "v": 0.49}),
        ("toast-note", {"t": "str", "v": "why"}),
    ]


def test_start_hidden_panels_wait_for_panel_shown() -> None:
    sent = Recorder()
    model = sent.model(start_hidden=["now-playing"])
    model.set("now-playing", "sound-name", "Airhorn")
    sent.carry(model.flush(0.0))
    assert sent.frames == []
    model.panel_shown("now-playing")
    sent.carry(model.flush(0.0))
    assert sent.shown("now-playing") == {"sound-name": {"t": "str", "v": "Airhorn"}}


def test_props_storm_is_rate_limited_and_ends_in_the_final_state() -> None:
    """10,000 changes spread over one second: one frame at once, then at most one per 1/30 s
    reaches the panel, and the last one leaves it in the final state (PAN-7). The clock is
    handed in, so this is the pacing itself; bench/bench_overlay.py measures it in real time."""
    sent = Recorder()
    model = sent.model()
    changes = 10_000
    now = 0.0
    for i in range(changes):
        now = (i // 100) / 100  # 100 batches on a 10 ms grid: the storm lasts one second
        if sent.wake_at is not None and sent.wake_at <= now:
            sent.wake_at = None
        model.set("overlay", "page-index", i)
        model.set("overlay", "soundboard-gain", i % 101)
        sent.carry(model.due(now), now)
    while model.pending("overlay"):
        assert sent.wake_at is not None, "changes left with no wake for them"
        now, sent.wake_at = sent.wake_at, None
        sent.carry(model.due(now), now)
    frames = len(sent.to("overlay"))
    assert now < 1.0 + 2 / MAX_FRAMES_PER_SECOND, now
    assert frames <= math.ceil(now * MAX_FRAMES_PER_SECOND) + 1, (frames, now)
    assert frames >= MAX_FRAMES_PER_SECOND // 2, "a storm of a second should not starve the panel"
    assert sent.shown("overlay") == {
        "page-index": {"t": "i64", "v": changes - 1},
        "soundboard-gain": {"t": "i64", "v": (changes - 1) % 101},
    }
    assert model.sent("overlay") == model.desired("overlay")


def test_a_single_change_is_due_at_once() -> None:
    sent = Recorder()
    model = sent.model()
    model.set("overlay", "mic-enabled", True)
    sent.carry(model.due(5.0), 5.0)
    assert sent.frames == [("overlay", [("mic-enabled", {"t": "bool", "v": True})])]
    assert sent.wake_at is None


def test_a_failed_send_is_not_retried_until_the_next_change() -> None:
    sent = Recorder()
    model = sent.model()
    sent.fail_next = 1
    model.set("overlay", "page-name", "A")
    sent.carry(model.flush(0.0))
    sent.carry(model.flush(1.0))
    sent.carry(model.due(2.0))
    assert sent.frames == [], "sent again without a change: a dead link would storm"
    model.set("overlay", "page-index", 1)
    sent.carry(model.flush(3.0))
    assert sent.shown("overlay") == {
        "page-name": {"t": "str", "v": "A"},
        "page-index": {"t": "i64", "v": 1},
    }


def test_resend_all_after_a_reconnect_sends_everything_again() -> None:
    sent = Recorder()
    model = sent.model()
    model.update("overlay", {"page-name": "A", "page-index": 0})
    sent.carry(model.flush(0.0))
    model.resend_all()
    sent.carry(model.flush(0.0))
    assert sent.to("overlay")[1] == sent.to("overlay")[0]


def test_locale_change_resends_all_text_at_once() -> None:
    sent = Recorder()
    model = sent.model()
    model.set_texts(load_catalog("en-US"))
    sent.carry(model.flush(0.0))
    model.set_texts(load_catalog("ja-JP"))
    sent.carry(model.flush(1.0))
    overlay_frames = sent.to("overlay")
    assert len(overlay_frames) == 2
    assert dict(overlay_frames[1])["label-stop-all"] == {"t": "str", "v": "サウンドをすべて停止"}
    assert {n for n, _ in overlay_frames[1]} == {p.name for p in OVERLAY.text_props}
    assert {n for n, _ in sent.to("dash-tab")[1]} == {p.name for p in DASH_TAB.text_props}


def _library(count: int) -> list[Tile]:
    # Long names, some Japanese (6 bytes a character when escaped): the worst realistic case.
    return [
        Tile(
            key=f"Category {i // 500:02d}/サウンド {i:05d} " + "x" * 180 + ".ogg",
            name=f"サウンド {i:05d} " + "とても長い名前" * 20,
            duration_s=i % 400 + 0.5,
            state=SlotState(1 + i % 4),
            detail="読み込み中…" if i % 4 == 2 else "",
            favourite=i % 7 == 0,
            icon_key=f"cb:icon:{i}" if i % 2 else None,
        )
        for i in range(count)
    ]


def test_a_10000_sound_library_gives_frames_under_64_kib() -> None:
    sent = Recorder()
    model = sent.model()
    library = _library(10_000)
    model.set_texts(load_catalog("ja-JP"))
    for index in (0, 417, 10_000):  # the last index is clamped to the last page
        page = page_of(library, index)
        model.update(
            "overlay",
            {**grid_values(page.items), "page-index": page.index, "page-count": page.count},
        )
        sent.carry(model.flush(0.0))
    results = [t for t in library if "0042" in t.name]  # a search: its results are paged too
    model.update("overlay", grid_values(page_of(results, 0).items))
    sent.carry(model.flush(0.0))

    sizes = [frame_bytes(p, props) for p, props in sent.frames]
    assert max(sizes) < MAX_PROPS_FRAME_BYTES, sizes
    assert sent.shown("overlay")["page-count"] == {"t": "i64", "v": 834}
    assert len(sent.shown("overlay")["slots"]["v"]) <= SLOTS_PER_PAGE
    print(f"\nlargest props frame with 10,000 sounds: {max(sizes)} bytes")
    with pytest.raises(WireError, match="page"):
        model.update("overlay", grid_values(library))  # the whole library never goes out


def test_split_frames_keeps_each_frame_under_the_limit() -> None:
    pairs: PropPairs = [(f"label-{i}", {"t": "str", "v": "あ" * 3000}) for i in range(40)]
    frames = split_frames(pairs)
    assert len(frames) > 1
    assert [p for f in frames for p in f] == pairs
    assert all(frame_bytes("overlay", f) < MAX_PROPS_FRAME_BYTES for f in frames)


def test_split_frames_packs_by_the_measures_taken_when_the_values_were_stored() -> None:
    pairs: PropPairs = [(f"label-{i}", {"t": "str", "v": "x"}) for i in range(3)]
    assert len(split_frames(pairs)) == 1
    heavy = {name: MAX_PROPS_FRAME_BYTES // 2 for name, _ in pairs}
    assert split_frames(pairs, sizes=heavy) == [[p] for p in pairs]


def test_set_refuses_unknown_props_and_wrong_types() -> None:
    model = Recorder().model()
    with pytest.raises(KeyError):
        model.set("overlay", "title", "x")
    with pytest.raises(KeyError):
        model.set("no-such-panel", "page-index", 1)
    with pytest.raises(WireError):
        model.set("overlay", "page-index", "1")
    with pytest.raises(WireError):
        model.set_wire("overlay", "page-index", {"t": "f64", "v": 1.0})
    with pytest.raises(WireError):  # nothing of a bad update is stored
        model.update("overlay", {"page-name": "A", "page-count": None})
    assert model.desired("overlay") == {}


def test_grid_values_fill_every_tile_and_icon() -> None:
    tiles = [
        Tile("a.wav", "A", 3.2, icon_key="cb:icon:a"),
        Tile("b.wav", "B", mode=4, note="in Memes", target=3),
    ]
    values = grid_values(tiles)
    assert values["slots"] == [
        ("a.wav", "A", "0:04", int(SlotState.READY), "", False, True, 0, "", 0),
        ("b.wav", "B", "", int(SlotState.READY), "", False, False, 4, "in Memes", 3),
    ]
    assert values["slot-icons"] == ["cb:icon:a", BLANK_ICON_KEY]
    assert blank_icon_asset()["key"] == BLANK_ICON_KEY
    OVERLAY.prop("slots").wire_value(values["slots"])


def test_page_of_clamps_and_counts() -> None:
    items = list(range(25))
    assert page_of(items, 0).items == list(range(12))
    last = page_of(items, 99)
    assert (last.index, last.count, list(last.items)) == (2, 3, [24])
    assert page_of([], 3).count == 1
    assert page_of(items, -1).index == 0


def test_format_duration() -> None:
    assert [format_duration(s) for s in (None, 0, 0.2, 59.5, 61, float("nan"))] == [
        "",
        "0:00",
        "0:01",
        "1:00",
        "1:01",
        "",
    ]


def test_channels_text_is_localised() -> None:
    assert channels_text(load_catalog("en-US"), 80, None) == "Soundboard 80%"
    assert channels_text(load_catalog("ja-JP"), 80, 40) == "サウンドボード 80% · マイク 40%"
