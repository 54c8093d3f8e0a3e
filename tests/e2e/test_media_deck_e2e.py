"""The media deck end to end: the real SDK against vrosdev's media simulation on a real socket.

Each test runs a vrosdev host in-process, connects the SDK to it, feeds every event to the
deck, and checks what the user would see (the deck's view) and what crossed the wire (the
host's transcript, kv store and secrets). MED- ids name the checklist lines covered.
"""

from __future__ import annotations

import io
import json
import logging
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from typing import Any

import anyio
import pytest

import vxp
from cueboard.contract import MediaMode, Playback, StatusLevel, Video
from cueboard.i18n import Catalog
from cueboard.media_deck import MediaDeck, Notice, SlotView, deck_props, kv_slot_key
from tests import leaks
from tests.vrosdev.rawhost import EXT_ID, TOKEN, RunningHost, config, running_host
from vrosdev.script import ScriptRunner, parse

pytestmark = pytest.mark.anyio

URL = leaks.register("https://media.example.test/live/stream-a.m3u8", "media URL (e2e)")
URL_B = leaks.register("https://media.example.test/live/stream-b.m3u8", "media URL (e2e)")
WAIT_S = 10.0  # a generous bound for the simulated player's next state; never asserted


def _env(h: RunningHost) -> dict[str, str]:
    return {"VROS_EXT_ENDPOINT": h.path, "VROS_EXT_TOKEN": TOKEN, "VROS_EXT_ID": EXT_ID}


@dataclass
class Watch:
    """Wakes a test whenever the deck says its view may have changed."""

    notices: list[Notice] = field(default_factory=list[Notice])
    _event: anyio.Event | None = None

    def poke(self) -> None:
        if self._event is not None:
            self._event.set()

    async def until(self, predicate: Callable[[], bool], timeout: float = WAIT_S) -> None:
        with anyio.fail_after(timeout):
            while not predicate():
                self._event = anyio.Event()
                await self._event.wait()


@dataclass
class Run:
    h: RunningHost
    client: vxp.Client
    deck: MediaDeck
    watch: Watch

    def slot(self, key: str = "deck-1") -> SlotView | None:
        return next((s for s in self.deck.view().slots if s.key == key), None)

    def has(self, key: str, check: Callable[[SlotView], bool]) -> Callable[[], bool]:
        def probe() -> bool:
            s = self.slot(key)
            return s is not None and check(s)

        return probe

    async def script(self, text: str) -> None:
        await ScriptRunner(self.h.host).run(parse(text))

    def media_requests(self) -> list[dict[str, Any]]:
        return media_requests(self.h)


def media_requests(h: RunningHost) -> list[dict[str, Any]]:
    """The params of every media request the host received, as recorded (URLs redacted)."""
    out: list[dict[str, Any]] = []
    for line in h.transcript().splitlines():
        entry = json.loads(line)
        frame = entry.get("frame")
        is_request = entry.get("dir") == "ext>host" and isinstance(frame, dict)
        if is_request and frame.get("method") == "media":
            out.append(frame["params"])
    return out


async def _pump(client: vxp.Client, deck: MediaDeck) -> None:
    try:
        async for event in client.events():
            await deck.handle_event(event)
    except vxp.ConnectionClosed:
        pass


@asynccontextmanager
async def connected(
    h: RunningHost, deck: MediaDeck | None = None, watch: Watch | None = None
) -> AsyncIterator[Run]:
    """One connection with the deck on it: a new deck (a new run of Cueboard) or the given one
    (a reconnect of the same run)."""
    watch = watch or Watch()
    async with vxp.connect(_env(h)) as client, anyio.create_task_group() as tg:
        if deck is None:
            deck = MediaDeck(client, on_change=watch.poke, on_notice=watch.notices.append)
            tg.start_soon(_pump, client, deck)
            await deck.start()
        else:
            tg.start_soon(_pump, client, deck)
            await deck.reconnected(client)
        yield Run(h, client, deck, watch)
        tg.cancel_scope.cancel()


def _host(**overrides: Any) -> Any:
    granted = {"bus": [], "media": True, "secrets": True}
    granted.update(overrides.pop("granted", {}))
    return running_host(config(granted=granted, **overrides))


def _playing(s: SlotView) -> bool:
    return s.playback is Playback.PLAYING


# -- sessions ----------------------------------------------------------------------------------


async def test_med3_med19_med20_open_plays_with_the_host_name_as_title() -> None:
    async with _host() as h, connected(h) as r:
        assert r.deck.view().mode is MediaMode.READY
        assert await r.deck.open(URL) is None
        await r.watch.until(r.has("deck-1", lambda s: _playing(s) and s.video is Video.READY))
        s = r.slot()
        assert s is not None
        assert s.title == "media.example.test"  # the host name, never the whole URL
        assert s.source_generation is not None and not s.needs_url
        assert r.deck.view().url_clear == 1
        [sent] = r.media_requests()
        assert sent["op"] == "open" and sent["key"] == "deck-1"
        assert sent["title"] == "media.example.test" and sent["native_controls"] is True


async def test_med22_med23_pause_from_the_player_is_applied() -> None:
    async with _host() as h, connected(h) as r:
        await r.deck.open(URL, "Lo-fi radio")
        await r.watch.until(r.has("deck-1", _playing))
        await r.script("media-pause deck-1")
        # The host's next snapshot (the truth) shows the pause the deck applied with `set`.
        await r.watch.until(r.has("deck-1", lambda s: s.playback is Playback.PAUSED))
        assert r.slot().paused  # type: ignore[union-attr]
        assert r.deck.controls_applied == 1 and r.deck.controls_dropped_total == 0
        assert r.media_requests()[-1] == {"op": "set", "session": "m-00000001", "paused": True}
        await r.script("media-volume deck-1 35")
        await r.watch.until(r.has("deck-1", lambda s: s.volume_pct == 35))


async def test_med16_med24_reload_then_old_generation_ignored_new_applied() -> None:
    async with _host() as h, connected(h) as r:
        await r.deck.open(URL, "Stage")
        await r.watch.until(r.has("deck-1", _playing))
        old = r.deck.session_of("deck-1")
        assert old is not None
        assert await r.deck.reload("deck-1", URL_B) is None
        new = r.deck.session_of("deck-1")
        assert new is not None and new[0] == old[0] and new[1] > old[1]
        assert r.slot().title == "Stage"  # type: ignore[union-attr]  # kept when none is typed
        sets_before = [p for p in r.media_requests() if p["op"] == "set"]

        await r.script(f"media-control deck-1 set_paused true generation={old[1]}")
        await r.watch.until(lambda: r.deck.controls_dropped["stale_generation"] == 1)
        await r.script(f"media-control deck-1 stop generation={old[1]}")
        await r.watch.until(lambda: r.deck.controls_dropped["stale_generation"] == 2)
        assert [p for p in r.media_requests() if p["op"] == "set"] == sets_before
        assert r.slot() is not None and r.deck.controls_applied == 0

        await r.script(f"media-control deck-1 set_paused true generation={new[1]}")
        await r.watch.until(r.has("deck-1", lambda s: s.playback is Playback.PAUSED))
        assert r.deck.controls_applied == 1


async def test_med23_stop_from_the_player_closes_and_forgets_the_slot() -> None:
    async with _host() as h, connected(h) as r:
        await r.deck.open(URL, "Talk")
        await r.watch.until(r.has("deck-1", _playing))
        assert kv_slot_key("deck-1") in h.host.services["kv"].values
        await r.script("media-stop deck-1")
        await r.watch.until(lambda: r.slot() is None)
        assert r.media_requests()[-1] == {"op": "close", "session": "m-00000001"}
        assert h.host.services["media"].sessions() == []
        assert kv_slot_key("deck-1") not in h.host.services["kv"].values
        assert "deck-1" not in h.host.services["secrets"]


class OtherExtension:
    """Another extension's connection, as vrosdev's host-wide player sees it."""

    async def emit(self, event: dict[str, Any]) -> bool:
        return True


async def test_med14_a_fifth_session_says_another_extension_holds_the_player() -> None:
    async with _host() as h, connected(h) as r:
        media = h.host.services["media"]
        other = OtherExtension()
        media.connection_opened(other, "1.7")
        got = media.handle(other, {"op": "open", "key": "other-1", "url": "https://o.test/x"})
        assert got["result"] == "opened"
        for n in range(3):
            assert await r.deck.open(f"https://s{n}.example.test/live") is None
        notice = await r.deck.open("https://s4.example.test/live")
        assert notice is not None and notice.key == "media.error.too_many"
        assert notice.level is StatusLevel.WARN
        assert [s.key for s in r.deck.view().slots] == ["deck-1", "deck-2", "deck-3"]
        assert "Another extension" in notice.text(Catalog.load("en-US"))
        # All four slots used by the deck itself: nothing is sent, the deck is full.
        media.connection_closed(other)
        assert await r.deck.open("https://s4.example.test/live") is None
        count = len(r.media_requests())
        full = await r.deck.open("https://s5.example.test/live")
        assert full is not None and full.key == "media.error.deck_full"
        assert len(r.media_requests()) == count


async def test_med10_r15_busy_never_opens_twice_and_a_host_busy_is_explained() -> None:
    async with _host() as h, connected(h) as r:
        await r.deck.open(URL, "One")
        count = len(r.media_requests())
        notice = await r.deck.open(URL_B, key="deck-1")
        assert notice is not None and notice.key == "media.error.busy"
        assert "Reload" in notice.text(Catalog.load("en-US"))
        assert len(r.media_requests()) == count  # never a second open on a live key
        notice = await r.deck.reload("deck-1", "https://media.example.test/busy-player")
        assert notice is not None and notice.key == "media.error.busy"


@pytest.mark.parametrize(
    ("marker", "code"),
    [
        ("endpoint-unavailable", "endpoint_unavailable"),
        ("dimension-limit", "dimension_limit"),
        ("fail-open", "open_failed"),
        ("playback-failed", "playback_failed"),
    ],
)
async def test_med26_refusals_show_their_code(marker: str, code: str) -> None:
    async with _host() as h, connected(h) as r:
        notice = await r.deck.open(f"https://media.example.test/{marker}/x", "Clip")
        assert notice is not None and notice.key == "media.error.code"
        assert dict(notice.params) == {"title": "Clip", "code": code}
        assert code in notice.text(Catalog.load("en-US"))
        assert r.deck.view().slots == ()


async def test_med19_med20_audio_fine_video_recovering_and_failed_playback() -> None:
    async with _host() as h, connected(h) as r:
        await r.deck.open("https://media.example.test/fail-video/x", "Video")
        await r.deck.open("https://media.example.test/fail-play/x", "Audio")
        await r.watch.until(r.has("deck-1", lambda s: _playing(s) and s.video is Video.RECOVERING))
        await r.watch.until(
            r.has("deck-2", lambda s: s.playback is Playback.FAILED and s.failure_code != "")
        )
        props = deck_props(r.deck.view(), Catalog.load("en-US"))
        rows = props["overlay"]["deck"]["v"]
        assert [c["v"] for c in rows[0]][2:6] == ["Playing", 2, "recovering", 3]
        assert rows[1][2]["v"].startswith("Failed (")


async def test_med2_unsupported_sends_nothing_more_until_the_next_connection() -> None:
    async with _host(media_mode="unsupported") as h:
        deck: MediaDeck | None = None
        async with connected(h) as r:
            deck = r.deck
            notice = await r.deck.open(URL, "X")
            assert notice is not None and notice.key == "media.unsupported"
            assert "Windows" in notice.text(Catalog.load("en-US"))
            assert r.deck.view().mode is MediaMode.UNSUPPORTED
            assert await r.deck.open(URL_B) == notice
            await r.deck.set_defaults(show_video=False)
            assert len(r.media_requests()) == 1
        async with connected(h, deck) as r:
            assert r.deck.view().mode is MediaMode.READY
            assert (await r.deck.open(URL, "X")).key == "media.unsupported"  # type: ignore[union-attr]
            assert len(r.media_requests()) == 2


async def test_med18_older_than_1_4_hides_the_deck_and_sends_nothing() -> None:
    async with _host(host_version="1.3") as h, connected(h) as r:
        assert r.deck.view().mode is MediaMode.HIDDEN
        assert await r.deck.open(URL, "X") is None
        assert await r.deck.set_defaults(max_fps=60) is None
        assert r.media_requests() == []
        assert deck_props(r.deck.view(), Catalog.load("en-US"))["overlay"]["media-mode"] == {
            "t": "i64",
            "v": 0,
        }


async def test_no_media_grant_hides_the_deck() -> None:
    async with _host(granted={"media": False}) as h, connected(h) as r:
        assert r.deck.view().mode is MediaMode.HIDDEN
        assert await r.deck.open(URL) is None
        assert r.media_requests() == []


async def test_r23_a_1_5_host_never_receives_native_controls() -> None:
    async with _host(host_version="1.5") as h, connected(h) as r:
        await r.deck.set_defaults(native_controls=True, controls_on_player=True)
        assert await r.deck.open(URL, "Old host") is None
        await r.deck.set_options("deck-1", paused=True, controls_on_player=True)
        requests = r.media_requests()
        assert [p["op"] for p in requests] == ["open", "set"]
        assert all("native_controls" not in p for p in requests)
        assert all("controls_on_player" not in p for p in requests)
        view = r.deck.view()
        assert not view.native_controls_shown and not view.controls_on_player_shown
        # A 1.5 host has no player controls, so nothing can act on the deck from there.
        await r.script("media-pause deck-1")
        assert r.deck.controls_applied == 0


async def test_r23_a_1_6_host_never_receives_controls_on_player() -> None:
    async with _host(host_version="1.6") as h, connected(h) as r:
        await r.deck.set_defaults(controls_on_player=True)
        await r.deck.open(URL, "Mid host")
        await r.deck.set_options("deck-1", controls_on_player=True, muted=True)
        requests = r.media_requests()
        assert requests[0]["native_controls"] is True
        assert all("controls_on_player" not in p for p in requests)
        assert requests[-1] == {"op": "set", "session": "m-00000001", "muted": True}
        view = r.deck.view()
        assert view.native_controls_shown and not view.controls_on_player_shown
        await r.watch.until(r.has("deck-1", lambda s: s.muted))


async def test_a_1_7_host_receives_controls_on_player_and_dash_options_apply_live() -> None:
    async with _host() as h, connected(h) as r:
        await r.deck.open(URL, "New host")
        await r.deck.set_defaults(controls_on_player=True, max_fps=60, native_controls=False)
        assert r.media_requests()[-1] == {
            "op": "set",
            "session": "m-00000001",
            "controls_on_player": True,
            "max_fps": 60,
        }
        dash = deck_props(r.deck.view(), Catalog.load("en-US"))["dash-tab"]
        assert dash["media-controls-on-player-shown"] == {"t": "bool", "v": True}
        assert dash["media-max-fps"] == {"t": "i64", "v": 60}
        await r.deck.open(URL_B, "Second")  # native_controls off applies from the next open
        assert r.media_requests()[-1]["native_controls"] is False


async def test_invalid_values_never_reach_the_host() -> None:
    async with _host() as h, connected(h) as r:
        for url, key in [
            ("", "media.error.invalid_url"),
            ("media.example.test/live", "media.error.invalid_url"),
            ("ftp://media.example.test/x", "media.error.invalid_url"),
            ("https://media.example.test/" + "a" * 8200, "media.error.url_too_long"),
        ]:
            notice = await r.deck.open(url)
            assert notice is not None and notice.key == key
        notice = await r.deck.open(URL, "t" * 257)
        assert notice is not None and notice.key == "media.error.title_too_long"
        await r.deck.open(URL, "ok")
        bad = await r.deck.set_options("deck-1", max_fps=121)
        assert bad is not None and bad.key == "media.error.invalid_option"
        assert "1" in bad.text(Catalog.load("en-US")) and "120" in bad.text(Catalog.load("en-US"))
        assert [p["op"] for p in r.media_requests()] == ["open"]


# -- snapshots as the single source of truth ------------------------------------------------


def _snapshot(*rows: dict[str, Any]) -> Any:
    from vxp.models.events import MediaSnapshot

    return MediaSnapshot.model_validate(
        {"event": "media_snapshot", "granted": True, "sessions": list(rows)}
    )


def _row(session: str, generation: int, kind: str = "playing") -> dict[str, Any]:
    return {
        "key": "deck-1",
        "session": session,
        "source_generation": generation,
        "playback": {"kind": kind},
        "video": "ready",
    }


async def test_med17_a_stale_snapshot_cannot_drop_a_new_session_a_later_one_does() -> None:
    async with _host() as h, connected(h) as r:
        await r.deck.open(URL, "S")
        await r.watch.until(r.has("deck-1", _playing))
        session, generation = r.deck.session_of("deck-1")  # type: ignore[misc]
        # A row with an older generation than the reply we handled is stale: skipped.
        await r.deck.reload("deck-1", URL_B)
        await r.deck.handle_event(_snapshot(_row(session, generation, "paused")))
        assert r.slot().playback is not Playback.PAUSED  # type: ignore[union-attr]
        # Listed before, missing now: the session is gone.
        await r.deck.handle_event(_snapshot())
        s = r.slot()
        assert s is not None and s.playback is Playback.ENDED and s.source_generation is None
        assert r.deck.session_of("deck-1") is None
        assert [p["op"] for p in media_requests(h)] == ["open", "reload"]


async def test_med24_controls_for_unknown_keys_sessions_and_actions_are_dropped() -> None:
    from vxp.models.events import MediaControl

    def control(key: str, session: str, generation: int, action: dict[str, Any]) -> Any:
        return MediaControl.model_validate(
            {
                "event": "media_control",
                "key": key,
                "session": session,
                "source_generation": generation,
                "action": action,
            }
        )

    async with _host() as h, connected(h) as r:
        await r.deck.open(URL, "S")
        session, generation = r.deck.session_of("deck-1")  # type: ignore[misc]
        pause = {"kind": "set_paused", "paused": True}
        await r.deck.handle_event(control("deck-3", session, generation, pause))
        await r.deck.handle_event(control("other", session, generation, pause))
        await r.deck.handle_event(control("deck-1", "m-99999999", generation, pause))
        await r.deck.handle_event(control("deck-1", session, generation + 1, pause))
        await r.deck.handle_event(control("deck-1", session, generation, {"kind": "rewind"}))
        assert dict(r.deck.controls_dropped) == {
            "unknown_key": 2,
            "other_session": 1,
            "stale_generation": 1,
            "unknown_action": 1,
        }
        assert r.deck.controls_applied == 0
        assert [p["op"] for p in r.media_requests()] == ["open"]


# -- reconnects and what is kept across runs ------------------------------------------------


async def test_r21_reconnect_reconciles_with_status_and_reopens_cleanly() -> None:
    async with _host() as h:
        watch = Watch()
        async with connected(h, watch=watch) as r:
            deck = r.deck
            await deck.open(URL, "Keep going")
            await deck.set_options("deck-1", volume_pct=40)
        async with connected(h, deck, watch) as r:
            ops = [p["op"] for p in r.media_requests()]
            assert ops[-2:] == ["status", "open"]  # status: no_such_session (R21), then open
            reopened = r.media_requests()[-1]
            assert reopened["volume_pct"] == 40 and reopened["title"] == "Keep going"
            await r.watch.until(r.has("deck-1", lambda s: _playing(s) and s.volume_pct == 40))


async def test_no_such_session_on_set_reopens_cleanly() -> None:
    async with _host() as h, connected(h) as r:
        await r.deck.open(URL, "Restarted")
        media = h.host.services["media"]
        # vrOS's player restarted: the session is gone without a snapshot saying so.
        media._sessions.clear()  # the simulation has no public "crash" lever
        notice = await r.deck.set_options("deck-1", paused=True)
        assert notice is not None and notice.key == "media.error.session_lost"
        assert [p["op"] for p in r.media_requests()] == ["open", "set", "open"]
        assert r.media_requests()[-1]["paused"] is True
        assert r.deck.session_of("deck-1")[0] == "m-00000002"  # type: ignore[index]


async def test_secrets_memory_keeps_the_url_for_the_next_run() -> None:
    async with _host(secrets_mode="memory") as h:
        async with connected(h) as r:
            await r.deck.open(URL, "Remembered")
            await r.deck.set_options("deck-1", muted=True)
        assert h.host.services["secrets"]["deck-1"] == URL
        record = h.host.services["kv"].values[kv_slot_key("deck-1")]
        assert record["title"] == "Remembered" and record["url_reason"] is None
        async with connected(h) as r:  # a new run: a new deck restores from kv and secrets
            await r.watch.until(r.has("deck-1", lambda s: _playing(s) and s.muted))
            assert r.watch.notices == []
            assert r.media_requests()[-1]["op"] == "open"
            assert not r.slot().needs_url  # type: ignore[union-attr]
            await r.deck.close("deck-1")
        assert "deck-1" not in h.host.services["secrets"]
        assert kv_slot_key("deck-1") not in h.host.services["kv"].values


@pytest.mark.parametrize(
    ("overrides", "url", "reason"),
    [
        ({}, URL, "media.reason.not_persistable"),  # Linux: no credential backend
        ({"granted": {"secrets": False}}, URL, "media.reason.no_grant"),
        (
            {"secrets_mode": "memory"},
            "https://media.example.test/" + "l" * 2100,
            "media.reason.too_long",
        ),
    ],
)
async def test_a_url_not_kept_is_asked_for_again_saying_why(
    overrides: dict[str, Any], url: str, reason: str
) -> None:
    async with _host(**overrides) as h:
        async with connected(h) as r:
            await r.deck.open(url, "Night show")
        assert h.host.services["secrets"] == {}
        opens = len(media_requests(h))
        async with connected(h) as r:
            s = r.slot()
            assert s is not None and s.needs_url and s.title == "Night show"
            assert s.playback is Playback.NO_SESSION
            [notice] = r.watch.notices
            assert notice.key == "media.url_not_kept" and dict(notice.refs) == {"reason": reason}
            text = notice.text(Catalog.load("en-US"))
            assert "Night show" in text and Catalog.load("en-US").t(reason) in text
            assert len(media_requests(h)) == opens  # nothing opened without its URL
            assert await r.deck.reload("deck-1", URL) is None
            await r.watch.until(r.has("deck-1", _playing))
            assert r.slot().title == "Night show"  # type: ignore[union-attr]


# -- URLs are credentials ------------------------------------------------------------------

SECRET_URL = "https://alice:PASSWORD-11@cdn.example.test:8443/live/SECRETPATH-4b1d/index.m3u8?tok=SECRETQUERY-77#SECRETFRAG"
SECRET_URL_B = "rtmp://cdn.example.test/app/SECRETKEY-9e9e"
SECRET_PARTS = (
    SECRET_URL,
    SECRET_URL_B,
    "alice",
    "PASSWORD-11",
    "/live",
    "SECRETPATH-4b1d",
    "index.m3u8",
    "SECRETQUERY-77",
    "SECRETFRAG",
    "/app/",
    "SECRETKEY-9e9e",
)


async def test_med12_no_url_nor_any_part_after_the_host_reaches_logs_transcript_or_kv(
    caplog: pytest.LogCaptureFixture,
) -> None:
    stream = io.StringIO()
    handler = logging.StreamHandler(stream)
    handler.setFormatter(logging.Formatter("%(name)s %(levelname)s %(message)s"))
    handler.setLevel(logging.DEBUG)
    root = logging.getLogger()
    root.addHandler(handler)
    caplog.set_level(logging.DEBUG)
    shown: list[str] = []
    en = Catalog.load("en-US")
    try:
        async with _host(secrets_mode="memory") as h:
            async with connected(h) as r:
                await r.deck.open(SECRET_URL)  # no title: the host name is the title
                await r.watch.until(r.has("deck-1", _playing))
                await r.script("media-pause deck-1")
                await r.watch.until(r.has("deck-1", lambda s: s.paused))
                old = r.deck.session_of("deck-1")
                assert old is not None
                await r.deck.reload("deck-1", SECRET_URL_B)
                await r.script(f"media-control deck-1 set_volume 20 generation={old[1]}")
                await r.watch.until(lambda: r.deck.controls_dropped_total == 1)
                await r.script("media-volume deck-1 20")
                await r.watch.until(r.has("deck-1", lambda s: s.volume_pct == 20))
                for bad in (SECRET_URL + "x" * 8200, "ftp" + SECRET_URL[5:], SECRET_URL + " x"):
                    notice = await r.deck.open(bad)
                    assert notice is not None
                    shown.append(notice.text(en) + repr(notice))
                refused = await r.deck.open(SECRET_URL.replace("/live/", "/fail-open/"))
                assert refused is not None and refused.params["code"] == "open_failed"
                shown.append(refused.text(en) + repr(refused))
                shown.append(repr(r.deck.view()) + repr(r.deck))
                shown.append(json.dumps(deck_props(r.deck.view(), en)))
                assert r.slot().title == "cdn.example.test"  # type: ignore[union-attr]
            kv_text = json.dumps(h.host.services["kv"].values)
            async with connected(h) as r:  # a new run restores the URL from secrets, paused
                await r.watch.until(r.has("deck-1", lambda s: s.playback is Playback.PAUSED))
                await r.deck.close("deck-1")
            transcript = h.transcript()
            kv_text += json.dumps(h.host.services["kv"].values)
        shown += [n.text(en) for n in r.watch.notices]
    finally:
        root.removeHandler(handler)
    captured = {
        "caplog": caplog.text,
        "records": "\n".join(str(rec.__dict__) for rec in caplog.records),
        "stream": stream.getvalue(),
        "transcript": transcript,
        "kv": kv_text,
        "shown": "\n".join(shown),
    }
    assert "cdn.example.test" in captured["kv"]  # the test looks where the title went
    assert "media" in captured["transcript"] and captured["stream"]
    leaks = {
        where: [part for part in SECRET_PARTS if part in text]
        for where, text in captured.items()
        if any(part in text for part in SECRET_PARTS)
    }
    assert leaks == {}
