"""The host's one request hook: every injected fault passes through here.

Why one hook: a fault that a test injects must look, on the wire, exactly like what a real host
would send, and must be recorded as an injection rather than as the extension's violation.
If each namespace grew its own switches, each would answer a little differently, some would
run their side effects first, and the transcript could not tell a test's injection from a
host bug. With one hook between the checked request and the namespace, a faulted request never
reaches the namespace, every injection is one ``{"t", "injected"}`` transcript line, and a new
namespace is faultable the day it is registered.

The connection asks the hook three things: what to do with a request (``request``: answer it
otherwise, close, delay, duplicate), whether to refuse a hello (``rejection``), and what goes on
the wire around an outgoing frame (``outgoing``: ``--chaos`` only). Failures carried by events
(``fail-load``, ``fail-media``) are armed here too and consumed where the event is made.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from . import chaos
from .faults import FaultPlan, FaultRule

if TYPE_CHECKING:
    from .core import ExtensionHost

BOM = b"\xef\xbb\xbf"


@dataclass(frozen=True, slots=True)
class Verdict:
    """What happens to one request; the default lets it through untouched."""

    response: dict[str, Any] | None = None  # a whole response frame: the namespace is skipped
    close: bool = False
    delay_s: float = 0.0
    duplicate: bool = False


PASS = Verdict()


class RequestHook:
    def __init__(self, host: ExtensionHost) -> None:
        self.host = host
        self.plan = FaultPlan()
        self.chaos_seed: int | None = None
        self.requests = 0  # requests seen after welcome: the chaos request index
        self.frames_out = 0  # frames sent after welcome: the chaos outgoing index
        self.chaos_ended = False
        self.chaos_delay_scale = 1.0  # a test shrinks chaos's waits; the schedule stays the same

    def injected(self, kind: str, **details: Any) -> None:
        self.host.recorder.injected({"kind": kind, **details})

    # -- requests -------------------------------------------------------------------------------

    def request(self, method: str, op: str | None, rid: Any) -> Verdict:
        index = self.requests
        self.requests += 1
        rule = self.plan.answer_for(method, op)
        delay = self.plan.delay_for(method, op)
        if rule is not None:
            return self._fault(rule, rid, delay)
        if delay:
            self.injected("delay", method=method, op=op, id=rid, seconds=delay)
        if self.chaos_seed is None:
            return Verdict(delay_s=delay) if delay else PASS
        plan = chaos.request_plan(self.chaos_seed, index)
        if not plan.describe():
            return Verdict(delay_s=delay) if delay else PASS
        self.injected("chaos", index=index, method=method, op=op, id=rid, **plan.describe())
        response = None
        if plan.answer is not None:
            response = {"jsonrpc": "2.0", "id": rid, "result": plan.answer}
        chaos_delay = plan.delay_s * self.chaos_delay_scale
        return Verdict(response, False, max(delay, chaos_delay), plan.duplicate)

    def _fault(self, rule: FaultRule, rid: Any, delay: float) -> Verdict:
        answer = rule.answer
        self.injected(
            "fault",
            method=rule.method,
            op=rule.op,
            id=rid,
            answer=answer.describe(),
            when=rule.when.describe(),
            nth=rule.seen,
        )
        if answer.kind == "close":
            return Verdict(close=True)
        result = answer.result()
        if result is not None:
            return Verdict({"jsonrpc": "2.0", "id": rid, "result": result}, delay_s=delay)
        error = {"code": answer.code, "message": f"injected by vrosdev ({answer.code})"}
        return Verdict({"jsonrpc": "2.0", "id": rid, "error": error}, delay_s=delay)

    def rejection(self) -> str | None:
        code = self.plan.reject
        if code is not None:
            self.injected("reject", code=code)
        return code

    # -- outgoing frames (chaos) ----------------------------------------------------------------

    def outgoing(self, frame: dict[str, Any]) -> tuple[dict[str, Any], bytes]:
        """The frame as it will be sent, and the bytes that go before it on the wire."""
        if self.chaos_seed is None or self.chaos_ended:
            return frame, b""
        index = self.frames_out
        self.frames_out += 1
        plan = chaos.outgoing_plan(self.chaos_seed, index)
        if not plan.describe():
            return frame, b""
        self.injected("chaos", index=index, out=True, **plan.describe())
        if plan.unknown_field:
            frame = chaos.with_unknown_field(frame, index)
        prefix = b"".join(plan.lines) + (BOM if plan.bom else b"")
        return frame, prefix

    def end_chaos(self) -> bytes | None:
        """The oversized last frame, once; None when chaos is off or already ended."""
        if self.chaos_seed is None or self.chaos_ended:
            return None
        self.chaos_ended = True
        line = chaos.oversized_line()
        self.injected("chaos_end", bytes=len(line))
        return line
