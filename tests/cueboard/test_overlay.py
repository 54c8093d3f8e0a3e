"""The overlay model: only differences, ~30 frames a second with the final state always sent,
nothing to hidden panels, frames under 64 KiB with a 10,000-sound library; panel_event
dispatch against the contract (PAN-6, PAN-7, PAN-8, AST-16)."""

from __future__ import annotations

import json
import logging
import math
from typing import Any

import anyio
import pytest
from trio.testing import MockClock

from cueboard.contract import DASH_TAB, OVERLAY, SLOTS_PER_PAGE, SlotState, WireError
from cueboard.i18n import Catalog
from cueboard.overlay import (
    BLANK_ICON_KEY,
    MAX_FRAMES_PER_SECOND,
    MAX_PROPS_FRAME_BYTES,
    OverlayModel,
    PanelEvents,
    PropPairs,
    Tile,
    blank_icon_asset,
    channels_text,
    format_duration,
    grid_values,
    page_of,
    split_frames,
)

pytestmark = pytest.mark.anyio


class Recorder:
    """The `send` the app would wire to client.panel.props: records each frame."""

    def __init__(self) -> None:
        self.frames: list[tuple[str, PropPairs]] = []
        self.fail_next = 0
        self._arrived: anyio.Event | None = None

    async def next_frame(self) -> None:
        self._arrived = anyio.Event()
        await self._arrived.wait()

    async def __call__(self, panel: str, props: PropPairs) -> None:
        if self.fail_next:
            self.fail_next -= 1
            raise ConnectionError("connection lost")
        self.frames.append((panel, list(props)))
        if self._arrived is not None:
            self._arrived.set()

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


async def test_only_changed_props_are_sent() -> None:
    sent = Recorder()
    model = OverlayModel(sent)
    model.update("overlay", {"page-index": 1, "page-count": 3, "page-name": "Memes"})
    await model.flush()
    model.update("overlay", {"page-index": 2, "page-count": 3, "page-name": "Memes"})
    model.set("overlay", "page-index", 2)
    await model.flush()
    model.set("overlay", "page-name", "Memes")  # unchanged: nothing to send
    await model.flush()
    assert sent.to("overlay") == [
        [
            ("page-index", {"t": "i64", "v": 1}),
            ("page-count", {"t": "i64", "v": 3}),
            ("page-name", {"t": "str", "v": "Memes"}),
        ],
        [("page-index", {"t": "i64", "v": 2})],
    ]


async def test_a_change_reverted_before_sending_sends_nothing() -> None:
    sent = Recorder()
    model = OverlayModel(sent)
    model.set("overlay", "mic-gain", 40)
    await model.flush()
    model.set("overlay", "mic-gain", 41)
    model.set("overlay", "mic-gain", 40)
    await model.flush()
    assert len(sent.frames) == 1
    assert model.pending("overlay") == []


async def test_hidden_panel_gets_nothing_and_shown_gets_the_whole_difference() -> None:
    sent = Recorder()
    model = OverlayModel(sent)
    model.set("dash-tab", "library-page-index", 0)
    await model.flush()
    model.panel_hidden("dash-tab")
    for i in range(50):
        model.set("dash-tab", "library-page-index", i)
        model.set("dash-tab", "kv-fraction", i / 100)
    model.set("dash-tab", "toast-note", "why")
    model.set("overlay", "page-index", 5)
    await model.flush()
    assert [p for p, _ in sent.frames] == ["dash-tab", "overlay"], "hidden dash-tab got a frame"

    model.panel_shown("dash-tab")
    await model.flush()
    assert sent.to("dash-tab")[-1] == [
        ("library-page-index", {"t": "i64", "v": 49}),
        ("kv-fraction", {"t": "f64", "v": 0.49}),
        ("toast-note", {"t": "str", "v": "why"}),
    ]


async def test_start_hidden_panels_wait_for_panel_shown() -> None:
    sent = Recorder()
    model = OverlayModel(sent, start_hidden=["now-playing"])
    model.set("now-playing", "sound-name", "Airhorn")
    await model.flush()
    assert sent.frames == []
    model.panel_shown("now-playing")
    await model.flush()
    assert sent.shown("now-playing") == {"sound-name": {"t": "str", "v": "Airhorn"}}


# trio's MockClock jumps ahead whenever every task waits: the storm runs in virtual time, so
# the pacing is checked exactly and the machine's load cannot move it. Real time: bench/.
@pytest.mark.parametrize(
    "anyio_backend",
    [pytest.param(("trio", {"clock": MockClock(autojump_threshold=0)}), id="trio-virtual-clock")],
)
async def test_props_storm_is_rate_limited_and_ends_in_the_final_state() -> None:
    """10,000 changes spread over one second: one frame at once, then at most one per 1/30 s
    reaches the panel, and the last one leaves it in the final state (PAN-7)."""
    sent = Recorder()
    model = OverlayModel(sent)
    changes = 10_000
    async with anyio.create_task_group() as tg:
        tg.start_soon(model.run)
        started = anyio.current_time()
        for i in range(changes):
            model.set("overlay", "page-index", i)
            model.set("overlay", "soundboard-gain", i % 101)
            if i % 100 == 99:  # 100 batches on a 10 ms grid: the storm lasts one second
                await anyio.sleep_until(started + (i + 1) / changes)
        while model.pending("overlay"):
            await sent.next_frame()
        elapsed = anyio.current_time() - started
        tg.cancel_scope.cancel()

    frames = len(sent.to("overlay"))
    assert 1.0 <= elapsed < 1.0 + 2 / MAX_FRAMES_PER_SECOND, elapsed
    assert frames <= math.ceil(elapsed * MAX_FRAMES_PER_SECOND) + 1, (frames, elapsed)
    assert frames >= MAX_FRAMES_PER_SECOND // 2, "a storm of a second should not starve the panel"
    assert sent.shown("overlay") == {
        "page-index": {"t": "i64", "v": changes - 1},
        "soundboard-gain": {"t": "i64", "v": (changes - 1) % 101},
    }
    assert model.sent("overlay") == model.desired("overlay")


async def test_run_sends_a_single_change_without_waiting_for_more() -> None:
    sent = Recorder()
    model = OverlayModel(sent)
    async with anyio.create_task_group() as tg:
        tg.start_soon(model.run)
        await anyio.sleep(0.05)
        model.set("overlay", "mic-enabled", True)
        with anyio.fail_after(5):
            await sent.next_frame()
        tg.cancel_scope.cancel()
    assert sent.frames == [("overlay", [("mic-enabled", {"t": "bool", "v": True})])]


async def test_a_failed_send_is_not_retried_until_the_next_change() -> None:
    sent = Recorder()
    model = OverlayModel(sent)
    sent.fail_next = 1
    model.set("overlay", "page-name", "A")
    await model.flush()
    await model.flush()
    assert sent.frames == [], "retried without a change: a dead link would storm"
    model.set("overlay", "page-index", 1)
    await model.flush()
    assert sent.shown("overlay") == {
        "page-name": {"t": "str", "v": "A"},
        "page-index": {"t": "i64", "v": 1},
    }


async def test_resend_all_after_a_reconnect_sends_everything_again() -> None:
    sent = Recorder()
    model = OverlayModel(sent)
    model.update("overlay", {"page-name": "A", "page-index": 0})
    await model.flush()
    model.resend_all()
    await model.flush()
    assert sent.to("overlay")[1] == sent.to("overlay")[0]


async def test_locale_change_resends_all_text_at_once() -> None:
    sent = Recorder()
    model = OverlayModel(sent)
    model.set_texts(Catalog.load("en-US"))
    await model.flush()
    model.set_texts(Catalog.load("ja-JP"))
    await model.flush()
    overlay_frames = sent.to("overlay")
    assert len(overlay_frames) == 2
    assert dict(overlay_frames[1])["label-stop-all"] == {"t": "str", "v": "すべて停止"}
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


async def test_a_10000_sound_library_gives_frames_under_64_kib() -> None:
    sent = Recorder()
    model = OverlayModel(sent)
    library = _library(10_000)
    model.set_texts(Catalog.load("ja-JP"))
    for index in (0, 417, 10_000):  # the last index is clamped to the last page
        page = page_of(library, index)
        model.update(
            "overlay",
            {**grid_values(page.items), "page-index": page.index, "page-count": page.count},
        )
        await model.flush()
    results = [t for t in library if "0042" in t.name]  # a search: its results are paged too
    model.update("overlay", grid_values(page_of(results, 0).items))
    await model.flush()

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


def test_set_refuses_unknown_props_and_wrong_types() -> None:
    model = OverlayModel(Recorder())
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
    values = grid_values([Tile("a.wav", "A", 3.2, icon_key="cb:icon:a"), Tile("b.wav", "B")])
    assert values["slots"] == [
        ("a.wav", "A", "0:04", int(SlotState.READY), "", False, True),
        ("b.wav", "B", "", int(SlotState.READY), "", False, False),
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
    assert channels_text(Catalog.load("en-US"), 80, None) == "Soundboard 80%"
    assert channels_text(Catalog.load("ja-JP"), 80, 40) == "サウンドボード 80% · マイク 40%"


# -- panel_event dispatch -----------------------------------------------------------------------


def _events(calls: list[tuple[str, tuple[Any, ...]]]) -> PanelEvents:
    events = PanelEvents()

    @events.on("overlay", "play-sound")
    async def play_sound(key: str) -> None:
        calls.append(("play-sound", (key,)))

    @events.on("overlay", "media-set-volume")
    def set_volume(key: str, pct: int) -> None:
        calls.append(("media-set-volume", (key, pct)))

    @events.on("overlay", "media-open")
    def media_open(url: str, label: str) -> None:
        calls.append(("media-open", (url, label)))

    return events


async def test_panel_event_dispatch_calls_the_handler_with_python_values() -> None:
    calls: list[tuple[str, tuple[Any, ...]]] = []
    events = _events(calls)
    assert await events.dispatch("overlay", "play-sound", [{"t": "str", "v": "memes/bruh.ogg"}])
    assert await events.dispatch(
        "overlay", "media-set-volume", [{"t": "str", "v": "deck-1"}, {"t": "i64", "v": 35}]
    )
    assert calls == [("play-sound", ("memes/bruh.ogg",)), ("media-set-volume", ("deck-1", 35))]


@pytest.mark.parametrize(
    ("panel", "callback", "args"),
    [
        ("overlay", "no-such-callback", []),
        ("overlay", "field-focus", [{"t": "bool", "v": True}]),  # the host's, never ours
        ("nowhere", "play-sound", [{"t": "str", "v": "x"}]),
        ("overlay", "play-sound", []),
        ("overlay", "play-sound", [{"t": "i64", "v": 1}]),
        ("overlay", "play-sound", [{"t": "str"}]),
        ("overlay", "play-sound", "not a list"),
        ("overlay", "media-set-volume", [{"t": "str", "v": "deck-1"}, {"t": "f64", "v": 35.0}]),
        ("overlay", "media-set-volume", [{"t": "str", "v": "deck-1"}, {"t": "i64", "v": True}]),
        ("overlay", "stop-all", []),  # declared, but no handler registered
    ],
)
async def test_invalid_panel_events_are_ignored_with_a_debug_line(
    panel: str, callback: str, args: Any, caplog: pytest.LogCaptureFixture
) -> None:
    calls: list[tuple[str, tuple[Any, ...]]] = []
    events = _events(calls)
    with caplog.at_level(logging.DEBUG, logger="cueboard.overlay"):
        assert not await events.dispatch(panel, callback, args)
    assert calls == []
    assert events.ignored == 1
    assert any(callback in r.getMessage() and r.levelno == logging.DEBUG for r in caplog.records)


async def test_a_bad_media_open_never_logs_the_url(caplog: pytest.LogCaptureFixture) -> None:
    """URLs are credentials (issue 8): not even an ignored event may log one."""
    events = _events([])
    secret = "https://example.test/live?token=hunter2"
    with caplog.at_level(logging.DEBUG):
        await events.dispatch("overlay", "media-open", [{"t": "str", "v": secret}])
        await events.dispatch("overlay", "media-open", [{"t": "str", "v": secret}, {"t": "i64"}])
    assert caplog.records
    assert all("hunter2" not in r.getMessage() and "example.test" not in r.getMessage()
               for r in caplog.records)  # fmt: skip


def test_registration_is_checked_against_the_contract() -> None:
    events = PanelEvents()
    with pytest.raises(KeyError):
        events.on("overlay", "no-such-callback")
    with pytest.raises(TypeError, match="2 arguments"):

        @events.on("overlay", "media-set-volume")
        def wrong(key: str) -> None: ...

    assert ("overlay", "stop-all") in events.unhandled()
