"""Import from a link end to end: a link pasted in the dash-tab, a real HTTPS server on
loopback (a test certificate authority, trusted by the extension through SSL_CERT_FILE), the
file in the folder shown, then loaded and played by vrosdev; a file vrOS cannot decode is
removed again. The link carries a token: the leak sweep checks it reached no output."""

from __future__ import annotations

import io
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest
import soundfile

from tests import leaks
from tests.cueboard.tls_server import Route, Tls, tls_server

from .harness import run_cueboard, tone

pytestmark = pytest.mark.slow

TOKEN = leaks.register("imp0rt-t0ken-e2e", "import link token (tests/e2e/test_import_e2e.py)")


@pytest.fixture
def tls(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Tls]:
    with tls_server() as server:
        authority = tmp_path / "authority.pem"
        authority.write_bytes(server.authority_pem)
        monkeypatch.setenv("SSL_CERT_FILE", str(authority))
        yield server


def _ogg(seconds: float) -> bytes:
    buffer = io.BytesIO()
    wave = (np.sin(np.arange(int(48000 * seconds)) / 7) * 0.4).astype(np.float32)
    soundfile.write(buffer, wave, 48000, format="OGG")
    return buffer.getvalue()


def _content(tmp: Path) -> Path:
    content = tmp / "content"
    tone(content / "Cueboard" / "Sounds" / "Memes" / "Vine.wav", freq=700)
    return content


def _import(link: str, *, then: str) -> str:
    """Paste ``link`` into the dash-tab once the library is loaded, then wait as ``then`` says:
    for what the outcome sends (a sound that lands is loaded, a refusal is shown), never for a
    length of time."""
    start = "wait-for audio.load 60\nsettle\nshow dash-tab"
    return f'{start}\nclick dash-tab import-link ["{link}"]\n{then}\n'


def test_a_pasted_link_lands_in_the_folder_and_plays(tls: Tls, tmp_path: Path) -> None:
    tls.server.routes["/pack/airhorn.ogg"] = Route(body=_ogg(0.5))
    link = f"{tls.server.origin}/pack/airhorn.ogg?token={TOKEN}"
    content = _content(tmp_path)
    script = _import(link, then="wait-for audio.load 60\nsettle") + (
        'bus-publish ext.com.cueboard.soundboard.cmd.play {"path": "Memes/airhorn.ogg"}\n'
        "wait-for audio.play 60\n"
    )
    run = run_cueboard(tmp_path, script, content=content)
    assert run.code == 0
    sounds = content / "Cueboard" / "Sounds" / "Memes"
    assert sorted(p.name for p in sounds.iterdir()) == ["Vine.wav", "airhorn.ogg"]
    loaded = {
        e["sound"]: e["outcome"]["kind"]
        for e in run.events("audio_loaded")
        if e["outcome"]["kind"] == "loaded"
    }
    plays = [p["params"]["sound"] for p in run.sent("audio", "play")]
    assert len(plays) == 1 and plays[0] in loaded
    assert TOKEN not in (tmp_path / "transcript.jsonl").read_text()
    assert TOKEN not in run.stdout + run.stderr


def test_a_file_that_is_not_audio_is_refused_and_nothing_is_left(tls: Tls, tmp_path: Path) -> None:
    tls.server.routes["/pack/fake.ogg"] = Route(body=b"<html>not a sound</html>" * 50)
    content = _content(tmp_path)
    link = f"{tls.server.origin}/pack/fake.ogg"
    refused = 'wait-for panel.props 60 "not a sound Cueboard knows"\nsettle'
    run = run_cueboard(tmp_path, _import(link, then=refused), content=content)
    assert run.code == 0
    folder = content / "Cueboard" / "Sounds" / "Memes"
    assert sorted(p.name for p in folder.iterdir()) == ["Vine.wav"]
    statuses = [
        value["v"]
        for f in run.sent("panel", "props")
        if f["params"]["panel"] == "dash-tab"
        for name, value in f["params"]["props"]
        if name == "status-text"
    ]
    assert any("not a sound Cueboard knows" in s for s in statuses)
