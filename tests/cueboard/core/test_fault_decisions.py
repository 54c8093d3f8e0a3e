"""Every cell of the fault matrix, decided in memory by the core (the soundboard and the deck).

The cells are the real process's (tests/e2e/fault_matrix.py ``cases`` and ``startup_cases``):
each request kind of the scripted session x its namespace's documented codes, -32603 and an
unknown code x the first request only (``@1``) or every request for 3 s (``@3s``); and each
start-up kind's first request answered with its documented codes, -32603, -32602, an unknown
code or a newer host's result tag. Each runs the session through the core against the host in
memory (:mod:`matrix_session`), on the virtual clock, and checks what tests/e2e/matrix_checks.py
checks on a transcript, plus the decision itself: the policy row's retry (bounded backoff, no
more than 3), final, notice in the person's language, or log; and that the person's settings
survive. The real process runs a sample of these cells for the wiring.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import replace
from typing import Any

import pytest

from cueboard.core.effects import HostFailure, Send
from cueboard.core.inputs import Reply
from cueboard.core.loading import RETRY_FAILED_AFTER_S
from cueboard.core.pacing import PRESSES_PER_S
from cueboard.core.policy import FIRST_DELAY_S, JITTER, MAX_DELAY_S, Action, Rule, rule_for
from cueboard.core.records import SoundPrefs, parse_page_key, read_page
from tests.e2e import fault_matrix as fm
from tests.e2e.matrix_checks import (
    EXTRA_REQUESTS,
    MAX_RETRIES,  # the matrix's bound, not the policy's: a policy allowing more fails here
    REFUSED_FOR_GOOD,
    USER_PAIRS,
    catalog_patterns,
)
from vrosdev.redact import URL_PATTERN, URL_PLACEHOLDER

from .fakehost import Driver, library
from .matrix_session import (
    DING,
    WINDOW_S,
    Host,
    Run,
    failure,
    granted,
    healthy,
    pairs,
    session,
)
from .send_log import asked, busiest, by_itself

HEALTHY = healthy()
PAIRS = pairs(HEALTHY.host.sent)
NOTICE_WITHIN_S = 2.0  # virtual seconds from the failed answer (matrix_checks' window)


def _identity(send: Send) -> str:
    params: Any = send.params
    body = params.params_json if hasattr(params, "params_json") else params.model_dump_json()
    return f"{send.kind} {body if isinstance(body, str) else body.decode()}"


def _rule(kind: str, fault: HostFailure | Any) -> Rule:
    if isinstance(fault, HostFailure):
        return rule_for(kind, fault)
    return rule_for(kind, HostFailure("unreadable"))


def _status_texts(run: Run, start: float, end: float) -> list[tuple[float, str]]:
    """The overlay's status line at ``start`` and every text it showed until ``end``."""
    shown: list[tuple[float, str]] = []
    for t, s in run.host.sent_at:
        if t > end or s.kind != "panel.props" or getattr(s.params, "panel", "") != "overlay":
            continue
        for name, value in getattr(s.params, "props", []):
            if name == "status-text":
                if t <= start:
                    shown = []
                shown.append((t, str(value.model_dump()["v"])))
    return shown


def _status_keys(run: Run, start: float, end: float) -> list[str]:
    """The status line's catalog key at ``start`` and every key it took until ``end``."""
    statuses = run.driver.statuses
    before = [key for at, key in statuses if at <= start][-1:]
    return [k for k in before + [key for at, key in statuses if start < at <= end] if k]


def _in_their_language(run: Run, shown: list[tuple[float, str]]) -> bool:
    """Some text is a message of the catalog of the locale the person had when it showed."""
    patterns = catalog_patterns()  # as a transcript shows them: a scheme redacted like a URL
    for t, text in shown:
        locale = "ja-JP" if t >= run.locale_at else "en-US"
        redacted = URL_PATTERN.sub(URL_PLACEHOLDER, text)
        if text and any(p.fullmatch(redacted) for _, p in patterns[locale]):
            return True
    return False


def _played(run: Run, start: float, end: float | None) -> bool:
    return any(
        s.kind == "audio.play" and isinstance(out, Reply) and start <= t < (end or float("inf"))
        for t, s, out in run.host.answered
    )


def _recovered_before_retry(host: Host, first: Send) -> bool:
    """Another request of the kind answered between the failure and the retry: the kind is
    healthy again, and the retry need not wait out its backoff."""
    at = [i for i, (_, s, _) in enumerate(host.answered) if s.ticket == first.ticket]
    return any(
        s.kind == first.kind and isinstance(out, Reply)
        for _, s, out in host.answered[at[0] : at[1]]
    )


def _opened_after(host: Host, t: float) -> bool:
    return any(
        s.kind == "media.open" and isinstance(out, Reply) and at >= t
        for at, s, out in host.answered
    )


def _cells() -> list[Any]:
    return [
        pytest.param(m, o, c, mode, id=f"{m}.{o}={c}@{mode}") for m, o, c, mode in fm.cases(PAIRS)
    ]


@pytest.mark.parametrize(("method", "op", "code", "mode"), _cells())
def test_every_cell_gets_its_rows_decision_without_a_crash_or_a_storm(
    method: str, op: str, code: str, mode: str
) -> None:
    kind = f"{method}.{op}"
    fault = failure(kind, code)
    host = Host(granted=granted())
    if mode == "1":
        host.faults[kind] = [fault]
    else:
        host.windows[kind] = (fault, WINDOW_S)
    run = session(host)  # an exception from the core fails here: no answer may crash it
    assert run.driver.exit is None
    assert not host.named_unput, "props named an asset key before its put answered ok"

    sends = [(t, s) for t, s in host.sent_at if s.kind == kind]
    start = sends[0][0]
    faulted = sends[:1] if mode == "1" else [(t, s) for t, s in sends if t <= start + WINDOW_S]

    # No storm: retries bounded per request, the kind's own sends per window, a person's pace.
    healthy_counts = Counter(_identity(s) for _, s in HEALTHY.host.sent_at if s.kind == kind)
    counts = Counter(_identity(s) for _, s in sends)
    worst = max((n - healthy_counts[key], key) for key, n in counts.items())
    assert worst[0] <= MAX_RETRIES, worst
    own = by_itself(host.sent_at)
    windowed = [s for t, s in own if s.kind == kind and start <= t <= start + WINDOW_S]
    healthy = busiest([t for t, s in by_itself(HEALTHY.host.sent_at) if s.kind == kind], WINDOW_S)
    # A run whose plays failed has no Recent place, so the person's folder steps may land on a
    # folder the healthy run never loaded: the bound is the distinct requests it planned, at least.
    planned = len({_identity(s) for s in windowed})
    assert len(windowed) <= max(healthy, planned) + EXTRA_REQUESTS
    presses: dict[str, list[float]] = {}
    for t, s in asked(host.sent_at):
        presses.setdefault(_identity(s), []).append(t)
    assert all(busiest(times, 1.0) <= PRESSES_PER_S for times in presses.values())

    # The row's decision for the first faulted request: retried after a bounded backoff, or
    # never sent again.
    rule = _rule(kind, fault)
    first_t, first = faulted[0]
    again = [t for t, s in sends if s.ticket == first.ticket][1:]
    if rule.action is Action.RETRY and mode == "1" and not first.user_asked:
        assert again, f"{kind} {code}: the row retries, and it was not sent again"
        assert again[0] - first_t <= MAX_DELAY_S
        if again[0] - first_t < (1 - JITTER) * FIRST_DELAY_S:  # early: the kind answered
            assert _recovered_before_retry(host, first), f"{kind} {code}: retried at once"
    if rule.action is not Action.RETRY:
        assert not again, f"{kind} {code}: the row does not retry, and it was sent again"

    # A person's request that failed and was not got by a retry: a notice, in their language.
    for t, s in faulted:
        got = any(
            x.ticket == s.ticket and isinstance(out, Reply) and at > t
            for at, x, out in host.answered
        )
        if not s.user_asked or (s.namespace, s.op) not in USER_PAIRS or got:
            continue
        if rule.action is Action.LOST and kind == "media.reload":  # the session is gone: the
            assert _opened_after(host, t), "a reload of a lost session did not open again"
        if rule.notice is None:  # the row has nothing to tell (a stop of a sound the host no
            continue  # longer has, a session already gone, an open reconciled from snapshots)
        if s.ticket in {x.ticket for at, x in faulted if at < t}:
            continue  # a retry of one already judged
        shown = _status_texts(run, t, t + NOTICE_WITHIN_S)
        assert _in_their_language(run, shown), f"no notice for the person's {kind} at {t:.2f}"
        keys = _status_keys(run, t, t + NOTICE_WITHIN_S)
        if kind.startswith("media."):  # the deck words its own, naming the slot
            assert any(k.startswith("media.") for k in keys), keys
        else:  # the row's own notice, not some other one that happened to be showing
            assert rule.notice in keys, (rule.notice, keys)

    # The function is back: slot 1 plays after the window (another slot, or none left to play,
    # when the faulted load refused a file for good).
    slot_1 = _played(run, run.presses[1], run.presses[2])
    refused = kind == "audio.load" and code in REFUSED_FOR_GOOD
    other = refused and (_played(run, run.presses[2], None) or not host.reported_loaded)
    assert slot_1 or other, "play-slot-1 did not play after the fault window"

    # The person's settings are kept: in the core, and in kv unless the row refused the write.
    # Play counts are left out: a faulted play is rightly not counted.
    kept = _uncounted(run.driver.core.prefs.get(DING))
    assert kept == _uncounted(HEALTHY.driver.core.prefs.get(DING)) and kept.gain == 60, kept
    if kind != "kv.set" or rule.action is Action.RETRY:
        healthy, faulted_kv = _settings_in(HEALTHY.host.kv), _settings_in(host.kv)
        lost = {k: v for k, v in healthy.items() if faulted_kv.get(k) != v}
        assert not lost, f"settings not kept: {lost}"


def _uncounted(prefs: SoundPrefs) -> SoundPrefs:
    return replace(prefs, plays=0, last_played=None)


def _settings_in(kv: dict[str, Any]) -> dict[str, Any]:
    """Every kv key's value, a page of sound records read without its play counts."""
    out: dict[str, Any] = {}
    for key, value in kv.items():
        parsed = parse_page_key(key)
        page = read_page(parsed[0], value) if parsed is not None else None
        if page is None:
            out[key] = value
            continue
        uncounted = {n: _uncounted(p) for n, p in page[1].items()}
        out[key] = {n: p for n, p in uncounted.items() if not p.is_default}
    return out


def _startup_cells() -> list[Any]:
    return [pytest.param(m, o, c, id=f"{m}.{o}={c}") for m, o, c in fm.startup_cases()]


STARTUP_LIBRARY = ("01 Beep.wav", "02 Boop.wav")


def _startup(kind: str | None = None, code: str = "") -> Host:
    host = Host(granted=granted())
    if kind is not None:
        host.faults[kind] = [failure(kind, code)]
    d = Driver(host, library(*STARTUP_LIBRARY))
    d.connect(settle=RETRY_FAILED_AFTER_S)  # start-up over, and the loads' failures old
    d.invoke("play-slot-1", settle=0.5)
    assert d.exit is None
    return host


STARTUP_HEALTHY = Counter(s.kind for s in _startup().sent)


def test_every_start_up_request_kind_is_in_the_start_up_matrix() -> None:
    """A request kind added to start-up shows up here, so it gets its faults too."""
    startup = {f"{m}.{o}" for m, o in fm.STARTUP}
    assert set(STARTUP_HEALTHY) - {"audio.play", "bus.publish"} <= startup
    assert startup - {"kv.get"} <= set(STARTUP_HEALTHY)  # kv.get: only with stored records


@pytest.mark.parametrize(("method", "op", "code"), _startup_cells())
def test_a_wrong_first_answer_at_start_up_neither_crashes_nor_storms(
    method: str, op: str, code: str
) -> None:
    kind = f"{method}.{op}"
    host = _startup(kind, code)
    assert not host.named_unput, "props named an asset key before its put answered ok"
    slack = fm.PACED.get((method, op), MAX_RETRIES)
    counts = Counter(s.kind for s in host.sent)
    assert counts[kind] <= STARTUP_HEALTHY[kind] + slack, counts
    if code in fm.SLOT_1_VERDICTS.get((method, op), ()):
        return
    assert any(s.kind == "audio.play" and isinstance(out, Reply) for _, s, out in host.answered)


def test_the_cells_are_the_real_process_matrix() -> None:
    """The in-memory session sends every kind the process-level tests sample, and each pair's
    cells are its namespace's codes, -32603 and an unknown code, in both modes."""
    cells = fm.cases(PAIRS)
    assert len(cells) == sum(2 * (len(fm.codes_for(m)) + 2) for m, _ in PAIRS)
    assert set(fm.STARTUP) <= set(PAIRS)
