"""Every request the core sends, until its outcome is final: the one place that reads the policy.

A feature asks with :meth:`Tracker.request` (a request model's class and fields, what result
it expects, and what to do with the outcome). The tracker builds the model (a value outside the
spec's limits is an ``invalid`` failure, handled like any other, not an exception), gives it a
ticket, and hands back the :class:`Send`. When a :class:`Reply` or :class:`Failure` of that
ticket comes in, a reply of the wrong type (a result tag this SDK does not know) counts as an
``unreadable`` failure, and a failure is looked up in :mod:`cueboard.core.policy`: a retry is
scheduled with a :class:`Wake` (the same ticket goes out again on its :class:`Tick`), anything
else reaches the feature as final, with its rule. Nothing here raises on what the host says.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from random import Random
from typing import Any, cast

from pydantic import BaseModel, ValidationError

from vxp.prepared import Prepared

from .effects import Effect, Failure, HostFailure, Log, Notice, Reply, Send, Tick, Tickets, Wake
from .policy import MAX_RETRIES, Action, Rule, backoff, rule_for
from .reasons import LOAD_FAILED, load_failure_key

__all__ = ["Done", "Outcome", "Tracker", "default_report", "notice_for", "outcome_input"]

RETRY_WAKE = "retry:"


@dataclass(frozen=True, slots=True)
class Outcome:
    """The final outcome of one request: ``result`` on success, else ``failure`` and ``rule``."""

    send: Send
    now: float
    result: Any = None
    failure: HostFailure | None = None
    rule: Rule | None = None
    retries: int = 0

    @property
    def ok(self) -> bool:
        return self.failure is None

    @property
    def code(self) -> str:
        """The failure's code as text, for a log line or a notice."""
        f = self.failure
        if f is None:
            return ""
        return str(f.code) if f.code is not None else f.kind


type Done = Callable[[Outcome], list[Effect]]


@dataclass(slots=True)
class _Pending:
    send: Send
    expect: type | tuple[type, ...] | None
    done: Done
    first_at: float
    retries: int = 0
    waiting: bool = False  # a retry is scheduled, nothing in flight


def _ignore(outcome: Outcome) -> list[Effect]:
    return []


class Tracker:
    """Requests in flight and their retries, for one core (all its features share it)."""

    def __init__(self, tickets: Tickets, rng: Random) -> None:
        self._tickets = tickets
        self._rng = rng
        self._pending: dict[int, _Pending] = {}
        self.retries_sent = 0

    def __len__(self) -> int:
        return len(self._pending)

    def kinds_in_flight(self) -> list[str]:
        return [p.send.kind for p in self._pending.values()]

    # -- asking ---------------------------------------------------------------------------

    def request(
        self,
        now: float,
        namespace: str,
        model: Callable[..., BaseModel] | BaseModel | Prepared,
        /,
        *,
        expect: type | tuple[type, ...] | None = None,
        done: Done = _ignore,
        user_asked: bool = False,
        **fields: Any,
    ) -> list[Effect]:
        """The effects that send one request (or report it refused before sending)."""
        ticket = self._tickets()
        if isinstance(model, BaseModel | Prepared):
            params: BaseModel | Prepared = model
        else:
            try:
                params = model(**fields)
            except ValidationError as exc:
                kind = f"{namespace}.{fields.get('op', _op_of(model))}"
                failure = HostFailure("invalid", _domain_code(exc), "outside the spec's limits")
                unsent = cast(BaseModel, _Unsent(kind.split(".", 1)[1]))
                send = Send(ticket, namespace, unsent, user_asked)
                return self._final(_Pending(send, expect, done, now), failure, now)
        send = Send(ticket, namespace, params, user_asked)
        self._pending[ticket] = _Pending(send, expect, done, now)
        return [send]

    def track(self, send: Send, now: float, done: Done, expect: type | None = None) -> None:
        """Follow a request another component built (it keeps its own ticket)."""
        self._pending[send.ticket] = _Pending(send, expect, done, now)

    # -- outcomes -------------------------------------------------------------------------

    def owns(self, ticket: int) -> bool:
        return ticket in self._pending

    def on_reply(self, reply: Reply, now: float) -> list[Effect]:
        pending = self._pending.get(reply.ticket)
        if pending is None or pending.waiting:
            return []
        unknown = type(reply.result).__name__.endswith("Unknown")  # a tag from a newer host
        if unknown or (pending.expect is not None and not isinstance(reply.result, pending.expect)):
            tag = getattr(reply.result, "result", None)
            code = tag if isinstance(tag, str) else None
            return self.on_failure(Failure(reply.ticket, HostFailure("unreadable", code)), now)
        del self._pending[reply.ticket]
        return pending.done(Outcome(pending.send, now, reply.result, retries=pending.retries))

    def on_failure(self, failure: Failure, now: float) -> list[Effect]:
        pending = self._pending.get(failure.ticket)
        if pending is None or pending.waiting:
            return []
        rule = rule_for(pending.send.kind, failure.failure)
        if rule.action is Action.RETRY and pending.retries < MAX_RETRIES:
            deadline = None if rule.deadline_s is None else pending.first_at + rule.deadline_s
            at = now + backoff(pending.retries + 1, self._rng)
            if deadline is None or at <= deadline:
                pending.retries += 1
                pending.waiting = True
                return [
                    Log(
                        logging.DEBUG,
                        f"{pending.send.kind}: {_describe(failure.failure)}; retry "
                        f"{pending.retries} of {MAX_RETRIES}",
                    ),
                    Wake(f"{RETRY_WAKE}{failure.ticket}", at),
                ]
        del self._pending[failure.ticket]
        return self._final(pending, failure.failure, now, rule)

    def on_tick(self, tick: Tick) -> list[Effect]:
        """A retry's time has come: the same request goes out again."""
        if not tick.key.startswith(RETRY_WAKE):
            return []
        ticket = int(tick.key.removeprefix(RETRY_WAKE))
        pending = self._pending.get(ticket)
        if pending is None or not pending.waiting:
            return []
        pending.waiting = False
        self.retries_sent += 1
        return [pending.send]

    def connection_lost(self, now: float) -> list[Effect]:
        """Everything in flight or waiting to retry ends as ``closed`` (the next connection
        starts over): the features hear it, so no state waits forever."""
        pending = list(self._pending.values())
        self._pending.clear()
        out: list[Effect] = []
        for p in pending:
            out += self._final(p, HostFailure("closed"), now)
        return out

    def _final(
        self, pending: _Pending, failure: HostFailure, now: float, rule: Rule | None = None
    ) -> list[Effect]:
        rule = rule or rule_for(pending.send.kind, failure)
        outcome = Outcome(pending.send, now, failure=failure, rule=rule, retries=pending.retries)
        out = pending.done(outcome)
        if not any(isinstance(e, Notice | Log) for e in out):
            out = [*out, *default_report(outcome)]
        return out


def outcome_input(outcome: Outcome) -> Reply | Failure:
    """An outcome as the Reply or Failure a component that keeps its own tickets reads."""
    if outcome.failure is None:
        return Reply(outcome.send.ticket, outcome.result)
    return Failure(outcome.send.ticket, outcome.failure)


def default_report(outcome: Outcome) -> list[Effect]:
    """A notice when the user asked and the rule has one, else a log line."""
    rule, failure, send = outcome.rule, outcome.failure, outcome.send
    if rule is None or failure is None:
        return []
    if send.user_asked and rule.notice is not None and rule.action is not Action.RECONCILE:
        return [notice_for(outcome)]
    return [Log(rule.level, f"{send.kind}: {_describe(failure)} ({rule.action})")]


def notice_for(outcome: Outcome, **params: str | int) -> Notice:
    rule = outcome.rule
    key = rule.notice if rule is not None and rule.notice else "notice.host_error"
    refs = {"what": f"what.{outcome.send.kind}"}
    if key == LOAD_FAILED:  # a sound's own failure is said in words, as its tile says it
        refs["reason"] = load_failure_key(str(outcome.code))
    return Notice(
        key, params={"code": outcome.code, "name": "", "channel": "", **params}, refs=refs
    )


def _describe(failure: HostFailure) -> str:
    code = "" if failure.code is None else f" {failure.code}"
    return f"{failure.kind}{code}"


def _op_of(model: object) -> str:
    fields: Any = getattr(model, "model_fields", None)
    if not isinstance(fields, Mapping):
        return "?"
    info: Mapping[str, Any] = cast(Mapping[str, Any], fields)
    default: Any = getattr(info.get("op"), "default", None)
    return default if isinstance(default, str) else "?"


def _domain_code(exc: ValidationError) -> str | None:
    from vxp.models.registry import domain_error_of

    coded = domain_error_of(exc)
    return coded[0] if coded is not None else None


@dataclass(frozen=True, slots=True)
class _Unsent:
    """Stands for a request model that could not be built (its fields broke the spec)."""

    op: str
