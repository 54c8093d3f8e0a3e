"""A request's final outcome, and what is said about it: the types every feature's ``done``
reads, and the default notice or log line when the feature says nothing itself.

A feature reads the decision, never the host's code: :attr:`Outcome.action` is the policy
table's row for (request, code) (``DONE`` on success; a ``RETRY`` whose retries ran out is
``LATER``), :attr:`Outcome.reason` the catalog key a person reads, and the row's flags
(:attr:`Outcome.refused`, :attr:`Outcome.gone`) what else the row decided.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from cueboard.core.contract import StatusLevel

from .effects import Effect, HostFailure, Log, Notice, Send
from .policy import Action, Rule
from .reasons import LOAD_FAILED, load_failure_key

__all__ = ["Done", "Outcome", "default_report", "describe", "notice_for"]


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
    def action(self) -> Action:
        """What the outcome means for the feature: the one failure vocabulary."""
        rule = self.rule
        if self.failure is None or rule is None:
            return Action.DONE
        return Action.LATER if rule.action is Action.RETRY else rule.action

    @property
    def reason(self) -> str | None:
        """The catalog key a person reads for this failure (None: only logged)."""
        return self.rule.notice if self.failure is not None and self.rule is not None else None

    @property
    def refused(self) -> bool:
        """The row's word: the namespace refused what was asked, with a code of its own."""
        return self.failure is not None and self.rule is not None and self.rule.refused

    @property
    def gone(self) -> bool:
        """The row's word: the request's connection is gone, so nothing it asked can happen."""
        return self.failure is not None and self.rule is not None and self.rule.gone

    @property
    def code(self) -> str:
        """The failure's code as text, for a log line or a notice."""
        f = self.failure
        if f is None:
            return ""
        return str(f.code) if f.code is not None else f.kind


type Done = Callable[[Outcome], list[Effect]]


def default_report(outcome: Outcome) -> list[Effect]:
    """A notice when the user asked and the rule has one, else a log line."""
    rule, failure, send = outcome.rule, outcome.failure, outcome.send
    if rule is None or failure is None:
        return []
    asked = send.user_asked and rule.action is not Action.RECONCILE
    if rule.notice is not None and (asked or rule.told):
        return [notice_for(outcome)]
    return [Log(rule.level, f"{send.kind}: {describe(failure)} ({rule.action})")]


def notice_for(outcome: Outcome, **params: str | int) -> Notice:
    rule = outcome.rule
    key = rule.notice if rule is not None and rule.notice else "notice.host_error"
    refs = {"what": f"what.{outcome.send.kind}"}
    if key == LOAD_FAILED:  # a sound's own failure is said in words, as its tile says it
        refs["reason"] = load_failure_key(str(outcome.code))
    fixed: Mapping[str, str] = rule.params if rule is not None else {}
    level = rule.tone if rule is not None else StatusLevel.ERROR
    values = {"code": outcome.code, "name": "", "channel": "", **fixed, **params}
    return Notice(key, level, params=values, refs=refs)


def describe(failure: HostFailure) -> str:
    code = "" if failure.code is None else f" {failure.code}"
    return f"{failure.kind}{code}"
