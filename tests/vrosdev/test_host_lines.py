"""Host lines of the checklist that no other test makes vrosdev produce, spoken in literal lines."""

from __future__ import annotations

import json
from pathlib import Path

import anyio
import pytest

from vrosdev.script import ScriptRunner, parse

from .rawhost import HELLO, config, running_host

pytestmark = pytest.mark.anyio

NO_GRANTS = {"bus": []}


async def test_a_grant_given_after_welcome_stays_refused_on_that_connection() -> None:
    """H-11: audio switched on after welcome stays -32001 until the extension reconnects."""
    async with running_host(config(granted={"bus": [], "audio": False})) as h:
        p = await h.ready()
        denied = await p.call(2, "audio", {"op": "list_channels"})
        assert denied["error"]["code"] == -32001
        h.host.config.granted["audio"] = True  # the user consents while the extension runs
        still = await p.call(3, "audio", {"op": "list_channels"})
        assert still["error"]["code"] == -32001
        await p.stream.aclose()
        h.peers.remove(p)
        q = await h.connect()
        await q.send(HELLO % "1.7")
        welcome = (await q.reply())["result"]
        assert welcome["granted"]["audio"] is True
        assert (await q.result(2, "audio", {"op": "list_channels"}))["result"] == "channels"


async def test_one_extensions_kv_is_invisible_to_another(tmp_path: Path) -> None:
    """KV-2: two extensions on one host's state folder each see only their own keys."""
    state = tmp_path / "state"
    async with running_host(config(state_dir=state)) as h:
        p = await h.ready()
        await p.result(2, "kv", {"op": "set", "key": "shared-name", "value": "mine"})
    other = config(ext_id="com.example.other", state_dir=state)
    async with running_host(other) as h:
        peer = await h.connect()
        hello = HELLO.replace("com.example.raw", "com.example.other")
        await peer.send(hello % "1.7")
        assert (await peer.reply())["result"]["result"] == "welcome"
        got = await peer.result(2, "kv", {"op": "get", "key": "shared-name"})
        assert got == {"result": "value", "value": None, "revision": 0}
        assert await peer.result(3, "kv", {"op": "list"}) == {"result": "keys", "keys": []}
    async with running_host(config(state_dir=state)) as h:
        p = await h.ready()
        got = await p.result(2, "kv", {"op": "get", "key": "shared-name"})
        assert got["value"] == "mine"


async def test_unsubscribe_answers_ok_and_stops_the_bus_events() -> None:
    """BUS-3: after unsubscribe (ok, also a second time) nothing more arrives on the topic."""
    own = "ext.com.example.raw."
    async with running_host() as h:
        p = await h.ready()
        await p.result(2, "bus", {"op": "subscribe", "pattern": own + "*"})
        await p.result(3, "bus", {"op": "publish", "topic": own + "a", "payload": 1})
        assert (await p.event())["payload"] == 1
        for rid in (4, 5):
            got = await p.result(rid, "bus", {"op": "unsubscribe", "pattern": own + "*"})
            assert got == {"result": "ok"}
        await p.result(6, "bus", {"op": "publish", "topic": own + "a", "payload": 2})
        await p.result(7, "kv", {"op": "list"})
        assert p.events == []


@pytest.mark.parametrize(
    ("method", "params", "result"),
    [
        pytest.param("kv", {"op": "list"}, "keys", id="KV-1"),
        pytest.param("assets", {"op": "clear"}, "ok", id="AST-1"),
        pytest.param("commands", {"op": "register", "name": "go"}, "ok", id="CMD-1"),
    ],
)
async def test_namespaces_without_a_capability_answer_an_extension_granted_nothing(
    method: str, params: dict[str, str], result: str
) -> None:
    """KV-1, AST-1, CMD-1: kv, assets and commands answer with nothing granted."""
    async with running_host(config(granted=NO_GRANTS)) as h:
        p = await h.ready()
        assert (await p.result(2, method, params))["result"] == result


@pytest.mark.parametrize(
    ("method", "params"),
    [
        pytest.param("audio", {"op": "list_channels"}, id="AUD-1"),
        pytest.param("media", {"op": "status", "session": "m-1"}, id="MED-1"),
        pytest.param("secrets", {"op": "exists", "slot": "a"}, id="SEC-1"),
    ],
)
async def test_namespaces_behind_a_grant_are_32001_without_it(
    method: str, params: dict[str, str]
) -> None:
    """AUD-1, MED-1, SEC-1: without its grant the namespace is capability_denied, -32001."""
    async with running_host(config(granted=NO_GRANTS)) as h:
        p = await h.ready()
        answer = await p.call(2, method, params)
        assert answer["error"]["code"] == -32001
        assert "result" not in answer
        assert (await p.result(3, "kv", {"op": "list"}))["result"] == "keys"  # still served


async def test_the_last_write_wins() -> None:
    """KV-3: of two sets to one key, a get returns the second value."""
    async with running_host() as h:
        p = await h.ready()
        await p.result(2, "kv", {"op": "set", "key": "k", "value": "first"})
        await p.result(3, "kv", {"op": "set", "key": "k", "value": {"second": True}})
        got = await p.result(4, "kv", {"op": "get", "key": "k"})
        assert got["value"] == {"second": True}


async def test_a_domain_error_is_a_successful_response_tagged_err() -> None:
    """E-2: a refused kv set is `result` `{"result":"err","code":…}` under the request's id."""
    async with running_host() as h:
        p = await h.ready()
        answer = await p.call(9, "kv", {"op": "set", "key": "k" * 300, "value": 1})
        assert answer["id"] == 9
        assert "error" not in answer
        assert answer["result"]["result"] == "err"
        assert answer["result"]["code"] == "key_too_large"


async def test_every_frame_the_host_writes_is_one_object_on_one_line() -> None:
    """T-7: welcome, a response with nested values and an event, read as raw bytes."""
    async with running_host() as h:
        p = await h.connect()
        await p.send(HELLO % "1.7")
        await p.send(
            '{"jsonrpc":"2.0","id":2,"method":"kv","params":{"op":"set","key":"n",'
            '"value":{"a":[1,"two\\nlines"]}}}'
        )
        await p.send(
            '{"jsonrpc":"2.0","id":3,"method":"bus","params":{"op":"subscribe",'
            '"pattern":"ext.com.example.raw.*"}}'
        )
        await p.send(
            '{"jsonrpc":"2.0","id":4,"method":"bus","params":{"op":"publish",'
            '"topic":"ext.com.example.raw.t","payload":"x\\ny"}}'
        )
        with anyio.fail_after(5):
            while p.buf.count(b"\n") < 5:
                p.buf += await p.stream.receive()
        assert p.buf.endswith(b"\n")
        lines = p.buf.split(b"\n")[:-1]
        frames = [json.loads(line) for line in lines]
        assert all(isinstance(f, dict) and f["jsonrpc"] == "2.0" for f in frames)
        assert sum(f.get("method") == "event" for f in frames) == 1
        assert {f.get("id") for f in frames} == {1, 2, 3, 4, None}


async def test_a_locale_change_reaches_the_extension() -> None:
    """EVT-11: the locale step sends locale_changed with the new locale."""
    async with running_host() as h:
        p = await h.ready()
        await ScriptRunner(h.host).run(parse("locale ja-JP"))
        assert await p.event() == {"event": "locale_changed", "locale": "ja-JP"}


async def test_list_channels_answers_channels() -> None:
    """AUD-12: list_channels over the wire is `channels`, one row per channel."""
    async with running_host() as h:
        p = await h.ready()
        got = await p.result(2, "audio", {"op": "list_channels"})
        assert got["result"] == "channels"
        assert {row["channel"] for row in got["channels"]} == {"soundboard", "mic", "ui"}


async def test_an_unknown_op_is_refused_and_the_connection_goes_on() -> None:
    """VER-4: an op from a later version is -32602 for that request only."""
    async with running_host() as h:
        p = await h.ready()
        answer = await p.call(2, "kv", {"op": "compact", "key": "k"})
        assert answer["error"]["code"] == -32602
        assert (await p.result(3, "kv", {"op": "list"}))["result"] == "keys"


VERSIONED = [
    pytest.param("1.0", "kv", {"op": "list"}, id="VER-5-kv"),
    pytest.param("1.0", "commands", {"op": "unregister", "name": "x"}, id="VER-5-commands"),
    pytest.param("1.1", "strings", {"op": "get", "prefix": "ext.vros."}, id="VER-6-strings"),
    pytest.param("1.1", "settings", {"op": "list"}, id="VER-6-settings"),
    pytest.param("1.2", "audio", {"op": "list_channels"}, id="VER-7-audio"),
    pytest.param("1.4", "media", {"op": "status", "session": "m-1"}, id="VER-9-media"),
    pytest.param("1.5", "face", {"op": "unsubscribe"}, id="VER-10-face"),
]


def _previous(version: str) -> str:
    major, minor = version.split(".")
    return f"{major}.{int(minor) - 1}"


@pytest.mark.parametrize(("since", "method", "params"), VERSIONED)
async def test_each_namespace_arrives_with_its_minor_version(
    since: str, method: str, params: dict[str, str]
) -> None:
    """VER-5, VER-6, VER-7, VER-9, VER-10: a host at that minor has it, one minor older not."""
    granted = {"bus": [], "audio": True, "media": True, "face_read": True}
    async with running_host(config(host_version=since, granted=granted)) as h:
        p = await h.ready(since)
        answer = await p.call(2, method, params)
        assert "result" in answer, answer
    if since == "1.0":
        return
    older = _previous(since)
    async with running_host(config(host_version=older, granted=granted)) as h:
        p = await h.ready(older)
        assert (await p.call(2, method, params))["error"]["code"] == -32601


async def test_content_root_arrives_with_1_2() -> None:
    """VER-7: welcome.content_root is sent by a 1.2 host and not by a 1.1 host."""
    async with running_host(config(host_version="1.2")) as h:
        p = await h.connect()
        await p.send(HELLO % "1.2")
        assert (await p.reply())["result"]["content_root"] == "/tmp/vrOS"
    async with running_host(config(host_version="1.1")) as h:
        p = await h.connect()
        await p.send(HELLO % "1.1")
        assert "content_root" not in (await p.reply())["result"]


@pytest.mark.parametrize(
    ("pattern", "result"),
    [
        ("ext.com.example.raw.news", "ok"),
        ("ext.com.example.raw.*", "ok"),
        ("ext.com.example.raw.n*", "err"),
        ("ext.com.example.raw.*.x", "err"),
    ],
)
async def test_a_pattern_is_a_topic_or_a_prefix_ending_in_dot_star(
    pattern: str, result: str
) -> None:
    """BUS-6: only an exact topic or `prefix.*` subscribes; other wildcards are refused."""
    async with running_host() as h:
        p = await h.ready()
        got = await p.result(2, "bus", {"op": "subscribe", "pattern": pattern})
        assert got["result"] == result, got


async def test_an_asset_is_pixels_from_the_extension_never_a_url() -> None:
    """AST-2: a put that names a URL instead of carrying frames does not fit the shape."""
    async with running_host() as h:
        p = await h.ready()
        put = {"op": "put", "key": "icon", "width": 1, "height": 1, "loop": False}
        answer = await p.call(2, "assets", {**put, "url": "https://example.test/icon.png"})
        assert answer["error"]["code"] == -32602
