"""Checklist lines of the host shown on the wire: literal lines in, parsed frames out.

Each test drives vrosdev through a raw socket (tests/vrosdev/rawhost.py) and checks the line its
docstring names; where vrosdev reproduces a line only in part, extension/vrosdev/README.md says
what it leaves out.
"""

from __future__ import annotations

import json
import logging
from pathlib import Path
from typing import Any

import pytest

from vrosdev.host.config import HostConfig
from vrosdev.script import ScriptRunner, parse

from .rawhost import HELLO, TOKEN, RawPeer, RunningHost, config, running_host

pytestmark = pytest.mark.anyio

OWN = "ext.com.example.raw."
PANEL = "export component P { in property <string> label; }"


def _settings_config(**overrides: Any) -> HostConfig:
    from vxp.manifest import load_manifest

    manifest = load_manifest(Path(__file__).parents[2] / "manifest.toml")
    return config(settings=list(manifest.settings), **overrides)


async def _steps(h: RunningHost, *lines: str) -> None:
    await ScriptRunner(h.host).run(parse("\n".join(lines)))


async def _hello(h: RunningHost, version: str) -> RawPeer:
    peer = await h.connect()
    await peer.send(HELLO % version)
    assert (await peer.reply())["result"]["result"] == "welcome"
    return peer


async def _no_event_before_the_next_reply(peer: RawPeer, rid: int) -> None:
    """Events are written before the reply that follows them; none came."""
    await peer.result(rid, "kv", {"op": "list"})
    assert peer.events == []


async def test_bus1_publish_takes_any_json_payload_and_answers_ok() -> None:
    """BUS-1: publish {topic, payload} answers ok whatever JSON the payload is."""
    async with running_host() as h:
        p = await h.ready()
        await p.result(2, "bus", {"op": "subscribe", "pattern": OWN + "*"})
        payloads = ['{"a":[1,{"b":null}]}', "[1,2]", '"text"', "3.5", "true", "null"]
        for rid, payload in enumerate(payloads, start=3):
            await p.send(
                f'{{"jsonrpc":"2.0","id":{rid},"method":"bus","params":{{"op":"publish",'
                f'"topic":"{OWN}x","payload":{payload}}}}}'
            )
            assert (await p.reply()) == {"jsonrpc": "2.0", "id": rid, "result": {"result": "ok"}}
        delivered = [e["payload"] for e in p.events]
        assert delivered == [json.loads(x) for x in payloads]


async def test_t15_events_are_notifications_tagged_by_event() -> None:
    """T-15: an event is a JSON-RPC notification: no id, method "event", params tagged by event."""
    async with running_host(config(panels={"overlay": PANEL})) as h:
        p = await h.ready()
        await p.result(2, "bus", {"op": "subscribe", "pattern": OWN + "*"})
        await p.send(
            '{"jsonrpc":"2.0","id":3,"method":"bus","params":{"op":"publish",'
            f'"topic":"{OWN}a","payload":1}}}}'
        )
        first = await p.recv()
        await _steps(h, "show overlay")
        if first.get("id") == 3:  # the reply may come first; the event is then next
            first = await p.recv()
        else:
            assert (await p.recv())["id"] == 3
        shown = await p.recv()
        for frame in (first, shown):
            assert "id" not in frame, frame
            assert frame["jsonrpc"] == "2.0" and frame["method"] == "event"
            assert isinstance(frame["params"]["event"], str)
        assert first["params"] == {"event": "bus", "topic": OWN + "a", "payload": 1}
        assert shown["params"] == {"event": "panel_shown", "panel": "overlay"}


async def test_e3_every_domain_error_carries_a_code() -> None:
    """E-3: every namespace's domain error carries a code (a non-empty string); a message, when
    there is one, is text."""
    granted = {"bus": [], "overlays": True, "audio": True, "media": True, "secrets": True}
    async with running_host(config(granted=granted)) as h:
        p = await h.ready()
        refused = [
            ("kv", {"op": "get", "key": "k" * 257}),
            ("secrets", {"op": "set", "slot": "s", "value": "x"}),
            ("bus", {"op": "publish", "topic": "ext.com.other.x", "payload": 1}),
            ("panel", {"op": "props", "panel": "nowhere", "props": []}),
            ("assets", {"op": "remove", "key": "bad key"}),
            ("commands", {"op": "register", "name": "Not A Name"}),
            ("settings", {"op": "list"}),
            ("strings", {"op": "get", "prefix": "vros."}),
            ("audio", {"op": "stop", "sound": "s-99999999"}),
            ("media", {"op": "status", "session": "m-404"}),
        ]
        for rid, (method, params) in enumerate(refused, start=2):
            answer = await p.result(rid, method, params)
            assert answer["result"] == "err", (method, answer)
            assert isinstance(answer["code"], str) and answer["code"], answer
            assert isinstance(answer.get("message", ""), str)


async def test_h18_events_of_a_later_minor_reach_only_clients_that_said_it() -> None:
    """H-18: settings_changed and locale_changed (1.1) are withheld from a 1.0 client and sent to
    a 1.1 client."""
    async with running_host(_settings_config(granted={"bus": [], "overlays": True})) as h:
        old = await _hello(h, "1.0")
        await _steps(h, "setting mic_gain 40", "locale ja-JP")
        await _no_event_before_the_next_reply(old, 2)
        await old.stream.aclose()
        h.peers.remove(old)
        new = await _hello(h, "1.1")
        await _steps(h, "setting mic_gain 41", "locale en-US")
        assert await new.event() == {"event": "settings_changed", "key": "mic_gain", "value": 41}
        assert await new.event() == {"event": "locale_changed", "locale": "en-US"}


async def test_ver6_the_events_of_1_1_follow_the_clients_minor() -> None:
    """VER-6: 1.1's settings_changed and locale_changed go to a 1.1 client and not to a 1.0 one
    (the namespaces part: test_host_lines.py's minor test)."""
    async with running_host(_settings_config()) as h:
        old = await _hello(h, "1.0")
        await _steps(h, "setting mic_gain 30", "locale de-DE")
        await _no_event_before_the_next_reply(old, 2)
        settings = await old.result(3, "settings", {"op": "get", "key": "mic_gain"})
        assert settings["value"] == 30  # the edit happened; only its event was withheld
        await old.stream.aclose()
        h.peers.remove(old)
        new = await _hello(h, "1.1")
        await _steps(h, "locale fr-FR")
        assert await new.event() == {"event": "locale_changed", "locale": "fr-FR"}


async def test_ver2_a_later_minor_adds_fields_an_older_client_still_gets() -> None:
    """VER-2: a 1.7 host answers a 1.0 client's hello with 1.2's content_root and the grants of
    later minors: later minors add fields, which an older client skips."""
    async with running_host() as h:
        p = await _hello(h, "1.0")
        await p.send('{"jsonrpc":"2.0","id":2,"method":"kv","params":{"op":"list"}}')
        assert (await p.reply())["result"] == {"result": "keys", "keys": []}
        await p.stream.aclose()
        h.peers.remove(p)
        q = await h.connect()
        await q.send(HELLO % "1.0")
        welcome = (await q.reply())["result"]
        assert welcome["vxp_version"] == "1.7"
        assert welcome["content_root"] == "/tmp/vrOS"
        assert {"audio", "media"} <= set(welcome["granted"])


async def test_ver8_assets_and_the_anchor_hint_arrive_with_1_3() -> None:
    """VER-8: a 1.2 host has no assets namespace (-32601) and reads no anchor; a 1.3 host has
    both (a bad anchor is -32602)."""
    bad_anchor = {"op": "define", "panel": "p", "source": PANEL, "anchor": "ceiling"}
    async with running_host(config(host_version="1.2")) as h:
        p = await h.ready("1.2")
        gone = await p.call(2, "assets", {"op": "clear"})
        assert gone["error"]["code"] == -32601
        defined = await p.result(3, "panel", bad_anchor)
        assert defined["result"] == "defined"
    async with running_host(config(host_version="1.3")) as h:
        p = await h.ready("1.3")
        assert await p.result(2, "assets", {"op": "clear"}) == {"result": "ok"}
        refused = await p.call(3, "panel", bad_anchor)
        assert refused["error"]["code"] == -32602


async def test_ver11_ver12_player_controls_follow_the_clients_minor() -> None:
    """VER-11: native_controls, and title on reload, arrive with 1.6; VER-12: controls_on_player
    with 1.7. A client that announced an older minor has them ignored, as unknown fields are
    (docs/protocol-notes.md#r23)."""
    url = "https://media.example/live.m3u8"
    wanted = {"native_controls": True, "controls_on_player": True}
    seen: dict[str, tuple[bool, bool, str]] = {}
    async with running_host() as h:
        for version in ("1.5", "1.6", "1.7"):
            p = await _hello(h, version)
            opened = await p.result(2, "media", {"op": "open", "key": "k", "url": url, **wanted})
            session = opened["session"]
            reload = {"op": "reload", "session": session, "url": url, "title": "Live"}
            assert (await p.result(3, "media", reload))["result"] == "applied"
            row = await p.result(4, "media", {"op": "status", "session": session})
            seen[version] = (row["native_controls"], row["controls_on_player"], row["title"])
            await p.result(5, "media", {"op": "close", "session": session})
            await p.stream.aclose()
            h.peers.remove(p)
    assert seen == {
        "1.5": (False, False, ""),
        "1.6": (True, False, "Live"),
        "1.7": (True, True, "Live"),
    }


async def test_sec8_a_secret_reaches_no_kv_settings_log_or_transcript(
    caplog: pytest.LogCaptureFixture,
) -> None:
    """SEC-8: a stored secret shows in no kv key or value, no settings entry, no log line and no
    transcript line; only secrets get returns it."""
    secret = "hunter2-9c1f0e-never-shown"
    cfg = _settings_config(granted={"bus": [], "secrets": True}, secrets_mode="memory")
    caplog.set_level(logging.DEBUG)
    async with running_host(cfg) as h:
        p = await h.ready()
        await p.send(
            '{"jsonrpc":"2.0","id":2,"method":"secrets","params":{"op":"set","slot":"deck",'
            f'"value":"{secret}"}}}}'
        )
        assert (await p.reply())["result"] == {"result": "ok"}
        keys = (await p.result(3, "kv", {"op": "list"}))["keys"]
        values = [await p.result(10 + i, "kv", {"op": "get", "key": k}) for i, k in enumerate(keys)]
        entries = await p.result(4, "settings", {"op": "list"})
        assert secret not in json.dumps([keys, values, entries])
        got = await p.result(5, "secrets", {"op": "get", "slot": "deck"})
        assert got["value"] == secret
    assert secret not in h.transcript()
    assert secret not in caplog.text
    assert TOKEN not in h.transcript()


async def test_set20_no_such_key_no_schema_and_internal() -> None:
    """SET-20: an undeclared key is no_such_key; without [[settings]] every op is no_schema;
    internal is a host fault, made here by the request hook."""
    async with running_host(_settings_config()) as h:
        p = await h.ready()
        missing = await p.result(2, "settings", {"op": "get", "key": "not_declared"})
        assert (missing["result"], missing["code"]) == ("err", "no_such_key")
        await _steps(h, "fault settings.list internal")
        broken = await p.result(3, "settings", {"op": "list"})
        assert (broken["result"], broken["code"]) == ("err", "internal")
    async with running_host() as h:
        p = await h.ready()
        for rid, params in enumerate([{"op": "list"}, {"op": "get", "key": "mic_gain"}], 2):
            answer = await p.result(rid, "settings", params)
            assert (answer["result"], answer["code"]) == ("err", "no_schema")


async def test_pan1_pan2_manifest_panels_need_no_define_and_go_by_their_roles() -> None:
    """PAN-1: a manifest panel takes props without a define; PAN-2: the manifest's panels are
    named by their roles, overlay and dash-tab, and a runtime define cannot take those names."""
    panels = {"overlay": PANEL, "dash-tab": PANEL}
    async with running_host(config(panels=panels)) as h:
        p = await h.ready()
        for rid, name in enumerate(["overlay", "dash-tab"], start=2):
            props = {"op": "props", "panel": name, "props": [["label", {"t": "str", "v": "hi"}]]}
            assert await p.result(rid, "panel", props) == {"result": "applied"}
        missing = await p.result(4, "panel", {"op": "props", "panel": "toast", "props": []})
        assert missing["code"] == "no_such_panel"
        for rid, name in enumerate(["overlay", "dash-tab"], start=5):
            taken = await p.result(rid, "panel", {"op": "define", "panel": name, "source": PANEL})
            assert (taken["result"], taken["code"]) == ("err", "not_allowed")


async def test_pan16_anchor_is_world_or_hmd_on_the_wire() -> None:
    """PAN-16 (the wire part): define takes anchor world or hmd, and anything else is -32602;
    where the panel appears, and the user moving it, are not on the wire."""
    async with running_host() as h:
        p = await h.ready()
        for rid, anchor in enumerate(["world", "hmd"], start=2):
            name = f"p-{anchor}"
            params = {"op": "define", "panel": name, "source": PANEL, "anchor": anchor}
            assert (await p.result(rid, "panel", params))["result"] == "defined"
        bad = {"op": "define", "panel": "p-bad", "source": PANEL, "anchor": "desk"}
        assert (await p.call(4, "panel", bad))["error"]["code"] == -32602
        missing = await p.result(5, "panel", {"op": "props", "panel": "p-bad", "props": []})
        assert missing["code"] == "no_such_panel"  # a refused define leaves no panel


async def test_pan18_a_runtime_panel_cannot_take_a_manifest_panels_place() -> None:
    """PAN-18 (the wire part): runtime panels are overlays of their own; define under the name of
    the manifest's dash-tab, or remove it, is not_allowed, while a new name is defined."""
    async with running_host(config(panels={"dash-tab": PANEL})) as h:
        p = await h.ready()
        taken = await p.result(2, "panel", {"op": "define", "panel": "dash-tab", "source": PANEL})
        assert (taken["result"], taken["code"]) == ("err", "not_allowed")
        kept = await p.result(3, "panel", {"op": "remove", "panel": "dash-tab"})
        assert (kept["result"], kept["code"]) == ("err", "not_allowed")
        fresh = await p.result(4, "panel", {"op": "define", "panel": "toast", "source": PANEL})
        assert fresh["result"] == "defined"
        shown = await p.event()
        assert shown == {"event": "panel_shown", "panel": "toast"}


def _put(rid: int, key: str, frames: int) -> str:
    pixel = '{"rgba_base64":"AAAA/w==","delay_ms":50}'
    return (
        f'{{"jsonrpc":"2.0","id":{rid},"method":"assets","params":{{"op":"put","key":"{key}",'
        f'"width":1,"height":1,"frames":[{",".join([pixel] * frames)}],"loop":0}}}}'
    )


async def test_ast14_past_24_animations_in_a_panel_vrosdev_says_so() -> None:
    """AST-14: 24 animated images in one panel are within the limit; a 25th is logged as past
    it, with what vrosdev shows (docs/protocol-notes.md#r35); still images do not count."""
    panel = "export component P { in property <[image]> icons; in property <[image]> more; }"
    async with running_host(config(panels={"overlay": panel})) as h:
        p = await h.ready()
        for rid, (key, frames) in enumerate([("e:blink", 2), ("e:still", 1)], start=2):
            await p.send(_put(rid, key, frames))
            assert (await p.reply())["result"] == {"result": "ok"}

        def props(rid: int, name: str, keys: list[str]) -> dict[str, Any]:
            pairs = [[name, {"t": "assets", "v": keys}]]
            return {"op": "props", "panel": "overlay", "props": pairs}

        within = props(4, "icons", ["e:blink"] * 24 + ["e:still"] * 8)
        assert await p.result(4, "panel", within) == {"result": "applied"}
        assert "AST-14" not in h.transcript()
        past = props(5, "more", ["e:blink"])
        assert await p.result(5, "panel", past) == {"result": "applied"}
    lines = [json.loads(line) for line in h.transcript().splitlines()]
    said = [x["violation"] for x in lines if x.get("violation", "").startswith("AST-14")]
    assert len(said) == 1, said
    assert "25 animations" in said[0] and "first frame" in said[0]
