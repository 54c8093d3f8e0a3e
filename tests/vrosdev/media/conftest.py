"""A media host on a hand-driven clock, with helpers that speak in wire dicts."""

from __future__ import annotations

from collections.abc import Hashable
from typing import Any

import pytest

from vrosdev.media import MediaHost, MediaTimings

TIMINGS = MediaTimings(opening_s=1.0, buffering_s=2.0, video_warm_s=0.5, play_s=10.0)
BUFFERED_AT = TIMINGS.opening_s + TIMINGS.buffering_s  # open at 0 -> playing at 3.0


class Clock:
    """The injected time source: tests move it, nothing else does."""

    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


class Harness:
    def __init__(self, mode: str = "simulate") -> None:
        self.clock = Clock()
        self.host = MediaHost(mode, clock=self.clock, timings=TIMINGS)  # type: ignore[arg-type]

    def connect(self, conn: Hashable = "a", version: str = "1.7") -> Hashable:
        self.host.connection_opened(conn, version)
        return conn

    def req(self, conn: Hashable, op: str, **fields: Any) -> dict[str, Any]:
        return self.host.handle(conn, {"op": op, **fields})

    def open(self, conn: Hashable = "a", key: str = "deck-1", **fields: Any) -> dict[str, Any]:
        fields.setdefault("url", "https://media.example/live.m3u8")
        return self.req(conn, "open", key=key, **fields)

    def row(self, conn: Hashable, session: str) -> dict[str, Any]:
        status = self.req(conn, "status", session=session)
        assert status["result"] == "status", status
        return status

    def at(self, when: float) -> frozenset[Hashable]:
        self.clock.now = when
        return self.host.tick()

    @staticmethod
    def code(result: dict[str, Any]) -> str:
        """The err code of a refused request (fails the test on any other result)."""
        assert result["result"] == "err", result
        return str(result["code"])


@pytest.fixture
def h() -> Harness:
    """A simulating host with one 1.7 connection, "a"."""
    harness = Harness()
    harness.connect("a", "1.7")
    return harness


@pytest.fixture
def unsupported() -> Harness:
    harness = Harness("unsupported")
    harness.connect("a", "1.7")
    return harness


@pytest.fixture
def harness() -> type[Harness]:
    """For tests that need their own host (other versions, several connections)."""
    return Harness
