"""The emulated Studio as a process: launch environment, pass-through, shutdown and kill, exit
codes, the transcript; and the seed's own sample client, unchanged, run under it."""

from __future__ import annotations

import json
import os
import shlex
import signal
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from vrosdev.studio.config import DEFAULT_VMS

HERE = Path(__file__).resolve()
REPO = HERE.parents[3]
SEED_CLIENT_REL = Path("..") / "shared" / "seeds" / "000-sample-client.py"


def seed_client() -> Path:
    """The sample client of the Studio protocol's page, kept beside the repository's checkout
    (it is not part of the repository); without it the test is skipped and says where."""
    candidate = REPO / SEED_CLIENT_REL
    if not candidate.is_file():
        pytest.skip(
            f"the Studio page's sample client is not beside this checkout: no {SEED_CLIENT_REL} "
            f"relative to {REPO}"
        )
    return candidate.resolve()


# A stdlib-only extension whose misbehaviour a test picks with STUDIO_TEST_MODE:
#   env     write the MX_* variables to STUDIO_TEST_OUT, print to stdout and stderr, exit 7
#   mute    say hello, then answer nothing (no status, no shutdown) and never exit
RAW_EXTENSION = r"""
import json, os, socket, struct, sys, time
mode = os.environ["STUDIO_TEST_MODE"]
def send(sock, obj):
    body = b"\x00" + json.dumps(obj).encode()
    sock.sendall(struct.pack(">I", len(body)) + body)
def recv(sock):
    def exact(n):
        data = b""
        while len(data) < n:
            chunk = sock.recv(n - len(data))
            if not chunk:
                raise SystemExit(9)
            data += chunk
        return data
    (n,) = struct.unpack(">I", exact(4))
    return json.loads(exact(n)[1:])
names = ("MX_EXTENSION_HOST", "MX_EXTENSION_TOKEN", "MX_EXTENSION_ID", "MX_EXTENSION_PROTOCOL")
env = {name: os.environ.get(name) for name in names}
host, port = env["MX_EXTENSION_HOST"].rsplit(":", 1)
sock = socket.create_connection((host, int(port)))
send(sock, {"jsonrpc": "2.0", "id": 1, "method": "host.v1.hello", "params": {
    "token": env["MX_EXTENSION_TOKEN"], "protocolVersion": int(env["MX_EXTENSION_PROTOCOL"]),
    "extensionId": env["MX_EXTENSION_ID"]}})
hello = recv(sock)
if mode == "env":
    with open(os.environ["STUDIO_TEST_OUT"], "w") as f:
        json.dump({"env": env, "hello": hello}, f)
    print("out: hello from the extension", flush=True)
    print("err: a warning from the extension", file=sys.stderr, flush=True)
    sys.exit(7)
while True:
    time.sleep(60)
"""


def studio(
    tmp_path: Path,
    command: list[str],
    *args: str,
    env: dict[str, str] | None = None,
    timeout: float = 30,
) -> subprocess.CompletedProcess[str]:
    argv = [
        sys.executable, "-m", "vrosdev.studio", "--id", "com.example.one",
        "--command", shlex.join(command), "--record", str(tmp_path / "t.jsonl"), *args,
    ]  # fmt: skip
    full_env = {**os.environ, **(env or {})}
    return subprocess.run(
        argv, capture_output=True, text=True, env=full_env, timeout=timeout, cwd=tmp_path
    )


def raw_extension(tmp_path: Path) -> list[str]:
    script = tmp_path / "raw_ext.py"
    script.write_text(RAW_EXTENSION, encoding="utf-8")
    return [sys.executable, str(script)]


def transcript(tmp_path: Path) -> list[dict[str, Any]]:
    text = (tmp_path / "t.jsonl").read_text(encoding="utf-8")
    return [json.loads(line) for line in text.splitlines()]


def test_seed_sample_client_runs_unchanged(tmp_path: Path) -> None:
    """The seed's script prints the listVms result and exits 0 after shutdown."""
    done = studio(tmp_path, [sys.executable, str(seed_client())], "--end-after", "listVms")
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == [json.dumps(list(DEFAULT_VMS))]
    lines = transcript(tmp_path)
    sent = [line["frame"] for line in lines if line.get("dir") == "host>ext"]
    assert {"jsonrpc": "2.0", "id": 2, "method": "extension.v1.shutdown", "params": None} in sent
    assert any(
        line.get("note") == "connection #1: extension.v1.shutdown answered" for line in lines
    )
    assert not any("violation" in line for line in lines)


def test_seed_sample_client_with_a_vms_file(tmp_path: Path) -> None:
    vms = [{"id": "build-42", "arch": "arm64"}]
    (tmp_path / "vms.json").write_text(json.dumps(vms), encoding="utf-8")
    done = studio(
        tmp_path, [sys.executable, str(seed_client())], "--end-after", "listVms",
        "--vms", str(tmp_path / "vms.json"),
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == [json.dumps(vms)]


def test_example_sample_session(tmp_path: Path) -> None:
    """examples/studio_sample_session.py: hello, ready, listVms printed, shutdown, exit 0."""
    example = REPO / "examples" / "studio_sample_session.py"
    done = studio(tmp_path, [sys.executable, str(example)], "--end-after", "listVms")
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout) == list(DEFAULT_VMS)
    frames = [line["frame"] for line in transcript(tmp_path) if line.get("dir") == "ext>host"]
    status = next(f for f in frames if f.get("id") == 1 and "result" in f)
    assert status["result"]["state"] == "ready"
    assert status["result"]["message"] == "watching"


def test_launch_environment_pass_through_and_exit_code(tmp_path: Path) -> None:
    """The four variables, stdout and stderr passed through, the extension's exit code, and the
    token in neither the transcript nor the emulator's own output."""
    out = tmp_path / "seen.json"
    done = studio(
        tmp_path,
        raw_extension(tmp_path),
        env={"STUDIO_TEST_MODE": "env", "STUDIO_TEST_OUT": str(out)},
    )
    assert done.returncode == 7
    assert "out: hello from the extension" in done.stdout.splitlines()
    assert "err: a warning from the extension" in done.stderr.splitlines()
    seen = json.loads(out.read_text(encoding="utf-8"))
    env = seen["env"]
    assert env["MX_EXTENSION_HOST"].startswith("127.0.0.1:")
    assert env["MX_EXTENSION_ID"] == "com.example.one"
    assert env["MX_EXTENSION_PROTOCOL"] == "1"
    token = env["MX_EXTENSION_TOKEN"]
    assert len(token) >= 16
    assert "result" in seen["hello"]
    record = (tmp_path / "t.jsonl").read_text(encoding="utf-8")
    assert token not in record
    assert token not in done.stdout + done.stderr
    assert '"token":"<token>"' in record


def test_the_token_is_fresh_per_launch(tmp_path: Path) -> None:
    tokens = []
    for n in range(2):
        out = tmp_path / f"seen{n}.json"
        studio(
            tmp_path,
            raw_extension(tmp_path),
            env={"STUDIO_TEST_MODE": "env", "STUDIO_TEST_OUT": str(out)},
        )
        tokens.append(json.loads(out.read_text(encoding="utf-8"))["env"]["MX_EXTENSION_TOKEN"])
    assert tokens[0] != tokens[1]


def test_silent_extension_is_failed_then_killed(tmp_path: Path) -> None:
    """docs/protocol-notes.md#m7 both ways: no status reply (failed), no exit after shutdown
    (killed, 128 + SIGKILL)."""
    done = studio(
        tmp_path, raw_extension(tmp_path), "--end-after", "status",
        "--status-deadline", "0.2", "--shutdown-deadline", "0.3",
        env={"STUDIO_TEST_MODE": "mute"},
    )  # fmt: skip
    assert done.returncode == 128 + signal.SIGKILL
    violations = [line["violation"] for line in transcript(tmp_path) if "violation" in line]
    assert any(
        v.startswith("docs/protocol-notes.md#m7: no extension.v1.reportStatus reply")
        for v in violations
    )
    assert any(
        v.startswith("docs/protocol-notes.md#m7: the extension did not exit") for v in violations
    )


def test_sigterm_ends_the_session_with_shutdown(tmp_path: Path) -> None:
    """A signal to the emulator becomes extension.v1.shutdown; the seed client exits 0."""
    argv = [
        sys.executable, "-m", "vrosdev.studio", "--id", "com.example.one",
        "--command", shlex.join([sys.executable, str(seed_client())]),
    ]  # fmt: skip
    proc = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        assert proc.stderr is not None
        for line in proc.stderr:
            if line.startswith("studio: connection #1: host.v1.listVms answered"):
                break
        proc.send_signal(signal.SIGTERM)
        out, _ = proc.communicate(timeout=20)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert proc.returncode == 0
    assert json.dumps(list(DEFAULT_VMS)) in out.splitlines()


def test_a_command_that_cannot_start(tmp_path: Path) -> None:
    done = studio(tmp_path, [str(tmp_path / "no-such-extension")])
    assert done.returncode == 127
    assert "cannot start the extension" in done.stderr
    assert "Traceback" not in done.stderr


@pytest.mark.parametrize(
    ("content", "reason"),
    [("{not json", "not JSON"), ('{"id": 1}', "array of objects"), ("[1, 2]", "array of objects")],
)
def test_a_bad_vms_file_is_a_usage_error(tmp_path: Path, content: str, reason: str) -> None:
    (tmp_path / "vms.json").write_text(content, encoding="utf-8")
    done = studio(tmp_path, [sys.executable, "-c", "pass"], "--vms", str(tmp_path / "vms.json"))
    assert done.returncode == 2
    assert reason in done.stderr
    assert "Traceback" not in done.stderr


def test_main_returns_usage_errors_without_raising() -> None:
    from vrosdev.studio import main

    assert main(["--id", "x"]) == 2  # no --command
    assert main(["--id", "x", "--command", "   "]) == 2
