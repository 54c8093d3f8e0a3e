"""Playback and video state machines on the injected clock (MED-15, MED-16, MED-19, MED-20,
MED-26), and the URL markers that make each failure reachable."""

from __future__ import annotations

from typing import TYPE_CHECKING

import pytest

from vrosdev.media import REFUSALS, behaviour_for

if TYPE_CHECKING:
    from conftest import Harness

# conftest.TIMINGS: opening 1 s, buffering 2 s, video warm-up 0.5 s, `end-soon` plays 10 s.
OPENED, BUFFERED, WARM, PLAY = 1.0, 3.0, 0.5, 10.0


def states(h: Harness, sid: str) -> tuple[dict[str, object], str]:
    row = h.row("a", sid)
    return row["playback"], row["video"]


def test_opening_buffering_playing_with_video_warming_then_ready_med19_med20(h: Harness) -> None:
    """MED-19, MED-20: playback opens, buffers and plays while video warms up and becomes ready."""
    sid = h.open()["session"]
    assert states(h, sid) == ({"kind": "opening"}, "warming")
    assert h.host.next_deadline() == OPENED
    h.at(OPENED - 0.01)
    assert states(h, sid) == ({"kind": "opening"}, "warming")
    h.at(OPENED)
    assert states(h, sid) == ({"kind": "buffering"}, "warming")
    h.at(BUFFERED)
    assert states(h, sid) == ({"kind": "playing"}, "ready")
    assert h.host.next_deadline() is None, "nothing left to happen: no busy waking"


def test_a_late_tick_ends_where_punctual_ticks_would(h: Harness) -> None:
    late = h.open(key="late", url="https://h/end-soon")["session"]
    h.at(100.0)
    assert states(h, late) == ({"kind": "ended"}, "ready")


def test_requests_see_the_state_as_of_their_arrival(h: Harness) -> None:
    sid = h.open()["session"]
    h.clock.now = BUFFERED  # no tick: the status request itself brings the state up to date
    assert states(h, sid) == ({"kind": "playing"}, "ready")


def test_paused_at_open_reports_paused_after_buffering(h: Harness) -> None:
    sid = h.open(paused=True)["session"]
    h.at(OPENED)
    assert states(h, sid)[0] == {"kind": "buffering"}
    h.at(BUFFERED)
    assert states(h, sid) == ({"kind": "paused"}, "ready")
    h.req("a", "set", session=sid, paused=False)
    assert states(h, sid)[0] == {"kind": "playing"}


def test_fail_play_fails_with_a_code_after_buffering_med19(h: Harness) -> None:
    """MED-19: a stream that cannot play ends `failed` with a code, after buffering."""
    sid = h.open(url="https://h/fail-play/x")["session"]
    h.at(OPENED)
    assert states(h, sid)[0] == {"kind": "buffering"}
    h.at(BUFFERED)
    assert states(h, sid) == ({"kind": "failed", "code": "network"}, "recovering")


def test_fail_video_recovers_video_while_audio_plays_med20(h: Harness) -> None:
    """MED-20: video recovers on its own while the audio keeps playing."""
    sid = h.open(url="https://h/fail-video")["session"]
    h.at(BUFFERED)
    assert states(h, sid) == ({"kind": "playing"}, "recovering")


def test_end_soon_ends_after_its_play_time_and_pause_stops_that_clock(h: Harness) -> None:
    sid = h.open(url="https://h/end-soon")["session"]
    h.at(BUFFERED + 4)
    h.req("a", "set", session=sid, paused=True)
    h.at(BUFFERED + 100)
    assert states(h, sid)[0] == {"kind": "paused"}, "paused time does not count"
    h.req("a", "set", session=sid, paused=False)
    h.at(BUFFERED + 100 + PLAY - 4 - 0.01)
    assert states(h, sid)[0] == {"kind": "playing"}
    h.at(BUFFERED + 100 + PLAY - 4)
    assert states(h, sid) == ({"kind": "ended"}, "ready")
    h.req("a", "set", session=sid, paused=True)
    assert states(h, sid)[0] == {"kind": "ended"}


def test_hiding_video_keeps_playback_running_med15(h: Harness) -> None:
    """MED-15: show_video false keeps the stream and its audio playing."""
    sid = h.open(url="https://h/end-soon")["session"]
    h.at(BUFFERED)
    h.req("a", "set", session=sid, show_video=False, volume_pct=20, max_fps=5, muted=True)
    assert states(h, sid) == ({"kind": "playing"}, "disabled")
    h.at(BUFFERED + PLAY)
    assert states(h, sid)[0] == {"kind": "ended"}, "the stream kept its clock while hidden"


def test_showing_video_again_warms_up_then_is_ready_med20(h: Harness) -> None:
    """MED-20: showing the video again warms it up, then it is ready."""
    sid = h.open(show_video=False)["session"]
    assert states(h, sid) == ({"kind": "opening"}, "disabled")
    h.at(BUFFERED)
    assert states(h, sid) == ({"kind": "playing"}, "disabled")
    h.clock.now = 5.0
    h.req("a", "set", session=sid, show_video=True)
    assert states(h, sid) == ({"kind": "playing"}, "warming")
    assert h.host.next_deadline() == 5.0 + WARM
    h.at(5.0 + WARM)
    assert states(h, sid) == ({"kind": "playing"}, "ready")


def test_showing_video_while_buffering_is_ready_when_playback_starts(h: Harness) -> None:
    sid = h.open(show_video=False)["session"]
    h.at(OPENED)
    h.req("a", "set", session=sid, show_video=True)
    assert states(h, sid)[1] == "warming"
    h.at(BUFFERED)
    assert states(h, sid) == ({"kind": "playing"}, "ready")


def test_showing_video_of_a_failed_source_is_recovering(h: Harness) -> None:
    sid = h.open(url="https://h/fail-play", show_video=False)["session"]
    h.at(BUFFERED)
    assert states(h, sid) == ({"kind": "failed", "code": "network"}, "disabled")
    h.req("a", "set", session=sid, show_video=True)
    assert states(h, sid)[1] == "recovering"


def test_fail_video_stays_recovering_after_rewarming(h: Harness) -> None:
    sid = h.open(url="https://h/fail-video")["session"]
    h.at(BUFFERED)
    h.req("a", "set", session=sid, show_video=False)
    h.req("a", "set", session=sid, show_video=True)
    h.at(BUFFERED + WARM)
    assert states(h, sid) == ({"kind": "playing"}, "recovering")


def test_reload_restarts_playback_on_the_new_source_med16(h: Harness) -> None:
    """MED-16: reload changes the source and starts playback over."""
    sid = h.open(url="https://h/fail-play")["session"]
    h.at(BUFFERED)
    assert states(h, sid)[0]["kind"] == "failed"
    h.req("a", "reload", session=sid, url="https://h/good")
    assert h.row("a", sid)["source_generation"] == 2
    assert states(h, sid) == ({"kind": "opening"}, "warming")
    h.at(2 * BUFFERED)
    assert states(h, sid) == ({"kind": "playing"}, "ready")


@pytest.mark.parametrize(("marker", "err"), [(m, c) for m, c, _ in REFUSALS])
def test_each_refusal_marker_on_open_and_reload_med26(h: Harness, marker: str, err: str) -> None:
    """MED-26: every refusal the URL markers simulate, on open and on reload."""
    secret_url = f"https://cdn.example/{marker}/stream?sig=SECRET-SIGNATURE"
    refused = h.open(key="x", url=secret_url)
    assert h.code(refused) == err
    assert "SECRET" not in str(refused), "MED-12"
    assert "cdn.example" not in str(refused), "MED-12"
    sid = h.open(key="y")["session"]
    h.at(BUFFERED)
    assert h.code(h.req("a", "reload", session=sid, url=secret_url)) == err
    row = h.row("a", sid)
    assert (row["source_generation"], row["playback"]) == (1, {"kind": "playing"}), (
        "a refused reload leaves the session on its old source"
    )


def test_every_domain_error_of_the_page_is_reachable_med26(h: Harness) -> None:
    """MED-26: One request per code, in this simulation (unsupported: the other mode)."""
    reached: set[str] = set()
    reached.add(h.code(h.open(url="nope")))
    reached.add(h.code(h.open(key="NOPE")))
    reached.add(h.code(h.open(max_fps=0)))
    reached.add(h.code(h.req("a", "status", session="m-99999999")))
    for marker, _, _ in REFUSALS:
        reached.add(h.code(h.open(key="r", url=f"https://h/{marker}")))
    for i in range(4):
        h.open(key=f"k-{i}")
    reached.add(h.code(h.open(key="k-9")))
    assert reached == {
        "invalid_url",
        "invalid_key",
        "invalid_value",
        "no_such_session",
        "endpoint_unavailable",
        "dimension_limit",
        "busy",
        "open_failed",
        "playback_failed",
        "too_many",
    }


def test_sessions_hold_no_url_med12(h: Harness) -> None:
    """MED-12: a session keeps no URL once opened (the URL is a credential)."""
    h.open(url="https://cdn.example/a/fail-video?sig=SECRET-SIGNATURE")
    (session,) = h.host.sessions()
    assert "SECRET" not in repr(session)
    assert "SECRET" not in repr(session.behaviour)
    assert "SECRET" not in repr(h.host)


def test_behaviour_markers_combine() -> None:
    b = behaviour_for("https://h/fail-video/end-soon")
    assert (b.refusal, b.playback_failure, b.video_fails, b.ends) == (None, None, True, True)
    assert behaviour_for("https://h/fail-open/busy-player").refusal == (
        "busy",
        "the player is busy",
    ), "first marker of the table wins"
