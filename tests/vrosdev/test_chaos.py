"""``--chaos SEED``: a hostile host whose injections are the same for the same seed."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

import anyio
import pytest

from vrosdev.host import chaos
from vrosdev.script import ScriptRunner, parse

from .rawhost import RawPeer, RunningHost, config, running_host

pytestmark = pytest.mark.anyio

REQUESTS = 120


def test_same_seed_same_schedule_other_seed_other_schedule() -> None:
    def schedule(seed: int) -> list[Any]:
        return [
            (chaos.request_plan(seed, i).describe(), chaos.outgoing_plan(seed, i).describe())
            for i in range(400)
        ]

    assert schedule(7) == schedule(7)
    assert schedule(7) != schedule(8)


def test_the_schedule_holds_every_kind_of_injection() -> None:
    requests = [chaos.request_plan(11, i) for i in range(2000)]
    outgoing = [chaos.outgoing_plan(11, i) for i in range(2000)]
    assert any(0 < r.delay_s <= 1.0 for r in requests)
    assert all(r.delay_s <= 1.0 for r in requests)
    assert any(r.duplicate for r in requests)
    answers = [r.answer for r in requests if r.answer is not None]
    assert any(a["result"] == "err" and a["code"].startswith("chaos_code_") for a in answers)
    assert any(a["result"].startswith("chaos_result_") for a in answers)
    kinds = {k for o in outgoing for k in o.before}
    assert kinds == {"blank", "whitespace", "not_json", "unknown_event", "stray_response"}
    assert any(o.bom for o in outgoing) and any(o.unknown_field for o in outgoing)
    assert len(chaos.oversized_line()) > 3 * 1024 * 1024


@dataclass
class Seen:
    lines: list[bytes] = field(default_factory=list[bytes])
    responses: dict[int, list[dict[str, Any]]] = field(default_factory=dict[int, list[Any]])
    events: list[dict[str, Any]] = field(default_factory=list[dict[str, Any]])
    not_json: int = 0


class TolerantPeer:
    """Reads what a hostile host sends as a robust extension must: line by line, skipping
    blank lines and lines that are not JSON, stripping a BOM."""

    def __init__(self, peer: RawPeer) -> None:
        self.peer = peer
        self.seen = Seen()

    async def line(self) -> bytes:
        with anyio.fail_after(10):
            while b"\n" not in self.peer.buf:
                self.peer.buf += await self.peer.stream.receive()
        line, self.peer.buf = self.peer.buf.split(b"\n", 1)
        self.seen.lines.append(line)
        return line

    async def response(self, rid: int) -> dict[str, Any]:
        while rid not in self.seen.responses:
            text = (await self.line()).removeprefix(b"\xef\xbb\xbf").strip()
            if not text:
                continue
            try:
                frame = json.loads(text)
            except ValueError:
                self.seen.not_json += 1
                continue
            if frame.get("method") == "event":
                self.seen.events.append(frame["params"])
            else:
                self.seen.responses.setdefault(frame["id"], []).append(frame)
        return self.seen.responses[rid][0]


async def _session(seed: int) -> tuple[RunningHost, TolerantPeer]:
    async with running_host(config(chaos_seed=seed)) as h:
        h.host.hook.chaos_delay_scale = 0.01
        peer = TolerantPeer(await h.ready())
        for rid in range(2, 2 + REQUESTS):
            params = f'{{"op":"set","key":"k{rid % 5}","value":1}}'
            line = f'{{"jsonrpc":"2.0","id":{rid},"method":"kv","params":{params}}}'
            await peer.peer.send(line)
            await peer.response(rid)
    return h, peer


def _schedule(h: RunningHost) -> list[dict[str, Any]]:
    lines = [json.loads(x) for x in h.transcript().splitlines()]
    return [x["injected"] for x in lines if "injected" in x]


async def test_chaos_same_seed_same_injections_by_frame_index() -> None:
    first, peer = await _session(7)
    second, _ = await _session(7)
    other, _ = await _session(8)
    schedule = _schedule(first)
    assert schedule == _schedule(second)
    assert schedule != _schedule(other)
    assert all(x["kind"] == "chaos" for x in schedule)

    def count(kind: str) -> int:
        return sum(kind in x.get("before", ()) for x in schedule)

    seen = peer.seen
    assert count("not_json") > 0 and seen.not_json == count("not_json")
    assert count("blank") > 0
    assert sum(line == b"" for line in seen.lines) == count("blank")
    assert sum(line.strip() == b"" and line != b"" for line in seen.lines) == count("whitespace")
    boms = sum(bool(x.get("bom")) for x in schedule)
    assert boms > 0 and sum(line.startswith(b"\xef\xbb\xbf") for line in seen.lines) == boms
    unknown = [e for e in seen.events if e["event"].startswith("chaos_event_")]
    assert count("unknown_event") > 0 and len(unknown) == count("unknown_event")
    strays = [rid for rid in seen.responses if rid >= chaos.NEVER_SENT_ID_BASE]
    assert count("stray_response") > 0 and len(strays) == count("stray_response")
    duplicated = [x["id"] for x in schedule if x.get("duplicate")]
    assert duplicated and all(len(seen.responses[rid]) == 2 for rid in duplicated)
    answered = [seen.responses[rid][0]["result"] for rid in range(2, 2 + REQUESTS)]
    assert any("chaos_field" in a for a in answered)  # an unknown field in a response
    tags = [x["answer"]["result"] for x in schedule if "answer" in x]
    assert tags
    assert sum(a["result"].startswith("chaos_result_") for a in answered) == sum(
        t.startswith("chaos_result_") for t in tags
    )


async def test_chaos_end_sends_one_frame_over_3_mib_then_waits_for_a_new_hello() -> None:
    async with running_host(config(chaos_seed=3)) as h:
        peer = TolerantPeer(await h.ready())
        runner = ScriptRunner(h.host)
        async with anyio.create_task_group() as tg:
            tg.start_soon(runner.run_step, parse("chaos-end")[0])
            while len(line := await peer.line()) <= 3 * 1024 * 1024:
                pass
            assert json.loads(line)["params"]["event"] == "chaos"
            await peer.peer.stream.aclose()  # what the extension does (T-9): then hello again
            h.peers.remove(peer.peer)
            await h.ready()
        assert h.host.ready.is_set()
    ends = [x for x in _schedule(h) if x["kind"] == "chaos_end"]
    assert len(ends) == 1 and ends[0]["bytes"] > 3 * 1024 * 1024
