"""Issue 9: install a bundle with vrosdev, run it with the repository hidden, play a sound."""

from __future__ import annotations

import json
import math
import os
import secrets
from pathlib import Path

import anyio
import pytest

from tests import leaks
from tests.e2e.harness import rms, tone
from tests.e2e.matrix_checks import Transcript
from tests.packaging.conftest import base_interpreter, build_linux
from tests.packaging.wheelhouse import RUNTIME_CORE, repack
from vrosdev.host.config import HostConfig
from vrosdev.install import install_bundle
from vrosdev.launcher import run_extension
from vrosdev.script import parse
from vxp.manifest import load_manifest

pytestmark = pytest.mark.slow

# What a run without icons or URL thumbnails imports (Pillow, numpy and httpx load lazily).
RUN_DEPENDENCIES = (*RUNTIME_CORE, "anyio", "idna", "sniffio", "watchfiles", "regex")


@pytest.fixture(scope="module")
def runnable_bundle(tmp_path_factory: pytest.TempPathFactory) -> Path:
    wheels = tmp_path_factory.mktemp("run-wheels")
    for name in RUN_DEPENDENCIES:
        repack(name, wheels)
    return build_linux(wheels, tmp_path_factory.mktemp("run-dist"))


def test_an_installed_bundle_plays_end_to_end(
    runnable_bundle: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    folder = install_bundle(runnable_bundle, tmp_path / "state")
    manifest = load_manifest(folder / "manifest.toml")
    assert manifest.command[0] == "python3"
    bin_dir, home = tmp_path / "bin", tmp_path / "home"
    bin_dir.mkdir()
    home.mkdir()
    (bin_dir / "python3").symlink_to(base_interpreter())
    # The extension process sees none of the repository: no PYTHONPATH, no venv on PATH,
    # its cwd the installed folder, and `python3` the bare interpreter.
    monkeypatch.setenv("PATH", str(bin_dir))
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("PYENV_ROOT", str(tmp_path / "pyenv"))
    monkeypatch.delenv("PYTHONPATH", raising=False)
    monkeypatch.delenv("VIRTUAL_ENV", raising=False)
    content = tmp_path / "content"
    tone(content / "Cueboard" / "Sounds" / "Beep.wav")
    out = tmp_path / "out"
    cfg = HostConfig(
        ext_id=manifest.id,
        token=leaks.register(secrets.token_urlsafe(24), "launch token (installed bundle)"),
        granted=manifest.capabilities.model_dump(),
        content_root=str(content),
        state_dir=tmp_path / "state",
        settings=list(manifest.settings),
        panels={r: (folder / p).read_text() for r, p in manifest.panels.items()},
        audio_out=out,
        strict=False,
    )
    argv = manifest.resolve_command(folder)
    steps = parse("wait-for audio.load 60\nsettle 0.5 30\ninvoke play-slot-1\nsleep 1\n")
    record = tmp_path / "t.jsonl"
    code = anyio.run(lambda: run_extension(cfg, argv, cwd=folder, script=steps, record=record))
    assert code == 0
    lines = [json.loads(x) for x in record.read_text().splitlines()]
    assert Transcript(lines).named_before_put() == []  # docs/protocol-notes.md#r33
    # docs/protocol-notes.md#r28: the manifest's default gains, soundboard 80 and mic 40, are 6.02
    # dB apart.
    soundboard, mic = rms(out / "soundboard.wav"), rms(out / "mic.wav")
    assert soundboard > 0.01 and mic > 0.0
    assert abs(20 * math.log10(soundboard / mic) - 6.02) < 0.5
    assert str(Path(__file__).resolve().parents[2]) not in os.environ["PATH"]
