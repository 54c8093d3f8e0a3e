"""Run the real Cueboard process inside vrosdev (real socket, real decoder, real mixer).

Every launch's transcript is checked for what holds in any session: no ``panel.props`` names an
asset key before its put answered ``ok`` on that connection (docs/protocol-notes.md#r33).
"""

from __future__ import annotations

import json
import math
import secrets
import sys
import wave
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import anyio
import numpy as np

from tests import leaks
from vrosdev.host.config import HostConfig
from vrosdev.launcher import run_extension
from vrosdev.script import parse
from vxp.manifest import load_manifest

from .matrix_checks import Transcript

REPO = Path(__file__).resolve().parents[2]


def tone(path: Path, seconds: float = 0.6, freq: float = 1000.0, amplitude: float = 0.5) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    rate = 48000
    t = np.arange(int(rate * seconds)) / rate
    samples = (amplitude * np.sin(2 * math.pi * freq * t) * 32767).astype("<i2")
    with wave.open(str(path), "wb") as w:
        w.setnchannels(1)
        w.setsampwidth(2)
        w.setframerate(rate)
        w.writeframes(samples.tobytes())
    return path


def tone_library(tmp: Path) -> Path:
    """A content folder with three tones: two at the top level, one in a folder "Memes"."""
    content = tmp / "content"
    sounds = content / "Cueboard" / "Sounds"
    tone(sounds / "01 Beep.wav", freq=1000)
    tone(sounds / "02 Boop.wav", freq=500)
    tone(sounds / "Memes" / "Vine.wav", freq=700)
    return content


def rms(path: Path) -> float:
    import soundfile

    data, _ = soundfile.read(str(path), dtype="float64")
    return float(np.sqrt(np.mean(np.square(data)))) if data.size else 0.0


@dataclass
class Run:
    code: int
    out: Path
    transcript: list[dict[str, Any]]
    state: Path
    token: str  # this launch's, registered for the leak sweep
    stdout: str  # the extension's own output (vrosdev's is the transcript and pytest's log)
    stderr: str

    def sent(self, method: str, op: str | None = None) -> list[dict[str, Any]]:
        return [
            x["frame"]
            for x in self.transcript
            if x.get("dir") == "ext>host"
            and isinstance(x.get("frame"), dict)
            and x["frame"].get("method") == method
            and (op is None or (x["frame"].get("params") or {}).get("op") == op)
        ]

    def events(self, name: str) -> list[dict[str, Any]]:
        return [
            x["frame"]["params"]
            for x in self.transcript
            if x.get("dir") == "host>ext"
            and isinstance(x.get("frame"), dict)
            and x["frame"].get("method") == "event"
            and x["frame"]["params"].get("event") == name
        ]

    def wav(self, channel: str) -> Path:
        return self.out / f"{channel}.wav"


def run_cueboard(
    tmp: Path,
    script: str,
    *,
    content: Path | None = None,
    state: Path | None = None,
    **overrides: Any,
) -> Run:
    """One launch: a fresh token (as vrOS gives), the transcript in ``tmp`` (overwritten by the
    next launch there), the extension's stdout and stderr appended to ``tmp`` (the leak sweep
    reads every launch's); a restart passes the same ``state``."""
    manifest = load_manifest(REPO / "manifest.toml")
    tmp.mkdir(parents=True, exist_ok=True)
    out = tmp / "out"
    record = tmp / "transcript.jsonl"
    record.unlink(missing_ok=True)
    state = state or tmp / "state"
    token = leaks.register(secrets.token_urlsafe(24), "launch token (tests/e2e/harness.py)")
    cfg = HostConfig(
        ext_id=manifest.id,
        token=token,
        granted=manifest.capabilities.model_dump(),
        content_root=str(content or tmp / "content"),
        state_dir=state,
        settings=list(manifest.settings),
        panels={role: (REPO / rel).read_text() for role, rel in manifest.panels.items()},
        audio_out=out,
        strict=False,
    )
    for key, value in overrides.items():
        setattr(cfg, key, value)
    steps = parse(script)
    stdout, stderr = tmp / "stdout.txt", tmp / "stderr.txt"
    with stdout.open("ab") as out_file, stderr.open("ab") as err_file:
        starts = out_file.tell(), err_file.tell()
        code = anyio.run(
            lambda: run_extension(
                cfg,
                [sys.executable, "-m", "cueboard"],
                cwd=REPO,
                script=steps,
                record=record,
                output=(out_file, err_file),
            )
        )
    lines = [json.loads(x) for x in record.read_text().splitlines()]
    unput = Transcript(lines).named_before_put()
    assert not unput, f"props named asset keys before their put answered ok: {unput[:3]}"
    return Run(
        code,
        out,
        lines,
        state,
        token,
        stdout.read_bytes()[starts[0] :].decode(errors="replace"),
        stderr.read_bytes()[starts[1] :].decode(errors="replace"),
    )
