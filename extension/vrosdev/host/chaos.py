"""``--chaos SEED``: a hostile host's schedule, a pure function of the seed and a frame index.

Two schedules, each keyed by its own index so that the process's timing cannot shift them:
the Nth request the extension sends (``request_plan``) and the Nth frame the host sends
(``outgoing_plan``). Each index draws from its own ``random.Random(f"{seed}:…:{index}")``, so
the same seed gives the same injections at the same indices on every run.

What a request may get: a response delayed up to 1 s (responses then arrive out of order),
a duplicated response, or an answer it never asked for: an unknown result tag or an unknown
error code (those requests do not reach the namespace). What an outgoing frame may get: a
blank, whitespace-only or non-JSON line before it, an unknown event or a response to an id
never sent before it, a BOM in front of it, an unknown field in it. The end of a chaos session
is one frame over 3 MiB (``oversized_line``), sent by the ``chaos-end`` script step or, when a
script never sends it, just before vrosdev shuts the extension down.
"""

from __future__ import annotations

import json
import random
from dataclasses import dataclass, field
from typing import Any

OVERSIZED_BYTES = 3 * 1024 * 1024 + 4096
NEVER_SENT_ID_BASE = 4_000_000_000  # far above any id an extension counts up to in a session

# Probabilities, one draw each per index (fixed draw count keeps the schedule stable).
P_DELAY = 0.06
P_DUPLICATE = 0.04
P_UNKNOWN_RESULT = 0.02
P_UNKNOWN_CODE = 0.02
P_BLANK = 0.04
P_WHITESPACE = 0.04
P_NOT_JSON = 0.03
P_UNKNOWN_EVENT = 0.05
P_STRAY_RESPONSE = 0.03
P_BOM = 0.06
P_UNKNOWN_FIELD = 0.10


@dataclass(frozen=True, slots=True)
class RequestChaos:
    delay_s: float = 0.0
    duplicate: bool = False
    answer: dict[str, Any] | None = None  # replaces the namespace's answer

    def describe(self) -> dict[str, Any]:
        out: dict[str, Any] = {}
        if self.delay_s:
            out["delay_s"] = self.delay_s
        if self.duplicate:
            out["duplicate"] = True
        if self.answer is not None:
            out["answer"] = self.answer
        return out


@dataclass(frozen=True, slots=True)
class OutgoingChaos:
    before: tuple[str, ...] = ()  # kinds of extra lines sent before the frame, in order
    bom: bool = False
    unknown_field: bool = False
    lines: tuple[bytes, ...] = field(default=(), repr=False)

    def describe(self) -> dict[str, Any]:
        out: dict[str, Any] = {}
        if self.before:
            out["before"] = list(self.before)
        if self.bom:
            out["bom"] = True
        if self.unknown_field:
            out["unknown_field"] = True
        return out


def _rng(seed: int, stream: str, index: int) -> random.Random:
    return random.Random(f"{seed}:{stream}:{index}")


def request_plan(seed: int, index: int) -> RequestChaos:
    rng = _rng(seed, "request", index)
    u = [rng.random() for _ in range(5)]
    delay = round(0.05 + 0.95 * u[4], 3) if u[0] < P_DELAY else 0.0
    answer: dict[str, Any] | None = None
    if u[2] < P_UNKNOWN_RESULT:
        answer = {"result": f"chaos_result_{index}", "chaos": True}
    elif u[3] < P_UNKNOWN_CODE:
        answer = {"result": "err", "code": f"chaos_code_{index}", "message": "chaos"}
    return RequestChaos(delay, u[1] < P_DUPLICATE, answer)


def outgoing_plan(seed: int, index: int) -> OutgoingChaos:
    rng = _rng(seed, "out", index)
    u = [rng.random() for _ in range(7)]
    before: list[str] = []
    lines: list[bytes] = []
    if u[0] < P_BLANK:
        before.append("blank")
        lines.append(b"\n")
    if u[1] < P_WHITESPACE:
        before.append("whitespace")
        lines.append(b" \t  \r\n")
    if u[2] < P_NOT_JSON:
        before.append("not_json")
        lines.append(b"vrosdev chaos: {this is not json\n")
    if u[3] < P_UNKNOWN_EVENT:
        before.append("unknown_event")
        event = {"event": f"chaos_event_{index}", "chaos": {"index": index}}
        lines.append(_line({"jsonrpc": "2.0", "method": "event", "params": event}))
    if u[4] < P_STRAY_RESPONSE:
        before.append("stray_response")
        stray = {"jsonrpc": "2.0", "id": NEVER_SENT_ID_BASE + index, "result": {"result": "ok"}}
        lines.append(_line(stray))
    return OutgoingChaos(tuple(before), u[5] < P_BOM, u[6] < P_UNKNOWN_FIELD, tuple(lines))


def with_unknown_field(frame: dict[str, Any], index: int) -> dict[str, Any]:
    """The frame with a field no version of the spec defines, where a newer host would add one:
    inside an event's params, inside a response's result object, and at the top."""
    out = {**frame, "chaos_top": index}
    params = out.get("params")
    if isinstance(params, dict):
        out["params"] = {**params, "chaos_field": {"index": index}}
    result = out.get("result")
    if isinstance(result, dict):
        out["result"] = {**result, "chaos_field": [index]}
    return out


def oversized_line() -> bytes:
    pad = "x" * OVERSIZED_BYTES
    return _line({"jsonrpc": "2.0", "method": "event", "params": {"event": "chaos", "pad": pad}})


def _line(obj: dict[str, Any]) -> bytes:
    return json.dumps(obj, separators=(",", ":")).encode() + b"\n"
