"""What every fault-matrix run must show, read from vrosdev's transcript.

The checks (tests/e2e/fault_matrix.py runs the cases): no traceback; no exit before vrosdev's
``shutting_down``; at most 3 retries of any one request; no more requests of the faulted kind
in the 3 s after the first fault than the baseline's busiest 3 s plus 10, counting what the
extension sends by itself (retries and plans; a person's requests are theirs, bounded by pacing:
at most 10 a second of one request); ``play-slot-1`` plays
after the fault window (another slot when slot 1's own sound was refused for good, none when
every sound was); and a localized notice in the overlay's ``status-text`` when the failed
request was the user's and its retry did not get it either. Every transcript, a fault's, a
chaos seed's or another end-to-end test's (tests/e2e/harness.py): no ``panel.props`` names an
asset key before its put answered ``ok`` on that connection (docs/protocol-notes.md#r33).

Whose request it was and whether a notice followed are read from the order of the transcript's
events, never from how much time passed between them: a person's request is the first of its
kind and parameters after their step, and its notice shows after the failed answer and before
the person's press that follows the fault window (the run's tail). A busy machine stretches the
time between events, never their order. The decisions behind these checks (which row, which
notice, how long the backoff) are checked cell by cell in memory, on a virtual clock
(tests/cueboard/core/test_fault_decisions.py).
"""

from __future__ import annotations

import bisect
import json
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from cueboard.core.effects import HostFailure
from cueboard.core.policy import Rule, rule_for

from .catalog_text import catalog_patterns

REPO = Path(__file__).resolve().parents[2]
WINDOW_S = 3.0
MAX_RETRIES = 3
EXTRA_REQUESTS = 10
REFUSED_FOR_GOOD = frozenset({"not_found", "too_long", "undecodable"})
# A failure of a request a person asked for (a command or a panel callback) must reach the
# overlay's status line as a localized notice. Asked for: one of these kinds, the first of its
# kind and parameters after such a step. Background work (loads, saves, props) is not on this list.
USER_STEPS = ("script: invoke ", "script: click ")
USER_PAIRS = frozenset(
    {
        ("audio", "play"),
        ("audio", "stop"),
        ("audio", "stop_all"),
        ("media", "open"),
        ("media", "set"),
        ("media", "reload"),
        ("media", "close"),
    }
)
# The tail's press after the fault window (fault_matrix.TAIL): what a notice must come before.
TAIL_STEP = "script: invoke play-slot-1"
PERSON_PAIRS = USER_PAIRS | {("audio", "load")}
PRESSES_PER_S = 10  # the pace of a person's requests (extension/cueboard/core/pacing.py)

Case = tuple[str, str, str, str]  # method, op, code, mode ("1" or "3s")


@dataclass
class Transcript:
    lines: list[dict[str, Any]]

    def requests(self) -> list[tuple[float, dict[str, Any]]]:
        return [
            (x["t"], x["frame"])
            for x in self.lines
            if x.get("dir") == "ext>host"
            and isinstance(x.get("frame"), dict)
            and isinstance(x["frame"].get("method"), str)
            and x["frame"]["method"] != "hello"
        ]

    def pairs(self) -> list[tuple[str, str]]:
        seen: dict[tuple[str, str], None] = {}
        for _, frame in self.requests():
            seen[pair_of(frame)] = None
        return list(seen)

    def responses(self) -> dict[int, dict[str, Any]]:
        out: dict[int, dict[str, Any]] = {}
        for x in self.lines:
            frame = x.get("frame")
            rid = frame.get("id") if isinstance(frame, dict) else None
            if x.get("dir") == "host>ext" and isinstance(rid, int) and rid not in out:
                out[rid] = frame  # type: ignore[assignment]
        return out

    def injected(self, kind: str) -> list[tuple[float, dict[str, Any]]]:
        return [
            (x["t"], x["injected"]) for x in self.lines if x.get("injected", {}).get("kind") == kind
        ]

    def note_time(self, prefix: str, last: bool = False) -> float | None:
        times = [x["t"] for x in self.lines if str(x.get("note", "")).startswith(prefix)]
        if not times:
            return None
        return times[-1] if last else times[0]

    def named_before_put(self) -> list[str]:
        """Asset keys a ``panel.props`` named before their ``put`` answered ``ok`` on that
        connection (docs/protocol-notes.md#r33), as ``t key``. A ``hello`` starts a connection,
        with an empty table and request ids of its own."""
        problems: list[str] = []
        put: set[str] = set()
        puts: dict[int, str] = {}  # request id -> key, on this connection
        for x in self.lines:
            frame = x.get("frame")
            if not isinstance(frame, dict):
                continue
            params = frame.get("params") if isinstance(frame.get("params"), dict) else {}
            if x.get("dir") == "ext>host" and frame.get("method") == "hello":
                put, puts = set(), {}
            elif x.get("dir") == "ext>host" and frame.get("method") == "assets":
                if params.get("op") == "put" and isinstance(frame.get("id"), int):
                    puts[frame["id"]] = str(params.get("key"))
            elif x.get("dir") == "ext>host" and pair_of(frame) == ("panel", "props"):
                for _, value in params.get("props", []):
                    if isinstance(value, dict) and value.get("t") == "assets":
                        keys = [k for k in value.get("v", []) if k not in put]
                        problems += [f"{x['t']:.3f} {k}" for k in keys]
            elif x.get("dir") == "host>ext" and frame.get("id") in puts:
                key = puts.pop(frame["id"])
                if _ok(frame):
                    put.add(key)
        return problems

    def busiest(self, pair: tuple[str, str], window: float = WINDOW_S) -> int:
        times = [t for t, f in self.requests() if pair_of(f) == pair]
        best = 0
        for i, start in enumerate(times):
            best = max(best, sum(1 for t in times[i:] if t - start <= window))
        return best


def pair_of(frame: dict[str, Any]) -> tuple[str, str]:
    params = frame.get("params")
    op = params.get("op") if isinstance(params, dict) else None
    return str(frame["method"]), str(op) if isinstance(op, str) else ""


def request_key(frame: dict[str, Any]) -> str:
    return json.dumps([frame["method"], frame.get("params")], sort_keys=True)


@dataclass
class Outcome:
    case: Case | str
    code: int
    stderr: str
    transcript: Transcript
    problems: list[str] = field(default_factory=list[str])


def check_common(out: Outcome) -> None:
    t = out.transcript
    if "Traceback" in out.stderr:
        out.problems.append("a traceback on stderr")
    shutdown = any(
        x.get("dir") == "host>ext"
        and isinstance(x.get("frame"), dict)
        and (x["frame"].get("params") or {}).get("event") == "shutting_down"
        for x in t.lines
    )
    if not shutdown or out.code != 0:
        out.problems.append(f"the extension exited before the end (exit {out.code})")
    check_assets(out)


def check_assets(out: Outcome) -> None:
    unput = out.transcript.named_before_put()
    if unput:
        out.problems.append(f"props named asset keys before their put answered ok: {unput[:3]}")


def _any_loaded(t: Transcript) -> bool:
    """Some sound loaded: with every load refused for good, there is nothing left to play."""
    return any(
        isinstance(x.get("frame"), dict)
        and (x["frame"].get("params") or {}).get("event") == "audio_loaded"
        and (x["frame"]["params"].get("outcome") or {}).get("kind") == "loaded"
        for x in t.lines
        if x.get("dir") == "host>ext"
    )


def _ok(answer: dict[str, Any] | None) -> bool:
    result = (answer or {}).get("result")
    return isinstance(result, dict) and result.get("result") == "ok"


def played_after(t: Transcript, start: str, end: str | None) -> bool:
    """An ``audio play`` answered ``ok`` between two script notes."""
    t0 = t.note_time(start, last=True)
    t1 = t.note_time(end, last=True) if end else None
    if t0 is None:
        return False
    answers = t.responses()
    for ts, frame in t.requests():
        if ts < t0 or (t1 is not None and ts >= t1) or pair_of(frame) != ("audio", "play"):
            continue
        if _ok(answers.get(frame.get("id", -1))):
            return True
    return False


def check_case(out: Outcome, case: Case, base: Transcript) -> None:
    method, op, code, _ = case
    pair = (method, op)
    t = out.transcript
    check_common(out)
    faults = [(ts, f) for ts, f in t.injected("fault") if (f.get("method"), f.get("op")) == pair]
    if not faults:
        out.problems.append("the faulted request was never sent")
        return
    first_t = faults[0][0]
    # Retries: the same request sent more often than in the baseline session.
    base_counts = Counter(request_key(f) for _, f in base.requests() if pair_of(f) == pair)
    counts = Counter(request_key(f) for _, f in t.requests() if pair_of(f) == pair)
    worst = max((n - base_counts.get(k, 0) for k, n in counts.items()), default=0)
    if worst > MAX_RETRIES:
        out.problems.append(f"{worst} retries of one {method}.{op} request")
    own = by_itself(t)
    windowed = [f for ts, f in own if pair_of(f) == pair and 0 <= ts - first_t <= WINDOW_S]
    in_window = len(windowed)
    # A run whose plays failed has no Recent place, so the person's folder steps may land on a
    # folder the baseline never loaded: the bound is the distinct requests it planned, at least.
    planned = len({request_key(f) for f in windowed})
    healthy = _busiest([ts for ts, f in by_itself(base) if pair_of(f) == pair])
    bound = max(healthy, planned) + EXTRA_REQUESTS
    if in_window > bound:
        out.problems.append(f"{in_window} {method}.{op} requests in {WINDOW_S:g} s (bound {bound})")
    paced: dict[str, list[float]] = {}
    for ts, f in persons(t):
        paced.setdefault(request_key(f), []).append(ts)
    if any(_busiest(times, 1.0) > PRESSES_PER_S for times in paced.values()):
        out.problems.append(f"a person's request sent more than {PRESSES_PER_S} times a second")
    refused_for_good = pair == ("audio", "load") and code in REFUSED_FOR_GOOD
    slot_1 = played_after(t, "script: invoke play-slot-1", "script: invoke play-slot-2")
    other = refused_for_good and (
        played_after(t, "script: invoke play-slot-2", None) or not _any_loaded(t)
    )
    if not (slot_1 or other):
        out.problems.append("play-slot-1 did not play after the fault window")
    until = t.note_time(TAIL_STEP, last=True)
    asked = {id(f) for _, f in persons(t)}
    sent = {f.get("id"): f for _, f in t.requests()}
    silent = rule_of(method, op, code).notice is None  # the row has nothing to tell
    for ts, injected in faults:
        frame = sent.get(injected.get("id"))
        if pair not in USER_PAIRS or frame is None or id(frame) not in asked:
            continue
        if got_it_after(t, frame, ts, until):
            continue
        if silent:  # a stop of a sound the host no longer has, a session already gone (a
            continue  # reload opens it again: checked in memory, as an injected fault leaves
            # the session held here)
        if not status_notice_after(t, ts, until, expected_notice(method, op, code)):
            rid = injected.get("id")
            out.problems.append(f"no localized status notice for the user's request id {rid}")
            break


def rule_of(method: str, op: str, code: str) -> Rule:
    """The policy row for what vrosdev answered (``--fault`` forms: a word, an integer, or a
    result tag of a newer host)."""
    if code.startswith("result:"):
        failure = HostFailure("unreadable")
    elif code.lstrip("-").isdigit():
        failure = HostFailure("protocol", int(code))
    else:
        failure = HostFailure("domain", code)
    return rule_for(f"{method}.{op}", failure)


def persons(t: Transcript) -> list[tuple[float, dict[str, Any]]]:
    """A person's requests: of the kinds a step sends (a press, a deck action, the load a press
    asks for), the first of each request (kind and parameters) after the person's latest step.
    A later copy after the same step is a retry: the extension's own."""
    steps = sorted(x["t"] for x in t.lines if "note" in x and str(x["note"]).startswith(USER_STEPS))
    out: list[tuple[float, dict[str, Any]]] = []
    seen: set[tuple[float, str]] = set()
    for ts, f in t.requests():
        at = bisect.bisect_right(steps, ts)
        if pair_of(f) not in PERSON_PAIRS or at == 0:
            continue
        key = (steps[at - 1], request_key(f))
        if key not in seen:
            seen.add(key)
            out.append((ts, f))
    return out


def by_itself(t: Transcript) -> list[tuple[float, dict[str, Any]]]:
    """What the extension sends by itself: every request but a person's."""
    asked = {id(f) for _, f in persons(t)}
    return [(ts, f) for ts, f in t.requests() if id(f) not in asked]


def _busiest(times: list[float], window: float = WINDOW_S) -> int:
    times = sorted(times)
    counts = [sum(1 for x in times[i:] if x - start <= window) for i, start in enumerate(times)]
    return max(counts, default=0)


def _between(ts: float, at: float, until: float | None) -> bool:
    return at < ts and (until is None or ts <= until)


def got_it_after(t: Transcript, faulted: dict[str, Any], at: float, until: float | None) -> bool:
    """The faulted request, sent again after its failure and before ``until``, was answered
    ``ok`` (or another success tag): the person got what they asked for, and there is nothing
    to tell them."""
    key = request_key(faulted)
    answers = t.responses()
    for ts, frame in t.requests():
        if _between(ts, at, until) and request_key(frame) == key:
            result = (answers.get(frame.get("id", -1)) or {}).get("result")
            if isinstance(result, dict) and result.get("result") not in (None, "err"):
                return True
    return False


def expected_notice(method: str, op: str, code: str) -> Callable[[str], bool]:
    """Which catalog keys tell the person about this failure: the row's own notice, or for the
    deck (which words its own, naming the slot) any of its ``media.`` messages."""
    if method == "media":
        return lambda key: key.startswith("media.")
    notice = rule_of(method, op, code).notice
    return lambda key: key == notice


def status_notice_after(
    t: Transcript, at: float, until: float | None, wanted: Callable[[str], bool] = bool
) -> bool:
    """The overlay's status line shows a ``wanted`` message of the catalog of the locale
    current when it was sent, at ``at`` or at any change after it and before ``until`` (the
    same notice already showing counts: Cueboard need not send the same text again)."""
    locales = [
        (x["t"], str(x["note"]).removeprefix("script: locale ").strip())
        for x in t.lines
        if str(x.get("note", "")).startswith("script: locale ")
    ]
    catalogs = catalog_patterns()
    shown: list[tuple[float, str]] = []  # the status line at ``at``, then every change
    for ts, frame in t.requests():
        if (until is not None and ts > until) or pair_of(frame) != ("panel", "props"):
            continue
        if frame["params"].get("panel") != "overlay":
            continue
        for name, value in frame["params"].get("props", []):
            if name == "status-text" and isinstance(value, dict):
                if ts <= at:
                    shown = []
                shown.append((ts, str(value.get("v", ""))))
    for ts, text in shown:
        locale = ([name for when, name in locales if when <= ts] or ["en-US"])[-1]
        if text and any(wanted(k) and p.fullmatch(text) for k, p in catalogs.get(locale, [])):
            return True
    return False


def check_seed(out: Outcome) -> None:
    """A chaos run: plays until the oversized frame, then reconnects or exits cleanly."""
    t, rc, output = out.transcript, out.code, out.stderr
    if "Traceback" in output:
        out.problems.append("a traceback on stderr")
    check_assets(out)
    ends = t.injected("chaos_end")
    if not ends:
        out.problems.append("the session never reached its oversized last frame")
        return
    end_t = ends[0][0]
    answers = t.responses()
    plays = [
        f
        for ts, f in t.requests()
        if ts < end_t and pair_of(f) == ("audio", "play") and _ok(answers.get(f.get("id", -1)))
    ]
    if not plays:
        out.problems.append("nothing played before the oversized frame")
    hellos_after = [
        x["t"]
        for x in t.lines
        if x.get("dir") == "ext>host"
        and x["t"] > end_t
        and isinstance(x.get("frame"), dict)
        and x["frame"].get("method") == "hello"
    ]
    if not hellos_after and rc != 0:
        out.problems.append(f"no reconnect and no clean exit after the oversized frame ({rc})")
