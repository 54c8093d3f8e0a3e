"""Faults around the connection itself, on the real Cueboard inside vrosdev: a late endpoint, a
rejected hello, a socket closed mid-request, and ``shutting_down`` with requests in flight.

The per-request fault matrix is tests/e2e/test_fault_matrix.py; these are the faults no single
request answer expresses. Injections come from vrosdev's request hook (``HostConfig.reject``,
``endpoint_delay_s``, ``faults``, ``delays``, the same as ``vrosdev run``'s options).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from cueboard.core.records import SoundPrefs, read_records
from vrosdev.host.namespaces.kv import KvStore

from .harness import Run, run_cueboard, tone

pytestmark = pytest.mark.slow

KV_FILE = "com.cueboard.soundboard.jsonl"
REJECT_CODES = ("bad_token", "wrong_id", "version_unsupported", "already_connected")


def _library(tmp: Path) -> Path:
    content = tmp / "content"
    sounds = content / "Cueboard" / "Sounds"
    for i, freq in enumerate((500, 700, 900)):
        tone(sounds / f"0{i + 1} Tone.wav", seconds=0.3, freq=freq)
    return content


def _indices(run: Run, method: str, op: str | None = None) -> list[int]:
    return [
        i
        for i, x in enumerate(run.transcript)
        if x.get("dir") == "ext>host"
        and isinstance(x.get("frame"), dict)
        and x["frame"].get("method") == method
        and (op is None or (x["frame"].get("params") or {}).get("op") == op)
    ]


def _injected(run: Run, kind: str) -> list[dict[str, Any]]:
    return [x["injected"] for x in run.transcript if x.get("injected", {}).get("kind") == kind]


def _violations(run: Run, prefix: str) -> list[str]:
    return [
        str(x["violation"])
        for x in run.transcript
        if str(x.get("violation", "")).startswith(prefix)
    ]


def test_an_endpoint_that_appears_1_5_s_after_launch_is_reached_and_cueboard_plays(
    tmp_path: Path,
) -> None:
    """docs/protocol-notes.md#r1: the SDK keeps retrying a missing endpoint for up to 4 s."""
    run = run_cueboard(
        tmp_path,
        "settle 0.5 20\ninvoke play-slot-1\nsleep 0.5\n",
        content=_library(tmp_path),
        endpoint_delay_s=1.5,
    )
    assert _injected(run, "endpoint_delay") == [{"kind": "endpoint_delay", "seconds": 1.5}]
    assert run.code == 0
    assert len(run.sent("hello")) == 1
    assert len(run.sent("audio", "play")) == 1
    assert "cannot reach" not in run.stderr and "Traceback" not in run.stderr


@pytest.mark.parametrize("code", REJECT_CODES)
def test_a_rejected_hello_ends_cueboard_with_one_clear_line_and_no_second_try(
    tmp_path: Path, code: str
) -> None:
    run = run_cueboard(tmp_path, "sleep 3\n", content=_library(tmp_path), reject=code)
    assert _injected(run, "reject") == [{"kind": "reject", "code": code}]
    assert run.code not in (0, None) and run.code > 0  # exited by itself, not killed
    assert len(run.sent("hello")) == 1  # no second try
    assert "Traceback" not in run.stderr
    lines = [line for line in run.stderr.splitlines() if line.strip()]
    assert len(lines) == 1, run.stderr
    assert lines[0].startswith("cueboard: ") and code in lines[0]


@pytest.mark.parametrize(
    ("fault", "script"),
    [
        # a user's press: the socket closes as audio.play arrives
        ("audio.play=close", "settle\ninvoke play-slot-1\nsettle 0.5 20\n"),
        # start-up: the socket closes as the first command registration arrives
        ("commands.register=close", "settle 0.5 20\n"),
    ],
    ids=["audio.play", "commands.register"],
)
def test_a_socket_closed_mid_request_is_reconnected_and_cueboard_plays_again(
    tmp_path: Path, fault: str, script: str
) -> None:
    run = run_cueboard(
        tmp_path,
        script + "invoke play-slot-1\nsleep 0.5\n",
        content=_library(tmp_path),
        faults=[fault],
    )
    assert [x["answer"] for x in _injected(run, "fault")] == ["close"]
    assert run.code == 0
    hellos = _indices(run, "hello")
    assert len(hellos) == 2  # one reconnect, then it stays connected
    plays_after = [i for i in _indices(run, "audio", "play") if i > hellos[1]]
    assert plays_after  # the press after the reconnect plays
    assert "Traceback" not in run.stderr


def _exited_within_grace(run: Run) -> None:
    assert run.code == 0
    assert _violations(run, "docs/protocol-notes.md#r26") == []  # not killed after the 2 s grace
    assert "Traceback" not in run.stderr


def test_shutting_down_during_slow_loads_flushes_pending_kv_writes_and_exits_zero(
    tmp_path: Path,
) -> None:
    """docs/protocol-notes.md#r26: every audio.load still unanswered when shutting_down comes,
    and two per-sound changes still waiting to be coalesced: both are written, exit 0 in time."""
    run = run_cueboard(
        tmp_path,
        "sleep 1.0\n"
        'click dash-tab set-sound-gain ["01 Tone.wav", 41]\n'
        'click dash-tab set-sound-mode ["02 Tone.wav", 4]\n',
        content=_library(tmp_path),
        delays=["audio.load=1.2"],
    )
    loads = _indices(run, "audio", "load")
    shutdown_at = next(
        i
        for i, x in enumerate(run.transcript)
        if x.get("dir") == "host>ext"
        and (x["frame"].get("params") or {}).get("event") == "shutting_down"
    )
    answered = {
        x["frame"].get("id")
        for x in run.transcript[:shutdown_at]
        if x.get("dir") == "host>ext" and "id" in x["frame"]
    }
    in_flight = [i for i in loads if run.transcript[i]["frame"]["id"] not in answered]
    assert in_flight  # the fault this test is about: loads still waiting for their answers
    stored = read_records(KvStore(run.state / "kv" / KV_FILE).values)
    assert stored["01 Tone.wav"] == SoundPrefs(gain=41)
    assert stored["02 Tone.wav"] == SoundPrefs(mode="loop")
    _exited_within_grace(run)


def test_shutting_down_while_a_kv_write_is_in_flight_finishes_it_and_the_rest(
    tmp_path: Path,
) -> None:
    """A kv.set answered 0.4 s late is in flight when shutting_down arrives, another change waits
    behind it: both are written, and Cueboard still exits 0 within the grace."""
    run = run_cueboard(
        tmp_path,
        "settle\n"
        'click dash-tab set-sound-gain ["01 Tone.wav", 33]\n'
        "sleep 0.6\n"  # the coalesced write has gone out and waits for its answer
        'click dash-tab set-sound-gain ["03 Tone.wav", 44]\n',
        content=_library(tmp_path),
        delays=["kv.set=0.4"],
    )
    assert _injected(run, "delay")
    stored = read_records(KvStore(run.state / "kv" / KV_FILE).values)
    assert stored["01 Tone.wav"] == SoundPrefs(gain=33)
    assert stored["03 Tone.wav"] == SoundPrefs(gain=44)
    _exited_within_grace(run)
