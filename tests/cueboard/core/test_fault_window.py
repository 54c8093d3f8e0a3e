"""The fault matrix's ``@3s`` mode in memory: every request of one kind fails for 3 s.

The same session runs twice against the host in memory (start-up, every command, the panels'
callbacks, a settings change, the media deck), once healthy and once with one request kind
answered with a failure for 3 s from its first request, then the person presses slot 1 after the
window. Checked, as tests/e2e/matrix_checks.py checks the real process: no request (the same
kind and parameters) is sent more than 3 times more often than in the healthy session, even when
a feature plans it again; the kind sends no more in those 3 s than the healthy session's busiest
3 s plus 10, counting what the extension sends by itself (retries and plans, not a person's
requests: those are bounded by pacing, at most 10 a second for one request); slot 1 plays after
the window; and a failure of what the user asked for leaves a notice on the status line.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

import pytest

from cueboard.core.commands import STATIC_COMMANDS
from cueboard.core.effects import HostFailure, Send
from cueboard.core.pacing import PRESSES_PER_S
from cueboard.core.policy import GIVE_UP_MEMORY_S, MAX_RETRIES
from vxp.models import events
from vxp.models.handshake import Granted

from .fakehost import Driver, FakeHost, library
from .send_log import asked, busiest, by_itself

WINDOW_S = 3.0
EXTRA_REQUESTS = 10
URL = "https://media.example.test/live/a.m3u8?token=window-secret"
NAMES = [f"{n:02d} Sound.wav" for n in range(1, 15)]  # two pages
INTERNAL = HostFailure("domain", "internal")
PROTOCOL = HostFailure("protocol", -32603)
UNKNOWN = HostFailure("domain", "code_from_a_newer_host")


def _session(d: Driver) -> None:
    d.connect(settle=0.5)
    d.event(events.PanelShown(event="panel_shown", panel="overlay"), settle=0.5)
    for spec in STATIC_COMMANDS:
        d.invoke(spec.name, settle=0.1)
    d.click("overlay", "play-sound", NAMES[2])
    d.advance(0.2)
    d.click("overlay", "stop-sound", NAMES[2])
    d.click("overlay", "stop-all")
    d.click("overlay", "page-next")
    d.click("overlay", "page-prev")
    d.click("overlay", "set-soundboard-gain", 70)
    d.click("dash-tab", "set-sound-gain", NAMES[2], 60)
    d.click("dash-tab", "set-sound-favourite", NAMES[2], True)
    d.advance(0.5)
    d.click("overlay", "media-open", URL, "Radio")
    d.advance(1.0)
    d.click("overlay", "media-set-paused", "deck-1", True)
    d.click("overlay", "media-set-volume", "deck-1", 50)
    d.advance(0.5)
    d.click("overlay", "media-close", "deck-1")
    d.advance(1.0)


def _identity(send: Send) -> str:
    params: Any = send.params
    body = params.params_json if hasattr(params, "params_json") else params.model_dump_json()
    return f"{send.kind} {body if isinstance(body, str) else body.decode()}"


def _run(window: tuple[str, HostFailure] | None) -> tuple[Driver, float]:
    granted = Granted(audio=True, overlays=True, media=True, secrets=True, bus=["vr.lifecycle"])
    host = FakeHost(granted=granted)
    host.kv["s:02 Sound.wav"] = {"f": "boop"}  # a favourite: kv.get and its command
    if window is not None:
        host.windows[window[0]] = (window[1], WINDOW_S)
    d = Driver(host, library(*NAMES))
    _session(d)
    d.advance(WINDOW_S + 5.0)  # past the window and the last retry
    pressed_at = d.now
    d.invoke("play-slot-1", settle=0.5)
    return d, pressed_at


def _told(d: Driver, start: float, end: float) -> bool:
    """A notice on the status line at some moment of [start, end] (one already showing counts:
    the same text need not be said twice)."""
    before = [key for at, key in d.statuses if at <= start]
    shown = before[-1:] + [key for at, key in d.statuses if start < at <= end]
    return any(key is not None and key != "status.reconnecting" for key in shown)


HEALTHY = _run(None)[0].host.sent_at
CASES = [
    ("commands.register", INTERNAL),
    ("commands.register", PROTOCOL),
    ("commands.register", UNKNOWN),
    ("audio.load", INTERNAL),
    ("audio.load", UNKNOWN),
    ("audio.play", INTERNAL),
    ("audio.play", PROTOCOL),
    ("audio.stop", INTERNAL),
    ("audio.stop_all", PROTOCOL),
    ("audio.pre_arm", INTERNAL),
    ("assets.put", HostFailure("domain", "budget_full")),
    ("kv.list", INTERNAL),
    ("kv.get", INTERNAL),
    ("kv.set", INTERNAL),
    ("bus.subscribe", INTERNAL),
    ("settings.list", INTERNAL),
    ("secrets.set", INTERNAL),
    ("media.set", PROTOCOL),
    ("media.set", UNKNOWN),
    ("media.open", PROTOCOL),
    ("media.open", UNKNOWN),
    ("media.close", PROTOCOL),
    ("media.close", UNKNOWN),
    ("audio.stop", UNKNOWN),
    ("audio.stop_all", INTERNAL),
    ("audio.stop_all", UNKNOWN),
    ("audio.play", UNKNOWN),
    ("assets.put", PROTOCOL),
    ("assets.put", UNKNOWN),
    ("kv.set", UNKNOWN),
    ("secrets.set", PROTOCOL),
]


@pytest.mark.parametrize(("kind", "failure"), CASES, ids=[f"{k}={f.code}" for k, f in CASES])
def test_a_kind_failing_for_three_seconds_is_retried_boundedly_and_recovers(
    kind: str, failure: HostFailure
) -> None:
    d, pressed_at = _run((kind, failure))
    host = d.host
    assert kind in host.window_start, f"the session sent no {kind}"
    start = host.window_start[kind]

    healthy = Counter(_identity(s) for _, s in HEALTHY if s.kind == kind)
    faulted = Counter(_identity(s) for _, s in host.sent_at if s.kind == kind)
    worst = max((n - healthy[key], key) for key, n in faulted.items())
    assert worst[0] <= MAX_RETRIES, worst

    own = by_itself(host.sent_at)
    in_window = sum(1 for t, s in own if s.kind == kind and start <= t <= start + WINDOW_S)
    bound = busiest([t for t, s in by_itself(HEALTHY) if s.kind == kind], WINDOW_S) + EXTRA_REQUESTS
    assert in_window <= bound
    presses: dict[str, list[float]] = {}
    for t, s in asked(host.sent_at):
        presses.setdefault(_identity(s), []).append(t)
    assert all(busiest(times, 1.0) <= PRESSES_PER_S for times in presses.values())

    assert not host.named_unput, "props named an asset key before its put answered ok"
    played = [s for t, s in host.sent_at if t >= pressed_at and s.kind == "audio.play"]
    assert played and host.playing, "slot 1 did not play after the window"

    for t, send in host.sent_at:
        if send.kind == kind and send.user_asked and start <= t <= start + WINDOW_S:
            assert _told(d, t, t + 2.0), f"no notice for the user's {kind} at {t:.2f} s"


def test_a_press_after_an_answer_that_may_have_played_is_sent_again() -> None:
    """An unreadable answer to a play is reconciled, not remembered as a refusal: the next
    press of the same sound goes out (and is not taken for a play that happened)."""
    host = FakeHost()
    d = Driver(host, library(*NAMES))
    d.connect()
    host.faults["audio.play"] = [HostFailure("timeout")]
    d.invoke("play-slot-1", settle=0.1)
    d.invoke("play-slot-1", settle=0.1)
    assert host.kinds()["audio.play"] == 2 and host.playing


def test_a_load_planned_again_after_failing_for_good_is_not_sent_again_at_once() -> None:
    host = FakeHost()
    host.windows["audio.load"] = (UNKNOWN, 60.0)
    d = Driver(host, library(*NAMES))
    d.connect()
    loads = host.kinds()["audio.load"]
    for _ in range(5):  # the page shown again and again: each plans its sounds' loads
        d.event(events.PanelShown(event="panel_shown", panel="overlay"), settle=0.5)
    assert host.kinds()["audio.load"] == loads
    d.advance(GIVE_UP_MEMORY_S)
    d.event(events.PanelShown(event="panel_shown", panel="overlay"))
    assert host.kinds()["audio.load"] == 2 * loads
