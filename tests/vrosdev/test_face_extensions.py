"""Two SDK extensions in one vrosdev run: examples/face_provider.py and examples/face_reader.py.

The script plays the user: it picks the provider's source for the eyes and the mouth, switches
the reader's grant off and on, then the provider's, as a person would on vrOS's pages. What
each extension did is read back from the transcript, where the reader's lines carry ``ext``.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import anyio

from vrosdev.companions import Companion
from vrosdev.host.config import HostConfig
from vrosdev.launcher import run_extension
from vrosdev.script import parse

REPO = Path(__file__).resolve().parents[2]
PROVIDER, READER = "com.example.face-provider", "com.example.face-reader"

SCRIPT = f"""
face-wait source {PROVIDER}/sim
face-wait reader {READER}
face-select eyes sim
face-select mouth {PROVIDER}/sim
sleep 0.6
face-grant {READER} read off
sleep 0.3
face-grant {READER} read on
drop {READER}
face-wait reader {READER}
sleep 0.4
face-grant {PROVIDER} provide off
sleep 0.3
face-grant {PROVIDER} provide on
drop {PROVIDER}
face-wait source sim
face-select eyes sim
sleep 0.6
"""


def _config(ext_id: str, tmp: Path, **granted: bool) -> HostConfig:
    return HostConfig(
        ext_id=ext_id,
        token=f"{ext_id}-launch-token-secret",
        granted={"bus": [], **granted},
        state_dir=tmp / "state",
        content_root=str(tmp),
    )


def _run(tmp: Path) -> tuple[int, list[dict[str, Any]]]:
    record = tmp / "transcript.jsonl"
    reader = Companion(
        _config(READER, tmp, face_read=True),
        [sys.executable, str(REPO / "examples" / "face_reader.py")],
        REPO,
    )
    code = anyio.run(
        lambda: run_extension(
            _config(PROVIDER, tmp, face_provide=True),
            [sys.executable, str(REPO / "examples" / "face_provider.py")],
            cwd=REPO,
            script=parse(SCRIPT),
            record=record,
            also=[reader],
        )
    )
    return code, [json.loads(line) for line in record.read_text().splitlines()]


def _frames(lines: list[dict[str, Any]], ext: str | None, direction: str) -> list[dict[str, Any]]:
    return [x["frame"] for x in lines if x.get("ext") == ext and x.get("dir") == direction]


def _updates(lines: list[dict[str, Any]], ext: str | None) -> list[dict[str, Any]]:
    return [
        f["params"]["state"]
        for f in _frames(lines, ext, "host>ext")
        if f.get("method") == "event" and f["params"].get("event") == "face_update"
    ]


def test_face5_face29_face3_a_provider_and_a_reader_driven_by_the_user(tmp_path: Path) -> None:
    """FACE-5, FACE-29, FACE-3: two SDK extensions, the user picks and switches grants."""
    code, lines = _run(tmp_path)
    assert code == 0, [x for x in lines if "violation" in x]
    reader, provider = _updates(lines, READER), _updates(lines, None)

    # FACE-5, FACE-29: once the user picked sim, the reader reads the provider's samples
    eyes = [s["eyes"] for s in reader if s["eyes"]["kind"] == "sample"]
    mouths = [s["mouth"] for s in reader if s["mouth"]["kind"] == "sample"]
    assert eyes
    assert mouths
    assert {(e["extension"], e["source_id"]) for e in eyes} == {(PROVIDER, "sim")}
    assert all(m["sample"]["weights"][0]["expression"] == "jaw_open" for m in mouths)

    # FACE-3 (read): revoked while running, then on again from the next hello
    # (docs/protocol-notes.md#r6)
    revoked = [i for i, s in enumerate(reader) if s["granted"]["read"] is False]
    assert revoked
    assert reader[revoked[0]]["eyes"] == {"kind": "off"}
    assert any(s["eyes"]["kind"] == "sample" for s in reader[revoked[-1] + 1 :])
    hellos = [f for f in _frames(lines, READER, "host>ext") if f.get("result", {}).get("result")]
    welcomes = [f["result"] for f in hellos if f["result"]["result"] == "welcome"]
    assert [w["granted"].get("face_read") for w in welcomes] == [True, True]

    # FACE-3 (provide): the sources go at once; the next connection registers generation 2
    off = next(i for i, s in enumerate(provider) if s["granted"]["provide"] is False)
    assert provider[off]["demands"] == []
    registered = [
        f["result"]["generation"]
        for f in _frames(lines, None, "host>ext")
        if f.get("result", {}).get("result") == "registered"
    ]
    assert registered == [1, 2]
    published = [
        f["params"]["generation"]
        for f in _frames(lines, None, "ext>host")
        if f.get("method") == "face" and f["params"]["op"] == "publish"
    ]
    assert 1 in published
    assert published[-1] == 2
    assert any(e["kind"] == "sample" for e in (s["eyes"] for s in reader[-3:]))


def test_face20_the_provider_publishes_only_while_demanded(tmp_path: Path) -> None:
    """FACE-20: every publish the example sent was accepted, bar those already on the wire when a
    demand ended (the host answers those not_demanded, FACE-19)."""
    _, lines = _run(tmp_path)
    answers: dict[int, dict[str, Any]] = {}
    for f in _frames(lines, None, "host>ext"):
        if "id" in f and "result" in f:
            answers[f["id"]] = f["result"]
    publishes = [
        f["id"]
        for f in _frames(lines, None, "ext>host")
        if f.get("method") == "face" and f["params"]["op"] == "publish"
    ]
    codes = [answers[i].get("code") for i in publishes if i in answers]
    assert codes.count(None) >= 10
    assert set(codes) <= {None, "not_demanded", "not_granted"}
    # at most the one publish in flight at each end of demand: read off, provide off, the
    # reader's exit at shutdown, and the reader's and the provider's reconnections
    assert codes.count("not_demanded") + codes.count("not_granted") <= 5


def _vrosdev(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "vrosdev.cli", "run", *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


def test_the_command_line_runs_a_companion_with_its_own_grants(tmp_path: Path) -> None:
    """FACE-5 from the command line: --also-command/--also-id/--also-grant."""
    script = tmp_path / "steps.txt"
    script.write_text(
        f"face-wait source sim\nface-wait reader {READER}\nface-select eyes sim\nsleep 0.5\n",
        encoding="utf-8",
    )
    record = tmp_path / "t.jsonl"
    done = _vrosdev(
        *("--command", f"{sys.executable} examples/face_provider.py", "--id", PROVIDER),
        *("--grant", "face_provide=true", "--state", str(tmp_path / "state")),
        *("--also-command", f"{sys.executable} examples/face_reader.py", "--also-id", READER),
        *("--also-grant", f"{READER}:face_read=true"),
        *("--script", str(script), "--record", str(record)),
        cwd=REPO,
    )
    assert done.returncode == 0, done.stderr
    assert "face_reader: read=True eyes=sim #" in done.stdout
    lines = [json.loads(line) for line in record.read_text().splitlines()]
    welcome = next(
        f["result"]
        for f in _frames(lines, READER, "host>ext")
        if f.get("result", {}).get("result") == "welcome"
    )
    assert welcome["granted"]["face_read"] is True
    assert "face_provide" not in welcome["granted"]


def test_a_companion_without_its_id_is_refused_before_launch(tmp_path: Path) -> None:
    done = _vrosdev(
        *("--command", "true", "--id", PROVIDER, "--also-command", "true"), cwd=tmp_path
    )
    assert done.returncode != 0
    assert "each --also-command needs its --also-id" in done.stderr
    done = _vrosdev(
        *("--command", "true", "--id", PROVIDER, "--also-command", "true"),
        *("--also-id", READER, "--also-grant", "com.example.other:face_read=true"),
        cwd=tmp_path,
    )
    assert "ID:NAME=VALUE of an --also-id" in done.stderr
