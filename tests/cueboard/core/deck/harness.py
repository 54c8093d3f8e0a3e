"""A deck core under test, fed by hand: every effect it returns is recorded, every Send waits
in ``outstanding`` until the test answers it, and a small host model answers for real.

The host model keeps what a vrOS host would (sessions by key, generations, kv and secrets), so
replies are consistent with what the core asked; a test picks which request is answered, in
which order, and with what failure.
"""

from __future__ import annotations

import json
import random
from dataclasses import dataclass, field
from typing import Any

from cueboard.core.deck import DeckCore, HostFacts
from cueboard.core.effects import Effect, Failure, HostFailure, Log, Notice, Reply, Send, Tickets
from cueboard.core.tracker import Tracker
from vxp.models import events, kv, media, secrets
from vxp.version import Version


def facts(version: str = "1.7", *, media: bool = True, secrets: bool = True) -> HostFacts:
    return HostFacts(Version.parse(version), media=media, secrets=secrets, now=0.0)


@dataclass
class HostSession:
    key: str
    session: str
    generation: int
    paused: bool = False
    volume_pct: int = 100
    muted: bool = False
    kind: str = "opening"


@dataclass
class Host:
    """Just enough of a vrOS host to answer the deck's requests consistently."""

    sessions: dict[str, HostSession] = field(default_factory=dict[str, HostSession])
    kv: dict[str, Any] = field(default_factory=dict[str, Any])
    secrets: dict[str, str] = field(default_factory=dict[str, str])
    opened: int = 0

    def by_key(self, key: str) -> HostSession | None:
        return next((s for s in self.sessions.values() if s.key == key), None)

    def answer(self, send: Send) -> Reply | Failure:
        """The outcome this host gives ``send`` (it does what was asked)."""
        p: Any = send.params
        fail = lambda code: Failure(send.ticket, HostFailure("domain", code))  # noqa: E731
        match p:
            case media.MediaOpen():
                if self.by_key(p.key) is not None:
                    return fail("busy")
                s = self.apply_open(p.key)
                return Reply(send.ticket, _opened(s))
            case media.MediaReload():
                s = self.sessions.get(p.session)
                if s is None:
                    return fail("no_such_session")
                s.generation += 1
                return Reply(send.ticket, _applied(s.generation))
            case media.MediaSet():
                s = self.sessions.get(p.session)
                if s is None:
                    return fail("no_such_session")
                for name in ("paused", "volume_pct", "muted"):
                    if getattr(p, name) is not None:
                        setattr(s, name, getattr(p, name))
                return Reply(send.ticket, _applied(s.generation))
            case media.MediaClose():
                if self.sessions.pop(p.session, None) is None:
                    return fail("no_such_session")
                return Reply(send.ticket, media.MediaClosed(result="closed"))
            case media.MediaStatus():
                s = self.sessions.get(p.session)
                if s is None:
                    return fail("no_such_session")
                status = _row(s) | {"result": "status"}
                return Reply(send.ticket, media.MediaStatusReply.model_validate(status))
            case kv.KvGet():
                return Reply(send.ticket, kv.KvValue(result="value", value=self.kv.get(p.key)))
            case kv.KvSet():
                self.kv[p.key] = json.loads(json.dumps(p.value))
                return Reply(send.ticket, kv.KvWritten(result="written", revision=1))
            case kv.KvDelete():
                self.kv.pop(p.key, None)
                return Reply(send.ticket, kv.KvDeleted(result="deleted"))
            case secrets.SecretGet():
                value = self.secrets.get(p.slot)
                return Reply(send.ticket, secrets.SecretValue(result="value", value=value))
            case secrets.SecretSet():
                self.secrets[p.slot] = p.value
                return Reply(send.ticket, secrets.SecretOk(result="ok"))
            case secrets.SecretDelete():
                self.secrets.pop(p.slot, None)
                return Reply(send.ticket, secrets.SecretOk(result="ok"))
            case _:
                raise AssertionError(f"the deck sent something unexpected: {send!r}")

    def apply_open(self, key: str) -> HostSession:
        self.opened += 1
        s = HostSession(key, f"m-{self.opened:08d}", 1)
        self.sessions[s.session] = s
        return s

    def snapshot(self) -> events.MediaSnapshot:
        return snapshot(*(_row(s) for s in self.sessions.values()))


def _opened(s: HostSession) -> media.MediaOpened:
    return media.MediaOpened(result="opened", session=s.session, source_generation=s.generation)


def _applied(generation: int) -> media.MediaApplied:
    return media.MediaApplied(result="applied", source_generation=generation)


def _row(s: HostSession) -> dict[str, Any]:
    return {
        "key": s.key,
        "session": s.session,
        "source_generation": s.generation,
        "playback": {"kind": s.kind},
        "video": "ready",
        "paused": s.paused,
        "volume_pct": s.volume_pct,
        "muted": s.muted,
    }


def row(key: str, session: str, generation: int, kind: str = "playing") -> dict[str, Any]:
    return _row(HostSession(key, session, generation, kind=kind))


def snapshot(*rows: dict[str, Any]) -> events.MediaSnapshot:
    return events.MediaSnapshot.model_validate(
        {"event": "media_snapshot", "granted": True, "sessions": list(rows)}
    )


def control(key: str, session: str, generation: int, action: dict[str, Any]) -> events.MediaControl:
    return events.MediaControl.model_validate(
        {
            "event": "media_control",
            "key": key,
            "session": session,
            "source_generation": generation,
            "action": action,
        }
    )


class FinalTracker(Tracker):
    """The core's tracker, each failure fed to it final: the deck's tests drive final
    outcomes (the tracker's retries and pacing are tested on their own)."""

    def __init__(self) -> None:
        super().__init__(Tickets(), random.Random(1))

    def on_failure(self, failure: Failure, now: float) -> list[Effect]:
        pending = self._pending.pop(failure.ticket, None)
        return [] if pending is None else self._final(pending, failure.failure, now)

    def owns(self, ticket: int) -> bool:
        return ticket in self._pending


@dataclass
class Deck:
    """A core, its host, and everything the core said."""

    tracker: FinalTracker = field(default_factory=FinalTracker)
    core: DeckCore = field(init=False)
    host: Host = field(default_factory=Host)
    outstanding: list[Send] = field(default_factory=list[Send])
    said: list[object] = field(default_factory=list[object])

    def __post_init__(self) -> None:
        self.core = DeckCore(self.tracker, lambda: 0.0)

    def feed(self, effects: list[object] | None) -> list[object]:
        got = list(effects or ())
        self.said += got
        self.outstanding += [e for e in got if isinstance(e, Send)]
        return got

    def take(self, ticket: int | None = None) -> Send:
        """The oldest outstanding request (or the one with ``ticket``), no longer outstanding."""
        send = next(s for s in self.outstanding if ticket is None or s.ticket == ticket)
        self.outstanding.remove(send)
        assert self.tracker.owns(send.ticket)
        return send

    def deliver(self, outcome: Reply | Failure) -> list[object]:
        """The host's answer, through the tracker, to the step that asked."""
        if isinstance(outcome, Reply):
            return self.feed(self.tracker.on_reply(outcome, 0.0))
        return self.feed(self.tracker.on_failure(outcome, 0.0))

    def answer(self, ticket: int | None = None) -> list[object]:
        send = self.take(ticket)
        return self.deliver(self.host.answer(send))

    def fail(self, failure: HostFailure, ticket: int | None = None) -> list[object]:
        send = self.take(ticket)
        return self.deliver(Failure(send.ticket, failure))

    def settle(self, limit: int = 100) -> None:
        """Answer every request, in order, until the core waits for nothing."""
        for _ in range(limit):
            if not self.outstanding:
                return
            self.answer()
        raise AssertionError("the deck kept asking")

    def connect(self, host: HostFacts | None = None) -> None:
        self.feed(self.core.connected(host or facts()))
        self.settle()

    def notices(self, effects: list[object] | None = None) -> list[Notice]:
        return [e for e in (self.said if effects is None else effects) if isinstance(e, Notice)]

    def logs(self) -> list[Log]:
        return [e for e in self.said if isinstance(e, Log)]

    def next_send(self) -> Send:
        assert self.outstanding, "the deck asked for nothing"
        return self.outstanding[0]


def op(send: Send) -> str:
    return f"{send.namespace}.{getattr(send.params, 'op', '?')}"


__all__ = ["Deck", "Host", "HostSession", "control", "facts", "op", "row", "snapshot"]
