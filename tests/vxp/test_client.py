"""The anyio client against a minimal host on a real Unix socket, literal JSON lines."""

from __future__ import annotations

import io
import logging
import subprocess
import sys
from pathlib import Path
from typing import Any

import anyio
import anyio.abc
import pytest

import vxp
from vxp.errors import (
    CapabilityDenied,
    ConnectionClosed,
    DomainError,
    EndpointUnavailable,
    HelloRejected,
    InvalidRequest,
    MissingEnvironment,
)
from vxp.transport import LaunchEnvironment, StreamPipe, open_endpoint

from .minihost import TOKEN, MiniHost, default_responder

pytestmark = pytest.mark.anyio
REPO = Path(__file__).parents[2]


async def test_h3_hello_welcome_kv_events_and_errors() -> None:
    host = MiniHost()
    async with anyio.create_task_group() as tg:
        await tg.start(host.serve)
        async with vxp.connect(host.env) as client:
            assert client.welcome.locale == "en-US" and client.welcome.granted.audio
            assert client.welcome.content_root == "/tmp/vrOS"
            assert str(client.host_version) == "1.7"
            assert await client.kv.get("count") == (3, 12)
            assert await client.kv.set("count", 4) == (13, False)
            await client.commands.register("say-hello")
            async for event in client.events():
                assert isinstance(event, vxp.models.CommandInvoked)
                assert event.command == "say-hello"
                break
            with pytest.raises(CapabilityDenied):
                await client.media.close("m-00000001")
            with pytest.raises(DomainError) as info:
                await client.audio.play("s-00000009", [("soundboard", 80)])
            assert info.value.code == "unknown_sound" and info.value.namespace == "audio"
            with pytest.raises(InvalidRequest) as bad:
                await client.audio.play("s-1", [("soundboard", 101)])
            assert "gain" in str(bad.value)
        tg.cancel_scope.cancel()
    host.cleanup()
    assert host.received[0]["method"] == "hello"
    assert host.received[0]["params"] == {
        "id": "com.example.hello",
        "vxp_version": "1.7",
        "token": TOKEN,
    }
    assert all(
        f["method"] != "audio"
        or f["params"]["op"] != "play"
        or f["params"]["targets"][0]["gain_pct"] <= 100
        for f in host.received
    )


async def test_many_requests_in_flight_resolve_to_their_own_answers() -> None:
    def slow_responder(frame: dict[str, Any]) -> list[str]:
        if frame["method"] == "kv" and frame["params"]["op"] == "get":
            return []  # answered later, out of order
        return default_responder(frame)

    host = MiniHost(slow_responder)
    async with anyio.create_task_group() as tg:
        await tg.start(host.serve)
        async with vxp.connect(host.env) as client:
            results: dict[str, Any] = {}

            async def get(key: str) -> None:
                results[key] = await client.kv.get(key)

            async with anyio.create_task_group() as inner:
                for key in ("a", "b", "c"):
                    inner.start_soon(get, key)
                with anyio.fail_after(5):
                    while len([f for f in host.received if f["method"] == "kv"]) < 3:  # noqa: ASYNC110
                        await anyio.sleep(0.01)
                frames = [f for f in host.received if f["method"] == "kv"]
                for f in reversed(frames):
                    rid, key = f["id"], f["params"]["key"]
                    await host.send_line(
                        f'{{"jsonrpc":"2.0","id":{rid},"result":{{"result":"value",'
                        f'"value":"{key}","revision":1}}}}'
                    )
            assert results == {"a": ("a", 1), "b": ("b", 1), "c": ("c", 1)}
        tg.cancel_scope.cancel()
    host.cleanup()


async def test_h12_rejection_raises_hello_rejected_and_logs_nothing_more(
    caplog: pytest.LogCaptureFixture,
) -> None:
    """The caller reports the refusal; the close that follows it is not a second warning."""
    caplog.set_level(logging.WARNING, logger="vxp")
    host = MiniHost()
    env = dict(host.env, VROS_EXT_TOKEN="wrong-token-value")
    async with anyio.create_task_group() as tg:
        await tg.start(host.serve)
        with pytest.raises(HelloRejected) as info:
            async with vxp.connect(env):
                pass
        assert info.value.code == "bad_token"
        assert "wrong-token-value" not in str(info.value)
        tg.cancel_scope.cancel()
    assert [r.getMessage() for r in caplog.records if r.name.startswith("vxp")] == []
    host.cleanup()


async def test_disconnect_surfaces_once_and_fails_pending() -> None:
    def closer(frame: dict[str, Any]) -> list[str]:
        if frame["method"] == "kv":
            return ["<close>"]
        return default_responder(frame)

    host = MiniHost(closer)
    async with anyio.create_task_group() as tg:
        await tg.start(host.serve)
        async with vxp.connect(host.env) as client:
            with pytest.raises(ConnectionClosed):
                await client.kv.get("x")
            with pytest.raises(ConnectionClosed):
                async for _ in client.events():
                    pass
            async for _ in client.events():  # surfaced once: a second loop just ends
                pass
            assert not client.is_open
            with pytest.raises(ConnectionClosed):
                await client.kv.list()
        tg.cancel_scope.cancel()
    host.cleanup()


async def test_t5_r1_endpoint_retry_then_clear_failure(tmp_path: Path) -> None:
    missing = str(tmp_path / "never.sock")
    with pytest.raises(EndpointUnavailable, match=r"does not exist after 0\.3 s"):
        await open_endpoint(missing, retry_for=0.3)

    host = MiniHost()

    async def late_start() -> None:
        await anyio.sleep(0.3)
        await host.serve()

    async with anyio.create_task_group() as tg:
        tg.start_soon(late_start)
        async with vxp.connect(host.env) as client:  # the socket appears 0.3 s after we start
            assert client.welcome.vxp_version == "1.7"
        tg.cancel_scope.cancel()
    host.cleanup()


def test_missing_variable_names_it_without_the_token() -> None:
    with pytest.raises(MissingEnvironment) as info:
        LaunchEnvironment.from_environ({"VROS_EXT_ENDPOINT": "/x", "VROS_EXT_TOKEN": TOKEN})
    assert "VROS_EXT_ID" in str(info.value) and TOKEN not in str(info.value)
    env = LaunchEnvironment.from_environ(
        {"VROS_EXT_ENDPOINT": "/x", "VROS_EXT_TOKEN": TOKEN, "VROS_EXT_ID": "a.b"}
    )
    assert TOKEN not in repr(env) and TOKEN not in str(env.token) and TOKEN not in f"{env.token}"


async def test_t6_token_never_reaches_debug_logs(caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.DEBUG)
    stream = io.StringIO()
    handler = logging.StreamHandler(stream)
    logging.getLogger().addHandler(handler)
    try:
        host = MiniHost()
        async with anyio.create_task_group() as tg:
            await tg.start(host.serve)
            async with vxp.connect(host.env) as client:
                await client.kv.get("count")
                logging.getLogger("test").debug("client=%r session=%r", client, client._session)
            tg.cancel_scope.cancel()
        host.cleanup()
    finally:
        logging.getLogger().removeHandler(handler)
    captured = caplog.text + stream.getvalue()
    assert "client=Client(" in captured
    assert TOKEN not in captured


async def test_windows_stream_wrapper_over_an_asyncio_connection(tmp_path: Path) -> None:
    """The named-pipe path's ByteStream, exercised over asyncio streams (same interface)."""
    import asyncio

    path = str(tmp_path / "pipe.sock")
    got: list[bytes] = []

    async def handle(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        got.append(await reader.readline())
        writer.write(b'{"ok":1}\n')
        await writer.drain()
        writer.close()

    server = await asyncio.start_unix_server(handle, path)
    reader, writer = await asyncio.open_unix_connection(path)
    pipe = StreamPipe(reader, writer)
    await pipe.send(b'{"hello":1}\n')
    assert await pipe.receive() == b'{"ok":1}\n'
    with pytest.raises(anyio.EndOfStream):
        await pipe.receive()
    await pipe.aclose()
    server.close()
    assert got == [b'{"hello":1}\n']


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


def test_readme_example_runs_against_a_host(tmp_path: Path) -> None:
    """The README's ten-line extension, run as a process against the minimal host."""
    example = (REPO / "examples" / "hello.py").read_text()
    readme = (REPO / "README.md").read_text()
    assert example.strip() in readme

    def responder(frame: dict[str, Any]) -> list[str]:
        out = default_responder(frame)
        if frame["method"] == "kv" and frame["params"]["op"] == "set":
            out.append('{"jsonrpc":"2.0","method":"event","params":{"event":"shutting_down"}}')
        return out

    async def main() -> subprocess.CompletedProcess[bytes]:
        host = MiniHost(responder)
        async with anyio.create_task_group() as tg:
            await tg.start(host.serve)
            result = await anyio.run_process(
                [sys.executable, str(REPO / "examples" / "hello.py")],
                env={**host.env, "PATH": "/usr/bin:/bin"},
                check=False,
            )
            tg.cancel_scope.cancel()
        host.cleanup()
        return result

    result = anyio.run(main)
    assert result.returncode == 0, result.stderr.decode()
    assert result.stdout.decode().strip() == "hello #4 from en-US"


def test_importing_the_client_does_not_import_pydantic() -> None:
    """Start fast: pydantic is imported while the host answers hello, not before."""
    code = "import sys, vxp, vxp.client; print('pydantic' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


async def test_aud_play_requests_are_built_once_per_arguments_and_stay_exact() -> None:
    """Repeated plays reuse one validated body; different arguments never share one; a bad
    argument is refused every time, and the kept bodies are bounded."""
    from vxp._namespaces import PLAY_REQUESTS_KEPT
    from vxp.models.audio import PlayTarget

    host = MiniHost()
    calls = [
        ("s-1", [("soundboard", 80)], False),
        ("s-1", [PlayTarget(channel="soundboard", gain_pct=80)], False),
        ("s-1", [("soundboard", 80), ("mic", 40)], False),
        ("s-1", [("soundboard", 80)], True),
        ("s-2", [("soundboard", 80)], False),
        ("s-1", [("soundboard", 80)], False),
    ]
    async with anyio.create_task_group() as tg:
        await tg.start(host.serve)
        async with vxp.connect(host.env) as client:
            for sound, targets, looping in calls:
                with pytest.raises(DomainError):  # the mini host knows no sounds
                    await client.audio.play(sound, targets, looping=looping)
            for _ in range(2):
                with pytest.raises(InvalidRequest, match="gain"):
                    await client.audio.play("s-1", [("soundboard", 101)])
                with pytest.raises(InvalidRequest):  # unhashable and invalid: never kept
                    await client.audio.play("s-1", [("soundboard", [80])])  # type: ignore[list-item]
            for n in range(PLAY_REQUESTS_KEPT + 10):
                with pytest.raises(DomainError):
                    await client.audio.play(f"s-{n}", [("mic", 50)])
            assert len(client.audio._plays) <= PLAY_REQUESTS_KEPT  # pyright: ignore[reportPrivateUsage]
        tg.cancel_scope.cancel()
    host.cleanup()
    plays = [f["params"] for f in host.received if f.get("method") == "audio"]
    assert plays[:6] == [
        {
            "op": "play",
            "sound": "s-1",
            "targets": [{"channel": "soundboard", "gain_pct": 80}],
            "looping": False,
        },
        {
            "op": "play",
            "sound": "s-1",
            "targets": [{"channel": "soundboard", "gain_pct": 80}],
            "looping": False,
        },
        {
            "op": "play",
            "sound": "s-1",
            "targets": [
                {"channel": "soundboard", "gain_pct": 80},
                {"channel": "mic", "gain_pct": 40},
            ],
            "looping": False,
        },
        {
            "op": "play",
            "sound": "s-1",
            "targets": [{"channel": "soundboard", "gain_pct": 80}],
            "looping": True,
        },
        {
            "op": "play",
            "sound": "s-2",
            "targets": [{"channel": "soundboard", "gain_pct": 80}],
            "looping": False,
        },
        {
            "op": "play",
            "sound": "s-1",
            "targets": [{"channel": "soundboard", "gain_pct": 80}],
            "looping": False,
        },
    ]
    assert len(plays) == 6 + PLAY_REQUESTS_KEPT + 10  # nothing invalid was sent
    assert [p["sound"] for p in plays[6:]] == [f"s-{n}" for n in range(PLAY_REQUESTS_KEPT + 10)]


def _wmem_max() -> int:
    try:
        return int(Path("/proc/sys/net/core/wmem_max").read_text())
    except (OSError, ValueError):
        return 0


@pytest.mark.skipif(_wmem_max() <= 212992, reason="the kernel caps send buffers at its default")
async def test_t9_the_send_buffer_holds_a_whole_frame(tmp_path: Path) -> None:
    """A 3 MiB frame fits the kernel's buffer, so writing a put never waits on the host's read."""
    import socket

    from vxp.transport import SEND_BUFFER_BYTES

    path = str(tmp_path / "ep.sock")
    listener = await anyio.create_unix_listener(path)
    async with listener, await open_endpoint(path, retry_for=0.5) as stream:
        sock = stream.extra(anyio.abc.SocketAttribute.raw_socket)
        granted = sock.getsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF)
        assert granted >= min(SEND_BUFFER_BYTES, _wmem_max()) >= 3 * 1024 * 1024


async def test_send_request_writes_before_returning_and_the_answer_comes_later() -> None:
    """The frame is on the wire when send_request returns, before any answer exists; result()
    gives the answer (or the domain error) as request() would."""

    def held(frame: dict[str, Any]) -> list[str]:
        if frame["method"] == "audio" and frame["params"]["op"] == "stop_all":
            return []  # answered by the test, after it saw the frame
        return default_responder(frame)

    host = MiniHost(held)
    async with anyio.create_task_group() as tg:
        await tg.start(host.serve)
        async with vxp.connect(host.env) as client:
            from vxp.models.audio import AudioOk, AudioStopAll

            pending = await client.send_request("audio", AudioStopAll())
            with anyio.fail_after(5):
                while not [f for f in host.received if f["method"] == "audio"]:  # noqa: ASYNC110
                    await anyio.sleep(0.01)
            [frame] = [f for f in host.received if f["method"] == "audio"]
            await host.send_line(
                f'{{"jsonrpc":"2.0","id":{frame["id"]},"result":{{"result":"ok"}}}}'
            )
            assert isinstance(await pending.result(), AudioOk)
            targets = [{"channel": "soundboard", "gain_pct": 80}]
            play = vxp.models.AudioPlay(sound="s-00000009", targets=targets)
            failing = await client.send_request("audio", play)
            with pytest.raises(DomainError) as info:
                await failing.result()
            assert info.value.code == "unknown_sound"
        tg.cancel_scope.cancel()
    host.cleanup()
