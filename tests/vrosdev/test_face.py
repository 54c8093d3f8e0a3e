"""vrosdev's face namespace over raw lines: a provider and a reader in one emulated vrOS.

The shapes are docs/face.md's. The user's part (picking sources, switching grants) is played
with the same script steps a person would type.
"""

from __future__ import annotations

from typing import Any

import pytest

from vrosdev.host.face_rules import EXPRESSIONS
from vrosdev.script import ScriptError, ScriptRunner, parse

from .facehost import SIM, Ext, face_hosts
from .rawhost import RawPeer

pytestmark = pytest.mark.anyio

PROVIDE = {"face_provide": True}
READ = {"face_read": True}


def sample(seq: int, **parts: Any) -> dict[str, Any]:
    body: dict[str, Any] = {"sequence": seq, "age_ms": 10}
    body.update(parts or {"eyes": {"gaze": [0.0, 0.0, -1.0], "closed_left": 0.2}})
    return body


async def user(ext: Ext, *lines: str) -> None:
    await ScriptRunner(ext.host).run(parse("\n".join(lines)))


async def face(peer: RawPeer, rid: int, params: dict[str, Any]) -> dict[str, Any]:
    return await peer.result(rid, "face", params)


async def update(peer: RawPeer) -> dict[str, Any]:
    event = await peer.event()
    assert event["event"] == "face_update", event
    return event["state"]


async def provider_and_reader(
    prov: Ext, read: Ext, eyes: bool = True, mouth: bool = True
) -> tuple[RawPeer, RawPeer]:
    """``sim`` registered and selected for both parts, the reader subscribed; events drained."""
    p, r = await prov.ready(), await read.ready()
    assert (await face(p, 2, {"op": "register", "source": SIM}))["result"] == "registered"
    await update(p)
    assert await face(r, 2, {"op": "subscribe", "eyes": eyes, "mouth": mouth}) == {"result": "ok"}
    await update(r)
    await user(prov, "face-select eyes sim", "face-select mouth sim")
    while (await update(p))["demands"][0] != {
        "source_id": "sim",
        "generation": 1,
        "eyes": eyes,
        "mouth": mouth,
    }:
        pass
    want = {"eyes": "waiting" if eyes else "off", "mouth": "waiting" if mouth else "off"}
    while {k: v["kind"] for k, v in (await update(r)).items() if k in want} != want:
        pass
    return p, r


async def test_face1_providing_needs_face_provide_and_reading_face_read() -> None:
    """FACE-1: register, unregister, publish need face_provide; (un)subscribe face_read."""
    async with face_hosts(READ, PROVIDE) as (reader, provider):
        r, p = await reader.ready(), await provider.ready()
        for params in (
            {"op": "register", "source": SIM},
            {"op": "unregister", "source_id": "sim"},
            {"op": "publish", "source_id": "sim", "generation": 1, "sample": sample(1)},
        ):
            assert (await face(r, 2, params))["code"] == "not_granted"
        for params in ({"op": "subscribe", "eyes": True, "mouth": True}, {"op": "unsubscribe"}):
            assert (await face(p, 3, params))["code"] == "not_granted"
        assert (await face(p, 4, {"op": "register", "source": SIM}))["result"] == "registered"
        assert await face(r, 4, {"op": "subscribe", "eyes": True, "mouth": True}) == {
            "result": "ok"
        }


async def test_face2_h10_both_grants_are_off_until_the_user_turns_them_on() -> None:
    """FACE-2, H-10, H-11: off until the user turns them on, welcome lists them only when on,
    and one turned on mid-connection stays off until the next hello."""
    async with face_hosts({}) as (ext,):
        peer = await ext.ready()
        granted = peer.welcome["granted"]  # type: ignore[attr-defined]
        assert "face_provide" not in granted
        assert "face_read" not in granted
        assert (await face(peer, 2, {"op": "register", "source": SIM}))["code"] == "not_granted"
        await user(ext, f"face-grant {ext.ext_id} provide on")
        # docs/protocol-notes.md#r6: nothing is granted mid-connection; the next hello carries it
        assert (await face(peer, 3, {"op": "register", "source": SIM}))["code"] == "not_granted"
        again = await ext.again(peer)
        assert again.welcome["granted"]["face_provide"] is True  # type: ignore[attr-defined]


async def test_face3_r6_a_revoked_provide_grant_removes_the_sources_at_once() -> None:
    """FACE-3: face_provide revoked while running; on again only from the next hello
    (docs/protocol-notes.md#r6)."""
    async with face_hosts(PROVIDE, READ) as (prov, read):
        p, r = await provider_and_reader(prov, read)
        await user(prov, f"face-grant {prov.ext_id} provide off")
        state = await update(p)
        assert state["granted"] == {"provide": False, "read": False}
        assert state["demands"] == []
        seen = await update(r)
        assert seen["eyes"] == {"kind": "none"}
        assert seen["mouth"] == {"kind": "none"}
        got = await face(p, 5, {"op": "register", "source": SIM})
        assert got["code"] == "not_granted"
        pub = {"op": "publish", "source_id": "sim", "generation": 1, "sample": sample(1)}
        assert (await face(p, 6, pub))["code"] == "not_granted"
        # the user switches it on again: it applies from the next hello (docs/protocol-notes.md#r6)
        await user(prov, f"face-grant {prov.ext_id} provide on")
        assert (await face(p, 7, {"op": "register", "source": SIM}))["code"] == "not_granted"
        p2 = await prov.again(p)
        assert p2.welcome["granted"]["face_provide"] is True  # type: ignore[attr-defined]
        assert (await face(p2, 2, {"op": "register", "source": SIM}))["generation"] == 2


async def test_face3_r6_a_revoked_read_grant_ends_the_subscription() -> None:
    """FACE-3: face_read revoked while running ends the subscription and the demand
    (docs/protocol-notes.md#r6)."""
    async with face_hosts(PROVIDE, READ) as (prov, read):
        p, r = await provider_and_reader(prov, read)
        await user(read, f"face-grant {read.ext_id} read off")
        state = await update(r)
        assert state["granted"] == {"provide": False, "read": False}
        assert state["eyes"] == {"kind": "off"}
        assert state["mouth"] == {"kind": "off"}
        demands = (await update(p))["demands"]
        assert demands == [{"source_id": "sim", "generation": 1, "eyes": False, "mouth": False}]
        got = await face(r, 5, {"op": "subscribe", "eyes": True, "mouth": True})
        assert got["code"] == "not_granted"
        pub = {"op": "publish", "source_id": "sim", "generation": 1, "sample": sample(1)}
        assert (await face(p, 6, pub))["code"] == "not_demanded"
        welcome = (await read.again(r)).welcome  # type: ignore[attr-defined]
        assert "face_read" not in welcome["granted"]


async def test_face4_r16_a_reader_that_said_1_4_gets_no_updates_and_creates_no_demand() -> None:
    """FACE-4: no face_update for a client whose hello said 1.4 (docs/protocol-notes.md#r16)."""
    async with face_hosts(PROVIDE, READ) as (prov, read):
        p, old = await prov.ready(), await read.ready("1.4")
        await face(p, 2, {"op": "register", "source": SIM})
        await update(p)
        assert await face(old, 2, {"op": "subscribe", "eyes": True, "mouth": True}) == {
            "result": "ok"
        }
        await user(prov, "face-select eyes sim")
        pub = {"op": "publish", "source_id": "sim", "generation": 1, "sample": sample(1)}
        assert (await face(p, 3, pub))["code"] == "not_demanded"
        # a later request's reply is the next frame the old reader sees: no face_update before
        assert (await old.call(3, "kv", {"op": "list"}))["result"]["result"] == "keys"
        assert old.events == []


async def test_face5_face8_face30_the_reader_reads_the_selected_sources() -> None:
    """FACE-5, FACE-8, FACE-30: the reader reads the source the user selected for each part,
    from two providers, in complete snapshots."""
    mouth_only = {**SIM, "id": "lips", "capabilities": {"expressions": ["jaw_open", "tongue_out"]}}
    async with face_hosts(PROVIDE, PROVIDE, READ) as (a, b, read):
        pa, pb, r = await a.ready(), await b.ready(), await read.ready()
        await face(pa, 2, {"op": "register", "source": SIM})
        await face(pb, 2, {"op": "register", "source": mouth_only})
        await face(r, 2, {"op": "subscribe", "eyes": True, "mouth": True})
        first = await update(r)
        assert first == {
            "granted": {"provide": False, "read": True},
            "eyes": {"kind": "none"},
            "mouth": {"kind": "none"},
            "demands": [],
        }
        with pytest.raises(ScriptError, match="claims nothing for the eyes"):
            await user(read, "face-select eyes lips")
        await user(read, "face-select eyes sim", f"face-select mouth {b.ext_id}/lips")
        while (await update(pb))["demands"][0]["mouth"] is not True:
            pass
        r.events.clear()
        pub = {"op": "publish", "source_id": "sim", "generation": 1, "sample": sample(1)}
        assert await face(pa, 3, pub) == {"result": "ok"}
        weights = {"weights": [{"expression": "tongue_out", "value": 0.75}]}
        pub = {"op": "publish", "source_id": "lips", "generation": 1}
        assert await face(pb, 3, {**pub, "sample": sample(4, mouth=weights)}) == {"result": "ok"}
        while (state := await update(r))["mouth"]["kind"] != "sample":
            pass
        eyes, mouth = state["eyes"], state["mouth"]
        assert eyes["kind"] == "sample"
        assert (eyes["extension"], eyes["source_id"], eyes["sequence"]) == (a.ext_id, "sim", 1)
        assert eyes["sample"] == {"gaze": [0.0, 0.0, -1.0], "closed_left": 0.2}
        assert 10 <= eyes["age_ms"] < 250
        assert (mouth["extension"], mouth["source_id"], mouth["sequence"]) == (b.ext_id, "lips", 4)
        assert mouth["sample"] == weights
        assert state["granted"] == {"provide": False, "read": True}
        assert state["demands"] == []


async def test_face6_face7_register_unregister_and_generations() -> None:
    """FACE-6, FACE-7: registered carries the generation; unregister answers ok."""
    async with face_hosts(PROVIDE) as (prov,):
        p = await prov.ready()
        assert await face(p, 2, {"op": "register", "source": SIM}) == {
            "result": "registered",
            "generation": 1,
        }
        again = await face(p, 3, {"op": "register", "source": {**SIM, "name": "Renamed"}})
        assert again == {"result": "registered", "generation": 2}
        assert await face(p, 4, {"op": "unregister", "source_id": "sim"}) == {"result": "ok"}
        gone = await face(p, 5, {"op": "unregister", "source_id": "sim"})
        assert gone["code"] == "no_such_source"
        assert (await face(p, 6, {"op": "register", "source": SIM}))["generation"] == 3


async def test_face9_face10_subscribe_answers_ok_and_the_state_unsubscribe_ok() -> None:
    """FACE-9, FACE-10: subscribe {eyes, mouth} and unsubscribe answer ok."""
    async with face_hosts(READ) as (read,):
        r = await read.ready()
        assert await face(r, 2, {"op": "subscribe", "eyes": True, "mouth": False}) == {
            "result": "ok"
        }
        state = await update(r)
        assert state["eyes"] == {"kind": "none"}
        assert state["mouth"] == {"kind": "off"}
        assert await face(r, 3, {"op": "unsubscribe"}) == {"result": "ok"}
        assert await face(r, 4, {"op": "unsubscribe"}) == {"result": "ok"}
        for bad in ({"op": "subscribe", "eyes": True}, {"op": "subscribe", "eyes": 1, "mouth": 0}):
            answer = await r.call(5, "face", bad)
            assert answer["error"]["code"] == -32602


@pytest.mark.parametrize(
    ("check_id", "change", "ok"),
    [
        ("FACE-12", {"id": "Sim"}, False),
        ("FACE-12", {"id": "s" * 65}, False),
        ("FACE-12", {"id": "s" * 64}, True),
        ("FACE-13", {"device": "d" * 129}, False),
        ("FACE-13", {"device": "é" * 64}, True),
        ("FACE-13", {"transport": "é" * 65}, False),
        ("FACE-14", {"max_rate_hz": 0}, False),
        ("FACE-14", {"max_rate_hz": 241}, False),
        ("FACE-14", {"max_rate_hz": 240}, True),
        ("FACE-14", {"max_rate_hz": 30.5}, False),
        ("FACE-15", {"capabilities": {"expressions": ["smile"]}}, False),
        ("FACE-15", {"capabilities": {"expressions": sorted(EXPRESSIONS)}}, True),
        ("FACE-15", {"capabilities": {"per_eye_gaze": True}}, True),
        ("FACE-15", {"capabilities": {}}, False),
    ],
)
async def test_face12_face13_face14_face15_source_limits(
    check_id: str, change: dict[str, Any], ok: bool
) -> None:
    """FACE-12, FACE-13, FACE-14, FACE-15: a source's id, texts, rate and claims."""
    async with face_hosts(PROVIDE) as (prov,):
        p = await prov.ready()
        got = await face(p, 2, {"op": "register", "source": {**SIM, **change}})
        assert got["result"] == ("registered" if ok else "err"), (check_id, got)
        if not ok:
            assert got["code"] == "invalid_source"


async def test_face15_the_37_expressions() -> None:
    """FACE-15: the fixed set of 37, with the three the page names."""
    assert len(EXPRESSIONS) == 37
    assert {"jaw_open", "mouth_smile_left", "tongue_out"} <= EXPRESSIONS


async def test_face17_four_sources_an_extension_sixteen_in_vros() -> None:
    """FACE-17: at most 4 sources per extension and 16 across vrOS (too_many)."""
    async with face_hosts(*[PROVIDE] * 5) as exts:
        peers = [await e.ready() for e in exts]
        for n in range(4):
            for i, peer in enumerate(peers[:4]):
                got = await face(peer, 10 + n, {"op": "register", "source": {**SIM, "id": f"s{n}"}})
                assert got["result"] == "registered", (i, n, got)
        fifth = await face(peers[0], 20, {"op": "register", "source": {**SIM, "id": "s4"}})
        assert fifth["code"] == "too_many"
        seventeenth = await face(peers[4], 2, {"op": "register", "source": SIM})
        assert seventeenth["code"] == "too_many"
        await face(peers[1], 21, {"op": "unregister", "source_id": "s0"})
        assert (await face(peers[4], 3, {"op": "register", "source": SIM}))["generation"] == 1


async def test_face18_evt16_every_update_carries_the_demands_as_they_change() -> None:
    """FACE-18, EVT-16: every face_update carries the demands, sent when they change."""
    async with face_hosts(PROVIDE, READ) as (prov, read):
        p, r = await prov.ready(), await read.ready()
        await face(p, 2, {"op": "register", "source": SIM})
        assert (await update(p))["demands"] == [
            {"source_id": "sim", "generation": 1, "eyes": False, "mouth": False}
        ]
        await face(r, 2, {"op": "subscribe", "eyes": True, "mouth": False})
        await user(prov, "face-select eyes sim", "face-select mouth sim")
        demands = [(await update(p))["demands"][0]]
        assert demands[-1]["eyes"] is True
        assert demands[-1]["mouth"] is False  # selected, but no reader wants the mouth
        await face(r, 3, {"op": "subscribe", "eyes": False, "mouth": True})
        demand = (await update(p))["demands"][0]
        assert (demand["eyes"], demand["mouth"]) == (False, True)
        await face(r, 4, {"op": "unsubscribe"})
        demand = (await update(p))["demands"][0]
        assert (demand["eyes"], demand["mouth"]) == (False, False)


async def test_face19_a_publish_nobody_asked_for_is_not_demanded() -> None:
    """FACE-19: a publish for a source not demanded now is answered not_demanded."""
    async with face_hosts(PROVIDE, READ) as (prov, read):
        p, _ = await provider_and_reader(prov, read, eyes=True, mouth=False)
        pub = {"op": "publish", "source_id": "sim", "generation": 1}
        weights = {"weights": [{"expression": "jaw_open", "value": 0.5}]}
        mouth_only = await face(p, 10, {**pub, "sample": sample(1, mouth=weights)})
        assert mouth_only["code"] == "not_demanded"
        assert await face(p, 11, {**pub, "sample": sample(2)}) == {"result": "ok"}
        await user(prov, "face-select eyes none")
        assert (await face(p, 12, {**pub, "sample": sample(3)}))["code"] == "not_demanded"


async def test_face21_face32_sequence_rises_strictly_and_generations_go_stale() -> None:
    """FACE-21, FACE-32: out_of_order, stale_generation and no_such_source."""
    async with face_hosts(PROVIDE, READ) as (prov, read):
        p, _ = await provider_and_reader(prov, read)
        pub = {"op": "publish", "source_id": "sim", "generation": 1}
        assert await face(p, 10, {**pub, "sample": sample(5)}) == {"result": "ok"}
        assert (await face(p, 11, {**pub, "sample": sample(5)}))["code"] == "out_of_order"
        assert (await face(p, 12, {**pub, "sample": sample(4)}))["code"] == "out_of_order"
        assert await face(p, 13, {**pub, "sample": sample(6)}) == {"result": "ok"}
        assert (await face(p, 14, {"op": "register", "source": SIM}))["generation"] == 2
        stale = await face(p, 15, {**pub, "sample": sample(7)})
        assert stale["code"] == "stale_generation"
        fresh = {**pub, "generation": 2, "sample": sample(1)}  # a new generation starts afresh
        assert await face(p, 16, fresh) == {"result": "ok"}
        unknown = await face(p, 17, {**pub, "source_id": "nope", "sample": sample(9)})
        assert unknown["code"] == "no_such_source"


def _bad(**parts: Any) -> dict[str, Any]:
    return {"sequence": 1, "age_ms": 5, **parts}


def _weights(expression: Any, value: float) -> dict[str, Any]:
    return {"weights": [{"expression": expression, "value": value}]}


GAZE = [0, 0, -1]


@pytest.mark.parametrize(
    ("check_id", "body"),
    [
        ("FACE-22", _bad(age_ms=250, eyes={"closed_left": 0.5})),
        ("FACE-22", _bad(age_ms=-1, eyes={"closed_left": 0.5})),
        ("FACE-23", _bad()),
        ("FACE-24", _bad(eyes={"gaze": [0.0, 0.0, -0.5]})),
        ("FACE-24", _bad(eyes={"gaze": [0.0, -1.0]})),
        ("FACE-25", _bad(eyes={"closed_right": 1.5})),
        ("FACE-26", _bad(eyes={"gaze": GAZE, "confidence": 2})),
        ("FACE-26", _bad(eyes={"gaze": GAZE, "convergence_m": -1})),
        ("FACE-27", _bad(mouth=_weights("jaw_open", 1.1))),
        ("FACE-27", _bad(mouth={"weights": [["jaw_open", 0.5]]})),
        ("FACE-16", _bad(eyes={"gaze_left": GAZE})),
        ("FACE-16", _bad(mouth=_weights("tongue_out", 0.5))),
        ("FACE-28", _bad(eyes={})),
    ],
)
async def test_face22_to_face27_bad_samples_are_invalid_sample(
    check_id: str, body: dict[str, Any]
) -> None:
    """FACE-22, FACE-23, FACE-24, FACE-25, FACE-26, FACE-27: a sample outside the rules is
    invalid_sample."""
    async with face_hosts(PROVIDE, READ) as (prov, read):
        p, _ = await provider_and_reader(prov, read)
        pub = {"op": "publish", "source_id": "sim", "generation": 1, "sample": body}
        got = await face(p, 10, pub)
        assert got.get("code") == "invalid_sample", (check_id, got)


async def test_face28_a_missing_channel_stays_unknown_not_zero() -> None:
    """FACE-28: a part or member left out stays unknown; nothing reads as zero."""
    async with face_hosts(PROVIDE, READ) as (prov, read):
        p, r = await provider_and_reader(prov, read)
        pub = {"op": "publish", "source_id": "sim", "generation": 1}
        lids = {"closed_left": 0.25}
        weights = {"weights": [{"expression": "jaw_open", "value": 0.0}]}
        assert await face(p, 10, {**pub, "sample": sample(1, mouth=weights)}) == {"result": "ok"}
        state = await update(r)
        assert state["eyes"] == {"kind": "waiting", "extension": prov.ext_id, "source_id": "sim"}
        assert state["mouth"]["sample"] == weights
        assert await face(p, 11, {**pub, "sample": sample(2, eyes=lids)}) == {"result": "ok"}
        state = await update(r)
        assert state["eyes"]["sample"] == lids  # no gaze, no right lid: absent, not 0
        assert state["mouth"]["sequence"] == 1


async def test_face32_without_face_tracking_a_granted_op_is_unsupported() -> None:
    """FACE-32: unsupported from a vrOS without face tracking."""
    async with face_hosts(PROVIDE) as (prov,):
        prov.host.config.face_mode = "unsupported"
        p = await prov.ready()
        assert (await face(p, 2, {"op": "register", "source": SIM}))["code"] == "unsupported"
        assert (await face(p, 3, {"op": "unsubscribe"}))["code"] == "not_granted"


async def test_face_updates_stop_when_the_provider_goes_away() -> None:
    """FACE-30: when the provider's connection ends, the reader's snapshot says none."""
    async with face_hosts(PROVIDE, READ) as (prov, read):
        p, r = await provider_and_reader(prov, read)
        await p.stream.aclose()
        state = await update(r)
        assert state["eyes"] == {"kind": "none"}


async def test_face32_the_host_produces_each_of_the_nine_domain_error_codes() -> None:
    """FACE-32: not_granted, invalid_source, invalid_sample, too_many, no_such_source,
    stale_generation, out_of_order, not_demanded, unsupported, each made by the host."""
    codes: set[str] = set()
    async with face_hosts(PROVIDE, READ) as (prov, read):
        p, r = await provider_and_reader(prov, read)
        pub = {"op": "publish", "source_id": "sim", "generation": 1}
        attempts = [
            (r, {"op": "register", "source": SIM}),
            (p, {"op": "register", "source": {**SIM, "max_rate_hz": 0}}),
            (p, {**pub, "sample": {"sequence": 1, "age_ms": 300, "eyes": {"closed_left": 0}}}),
            (p, {"op": "unregister", "source_id": "gone"}),
            (p, {**pub, "generation": 9, "sample": sample(1)}),
            (p, {**pub, "sample": sample(3)}),
            (p, {**pub, "sample": sample(2)}),
        ]
        attempts += [(p, {"op": "register", "source": {**SIM, "id": f"x{n}"}}) for n in range(4)]
        for n, (peer, params) in enumerate(attempts):
            codes.add((await face(peer, 100 + n, params)).get("code", "ok"))
        await user(prov, "face-select eyes none", "face-select mouth none")
        codes.add((await face(p, 200, {**pub, "sample": sample(5)}))["code"])
    async with face_hosts(PROVIDE) as (prov,):
        prov.host.config.face_mode = "unsupported"
        codes.add((await face(await prov.ready(), 2, {"op": "register", "source": SIM}))["code"])
    assert codes - {"ok"} == {
        "not_granted",
        "invalid_source",
        "invalid_sample",
        "too_many",
        "no_such_source",
        "stale_generation",
        "out_of_order",
        "not_demanded",
        "unsupported",
    }
