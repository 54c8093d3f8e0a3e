"""vrosdev's kv, secrets, bus, commands, settings, strings, assets and face over raw lines."""

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
    async with running_host(_settings_config()) as h:
        p = await h.ready()
        err = await p.result(2, "kv", {"op": "set", "key": "mic_gain", "value": 101})
        assert err["result"] == "err"
        assert err["code"] == "invalid_value"
        ok = await p.result(3, "kv", {"op": "set", "key": "mic_gain", "value": 100})
        assert ok["result"] == "written"


# --- settings -------------------------------------------------------------------------------


async def test_set15_set16_set17_get_list_defaults_and_stored() -> None:
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
    async with running_host() as h:
        p = await h.ready()
        err = await p.result(2, "settings", {"op": "list"})
        assert err["result"] == "err"
        assert err["code"] == "no_schema"


async def test_set19_settings_changed_script_step_validates() -> None:
    async with running_host(_settings_config()) as h:
        p = await h.ready()
        await ScriptRunner(h.host).run(parse("setting mic_gain 55"))
        assert await p.event() == {"event": "settings_changed", "key": "mic_gain", "value": 55}
        got = await p.result(2, "settings", {"op": "get", "key": "mic_gain"})
        assert got["value"] == 55


# --- secrets --------------------------------------------------------------------------------


async def test_sec9_linux_not_persistable() -> None:
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
        err = await p.result(7, "secrets", {"op": "set", "slot": "b", "value": "y" * 2049})
        assert err["code"] == "too_large"
        assert (await p.result(8, "secrets", {"op": "exists", "slot": "b"}))["exists"] is False
    assert '"slot":"a"' in h.transcript()
    assert "s3cr3t-v" not in h.transcript()  # SEC-8


# --- bus ------------------------------------------------------------------------------------


async def test_bus4_bus5_bus8_bus9_prefix_grant_and_lifecycle() -> None:
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
    from vrosdev.host.namespaces.bus import pattern_within, topic_matches

    assert topic_matches("ext.cat.kittyn.twitch.*", "ext.cat.kittyn.twitch.chat.message")
    assert not topic_matches("ext.cat.kittyn.twitch.*", "ext.cat.kittyn.twitchy")
    assert topic_matches("vr.lifecycle", "vr.lifecycle")
    assert pattern_within("ext.cat.kittyn.twitch.chat.*", "ext.cat.kittyn.twitch.*")
    assert not pattern_within("ext.cat.*", "ext.cat.kittyn.twitch.*")


async def test_bus5_r10_grant_is_the_narrowed_one() -> None:
    async with running_host(config(granted={"bus": []})) as h:
        p = await h.ready()
        err = await p.result(2, "bus", {"op": "subscribe", "pattern": "vr.lifecycle"})
        assert err["code"] == "not_allowed"


# --- commands -------------------------------------------------------------------------------


async def test_cmd2_cmd3_cmd5_cmd8_evt9_register_invoke_and_names() -> None:
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
    """Malformed base64 and the wrong decoded length are bad_pixels, sent as literal lines."""
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
    async with running_host(config(budget_full_every=2)) as h:
        p = await h.ready()
        codes = [(await p.result(2 + i, "assets", _put(f"b{i}"))).get("code") for i in range(4)]
        assert codes == [None, "budget_full", None, "budget_full"]


# --- face -----------------------------------------------------------------------------------


async def test_face1_not_granted_then_unsupported() -> None:
    async with running_host() as h:
        p = await h.ready()
        err = await p.result(2, "face", {"op": "unsubscribe"})
        assert err["code"] == "not_granted"
    async with running_host(config(granted={"bus": [], "face_read": True})) as h:
        p = await h.ready()
        err = await p.result(2, "face", {"op": "unsubscribe"})
        assert err["code"] == "unsupported"


# --- events ---------------------------------------------------------------------------------


async def test_evt_r16_settings_changed_withheld_from_a_1_0_client() -> None:
    async with running_host(_settings_config()) as h:
        p = await h.ready("1.0")
        await ScriptRunner(h.host).run(parse("setting mic_gain 20\nlocale ja-JP"))
        await p.result(2, "kv", {"op": "list"})
        assert p.events == []


async def test_evt1_shutting_down_sent_by_a_raw_event_step() -> None:
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
