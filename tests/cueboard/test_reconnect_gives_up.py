"""Issue 6: a host that disappears for good ends Cueboard with one clear line, non-zero."""

from __future__ import annotations

import os
import sys
from typing import Any

import anyio
import pytest

from tests.vxp.minihost import WELCOME, MiniHost

pytestmark = pytest.mark.slow


def test_lost_host_exits_non_zero_with_one_line() -> None:
    def welcome_then_vanish(frame: dict[str, Any]) -> list[str]:
        return [WELCOME, "<close>"] if frame.get("method") == "hello" else ["<close>"]

    async def main() -> tuple[int, str]:
        host = MiniHost(welcome_then_vanish)
        env = {**os.environ, **host.env, "CUEBOARD_RECONNECT_S": "0.5", "CUEBOARD_LOG": "ERROR"}
        env["VROS_EXT_ID"] = "com.example.hello"
        async with anyio.create_task_group() as tg:
            await tg.start(host.serve)
            with anyio.fail_after(60):
                done = await anyio.run_process(
                    [sys.executable, "-m", "cueboard"], env=env, check=False
                )
            tg.cancel_scope.cancel()
        host.cleanup()
        return done.returncode, done.stderr.decode()

    code, stderr = anyio.run(main)
    assert code == 1
    lines = [line for line in stderr.splitlines() if line.strip()]
    assert lines[-1] == "cueboard: lost vrOS and could not reconnect within 0.5 s"
    assert "Traceback" not in stderr
