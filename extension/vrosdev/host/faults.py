"""Faults on demand: which request gets which wrong answer, decided without I/O.

A rule names a request kind (``kv.set``, or ``kv`` for every op), an answer and when it
applies. Each rule counts the matching requests it has seen since it was added, so ``@2`` is
the second ``kv.set`` after ``--fault`` (launch) or after the ``fault`` script step. The clock is
injectable: a test drives an ``@3s`` window by moving a number, not by sleeping.

Forms (``--fault NAMESPACE.OP=CODE[WHEN]``, ``fault NAMESPACE.OP CODE [WHEN]``):

========================  ===================================================================
``CODE`` a word           the namespace's domain error ``{"result":"err","code":CODE}``
``CODE`` an integer       a JSON-RPC error object with that code (-32603, -32602, -32001, …)
``result:TAG``            a response of an unknown kind, ``{"result":"TAG"}`` (a newer host)
``close``                 no answer: the host closes the connection when the request arrives
``WHEN`` none or ``@N``   the first (or the Nth) matching request only
``@*``                    every matching request
``@N-M``                  the Nth to the Mth
``@Ts``                   every matching request for T seconds from the first one
========================  ===================================================================

In every case the faulted request never reaches the namespace: no side effect happens.
"""

from __future__ import annotations

import math
import re
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Literal

Clock = Callable[[], float]
AnswerKind = Literal["domain", "rpc", "result", "close"]

_TARGET = re.compile(r"^[a-z_]+(\.[a-z_]+)?$")
_CODE = re.compile(r"^[A-Za-z0-9_.:-]{1,64}$")
INJECTED_MESSAGE = "injected by vrosdev"


class FaultSpecError(ValueError):
    """A fault, delay or target that cannot be read; the message says which part."""


@dataclass(frozen=True, slots=True)
class Answer:
    kind: AnswerKind
    code: str | int | None = None

    def result(self) -> dict[str, Any] | None:
        """The ``result`` object of the response, or None for an error object / no answer."""
        if self.kind == "domain":
            return {"result": "err", "code": self.code, "message": INJECTED_MESSAGE}
        if self.kind == "result":
            return {"result": self.code}
        return None

    def describe(self) -> str | int:
        if self.kind == "result":
            return f"result:{self.code}"
        if self.kind == "close":
            return "close"
        assert self.code is not None
        return self.code


@dataclass(frozen=True, slots=True)
class When:
    first: int = 1
    last: float = 1  # math.inf: no end
    window_s: float | None = None

    def describe(self) -> str:
        if self.window_s is not None:
            return f"{self.window_s:g}s"
        if self.last == math.inf:
            return "*" if self.first == 1 else f"{self.first}-"
        if self.first == self.last:
            return str(self.first)
        return f"{self.first}-{int(self.last)}"


@dataclass(slots=True)
class FaultRule:
    method: str
    op: str | None  # None: every op of the namespace
    answer: Answer
    when: When = field(default_factory=When)
    seen: int = 0
    window_start: float | None = None

    @property
    def target(self) -> str:
        return self.method if self.op is None else f"{self.method}.{self.op}"

    def matches(self, method: str, op: str | None) -> bool:
        return method == self.method and (self.op is None or op == self.op)

    def take(self, now: float) -> bool:
        """Count one matching request; True when this one is to be faulted."""
        self.seen += 1
        if self.when.window_s is not None:
            if self.window_start is None:
                self.window_start = now
            return now - self.window_start < self.when.window_s
        return self.when.first <= self.seen <= self.when.last

    def spent(self, now: float) -> bool:
        if self.when.window_s is not None:
            return self.window_start is not None and now - self.window_start >= self.when.window_s
        return self.seen >= self.when.last


def parse_target(text: str) -> tuple[str, str | None]:
    if not _TARGET.fullmatch(text):
        raise FaultSpecError(f"{text!r} is not NAMESPACE.OP (or NAMESPACE)")
    method, _, op = text.partition(".")
    return method, op or None


def parse_answer(text: str) -> Answer:
    if text == "close":
        return Answer("close")
    if text.startswith("result:"):
        tag = text.removeprefix("result:")
        if not tag or not _CODE.fullmatch(tag):
            raise FaultSpecError(f"{text!r}: result: needs a tag")
        return Answer("result", tag)
    if re.fullmatch(r"-?\d+", text):
        return Answer("rpc", int(text))
    if not _CODE.fullmatch(text):
        raise FaultSpecError(f"{text!r} is not an error code")
    return Answer("domain", text)


def parse_when(text: str) -> When:
    """``""``/``N``, ``*``, ``N-M``, ``Ts`` (the text after ``@``)."""
    if text in ("", "1"):
        return When()
    if text == "*":
        return When(1, math.inf)
    if m := re.fullmatch(r"(\d+)", text):
        n = int(m[1])
        if n < 1:
            raise FaultSpecError("requests are counted from 1")
        return When(n, n)
    if m := re.fullmatch(r"(\d+)-(\d+)", text):
        lo, hi = int(m[1]), int(m[2])
        if not 1 <= lo <= hi:
            raise FaultSpecError(f"@{text}: a range is N-M with 1 <= N <= M")
        return When(lo, hi)
    if m := re.fullmatch(r"(\d+(?:\.\d+)?)s", text):
        return When(1, math.inf, float(m[1]))
    raise FaultSpecError(f"@{text}: expected N, *, N-M or a duration such as 3s")


def parse_fault(text: str) -> FaultRule:
    """``NAMESPACE.OP=CODE[@WHEN]`` (the ``--fault`` option)."""
    target, sep, rest = text.partition("=")
    if not sep:
        raise FaultSpecError(f"{text!r}: expected NAMESPACE.OP=CODE[@N|@*|@N-M|@Ts]")
    code, _, when = rest.partition("@")
    method, op = parse_target(target)
    return FaultRule(method, op, parse_answer(code), parse_when(when))


def parse_delay(text: str) -> tuple[str, str | None, float]:
    """``NAMESPACE.OP=SECONDS`` (the ``--delay`` option)."""
    target, sep, seconds = text.partition("=")
    try:
        value = float(seconds)
    except ValueError:
        value = -1.0
    if not sep or not 0 <= value <= 600:
        raise FaultSpecError(f"{text!r}: expected NAMESPACE.OP=SECONDS (0-600)")
    method, op = parse_target(target)
    return method, op, value


@dataclass(slots=True)
class LoadFailure:
    code: str
    sound: str | None  # a sound id, a part of the file name, or None: the next audio_loaded


class FaultPlan:
    """Everything a test asked to go wrong, consulted by the host's one request hook."""

    def __init__(self, clock: Clock = time.monotonic) -> None:
        self.clock = clock
        self.rules: list[FaultRule] = []
        self.delays: dict[tuple[str, str | None], float] = {}
        self.reject: str | None = None
        self.load_failures: list[LoadFailure] = []

    def add(self, rule: FaultRule) -> None:
        self.rules.append(rule)

    def remove(self, method: str | None = None, op: str | None = None) -> int:
        """Drop the rules of one target (all of them when ``method`` is None)."""
        keep = [r for r in self.rules if method is not None and (r.method, r.op) != (method, op)]
        dropped = len(self.rules) - len(keep)
        self.rules = keep
        return dropped

    def answer_for(self, method: str, op: str | None) -> FaultRule | None:
        """The rule that fires for this request, if any; every matching rule counts it."""
        now = self.clock()
        fired: FaultRule | None = None
        for rule in self.rules:
            if rule.matches(method, op) and rule.take(now) and fired is None:
                fired = rule
        return fired

    def delay_for(self, method: str, op: str | None) -> float:
        return self.delays.get((method, op), self.delays.get((method, None), 0.0))

    def take_load_failure(self, sound: str, path: str) -> str | None:
        """The code an armed ``fail-load`` gives this ``audio_loaded``, consumed once."""
        for i, failure in enumerate(self.load_failures):
            if failure.sound is None or failure.sound == sound or failure.sound in path:
                del self.load_failures[i]
                return failure.code
        return None
