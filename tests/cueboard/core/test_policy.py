"""Every request the soundboard's core sends, failed with every answer of the policy table.

One table-driven test: for each row (request kind, code) a host in memory answers every request
of that kind with that failure, while the core does what makes it send that kind. Checked: no
exception, at most 3 retries of any request (exactly 3 for the kind's first where the rule
retries without a deadline and the user did not ask; none where it does not retry), retries
paced per kind (at most two in the first 3 s), every request ends, the notice the rule names
when the user asked, and afterwards, with the host healthy again and a new connection, the
function is back: a press plays.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from typing import Any

import pytest

from cueboard.core.asset_table import AssetTable
from cueboard.core.effects import HostFailure
from cueboard.core.inputs import Disconnected
from cueboard.core.policy import (
    KINDS,
    MAX_DELAY_S,
    MAX_RETRIES,
    TABLE,
    Action,
    Code,
    Rule,
    rule_for,
)
from cueboard.core.tracker import RETRY_WAKE
from cueboard.runtime.catalogs import load_catalog
from vxp.models import audio, events
from vxp.models.handshake import Granted

from .fakehost import Driver, FakeHost, library

FUTURE_CODE = "code_from_a_newer_host"


def _press(d: Driver) -> None:
    d.invoke("play-slot-1")


def _after_a_play(action: Callable[[Driver], None]) -> Callable[[Driver], None]:
    def run(d: Driver) -> None:
        _press(d)
        action(d)

    return run


def _cache_full(d: Driver) -> None:
    d.host.load_outcomes[str(d.lib.root / "02 Boop.wav")] = [
        audio.LoadFailed(kind="failed", code="cache_full")
    ]
    d.event(events.SettingsChanged(event="settings_changed", key="normalize", value=False))


def _toast(d: Driver) -> None:
    d.core.toast.source = "export component NowPlaying {}"
    d.event(events.SettingsChanged(event="settings_changed", key="now_playing_toast", value=True))
    _press(d)


def _looping_press(d: Driver) -> None:
    d.click("dash-tab", "set-sound-mode", "01 Beep.wav", 4)
    _press(d)


DASH_SHOWN = events.PanelShown(event="panel_shown", panel="dash-tab")
URL = "https://media.example.test/live/a.m3u8?token=policy-secret"


def _open(d: Driver) -> None:
    d.click("overlay", "media-open", URL, "Radio")


def _after_open(action: Callable[[Driver], None]) -> Callable[[Driver], None]:
    def run(d: Driver) -> None:
        faults = d.host.faults
        d.host.faults = {}  # the open itself succeeds
        _open(d)
        d.host.faults = faults
        action(d)

    return run


def _icons_past_the_table(d: Driver) -> None:
    d.invoke("page-next")  # page 2's icons: page 1's leave the (small) table first


def _reconnect(d: Driver) -> None:
    d.feed(Disconnected())
    d.connect()


# What makes the core send each kind, after a healthy start-up; None: the start-up itself.
SCENARIOS: dict[str, Callable[[Driver], None] | None] = {
    "settings.list": None,
    "commands.register": None,
    "audio.pre_arm": None,
    "assets.put": None,
    "panel.props": None,
    "bus.subscribe": None,
    "kv.list": None,
    "kv.get": None,
    "kv.set": None,  # the schema key, on a first start
    "audio.load": None,
    "audio.play": _press,
    "audio.stop": _after_a_play(lambda d: d.click("overlay", "stop-sound", "01 Beep.wav")),
    "audio.stop_all": _after_a_play(lambda d: d.invoke("stop-all")),
    "audio.get_status": _looping_press,
    "audio.unload": _cache_full,
    "audio.list_channels": lambda d: d.event(
        events.PanelShown(event="panel_shown", panel="dash-tab")
    ),
    "audio.list_devices": lambda d: d.event(
        events.PanelShown(event="panel_shown", panel="dash-tab")
    ),
    "bus.publish": _press,
    "panel.define": _toast,
    "kv.delete": None,  # the first schema's keys, once the records are written again as a page
    "commands.unregister": lambda d: d.click(
        "dash-tab", "set-sound-favourite", "02 Boop.wav", False
    ),
    "assets.remove": _icons_past_the_table,
    "media.open": _open,
    "media.set": _after_open(lambda d: d.click("overlay", "media-set-paused", "deck-1", True)),
    "media.reload": _after_open(
        lambda d: d.click("overlay", "media-reload", "deck-1", URL + "&b", "B")
    ),
    "media.close": _after_open(lambda d: d.click("overlay", "media-close", "deck-1")),
    "media.status": _after_open(_reconnect),
    "secrets.set": _open,  # the URL is kept for the next run
    "secrets.get": None,  # a slot kept by the last run, restored at start-up
    "secrets.delete": _after_open(lambda d: d.click("overlay", "media-close", "deck-1")),
}
USER_ASKED = {"audio.play", "audio.stop", "audio.stop_all", "commands.unregister"}
DECK_ASKED = {"media.open", "media.set", "media.reload", "media.close"}


def _rows() -> list[Any]:
    rows: list[Any] = []
    for (kind, code), rule in TABLE.items():
        rows.append(pytest.param(kind, code, rule, id=f"{kind}:{code}"))
    return rows


def _failure(code: Code) -> HostFailure | Any:
    if isinstance(code, int):
        return HostFailure("protocol", code, "")
    if code == "unreadable":  # a result tag this SDK does not know (VER-3)
        return audio.AudioUnknown(result="played_on_a_newer_host")
    if code in ("timeout", "closed", "invalid"):
        return HostFailure(code)
    if code.startswith("invalid:"):  # refused before sending, with the code the spec names
        return HostFailure("invalid", code.removeprefix("invalid:"))
    return HostFailure("domain", FUTURE_CODE if code == "*" else code, "")


def test_every_request_kind_the_core_sends_has_rows_and_a_scenario() -> None:
    assert set(SCENARIOS) <= set(KINDS)
    assert set(KINDS) == set(SCENARIOS)
    en = load_catalog("en-US")
    for kind in KINDS:  # each can be named in a notice
        assert f"what.{kind}" in en, kind
    for rule in TABLE.values():
        assert rule.notice is None or rule.notice in en


@pytest.mark.parametrize(("kind", "code", "rule"), _rows())
def test_every_failure_of_every_request(kind: str, code: Code, rule: Rule) -> None:
    granted = Granted(audio=True, overlays=True, media=True, secrets=True, bus=["vr.lifecycle"])
    host = FakeHost(granted=granted)
    host.kv["s:02 Boop.wav"] = {"f": "boop"}  # a favourite, so kv.get and unregister happen
    host.kv["s:01 Beep.wav"] = {"g": 50}
    if kind == "secrets.get":
        host.kv["deck:2"] = {"title": "Kept"}
        host.secret_slots["deck-2"] = URL
    names = ["01 Beep.wav", "02 Boop.wav", "03 Bip.wav"]
    if kind == "assets.remove":  # 14 sounds with icons, a table of 13: page 2 needs room
        names += [f"{n:02d} Icon.wav" for n in range(4, 15)]
    d = Driver(host, library(*names, icons=kind == "assets.remove"))
    d.core.icons.table = AssetTable(max_entries=13)
    scenario = SCENARIOS[kind]
    if scenario is not None:
        d.connect()
        host.sent.clear()
    host.faults[kind] = [_failure(code)] * 1000  # every request of the kind, every time
    status_before = d.status_key()
    host.sent_at.clear()
    # long enough for each of the kind's requests to take its turn as the probe
    settle = 60 * MAX_RETRIES * MAX_DELAY_S
    if scenario is None:
        d.connect(settle=settle)
    else:
        scenario(d)
        d.advance(settle)

    # each request of that kind: its first send and its retries carry the same ticket
    sends = Counter(s.ticket for s in host.sent if s.kind == kind)
    assert sends, f"the scenario sent no {kind}"
    assert max(sends.values()) <= 1 + MAX_RETRIES, sends
    first = next(s for s in host.sent if s.kind == kind)
    if rule.action is Action.RETRY and rule.deadline_s is None and not first.user_asked:
        assert sends[first.ticket] == 1 + MAX_RETRIES
    if rule.action is not Action.RETRY:
        assert set(sends.values()) == {1}
    start = min(t for t, s in host.sent_at if s.kind == kind)
    early = [s.ticket for t, s in host.sent_at if s.kind == kind and t <= start + 3.0]
    assert len(early) - len(set(early)) <= 2, "the kind's retries are not paced"
    assert not any(key.startswith(RETRY_WAKE) for key in d.timers), "a retry left waiting"
    assert len(d.core.tracker) == 0, d.core.tracker.kinds_in_flight()

    gave_notice = rule.notice is not None and rule.action is not Action.RECONCILE
    if kind in USER_ASKED and gave_notice and code != "closed":
        assert d.status_key() == rule.notice
    elif kind.startswith(("media.", "secrets.")):  # the deck words its own, naming the slot
        told = d.status_key()
        assert told in (None, "status.reconnecting") or told.startswith("media."), told
        final = rule.action is Action.FINAL and rule.notice is not None and code != "closed"
        if kind in DECK_ASKED and final:
            assert told is not None, "a user's media action failed without a word"
    elif kind not in ("audio.load", "audio.unload", "audio.pre_arm"):
        assert d.status_key() in (status_before, None)

    # The host is healthy again and the connection is new: the function is back.
    host.faults.clear()
    host.sent.clear()
    d.core.handle(events.UnknownEvent.model_validate({"event": "from_the_future"}), d.now)
    _reconnect(d)
    if kind == "audio.load" and rule.action in (Action.FINAL, Action.DENIED):
        assert d.core.board.states["01 Beep.wav"].status == "failed"
        return
    assert "commands.register" in host.kinds()
    _press(d)
    assert host.kinds()["audio.play"] >= 1, host.kinds()
    assert host.playing


def test_backoff_is_capped_exponential_and_jittered_downwards() -> None:
    import random

    from cueboard.core.policy import FIRST_DELAY_S, GROWTH, JITTER, backoff

    rng = random.Random(7)
    for retry in range(1, 12):
        plain = min(MAX_DELAY_S, FIRST_DELAY_S * GROWTH ** (retry - 1))
        delays = [backoff(retry, rng) for _ in range(50)]
        assert all((1 - JITTER) * plain <= d <= plain for d in delays)
        assert len(set(delays)) > 1  # jittered: extensions do not retry in step


@pytest.mark.parametrize(
    ("kind", "failure", "refused", "gone"),
    [
        ("media.open", HostFailure("domain", "busy"), True, False),
        ("media.open", HostFailure("domain", FUTURE_CODE), True, False),  # a newer host's code
        ("media.status", HostFailure("domain", FUTURE_CODE), True, False),
        ("media.open", HostFailure("protocol", -32600), False, False),  # never reached media
        ("media.open", HostFailure("protocol", -32001), False, False),
        ("media.open", HostFailure("invalid", "invalid_url"), False, False),  # never sent
        ("media.open", HostFailure("timeout"), False, False),
        ("media.open", HostFailure("closed"), False, True),
        ("media.status", HostFailure("closed"), False, True),
        ("kv.set", HostFailure("closed"), False, True),
    ],
)
def test_the_rows_say_whether_the_namespace_refused_and_whether_the_connection_is_gone(
    kind: str, failure: HostFailure, refused: bool, gone: bool
) -> None:
    """What the deck decides from (a slot's shown error, a session dropped, a late open that
    may still land) is the row's, so a feature never reads the failure's kind or code."""
    rule = rule_for(kind, failure)
    assert (rule.refused, rule.gone) == (refused, gone)
