"""vrosdev's command line: refusals come as one clear line, before anything is launched."""

from __future__ import annotations

import hashlib
import subprocess
import sys
from pathlib import Path
from typing import Any

from tests import leaks

REPO = Path(__file__).resolve().parents[2]


def _vrosdev(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    """``vrosdev ARGS``; a ``run`` tells its launch token to the leak sweep (tests/leaks.py)."""
    options: dict[str, Any] = {
        "cwd": cwd,
        "capture_output": True,
        "text": True,
        "timeout": 60,
        "check": False,
    }
    if args[:1] == ("run",):
        return leaks.run_vrosdev_cli(list(args), **options)[0]
    return subprocess.run([sys.executable, "-m", "vrosdev.cli", *args], **options)


def test_set14_r27_a_broken_manifest_is_refused_with_its_reason(tmp_path: Path) -> None:
    """SET-14: vrosdev refuses to launch from a broken manifest and says why."""
    text = (REPO / "manifest.toml").read_text()
    broken = text.replace("max = 100", "max = 2000000", 1) + "\nfuture_key = 1\n"
    (tmp_path / "manifest.toml").write_text(broken)
    done = _vrosdev("run", "--manifest", str(tmp_path / "manifest.toml"), cwd=tmp_path)
    assert done.returncode != 0
    assert "the manifest is refused" in done.stderr
    assert "future_key" in done.stderr  # docs/protocol-notes.md#r27: the unknown key is named
    assert "1000000" in done.stderr or "±1,000,000" in done.stderr or "SET-8" in done.stderr
    assert "Traceback" not in done.stderr


def test_r24_a_manifest_panel_with_a_forbidden_import_stops_the_launch(tmp_path: Path) -> None:
    """PAN-1: vrosdev compiles manifest panels when the extension starts; one that does not
    compile stops the launch before the extension runs."""
    (tmp_path / "panels").mkdir()
    (tmp_path / "panels" / "overlay.slint").write_text(
        'import { Button } from "std-widgets.slint";\nexport component P { Button {} }\n'
    )
    (tmp_path / "manifest.toml").write_text(
        'id = "com.example.bad"\nname = "Bad"\nversion = "0.1.0"\nvxp_version = "1.7"\n'
        'command = ["python3", "-c", "pass"]\n\n[panels]\noverlay = "panels/overlay.slint"\n'
    )
    done = _vrosdev("run", "--manifest", str(tmp_path / "manifest.toml"), cwd=tmp_path)
    assert done.returncode != 0
    assert "panel overlay" in done.stderr and "std-widgets" in done.stderr
    assert "Traceback" not in done.stderr


def test_t1_launch_sets_the_three_variables_and_returns_the_exit_code(tmp_path: Path) -> None:
    """T-1, T-3: the child sees the socket path, a token and its id; vrosdev exits with its code."""
    script = (
        "import os,sys; e=os.environ; "
        "ok=e['VROS_EXT_ENDPOINT'].endswith('/vros/ext-com.example.env.sock') "
        "and len(e['VROS_EXT_TOKEN'])>=16 and e['VROS_EXT_ID']=='com.example.env'; "
        "sys.exit(7 if ok else 1)"
    )
    done = _vrosdev(
        "run",
        "--command",
        f'{sys.executable} -c "{script}"',
        "--id",
        "com.example.env",
        "--hello-deadline",
        "3",
        "--no-strict",
        cwd=tmp_path,
    )
    assert done.returncode == 7, done.stderr


def test_token_fd_tells_the_launch_token_the_extension_got(tmp_path: Path) -> None:
    """What tests rely on to learn a launch token: the pipe carries the very token of this
    launch (compared by digest, so the token itself is printed nowhere)."""
    script = (
        "import hashlib,os; "
        "print(hashlib.sha256(os.environ['VROS_EXT_TOKEN'].encode()).hexdigest())"
    )
    done, token = leaks.run_vrosdev_cli(
        [
            "run",
            "--command",
            f'{sys.executable} -c "{script}"',
            "--id",
            "com.example.tok",
            "--hello-deadline",
            "3",
            "--no-strict",
        ],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert len(token) >= 16
    assert done.stdout.split() == [hashlib.sha256(token.encode()).hexdigest()]
    assert token in leaks.registered()


CLIENT = """
import json, os, socket, sys, time
path = os.environ["VROS_EXT_ENDPOINT"]
missing_at_start = not os.path.exists(path)
for _ in range(200):
    try:
        s = socket.socket(socket.AF_UNIX)
        s.connect(path)
        break
    except OSError:
        s.close()
        time.sleep(0.05)
env = os.environ
hello = {"id": env["VROS_EXT_ID"], "vxp_version": "1.7", "token": env["VROS_EXT_TOKEN"]}
frame = {"jsonrpc": "2.0", "id": 1, "method": "hello", "params": hello}
s.sendall(json.dumps(frame).encode() + b"\\n")
answer = json.loads(s.makefile("rb").readline())["result"]
print("ANSWER", answer["result"], answer.get("code"), "MISSING" if missing_at_start else "PRESENT")
"""


def _run_client(tmp_path: Path, *options: str) -> subprocess.CompletedProcess[str]:
    (tmp_path / "client.py").write_text(CLIENT)
    return _vrosdev(
        "run",
        "--command",
        f"{sys.executable} {tmp_path / 'client.py'}",
        "--id",
        "com.example.late",
        "--no-strict",
        *options,
        cwd=tmp_path,
    )


def test_t1_endpoint_is_there_before_the_process_starts(tmp_path: Path) -> None:
    done = _run_client(tmp_path)
    assert "ANSWER welcome None PRESENT" in done.stdout, done.stderr


def test_endpoint_delay_starts_listening_after_the_process(tmp_path: Path) -> None:
    done = _run_client(tmp_path, "--endpoint-delay", "0.5")
    assert "ANSWER welcome None MISSING" in done.stdout, done.stderr
    assert done.returncode == 0


def test_reject_answers_the_hello_rejected_with_the_code(tmp_path: Path) -> None:
    done = _run_client(tmp_path, "--reject", "bad_token")
    assert "ANSWER rejected bad_token PRESENT" in done.stdout, done.stderr


def test_a_malformed_fault_is_refused_in_one_line(tmp_path: Path) -> None:
    done = _vrosdev(
        "run", "--command", "true", "--id", "com.example.x", "--fault", "kv.set@2", cwd=tmp_path
    )
    assert done.returncode == 2
    assert "--fault" in done.stderr and "NAMESPACE.OP=CODE" in done.stderr
    assert "Traceback" not in done.stderr
