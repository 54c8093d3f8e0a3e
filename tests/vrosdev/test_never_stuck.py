"""However a connection ends, the extension's next hello is welcomed at once.

A raw client sends literal lines for every request kind of every namespace and ends its
connection at one point: before the reply, after it, or while vrosdev is writing an event to
it. Its next hello, on a new socket and with no pause, must be welcomed, never refused
``already_connected``. Every wait here is on a frame or a process, never on a clock.
"""

from __future__ import annotations

import json
import os
import signal
import sys
import wave
from pathlib import Path

import anyio
import pytest

from vrosdev.host.config import HostConfig
from vrosdev.host.core import Connection
from vrosdev.script import ScriptRunner, parse

from .rawhost import EXT_ID, HELLO, RawPeer, RunningHost, config, running_host

pytestmark = pytest.mark.anyio

OWN = f"ext.{EXT_ID}."


def line(rid: int, method: str, params: dict[str, object]) -> str:
    return json.dumps({"jsonrpc": "2.0", "id": rid, "method": method, "params": params})


SUBSCRIBE = '{"jsonrpc":"2.0","id":90,"method":"bus","params":{"op":"subscribe","pattern":"%s*"}}'
# An event larger than both socket buffers: vrosdev is still writing it when the client leaves.
BIG_PUBLISH = line(91, "bus", {"op": "publish", "topic": OWN + "big", "payload": "x" * (1 << 20)})
TOAST = "export component Toast { in property <string> song; }"


def cases(wav: Path) -> list[tuple[str, list[str], str]]:
    """(name, lines whose replies are read first, the line under test); ``{sound}`` stands for
    the sound a setup ``load`` returned."""
    load = line(2, "audio", {"op": "load", "path": str(wav), "normalize": False})
    face = {
        "id": "sim",
        "name": "Sim",
        "device": "Demo",
        "transport": "VXP",
        "capabilities": {"combined_gaze": True},
        "max_rate_hz": 30,
    }
    define = line(2, "panel", {"op": "define", "panel": "toast", "source": TOAST})
    opened = line(2, "media", {"op": "open", "key": "deck-1", "url": "https://media.example/a"})
    register = line(2, "face", {"op": "register", "source": face})
    return [
        ("kv get", [], line(3, "kv", {"op": "get", "key": "k"})),
        ("kv set", [], line(3, "kv", {"op": "set", "key": "k", "value": 1})),
        ("kv delete", [], line(3, "kv", {"op": "delete", "key": "k"})),
        ("kv list", [], line(3, "kv", {"op": "list"})),
        ("secrets set", [], line(3, "secrets", {"op": "set", "slot": "a", "value": "v"})),
        ("secrets get", [], line(3, "secrets", {"op": "get", "slot": "a"})),
        ("secrets delete", [], line(3, "secrets", {"op": "delete", "slot": "a"})),
        ("secrets exists", [], line(3, "secrets", {"op": "exists", "slot": "a"})),
        ("bus subscribe", [], line(3, "bus", {"op": "subscribe", "pattern": OWN + "*"})),
        ("bus unsubscribe", [], line(3, "bus", {"op": "unsubscribe", "pattern": OWN + "*"})),
        ("bus publish", [], line(3, "bus", {"op": "publish", "topic": OWN + "a", "payload": 1})),
        ("panel define", [], define.replace('"id": 2', '"id": 3')),
        (
            "panel props",
            [define],
            line(3, "panel", {"op": "props", "panel": "toast", "props": [["song", "hi"]]}),
        ),
        ("panel remove", [define], line(3, "panel", {"op": "remove", "panel": "toast"})),
        (
            "assets put",
            [],
            line(
                3,
                "assets",
                {
                    "op": "put",
                    "key": "dot",
                    "width": 1,
                    "height": 1,
                    "frames": [{"rgba": "AAAAAA==", "delay_ms": 0}],
                    "loop": 0,
                },
            ),
        ),
        ("assets remove", [], line(3, "assets", {"op": "remove", "key": "dot"})),
        ("assets clear", [], line(3, "assets", {"op": "clear"})),
        ("commands register", [], line(3, "commands", {"op": "register", "name": "go"})),
        ("commands unregister", [], line(3, "commands", {"op": "unregister", "name": "go"})),
        ("settings get", [], line(3, "settings", {"op": "get", "key": "k"})),
        ("settings list", [], line(3, "settings", {"op": "list"})),
        ("strings get", [], line(3, "strings", {"op": "get", "prefix": "ext.vros."})),
        ("audio load", [], load.replace('"id": 2', '"id": 3')),
        ("audio unload", [load], line(3, "audio", {"op": "unload", "sound": "{sound}"})),
        ("audio pre_arm", [], line(3, "audio", {"op": "pre_arm", "channel": "mic"})),
        (
            "audio play",
            [load],
            line(
                3,
                "audio",
                {
                    "op": "play",
                    "sound": "{sound}",
                    "targets": [{"channel": "soundboard"}],
                    "looping": True,
                },
            ),
        ),
        ("audio stop", [load], line(3, "audio", {"op": "stop", "sound": "{sound}"})),
        ("audio stop_all", [], line(3, "audio", {"op": "stop_all"})),
        ("audio get_status", [], line(3, "audio", {"op": "get_status"})),
        ("audio list_channels", [], line(3, "audio", {"op": "list_channels"})),
        ("audio list_devices", [], line(3, "audio", {"op": "list_devices"})),
        ("media open", [], opened.replace('"id": 2', '"id": 3')),
        (
            "media set",
            [opened],
            line(3, "media", {"op": "set", "session": "{session}", "paused": True}),
        ),
        ("media reload", [opened], line(3, "media", {"op": "reload", "session": "{session}"})),
        ("media close", [opened], line(3, "media", {"op": "close", "session": "{session}"})),
        ("media status", [opened], line(3, "media", {"op": "status", "session": "{session}"})),
        ("face register", [], register.replace('"id": 2', '"id": 3')),
        ("face unregister", [register], line(3, "face", {"op": "unregister", "source_id": "sim"})),
        (
            "face publish",
            [register],
            line(
                3,
                "face",
                {
                    "op": "publish",
                    "source_id": "sim",
                    "generation": 1,
                    "sample": {"sequence": 1, "age_ms": 1},
                },
            ),
        ),
        ("face subscribe", [], line(3, "face", {"op": "subscribe", "eyes": True, "mouth": True})),
        ("face unsubscribe", [], line(3, "face", {"op": "unsubscribe"})),
        ("unknown namespace", [], line(3, "nope", {"op": "x"})),
        ("bad params", [], line(3, "kv", {"op": "get"})),
        ("not JSON", [], "{not json"),
    ]


def tone(path: Path) -> Path:
    with wave.open(str(path), "wb") as out:
        out.setnchannels(1)
        out.setsampwidth(2)
        out.setframerate(48000)
        out.writeframes(b"\x10\x00" * 4800)
    return path


def host_config() -> HostConfig:
    granted = {
        "bus": [],
        "secrets": True,
        "overlays": True,
        "audio": True,
        "media": True,
        "face_provide": True,
        "face_read": True,
    }
    return config(granted=granted, secrets_mode="memory")


async def setup(peer: RawPeer, lines: list[str]) -> str:
    """Send the setup lines, reading each reply; the line under test with its ids filled in."""
    filled: dict[str, str] = {}
    for text in lines:
        await peer.send(text)
        result = (await peer.reply()).get("result", {})
        for key in ("sound", "session"):
            if isinstance(result, dict) and isinstance(result.get(key), str):
                filled[key] = result[key]
    return json.dumps(filled)


def fill(text: str, filled: str) -> str:
    for key, value in json.loads(filled).items():
        text = text.replace(f"{{{key}}}", value)
    return text


async def leave(h: RunningHost, peer: RawPeer) -> None:
    await peer.stream.aclose()
    h.peers.remove(peer)


async def welcomed_again(h: RunningHost, why: str) -> None:
    """The next hello, sent at once on a new socket, is welcomed."""
    peer = await h.connect()
    await peer.send(HELLO % "1.7")
    answer = (await peer.reply())["result"]
    assert answer["result"] == "welcome", (why, answer)
    await leave(h, peer)


def watch_clean_ups(h: RunningHost) -> list[int]:
    """The serial number of each connection whose clean-up ran, once per run of it."""
    cleaned: list[int] = []
    serial: dict[int, int] = {}

    def welcomed(conn: Connection) -> None:
        serial[id(conn)] = h.host.connections_served

    async def closed(conn: Connection) -> None:
        cleaned.append(serial[id(conn)])

    h.host.on_welcome.append(welcomed)
    h.host.on_close.append(closed)
    return cleaned


async def test_hello_media_open_close_then_hello_is_welcomed_at_once() -> None:
    """H-16: a closed connection is not live; the repro that vrosdev once refused."""
    async with running_host(config()) as h:
        for round_ in range(5):
            peer = await h.connect()
            await peer.send(HELLO % "1.7")
            assert (await peer.reply())["result"]["result"] == "welcome"
            await peer.send(
                '{"jsonrpc":"2.0","id":2,"method":"media","params":'
                '{"op":"open","key":"deck-1","url":"https://media.example/live.m3u8"}}'
            )
            await leave(h, peer)  # before the reply and the media_snapshot behind it
            await welcomed_again(h, f"round {round_}")


@pytest.mark.parametrize("point", ["before the reply", "after the reply", "mid-event"])
async def test_every_request_kind_then_any_ending_leaves_the_extension_free(
    point: str, tmp_path: Path
) -> None:
    """H-16: for every request kind, a client that leaves at any point can say hello again."""
    wav = tone(tmp_path / "tone.wav")
    async with running_host(host_config()) as h:
        cleaned = watch_clean_ups(h)
        for name, before, under_test in cases(wav):
            served = h.host.connections_served
            peer = await h.connect()
            await peer.send(HELLO % "1.7")
            assert (await peer.reply())["result"]["result"] == "welcome"
            text = fill(under_test, await setup(peer, before))
            await peer.send(text)
            if point != "before the reply":
                assert (await peer.reply()).get("id") in {3, None}
            if point == "mid-event":
                await peer.send(SUBSCRIBE % OWN)
                assert (await peer.reply())["id"] == 90
                await peer.send(BIG_PUBLISH)
                assert await peer.stream.receive()  # the first bytes of a 1 MiB event
            await leave(h, peer)
            await welcomed_again(h, f"{name}, {point}")
            assert served + 1 in cleaned, name  # its clean-up ran before the next welcome
        assert len(cleaned) == len(set(cleaned))  # and ran once


CHILD = """
import socket, sys
s = socket.socket(socket.AF_UNIX)
s.connect(sys.argv[1])
s.sendall(sys.argv[2].encode() + b"\\n")
f = s.makefile("rb")
assert b'"welcome"' in f.readline()
for text in sys.argv[3:]:
    s.sendall(text.encode() + b"\\n")
    f.readline()
big = '{"jsonrpc":"2.0","id":91,"method":"bus","params":{"op":"publish","topic":"%sbig",'
s.sendall(big.encode() + b'"payload":"' + b"x" * (1 << 20) + b'"}}\\n')
assert s.recv(1)  # vrosdev is writing a 1 MiB event to this process
s.sendall(b'{"jsonrpc":"2.0","id":92,"method":"kv","params":{"op":"set","key":"k","value":"')
print("mid-write", flush=True)
sys.stdin.read()
"""


async def test_an_extension_killed_mid_write_can_say_hello_again() -> None:
    """H-16: SIGKILL while both sides are writing a frame frees the extension at once."""
    async with running_host(host_config()) as h:
        opened = line(2, "media", {"op": "open", "key": "d", "url": "https://media.example/a"})
        for _ in range(3):
            argv = [sys.executable, "-c", CHILD % OWN, h.path, HELLO % "1.7", opened]
            async with await anyio.open_process([*argv, SUBSCRIBE % OWN]) as child:
                assert child.stdout is not None
                said = b""
                while not said.endswith(b"\n"):
                    said += await child.stdout.receive()
                assert said == b"mid-write\n"
                os.kill(child.pid, signal.SIGKILL)
                assert await child.wait() == -signal.SIGKILL
            await welcomed_again(h, "after SIGKILL")


async def test_connections_the_host_ends_are_cleaned_up_once_and_free_the_extension() -> None:
    """H-16, E-11: the host ends a connection (a request before hello, a fault that closes, no
    hello in time); the next hello is welcomed, and each welcomed one was cleaned up once."""
    async with running_host(config(hello_deadline_s=0.2)) as h:
        cleaned = watch_clean_ups(h)
        early = await h.connect()
        await early.send('{"jsonrpc":"2.0","id":1,"method":"kv","params":{"op":"list"}}')
        assert (await early.reply())["error"]["code"] == -32002
        assert await early.closed()
        await welcomed_again(h, "after a request before hello")
        peer = await h.connect()
        await peer.send(HELLO % "1.7")
        assert (await peer.reply())["result"]["result"] == "welcome"
        await ScriptRunner(h.host).run(parse("fault kv.list close"))
        await peer.send('{"jsonrpc":"2.0","id":2,"method":"kv","params":{"op":"list"}}')
        assert await peer.closed()
        await welcomed_again(h, "after a fault that closes")
        silent = await h.connect()
        assert await silent.closed()  # the host's hello deadline, not a wait of the test
        await welcomed_again(h, "after no hello")
    assert sorted(cleaned) == sorted(set(cleaned))
    assert h.host.connections_served == 6
