"""Issue 23, goal 1: Cueboard says hello before it loads what hello does not need.

``python -m cueboard`` is spawned against a raw Unix listener with ``PYTHONPROFILEIMPORTTIME``
set and its stderr going to a file. Python writes one line to stderr as each import finishes,
before the next statement runs, so when the hello line reaches the listener the file holds
every import done before hello was written. The listener never answers: the process waits for
its welcome, and is killed.
"""

from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow

EXT_ID = "com.cueboard.hellofirst"
TOKEN = "hello-first-launch-token"

# Modules (and packages, with everything under them) that hello does not need.
HEAVY = (
    "cueboard.core",
    "cueboard.runtime.shell",
    "cueboard.workers",
    "vxp.models.assets",
    "PIL",
    "httpx",
    "pykakasi",
    "anyascii",
    "av",
    "imageio",
    "numpy",
)


@pytest.fixture
def sock_dir() -> Iterator[Path]:
    path = Path(tempfile.mkdtemp(prefix="cb-hello-"))  # short: AF_UNIX paths are limited
    yield path
    shutil.rmtree(path, ignore_errors=True)


def imports_before_hello(sock_dir: Path) -> tuple[dict[str, object], list[str]]:
    """The hello frame Cueboard wrote first, and the modules imported before it was written."""
    endpoint = sock_dir / "endpoint.sock"
    stderr_path = sock_dir / "stderr.txt"
    env = {
        **os.environ,
        "VROS_EXT_ENDPOINT": str(endpoint),
        "VROS_EXT_TOKEN": TOKEN,
        "VROS_EXT_ID": EXT_ID,
        "PYTHONPROFILEIMPORTTIME": "1",
    }
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as listener:
        listener.bind(str(endpoint))
        listener.listen(1)
        listener.settimeout(30)
        with stderr_path.open("wb") as stderr:
            proc = subprocess.Popen(
                [sys.executable, "-m", "cueboard"],
                env=env,
                stdin=subprocess.DEVNULL,
                stdout=subprocess.DEVNULL,
                stderr=stderr,
            )
        try:
            conn, _ = listener.accept()
            with conn:
                conn.settimeout(30)
                data = b""
                while b"\n" not in data:
                    chunk = conn.recv(65536)
                    assert chunk, "Cueboard closed the connection before a full line"
                    data += chunk
                before_hello = stderr_path.read_text(errors="replace")
        finally:
            proc.kill()
            proc.wait()
    modules = [
        line.split("|")[-1].strip()
        for line in before_hello.splitlines()
        if line.startswith("import time:") and "[us]" not in line
    ]
    return json.loads(data.split(b"\n", 1)[0]), modules


def test_nothing_heavy_is_imported_before_hello(sock_dir: Path) -> None:
    frame, modules = imports_before_hello(sock_dir)

    assert frame["method"] == "hello"
    assert frame["params"]["id"] == EXT_ID
    assert "vxp.client" in modules  # the file does hold the imports before hello
    heavy = sorted(m for m in modules if any(m == h or m.startswith(h + ".") for h in HEAVY))
    assert heavy == []
