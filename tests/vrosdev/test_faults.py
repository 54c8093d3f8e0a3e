"""Faults on demand through vrosdev's one request hook, spoken to with literal JSON lines."""

from __future__ import annotations

import json
import math
import wave
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from vrosdev.host.faults import FaultSpecError, When, parse_fault, parse_when
from vrosdev.script import ScriptRunner, parse

from .rawhost import TOKEN, RawPeer, RunningHost, config, running_host

pytestmark = pytest.mark.anyio

SET = '{"jsonrpc":"2.0","id":%d,"method":"kv","params":{"op":"set","key":"k","value":%d}}'
GET = '{"jsonrpc":"2.0","id":%d,"method":"kv","params":{"op":"get","key":"k"}}'
LIST = '{"jsonrpc":"2.0","id":%d,"method":"kv","params":{"op":"list"}}'


async def _ask(peer: RawPeer, line: str) -> dict[str, Any]:
    await peer.send(line)
    return await peer.reply()


async def _set(peer: RawPeer, rid: int, value: int) -> dict[str, Any]:
    answer = await _ask(peer, SET % (rid, value))
    assert answer["id"] == rid
    return answer


def _injected(h: RunningHost) -> list[dict[str, Any]]:
    lines = [json.loads(x) for x in h.transcript().splitlines()]
    return [x["injected"] for x in lines if "injected" in x]


async def _steps(h: RunningHost, text: str) -> None:
    runner = ScriptRunner(h.host)
    for step in parse(text):
        await runner.run_step(step)


def test_fault_spec_forms() -> None:
    assert parse_when("") == When(1, 1)
    assert parse_when("3") == When(3, 3)
    assert parse_when("*") == When(1, math.inf)
    assert parse_when("2-4") == When(2, 4)
    assert parse_when("1.5s") == When(1, math.inf, 1.5)
    rule = parse_fault("assets.put=budget_full@2-3")
    assert (rule.method, rule.op, rule.answer.kind, rule.answer.code) == (
        "assets",
        "put",
        "domain",
        "budget_full",
    )
    assert parse_fault("kv=-32603@*").answer.code == -32603
    assert parse_fault("kv.get=result:future").answer.kind == "result"
    assert parse_fault("media.open=close").answer.kind == "close"
    for bad in ("kv.set", "kv.set=x@0", "kv.set=x@4-2", "kv.set=x@soon", "KV=x", "kv.set="):
        with pytest.raises(FaultSpecError):
            parse_fault(bad)


async def test_fault_without_suffix_answers_the_first_request_only() -> None:
    async with running_host(config(faults=["kv.set=value_too_large"])) as h:
        peer = await h.ready()
        first = await _set(peer, 2, 1)
        assert first["result"] == {
            "result": "err",
            "code": "value_too_large",
            "message": "injected by vrosdev",
        }
        assert (await _set(peer, 3, 2))["result"]["result"] == "written"
        assert (await _set(peer, 4, 3))["result"]["result"] == "written"


async def test_fault_at_n_answers_only_the_nth_and_never_reaches_the_namespace() -> None:
    async with running_host(config(faults=["kv.set=key_too_large@2"])) as h:
        peer = await h.ready()
        assert (await _set(peer, 2, 1))["result"]["revision"] == 1
        assert (await _set(peer, 3, 2))["result"]["code"] == "key_too_large"
        got = (await _ask(peer, GET % 4))["result"]
        assert got == {"result": "value", "value": 1, "revision": 1}  # the faulted 2 never landed
        assert (await _set(peer, 5, 3))["result"]["revision"] == 2


async def test_fault_at_star_answers_every_request_and_writes_nothing() -> None:
    async with running_host(config(faults=["kv.set=internal@*"])) as h:
        peer = await h.ready()
        for rid in range(2, 7):
            assert (await _set(peer, rid, rid))["result"]["code"] == "internal"
        assert (await _ask(peer, GET % 9))["result"]["value"] is None
        assert (await _ask(peer, LIST % 10))["result"]["keys"] == []


async def test_fault_range_answers_the_nth_to_the_mth() -> None:
    async with running_host(config(faults=["kv.set=value_too_large@2-3"])) as h:
        peer = await h.ready()
        results = [(await _set(peer, rid, rid))["result"]["result"] for rid in range(2, 7)]
        assert results == ["written", "err", "err", "written", "written"]


async def test_fault_window_runs_from_the_first_matching_request_on_the_plan_clock() -> None:
    clock = [100.0]
    async with running_host(config(faults=["kv.set=internal@3s"])) as h:
        h.host.hook.plan.clock = lambda: clock[0]
        peer = await h.ready()
        assert (await _ask(peer, GET % 2))["result"]["result"] == "value"  # another op: no start
        clock[0] = 200.0
        assert (await _set(peer, 3, 1))["result"]["code"] == "internal"  # the window opens
        clock[0] = 202.9
        assert (await _set(peer, 4, 2))["result"]["code"] == "internal"
        clock[0] = 203.0
        assert (await _set(peer, 5, 3))["result"]["result"] == "written"


async def test_fault_on_a_whole_namespace_matches_every_op() -> None:
    async with running_host(config(faults=["kv=no_such_thing@*"])) as h:
        peer = await h.ready()
        assert (await _ask(peer, LIST % 2))["result"]["code"] == "no_such_thing"
        assert (await _ask(peer, GET % 3))["result"]["code"] == "no_such_thing"


@pytest.mark.parametrize("code", [-32603, -32602, -32001, -31000])
async def test_numeric_fault_is_a_json_rpc_error_object_not_a_domain_error(code: int) -> None:
    async with running_host(config(faults=[f"kv.set={code}"])) as h:
        peer = await h.ready()
        answer = await _set(peer, 2, 1)
        assert answer["error"]["code"] == code
        assert isinstance(answer["error"]["message"], str)
        assert "result" not in answer
        assert (await _ask(peer, GET % 3))["result"]["value"] is None
        assert not h.host.recorder.violations  # an injection is not the extension's fault


async def test_e9_internal_error_is_32603_and_the_connection_goes_on() -> None:
    """E-9: a host fault answers -32603 (only an error object, E-1); the next request works."""
    async with running_host(config(faults=["audio.get_status=-32603"])) as h:
        peer = await h.ready()
        answer = await peer.call(2, "audio", {"op": "get_status"})
        assert set(answer) == {"jsonrpc", "id", "error"}
        assert answer["error"]["code"] == -32603
        again = await peer.result(3, "audio", {"op": "get_status"})
        assert again == {"result": "status", "playing": []}


async def test_result_fault_answers_a_result_tag_no_version_defines() -> None:
    async with running_host(config(faults=["kv.get=result:from_the_future"])) as h:
        peer = await h.ready()
        answer = await _ask(peer, GET % 2)
        assert answer == {"jsonrpc": "2.0", "id": 2, "result": {"result": "from_the_future"}}


async def test_close_fault_closes_the_connection_without_an_answer() -> None:
    async with running_host(config(faults=["kv.set=close"])) as h:
        peer = await h.ready()
        await peer.send(SET % (2, 1))
        assert await peer.closed()
        assert b'"id":2' not in peer.buf
        again = await h.ready()  # the extension may come back; the fault was for one request
        assert (await _ask(again, GET % 2))["result"]["value"] is None


async def test_script_fault_counts_from_the_step_and_unfault_removes_it() -> None:
    async with running_host() as h:
        peer = await h.ready()
        assert (await _set(peer, 2, 1))["result"]["result"] == "written"
        await _steps(h, "fault kv.set budget_full 2")
        assert (await _set(peer, 3, 2))["result"]["result"] == "written"
        assert (await _set(peer, 4, 3))["result"]["code"] == "budget_full"
        await _steps(h, "fault kv.set -32603 *\nfault kv.get internal *")
        assert "error" in await _set(peer, 5, 4)
        await _steps(h, "unfault kv.set")
        assert (await _set(peer, 6, 5))["result"]["result"] == "written"
        assert (await _ask(peer, GET % 7))["result"]["code"] == "internal"
        await _steps(h, "unfault")
        assert (await _ask(peer, GET % 8))["result"]["value"] == 5


async def test_delay_answers_late_while_later_requests_and_events_flow() -> None:
    async with running_host(config(delays=["kv.get=0.4"])) as h:
        peer = await h.ready()
        await peer.result(2, "commands", {"op": "register", "name": "go"})
        await peer.send(GET % 3)
        await peer.send(LIST % 4)
        assert (await peer.reply())["id"] == 4  # the slow answer did not hold up the next one
        await _steps(h, "invoke go")
        assert (await peer.event())["event"] == "command_invoked"
        assert (await peer.reply())["id"] == 3
    delays = [x for x in _injected(h) if x["kind"] == "delay"]
    assert delays == [{"kind": "delay", "method": "kv", "op": "get", "id": 3, "seconds": 0.4}]


async def test_reject_answers_hello_rejected_with_the_code_and_closes() -> None:
    async with running_host(config(reject="version_unsupported")) as h:
        peer = await h.connect()
        await peer.send(
            '{"jsonrpc":"2.0","id":1,"method":"hello","params":'
            '{"id":"com.example.raw","vxp_version":"1.7","token":"' + TOKEN + '"}}'
        )
        answer = await peer.reply()
        assert answer["result"]["result"] == "rejected"
        assert answer["result"]["code"] == "version_unsupported"
        assert await peer.closed()
        assert not h.host.recorder.violations
    assert {"kind": "reject", "code": "version_unsupported"} in _injected(h)


async def _warm_audio(peer: RawPeer) -> None:
    """The first audio request starts the engine (devices, decoder threads): slow on a busy
    machine, so it is not the request a test waits on with a short timeout."""
    await peer.send('{"jsonrpc":"2.0","id":900,"method":"audio","params":{"op":"list_channels"}}')
    assert (await peer.reply(timeout=60))["id"] == 900


def _tone(path: Path) -> Path:
    t = np.arange(4800) / 48000
    samples = (0.4 * np.sin(2 * math.pi * 440 * t) * 32767).astype("<i2")
    with wave.open(str(path), "wb") as w:
        w.setnchannels(1)
        w.setsampwidth(2)
        w.setframerate(48000)
        w.writeframes(samples.tobytes())
    return path


async def test_r14_fail_load_makes_an_audio_loaded_failed_and_the_sound_unplayable(
    tmp_path: Path,
) -> None:
    a, b = _tone(tmp_path / "kick.wav"), _tone(tmp_path / "snare.wav")
    async with running_host() as h:
        peer = await h.ready()
        await _warm_audio(peer)
        await _steps(h, "fail-load too_long snare.wav")
        loads = [
            await peer.result(i, "audio", {"op": "load", "path": str(p), "normalize": False})
            for i, p in ((2, a), (3, b))
        ]
        outcomes = {}
        for _ in range(2):
            event = await peer.event(timeout=10)
            outcomes[event["sound"]] = event["outcome"]
        assert outcomes[loads[0]["sound"]]["kind"] == "loaded"
        assert outcomes[loads[1]["sound"]] == {
            "kind": "failed",
            "code": "too_long",
            "message": "injected by vrosdev",
        }
        play = {"op": "play", "targets": [{"channel": "soundboard", "gain_pct": 50}]}
        refused = await peer.result(4, "audio", {**play, "sound": loads[1]["sound"]})
        assert refused["result"] == "err"
        ok = await peer.result(5, "audio", {**play, "sound": loads[0]["sound"]})
        assert ok["result"] == "ok"
    assert {"kind": "fail_load", "sound": loads[1]["sound"], "code": "too_long"} in _injected(h)


async def test_fail_media_makes_the_next_snapshot_carry_failed_playback() -> None:
    url = "https://media.example/live?sig=abc123"
    async with running_host() as h:
        peer = await h.ready()
        opened = await peer.result(
            2, "media", {"op": "open", "key": "deck-1", "url": url, "title": "Live"}
        )
        assert opened["result"] == "opened"
        await _steps(h, "fail-media deck-1 decode_error")
        while True:
            snap = await peer.event()
            row = snap["sessions"][0]
            if row["playback"]["kind"] == "failed":
                break
        assert row["playback"] == {"kind": "failed", "code": "decode_error"}
        assert row["key"] == "deck-1"
    assert url not in h.transcript() and "abc123" not in h.transcript()


async def test_transcript_has_one_injected_line_per_injection_and_no_secret() -> None:
    url = "https://media.example/stream?token=s3cr3t"
    faults = ["media.open=open_failed", "kv.set=-32603@2"]
    async with running_host(config(faults=faults)) as h:
        peer = await h.ready()
        await peer.call(2, "media", {"op": "open", "key": "k", "url": url, "title": TOKEN})
        await _set(peer, 3, 1)
        await _set(peer, 4, 2)
    text = h.transcript()
    assert TOKEN not in text and url not in text and "s3cr3t" not in text
    lines = [json.loads(x) for x in text.splitlines()]
    for line in lines:
        assert "t" in line
        assert sum(k in line for k in ("dir", "violation", "note", "injected")) == 1
    injected = [x["injected"] for x in lines if "injected" in x]
    assert injected == [
        {
            "kind": "fault",
            "method": "media",
            "op": "open",
            "id": 2,
            "answer": "open_failed",
            "when": "1",
            "nth": 1,
        },
        {"kind": "fault", "method": "kv", "op": "set", "id": 4, "answer": -32603, "when": "2"}
        | {"nth": 2},
    ]


def test_readme_lists_the_documented_codes_of_every_namespace() -> None:
    from vrosdev.host.codes import DOCUMENTED_CODES

    readme = (Path(__file__).resolve().parents[2] / "README.md").read_text(encoding="utf-8")
    rows = {}
    for line in readme.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) == 2 and cells[0] in DOCUMENTED_CODES:
            rows[cells[0]] = tuple(c.strip("`") for c in cells[1].split())
    assert rows == DOCUMENTED_CODES


async def test_delay_step_slows_one_op_and_delay_zero_ends_it() -> None:
    async with running_host() as h:
        peer = await h.ready()
        await _steps(h, "delay kv.get 0.3")
        await peer.send(GET % 2)
        await peer.send(LIST % 3)
        assert [(await peer.reply())["id"], (await peer.reply())["id"]] == [3, 2]
        await _steps(h, "delay kv.get 0")
        await peer.send(GET % 4)
        await peer.send(LIST % 5)
        assert [(await peer.reply())["id"], (await peer.reply())["id"]] == [4, 5]


async def test_fail_load_without_a_sound_fails_the_next_audio_loaded_only(tmp_path: Path) -> None:
    a, b = _tone(tmp_path / "a.wav"), _tone(tmp_path / "b.wav")
    async with running_host() as h:
        peer = await h.ready()
        await _warm_audio(peer)
        await _steps(h, "fail-load cache_full")
        load = {"op": "load", "normalize": False}
        first = await peer.result(2, "audio", {**load, "path": str(a)})
        event = await peer.event(timeout=10)
        assert event["sound"] == first["sound"]
        assert event["outcome"]["kind"] == "failed" and event["outcome"]["code"] == "cache_full"
        second = await peer.result(3, "audio", {**load, "path": str(b)})
        event = await peer.event(timeout=10)
        assert event["sound"] == second["sound"] and event["outcome"]["kind"] == "loaded"
