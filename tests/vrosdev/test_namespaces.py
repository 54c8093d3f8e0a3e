"""vrosdev's kv, secrets, bus, commands, settings, strings and assets over raw lines."""

from __future__ import annotations

import base64
import json
from pathlib import Path

import pytest

from vrosdev.host.config import HostConfig
from vrosdev.script import ScriptRunner, parse

from .rawhost import config, running_host

pytestmark = pytest.mark.anyio


# --- kv -------------------------------------------------------------------------------------


async def test_kv5_kv6_kv7_kv8_kv4_roundtrip_and_revisions() -> None:
    """KV-4, KV-5, KV-6, KV-7, KV-8: get, set, delete and list, with revisions that only rise."""
    async with running_host() as h:
        p = await h.ready()
        assert await p.result(2, "kv", {"op": "get", "key": "count"}) == {
            "result": "value",
            "value": None,
            "revision": 0,
        }
        w1 = await p.result(3, "kv", {"op": "set", "key": "count", "value": 3})
        w2 = await p.result(4, "kv", {"op": "set", "key": "count", "value": {"a": [1, None]}})
        assert w1["result"] == "written"
        assert w2["revision"] > w1["revision"] > 0
        assert w2["over_quota"] is False
        got = await p.result(5, "kv", {"op": "get", "key": "count"})
        assert got == {"result": "value", "value": {"a": [1, None]}, "revision": w2["revision"]}
        assert await p.result(6, "kv", {"op": "list"}) == {"result": "keys", "keys": ["count"]}
        assert await p.result(7, "kv", {"op": "delete", "key": "count"}) == {"result": "deleted"}
        assert await p.result(8, "kv", {"op": "delete", "key": "count"}) == {"result": "deleted"}
        w3 = await p.result(9, "kv", {"op": "set", "key": "count", "value": 1})
        assert w3["revision"] > w2["revision"]  # KV-4 across a delete


async def test_kv9_kv10_limits_and_r8_measure() -> None:
    """KV-9, KV-10: key and value limits, the value measured as its compact JSON text."""
    async with running_host() as h:
        p = await h.ready()
        ok = await p.result(2, "kv", {"op": "set", "key": "k" * 256, "value": 1})
        assert ok["result"] == "written"
        err = await p.result(3, "kv", {"op": "get", "key": "k" * 257})
        assert err["result"] == "err"
        assert err["code"] == "key_too_large"
        # 64 KiB exactly as compact JSON: a string of 65534 chars plus two quotes
        ok = await p.result(4, "kv", {"op": "set", "key": "v", "value": "x" * 65534})
        assert ok["result"] == "written"
        err = await p.result(5, "kv", {"op": "set", "key": "v", "value": "x" * 65535})
        assert err["code"] == "value_too_large"


async def test_kv11_kv12_soft_quota_sets_over_quota_and_deletes_nothing() -> None:
    """KV-11, KV-12: past the soft quota sets say over_quota, and nothing is deleted."""
    async with running_host() as h:
        p = await h.ready()
        last = {}
        for i in range(17):
            last = await p.result(10 + i, "kv", {"op": "set", "key": f"k{i}", "value": "x" * 65000})
        assert last["over_quota"] is True
        keys = await p.result(99, "kv", {"op": "list"})
        assert len(keys["keys"]) == 17


async def test_kv_persists_across_launches(tmp_path: Path) -> None:
    async with running_host(config(state_dir=tmp_path)) as h:
        p = await h.ready()
        await p.result(2, "kv", {"op": "set", "key": "layout", "value": [1, 2, 3]})
        rev = (await p.result(3, "kv", {"op": "get", "key": "layout"}))["revision"]
    async with running_host(config(state_dir=tmp_path)) as h:
        p = await h.ready()
        got = await p.result(2, "kv", {"op": "get", "key": "layout"})
        assert got == {"result": "value", "value": [1, 2, 3], "revision": rev}


def _settings_config() -> HostConfig:
    from vxp.manifest import load_manifest

    manifest = load_manifest(Path(__file__).parents[2] / "manifest.toml")
    return config(settings=list(manifest.settings))


async def test_kv13_r9_set_to_declared_setting_is_checked() -> None:
    """KV-13: a kv set to a declared setting's key must fit the setting's kind and range."""
    async with running_host(_settings_config()) as h:
        p = await h.ready()
        err = await p.result(2, "kv", {"op": "set", "key": "mic_gain", "value": 101})
        assert err["result"] == "err"
        assert err["code"] == "invalid_value"
        ok = await p.result(3, "kv", {"op": "set", "key": "mic_gain", "value": 100})
        assert ok["result"] == "written"


# --- settings -------------------------------------------------------------------------------


async def test_set15_set16_set17_get_list_defaults_and_stored() -> None:
    """SET-3, SET-15, SET-16, SET-17, SET-18: get and list show a kv-set value, else the default."""
    async with running_host(_settings_config()) as h:
        p = await h.ready()
        got = await p.result(2, "settings", {"op": "get", "key": "mic_gain"})
        assert got["result"] == "value"
        assert got["key"] == "mic_gain"
        assert got["is_default"] is True
        default = got["value"]
        await p.result(3, "kv", {"op": "set", "key": "mic_gain", "value": 7})
        got = await p.result(4, "settings", {"op": "get", "key": "mic_gain"})
        assert got["value"] == 7
        assert got["is_default"] is False
        assert default != 7
        listed = await p.result(5, "settings", {"op": "list"})
        keys = [e["key"] for e in listed["entries"]]
        assert keys == [s.key for s in h.host.config.settings]  # manifest order
        err = await p.result(6, "settings", {"op": "get", "key": "nope"})
        assert err["code"] == "no_such_key"


async def test_set20_no_schema() -> None:
    """SET-20: settings ops without declared settings are no_schema."""
    async with running_host() as h:
        p = await h.ready()
        err = await p.result(2, "settings", {"op": "list"})
        assert err["result"] == "err"
        assert err["code"] == "no_schema"


async def test_set19_settings_changed_script_step_validates() -> None:
    """EVT-10, SET-19: an edit in the pane (the setting step) sends settings_changed, checked."""
    async with running_host(_settings_config()) as h:
        p = await h.ready()
        await ScriptRunner(h.host).run(parse("setting mic_gain 55"))
        assert await p.event() == {"event": "settings_changed", "key": "mic_gain", "value": 55}
        got = await p.result(2, "settings", {"op": "get", "key": "mic_gain"})
        assert got["value"] == 55


# --- secrets --------------------------------------------------------------------------------


async def test_sec9_linux_not_persistable() -> None:
    """SEC-9: as Linux vrOS, set is not_persistable and get finds nothing; no value is kept."""
    async with running_host(config(granted={"bus": [], "secrets": True})) as h:
        p = await h.ready()
        err = await p.result(2, "secrets", {"op": "set", "slot": "deck-1", "value": "https://x/y"})
        assert err == {
            "result": "err",
            "code": "not_persistable",
            "message": "no credential store on this platform: ask each session",
        }
        got = await p.result(3, "secrets", {"op": "get", "slot": "deck-1"})
        assert got == {"result": "value", "value": None}
    assert '"method":"secrets"' in h.transcript()
    assert "https://x/y" not in h.transcript()


async def test_sec3_to_sec7_memory_store_and_limit() -> None:
    """SEC-3, SEC-4, SEC-5, SEC-6, SEC-7: each op's answer, and the 2048-byte limit."""
    async with running_host(
        config(granted={"bus": [], "secrets": True}, secrets_mode="memory")
    ) as h:
        p = await h.ready()
        assert await p.result(2, "secrets", {"op": "set", "slot": "a", "value": "s3cr3t-v"}) == {
            "result": "ok"
        }
        assert await p.result(3, "secrets", {"op": "get", "slot": "a"}) == {
            "result": "value",
            "value": "s3cr3t-v",
        }
        assert await p.result(4, "secrets", {"op": "exists", "slot": "a"}) == {
            "result": "exists",
            "exists": True,
        }
        assert await p.result(5, "secrets", {"op": "delete", "slot": "a"}) == {"result": "ok"}
        assert (await p.result(6, "secrets", {"op": "exists", "slot": "a"}))["exists"] is False
        assert await p.result(9, "secrets", {"op": "get", "slot": "a"}) == {
            "result": "value",
            "value": None,
        }
        err = await p.result(7, "secrets", {"op": "set", "slot": "b", "value": "y" * 2049})
        assert err["code"] == "too_large"
        assert (await p.result(8, "secrets", {"op": "exists", "slot": "b"}))["exists"] is False
    assert '"slot":"a"' in h.transcript()
    assert "s3cr3t-v" not in h.transcript()  # SEC-8


# --- bus ------------------------------------------------------------------------------------


async def test_bus4_bus5_bus8_bus9_prefix_grant_and_lifecycle() -> None:
    """BUS-2, BUS-4, BUS-5, BUS-8, BUS-9, EVT-3, EVT-4: own prefix, grants, bus and lifecycle."""
    async with running_host() as h:
        p = await h.ready()
        own = "ext.com.example.raw."
        assert (await p.result(2, "bus", {"op": "subscribe", "pattern": own + "*"}))[
            "result"
        ] == "ok"
        await p.result(3, "bus", {"op": "publish", "topic": own + "ping", "payload": {"n": 1}})
        assert await p.event() == {"event": "bus", "topic": own + "ping", "payload": {"n": 1}}
        err = await p.result(4, "bus", {"op": "subscribe", "pattern": "ext.other.*"})
        assert err["code"] == "not_allowed"
        err = await p.result(5, "bus", {"op": "publish", "topic": "ext.other.x", "payload": 1})
        assert err["code"] == "not_allowed"
        assert (await p.result(6, "bus", {"op": "subscribe", "pattern": "vr.lifecycle"}))[
            "result"
        ] == "ok"
        await ScriptRunner(h.host).run(parse("lifecycle quitting"))
        assert await p.event() == {"event": "vr_lifecycle", "state": "quitting"}


async def test_bus7_r10_prefix_pattern_matching() -> None:
    """BUS-7: a prefix pattern matches the topics under it and nothing beside it."""
    from vrosdev.host.namespaces.bus import pattern_within, topic_matches

    assert topic_matches("ext.cat.kittyn.twitch.*", "ext.cat.kittyn.twitch.chat.message")
    assert not topic_matches("ext.cat.kittyn.twitch.*", "ext.cat.kittyn.twitchy")
    assert topic_matches("vr.lifecycle", "vr.lifecycle")
    assert pattern_within("ext.cat.kittyn.twitch.chat.*", "ext.cat.kittyn.twitch.*")
    assert not pattern_within("ext.cat.*", "ext.cat.kittyn.twitch.*")


async def test_bus5_r10_grant_is_the_narrowed_one() -> None:
    """BUS-5: vr.lifecycle needs the granted bus list, not the manifest's request."""
    async with running_host(config(granted={"bus": []})) as h:
        p = await h.ready()
        err = await p.result(2, "bus", {"op": "subscribe", "pattern": "vr.lifecycle"})
        assert err["code"] == "not_allowed"


# --- commands -------------------------------------------------------------------------------


async def test_cmd2_cmd3_cmd5_cmd8_register_invoke_and_names() -> None:
    """CMD-2, CMD-3, CMD-5, CMD-8, EVT-9: register twice, a press, a bad name, unregister."""
    async with running_host() as h:
        p = await h.ready()
        for rid in (2, 3):
            assert await p.result(rid, "commands", {"op": "register", "name": "play-slot-1"}) == {
                "result": "ok"
            }
        await ScriptRunner(h.host).run(parse("invoke play-slot-1\ninvoke not-registered"))
        assert await p.event() == {"event": "command_invoked", "command": "play-slot-1"}
        err = await p.result(4, "commands", {"op": "register", "name": "Play_Slot"})
        assert err["code"] == "invalid_name"
        assert await p.result(5, "commands", {"op": "unregister", "name": "never"}) == {
            "result": "ok"
        }
        assert p.events == []  # the unregistered invoke was not sent


async def test_cmd6_registrations_end_with_the_connection() -> None:
    """CMD-6: a command registered on a closed connection is not invoked on the next."""
    async with running_host() as h:
        p = await h.ready()
        await p.result(2, "commands", {"op": "register", "name": "stop-all"})
        await p.stream.aclose()
        h.peers.remove(p)
        q = await h.ready()
        await ScriptRunner(h.host).run(parse("invoke stop-all"))
        await q.result(2, "kv", {"op": "list"})
        assert q.events == []


# --- strings --------------------------------------------------------------------------------


async def test_str1_str2_str4_str6() -> None:
    """STR-1, STR-2, STR-4, STR-6: the strings answer, ext. keys only, fallback, bad prefix."""
    async with running_host() as h:
        p = await h.ready()
        got = await p.result(2, "strings", {"op": "get", "prefix": "ext.vros.clock."})
        assert got["result"] == "strings"
        assert got["locale"] == "en-US"
        assert got["entries"]["ext.vros.clock.title"] == "Clock"
        ja = await p.result(3, "strings", {"op": "get", "prefix": "ext.vros.", "locale": "ja-JP"})
        assert ja["locale"] == "ja-JP"
        assert ja["entries"]["ext.vros.clock.title"] == "時計"
        fallback = await p.result(4, "strings", {"op": "get", "prefix": "ext.", "locale": "xx-YY"})
        assert fallback["locale"] == "en-US"
        own = await p.result(5, "strings", {"op": "get", "prefix": "ext.com.example.raw."})
        assert own["entries"] == {}
        err = await p.result(6, "strings", {"op": "get", "prefix": "vros."})
        assert err["code"] == "prefix_not_allowed"


# --- assets ---------------------------------------------------------------------------------


def _put(
    key: str, w: int = 1, h: int = 1, frames: int = 1, delay: int = 100, raw: bytes | None = None
) -> dict:
    pixels = raw if raw is not None else b"\xff" * (w * h * 4)
    return {
        "op": "put",
        "key": key,
        "width": w,
        "height": h,
        "frames": [{"rgba_base64": base64.b64encode(pixels).decode(), "delay_ms": delay}] * frames,
        "loop": 0,
    }


async def test_ast3_spec_example_put() -> None:
    """AST-3: the spec's own put example, as a literal line, answers ok."""
    async with running_host() as h:
        p = await h.ready()
        line = (
            '{"jsonrpc":"2.0","id":2,"method":"assets","params":{"op":"put","key":"e:icon:1",'
            '"width":1,"height":1,"frames":[{"rgba_base64":"/////w==","delay_ms":100}],"loop":0}}'
        )
        await p.send(line)
        assert (await p.reply())["result"] == {"result": "ok"}


@pytest.mark.parametrize(
    ("params", "code"),
    [
        (_put("bad key!"), "bad_key"),
        (_put(""), "bad_key"),
        (_put("k" * 129), "bad_key"),
        (_put("k", w=129, h=1), "too_large"),
        (_put("k", w=0, h=1), "bad_pixels"),
        (_put("k", frames=61), "too_many_frames"),
        (_put("k", frames=0), "bad_pixels"),
        (_put("k", delay=19), "bad_pixels"),
        (_put("k", delay=1001), "bad_pixels"),
        (_put("k", raw=b"\x00" * 5), "bad_pixels"),
        (_put("k", w=128, h=128, frames=33), "too_large"),
    ],
)
async def test_ast7_ast9_ast10_ast11_ast12_ast15_r18_limits(params: dict, code: str) -> None:
    """AST-7, AST-9, AST-10, AST-11, AST-12, AST-15, AST-20: each limit and its code."""
    async with running_host() as h:
        p = await h.ready()
        got = await p.result(2, "assets", params)
        assert got["result"] == "err" and got["code"] == code, got


@pytest.mark.parametrize(
    ("rgba_base64", "why"),
    [
        ("/////w=", "rgba_base64 is not valid base64"),  # length not a multiple of 4
        ("/////w==\n", "rgba_base64 is not valid base64"),  # a line break inside the string
        ("////\u00e9w==", "rgba_base64 is not valid base64"),  # outside ASCII
        ("//-//w==", "rgba_base64 is not valid base64"),  # base64url's alphabet
        ("/////w=A", "rgba_base64 is not valid base64"),  # data after padding
        ("/////===", "rgba_base64 is not valid base64"),  # three padding characters
        ("/////wA=AAAA", "rgba_base64 is not valid base64"),  # padding in the middle
        ("AAAAAAAA", "6 bytes, expected 1x1x4 = 4"),
        ("", "0 bytes, expected 1x1x4 = 4"),
    ],
)
async def test_ast7_r18_pixels_are_checked_without_being_decoded(
    rgba_base64: str, why: str
) -> None:
    """AST-7: malformed base64 and the wrong decoded length are bad_pixels, as literal lines."""
    async with running_host() as h:
        p = await h.ready()
        frame = json.dumps({"rgba_base64": rgba_base64, "delay_ms": 100})
        await p.send(
            '{"jsonrpc":"2.0","id":2,"method":"assets","params":{"op":"put","key":"k",'
            f'"width":1,"height":1,"frames":[{frame}],"loop":0}}}}'
        )
        got = (await p.reply())["result"]
        assert got["result"] == "err" and got["code"] == "bad_pixels", got
        assert got["message"] == f"frame 0: {why}"


async def test_ast7_a_put_keeps_the_pixels_it_was_given() -> None:
    """AST-7: the table holds the exact pixels put."""
    from vrosdev.host.namespaces.assets import table

    pixels = bytes(range(2 * 3 * 4))
    frames = [
        {"rgba_base64": base64.b64encode(pixels).decode(), "delay_ms": 40},
        {"rgba_base64": base64.b64encode(pixels[::-1]).decode(), "delay_ms": 60},
    ]
    async with running_host() as h:
        p = await h.ready()
        put = {"op": "put", "key": "e:icon:1", "width": 2, "height": 3, "frames": frames, "loop": 2}
        assert await p.result(2, "assets", put) == {"result": "ok"}
        asset = table(h.host.connection).entries["e:icon:1"]  # type: ignore[arg-type]
        assert (asset.rgba(0), asset.rgba(1)) == (pixels, pixels[::-1])
        assert [delay for _, delay in asset.frames] == [40, 60] and asset.loop == 2


async def test_the_transcript_keeps_a_puts_size_not_its_pixels() -> None:
    from vrosdev.host.namespaces.assets import table

    big = bytes(range(256)) * (128 * 128 * 4 // 256)
    async with running_host() as h:
        p = await h.ready()
        assert (await p.result(2, "assets", _put("big", w=128, h=128, raw=big)))["result"] == "ok"
        assert (await p.result(3, "assets", _put("small")))["result"] == "ok"
        asset = table(h.host.connection).entries["big"]  # type: ignore[arg-type]
        assert asset.rgba(0) == big  # the host kept every pixel the transcript leaves out
        puts = [
            json.loads(line)["frame"]["params"]
            for line in h.transcript().splitlines()
            if '"method":"assets"' in line
        ]
    assert [f["rgba_base64"] for put in puts for f in put["frames"]] == [
        f"<{len(base64.b64encode(big))} base64 characters>",
        "/////w==",
    ]


async def test_ast13_lru_eviction_at_1024_entries() -> None:
    """AST-13: the 1025th entry evicts the least recently used one."""
    from vrosdev.host.namespaces.assets import table

    async with running_host() as h:
        p = await h.ready()
        for i in range(1025):
            assert (await p.result(10 + i, "assets", _put(f"a{i}")))["result"] == "ok"
        t = table(h.host.connection)  # type: ignore[arg-type]
        assert len(t.entries) == 1024
        assert "a0" not in t.entries
        assert "a1024" in t.entries


async def test_ast17_table_lasts_as_long_as_the_connection_and_clear_remove() -> None:
    """AST-4, AST-5, AST-17: remove and clear answer ok; a new connection starts with no table."""
    from vrosdev.host.namespaces.assets import table

    async with running_host() as h:
        p = await h.ready()
        await p.result(2, "assets", _put("x"))
        await p.result(3, "assets", _put("y"))
        assert await p.result(4, "assets", {"op": "remove", "key": "x"}) == {"result": "ok"}
        assert list(table(h.host.connection).entries) == ["y"]  # type: ignore[arg-type]
        assert await p.result(5, "assets", {"op": "clear"}) == {"result": "ok"}
        assert not table(h.host.connection).entries  # type: ignore[arg-type]
        await p.result(6, "assets", _put("z"))
        await p.stream.aclose()
        h.peers.remove(p)
        q = await h.ready()
        await q.result(2, "kv", {"op": "list"})
        assert not table(h.host.connection).entries  # type: ignore[arg-type]


async def test_ast19_budget_full_every_n() -> None:
    """AST-19, AST-20: `--budget-full-every 2` refuses every second put with budget_full."""
    async with running_host(config(budget_full_every=2)) as h:
        p = await h.ready()
        codes = [(await p.result(2 + i, "assets", _put(f"b{i}"))).get("code") for i in range(4)]
        assert codes == [None, "budget_full", None, "budget_full"]


# --- events ---------------------------------------------------------------------------------


async def test_evt_r16_settings_changed_withheld_from_a_1_0_client() -> None:
    async with running_host(_settings_config()) as h:
        p = await h.ready("1.0")
        await ScriptRunner(h.host).run(parse("setting mic_gain 20\nlocale ja-JP"))
        await p.result(2, "kv", {"op": "list"})
        assert p.events == []


async def test_evt1_shutting_down_sent_by_a_raw_event_step() -> None:
    """EVT-1: the event step sends shutting_down, a notification without fields."""
    async with running_host() as h:
        p = await h.ready()
        await ScriptRunner(h.host).run(parse('event {"event":"shutting_down"}'))
        frame = await p.recv()
        assert frame == {"jsonrpc": "2.0", "method": "event", "params": {"event": "shutting_down"}}


def test_transcript_lines_are_json(tmp_path: Path) -> None:
    from vrosdev.host.log import Recorder

    rec = Recorder("tok-abcdefgh", tmp_path / "t.jsonl")
    rec.frame("ext>host", {"params": {"token": "tok-abcdefgh"}})
    rec.violation("T-9", "oversize")
    rec.close()
    lines = [json.loads(x) for x in (tmp_path / "t.jsonl").read_text().splitlines()]
    assert lines[0]["frame"]["params"]["token"] == "<token>"
    assert lines[1]["violation"] == "T-9: oversize"


async def test_a_script_waits_for_the_request_that_holds_its_text() -> None:
    """``wait-for bus.publish T TEXT`` lets an earlier publish of another topic go by."""
    import anyio

    own = "ext.com.example.raw."
    async with running_host() as h:
        p = await h.ready()
        passed: list[str] = []
        runner = ScriptRunner(h.host)

        async def wait() -> None:
            await runner.run(parse(f"wait-for bus.publish 10 {own}second"))
            passed.append("waited")

        async with anyio.create_task_group() as tg:
            tg.start_soon(wait)
            await anyio.wait_all_tasks_blocked()
            await p.result(2, "bus", {"op": "publish", "topic": own + "first", "payload": 1})
            await anyio.wait_all_tasks_blocked()
            passed.append("first")
            await p.result(3, "bus", {"op": "publish", "topic": own + "second", "payload": 2})
        assert passed == ["first", "waited"]
