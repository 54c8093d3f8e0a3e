"""Every request the core sends, until its outcome is final: the one place that reads the policy.

A feature asks with :meth:`Tracker.request` (a request model's class and fields, what result
it expects, and what to do with the outcome). The tracker builds the model (a value outside the
spec's limits is an ``invalid`` failure, handled like any other, not an exception), gives it a
ticket, and hands back the :class:`Send`. When a :class:`Reply` or :class:`Failure` of that
ticket comes in, a reply of the wrong type (a result tag this SDK does not know) counts as an
``unreadable`` failure, and a failure is looked up in :mod:`cueboard.core.policy`: a retry is
scheduled with a :class:`Wake` (the same ticket goes out again on its :class:`Tick`), anything
else reaches the feature as final, with its rule. Nothing here raises on what the host says.

Retries are paced per request kind, not per request: a host that fails one ``commands.register``
fails the other seventeen sent in the same breath, and a feature that plans again (the same
sound loaded ahead, the same icon put) must not start a fresh storm. So a kind the host is
failing is *strained* until one of its requests succeeds: one request, the probe, retries for
the whole kind, with a delay that grows with the kind's retries (:func:`policy.backoff`), while
the kind's other failed requests wait behind it. What a person asked for never waits behind
another: it is retried only within its deadline (:func:`_wait_s`), then they are told. The
probe's success sends every waiting request once more; when the probe fails for good, the next
waiting request becomes the probe. No request is sent more than ``1 + MAX_RETRIES`` times, and a
strained kind sends at most one retry per backoff step.

A request that failed for good is remembered: the same request (kind and parameters) planned
again by a feature within :data:`policy.GIVE_UP_MEMORY_S` is not sent: it ends at once with the
same failure, and the host is not asked what it just refused. What a person asks for
(``user_asked``) always goes out: a press is a person asking again, and storms of presses are
bounded by pacing (:mod:`cueboard.core.pacing`).
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from random import Random
from typing import Any, cast

from pydantic import BaseModel, ValidationError

from vxp.prepared import Prepared

from .effects import Effect, Failure, HostFailure, Log, Notice, Reply, Send, Tick, Tickets, Wake
from .outcomes import Done, Outcome, default_report, describe, notice_for
from .policy import (
    GIVE_UP_MEMORY_S,
    MAX_RETRIES,
    STRAIN_MEMORY_S,
    USER_WAIT_S,
    Action,
    Rule,
    backoff,
    rule_for,
)

__all__ = ["Done", "Outcome", "Tracker", "default_report", "notice_for"]

RETRY_WAKE = "retry:"
# Failures the host would answer again at once; the others ask the feature to act (reconcile,
# reload, make room, open again) or end with the connection.
_REMEMBERED = frozenset(
    {Action.RETRY, Action.LATER, Action.FINAL, Action.DENIED, Action.UNSUPPORTED}
)
REMEMBERED_PER_KIND = 512  # failed requests remembered per kind, at most


@dataclass(slots=True)
class _Pending:
    send: Send
    expect: type | tuple[type, ...] | None
    done: Done
    first_at: float
    retries: int = 0
    waiting: bool = False  # not in flight: its retry is scheduled, or it waits for the probe


@dataclass(slots=True)
class _Strain:
    """A request kind the host is failing: one request (the probe) retries for all of them."""

    strikes: int = 0  # retries this kind has sent since the strain began: the backoff step
    probe: int | None = None  # the ticket whose retry is scheduled or in flight
    held: list[int] = field(default_factory=list[int])  # failed once, waiting for the probe
    last_failure_at: float = 0.0


def _ignore(outcome: Outcome) -> list[Effect]:
    return []


class Tracker:
    """Requests in flight and their retries, for one core (all its features share it)."""

    def __init__(self, tickets: Tickets, rng: Random) -> None:
        self._tickets = tickets
        self._rng = rng
        self._pending: dict[int, _Pending] = {}
        self._strained: dict[str, _Strain] = {}
        # kind -> the request's body -> (when, its failure): requests that failed for good
        self._gave_up: dict[str, dict[bytes, tuple[float, HostFailure]]] = {}

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
        recall: bool = True,
        **fields: Any,
    ) -> list[Effect]:
        """The effects that send one request (or report it refused before sending). ``done``
        is the one continuation: it receives the final outcome, with the policy's decision.
        ``recall=False``: a request that failed for good lately goes out all the same."""
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
        pending = _Pending(send, expect, done, now)
        remembered = self._remembered(send, now) if recall else None
        if remembered is not None:  # planned again: the host's answer would be the same
            return self._final(pending, remembered, now, remember=False)
        self._pending[ticket] = pending
        return [send]

    def _remembered(self, send: Send, now: float) -> HostFailure | None:
        by_body = self._gave_up.get(send.kind)
        if not by_body or send.user_asked:
            return None
        body = _body(send.params)
        entry = by_body.get(body)
        if entry is None:
            return None
        failed_at, failure = entry
        if now - failed_at >= GIVE_UP_MEMORY_S:
            del by_body[body]
            return None
        return failure

    def _remember(self, send: Send, failure: HostFailure, rule: Rule, now: float) -> None:
        if rule.action not in _REMEMBERED or failure.kind == "closed":
            return  # the feature acts on it (reconcile, reload, make room); a new connection
        if isinstance(send.params, _Unsent):
            return  # a refused model was never sent
        by_body = self._gave_up.setdefault(send.kind, {})
        body = _body(send.params)
        by_body.pop(body, None)
        by_body[body] = (now, failure)
        if len(by_body) > REMEMBERED_PER_KIND:
            for key in [k for k, (at, _) in by_body.items() if now - at >= GIVE_UP_MEMORY_S]:
                del by_body[key]
            while len(by_body) > REMEMBERED_PER_KIND:
                del by_body[next(iter(by_body))]

    # -- outcomes -------------------------------------------------------------------------

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
        out = pending.done(Outcome(pending.send, now, reply.result, retries=pending.retries))
        return out + self._recovered(pending.send.kind)

    def on_failure(self, failure: Failure, now: float) -> list[Effect]:
        ticket = failure.ticket
        pending = self._pending.get(ticket)
        if pending is None or pending.waiting:
            return []
        kind = pending.send.kind
        rule = rule_for(kind, failure.failure)
        strain = self._strained.get(kind)
        if rule.action is not Action.RETRY:
            del self._pending[ticket]
            out = self._final(pending, failure.failure, now, rule)
            if strain is not None and strain.probe == ticket:
                out += self._probe_ended(kind, strain, failure.failure, now)
            return out
        if strain is None or (
            strain.probe is None
            and not strain.held
            and now - strain.last_failure_at >= STRAIN_MEMORY_S
        ):
            strain = self._strained[kind] = _Strain()
        strain.last_failure_at = now
        if strain.probe in (None, ticket):
            at = now + backoff(strain.strikes + 1, self._rng)
            wait = _wait_s(pending, rule)
            deadline = None if wait is None else pending.first_at + wait
            if pending.retries < MAX_RETRIES and (deadline is None or at <= deadline):
                return self._schedule(strain, pending, ticket, failure.failure, at)
            del self._pending[ticket]
            out = self._final(pending, failure.failure, now, rule)
            if strain.probe == ticket:
                out += self._probe_ended(kind, strain, failure.failure, now)
            return out
        if _wait_s(pending, rule) is None and pending.retries < MAX_RETRIES:
            pending.waiting = True  # another request of this kind retries for it
            strain.held.append(ticket)
            return [Log(logging.DEBUG, f"{kind}: {describe(failure.failure)}; waits")]
        del self._pending[ticket]
        return self._final(pending, failure.failure, now, rule)

    def _schedule(
        self, strain: _Strain, pending: _Pending, ticket: int, failure: HostFailure, at: float
    ) -> list[Effect]:
        strain.probe = ticket
        strain.strikes += 1
        pending.retries += 1
        pending.waiting = True
        return [
            Log(
                logging.DEBUG,
                f"{pending.send.kind}: {describe(failure)}; retry {pending.retries} of "
                f"{MAX_RETRIES}",
            ),
            Wake(f"{RETRY_WAKE}{ticket}", at),
        ]

    def _probe_ended(
        self, kind: str, strain: _Strain, failure: HostFailure, now: float
    ) -> list[Effect]:
        """The probe failed for good: the first waiting request becomes the probe, one backoff
        step later (one that has used its retries ends)."""
        strain.probe = None
        out: list[Effect] = []
        for ticket in list(strain.held):
            pending = self._pending.get(ticket)
            if pending is None or pending.retries >= MAX_RETRIES:
                strain.held.remove(ticket)
                if pending is not None:
                    del self._pending[ticket]
                    out += self._final(pending, failure, now)
        if strain.held:
            ticket = strain.held.pop(0)
            pending = self._pending[ticket]
            pending.waiting = False  # _schedule marks it waiting again, with its Wake
            at = now + backoff(strain.strikes + 1, self._rng)
            out += self._schedule(strain, pending, ticket, failure, at)
        return out

    def _recovered(self, kind: str) -> list[Effect]:
        """The kind answered: its strain is over, and every request waiting goes out again."""
        strain = self._strained.pop(kind, None)
        if strain is None:
            return []
        out: list[Effect] = []
        if strain.probe is not None:
            probe = self._pending.get(strain.probe)
            if probe is not None and probe.waiting:  # its retry is still scheduled: now
                probe.waiting = False
                out.append(probe.send)
        for ticket in strain.held:
            pending = self._pending.get(ticket)
            if pending is not None:
                pending.waiting = False
                pending.retries += 1
                out.append(pending.send)
        return out

    def on_tick(self, tick: Tick) -> list[Effect]:
        """A retry's time has come: the same request goes out again."""
        if not tick.key.startswith(RETRY_WAKE):
            return []
        ticket = int(tick.key.removeprefix(RETRY_WAKE))
        pending = self._pending.get(ticket)
        if pending is None or not pending.waiting:
            return []
        pending.waiting = False
        return [pending.send]

    def connection_lost(self, now: float) -> list[Effect]:
        """Everything in flight or waiting to retry ends as ``closed`` (the next connection
        starts over): the features hear it, so no state waits forever."""
        pending = list(self._pending.values())
        self._pending.clear()
        self._strained.clear()
        self._gave_up.clear()
        out: list[Effect] = []
        for p in pending:
            out += self._final(p, HostFailure("closed"), now)
        return out

    def _final(
        self,
        pending: _Pending,
        failure: HostFailure,
        now: float,
        rule: Rule | None = None,
        *,
        remember: bool = True,
    ) -> list[Effect]:
        rule = rule or rule_for(pending.send.kind, failure)
        outcome = Outcome(pending.send, now, failure=failure, rule=rule, retries=pending.retries)
        if remember:
            self._remember(pending.send, failure, rule, now)
        out = pending.done(outcome)
        if not any(isinstance(e, Notice | Log) for e in out):
            if remember:
                out = [*out, *default_report(outcome)]
            else:  # said when it failed; not again for each plan
                out = [*out, Log(logging.DEBUG, f"{pending.send.kind}: not sent again yet")]
        return out


def _wait_s(pending: _Pending, rule: Rule) -> float | None:
    """How long after its first send a request may still be retried (None: no limit). What a
    person asked for is told within :data:`policy.USER_WAIT_S`, not replayed long after."""
    if not pending.send.user_asked:
        return rule.deadline_s
    return USER_WAIT_S if rule.deadline_s is None else min(rule.deadline_s, USER_WAIT_S)


def _body(params: object) -> bytes:
    """A request's identity within its kind: its serialised parameters."""
    if isinstance(params, Prepared):
        return params.params_json
    if isinstance(params, BaseModel):
        return params.model_dump_json().encode()
    return repr(params).encode()


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
