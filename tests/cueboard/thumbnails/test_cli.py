"""`python -m cueboard.workers.thumbnails`: one JSON line per input, exit 0 only if all accepted."""

from __future__ import annotations

import base64
import json
import subprocess
import sys
from pathlib import Path

from .thumbgen import GifFrame, chunk, gif, solid


def _run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "cueboard.workers.thumbnails", *args],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )


def _icon(path: Path) -> Path:
    frames = [GifFrame(solid(300, 150, i + 1), delay_cs=5) for i in range(3)]
    path.write_bytes(
        gif(300, 150, frames, palette=[(0, 0, 0), (255, 0, 0), (0, 255, 0), (0, 0, 255)], loop=0)
    )
    return path


def test_prints_the_assets_put_params(tmp_path: Path) -> None:
    result = _run(str(_icon(tmp_path / "icon.gif")))
    assert result.returncode == 0, result.stderr
    (line,) = result.stdout.splitlines()
    params = json.loads(line)
    assert set(params) == {"key", "width", "height", "frames", "loop"}
    assert (params["width"], params["height"], params["loop"]) == (128, 64, 0)
    assert len(params["frames"]) == 3
    for frame in params["frames"]:
        assert len(base64.b64decode(frame["rgba_base64"])) == 128 * 64 * 4
        assert frame["delay_ms"] == 50
    assert params["key"].startswith("thumb:")


def test_summary_and_errors_one_line_each(tmp_path: Path) -> None:
    bad = tmp_path / "notes.txt"
    bad.write_text("not an image")
    result = _run(
        str(_icon(tmp_path / "icon.gif")), str(bad), str(tmp_path / "missing.gif"), "--summary"
    )
    assert result.returncode == 1
    good, not_image, missing = (json.loads(line) for line in result.stdout.splitlines())
    assert good["frames"] == 3 and good["duration_ms"] == 150 and good["source_width"] == 300
    assert not_image == {"error": "the input is not an image"}
    assert "no such file" in missing["error"]
    assert "Traceback" not in result.stderr


def test_corrupt_image_data_is_refused_with_the_reason(tmp_path: Path) -> None:
    """A PNG whose chunks and CRCs are valid but whose zlib data is garbage."""
    ihdr = chunk(b"IHDR", (8).to_bytes(4, "big") * 2 + bytes([8, 6, 0, 0, 0]))
    body = bytes(range(7, 250, 3))
    path = tmp_path / "broken.png"
    path.write_bytes(b"\x89PNG\r\n\x1a\n" + ihdr + chunk(b"IDAT", body) + chunk(b"IEND", b""))
    result = _run(str(path))
    assert result.returncode == 1
    assert json.loads(result.stdout) == {
        "error": "the PNG cannot be decoded whole: its image data is corrupt"
    }


def test_other_schemes_are_refused() -> None:
    result = _run("ftp://example.invalid/icon.gif", "file:///etc/passwd")
    assert result.returncode == 1
    errors = [json.loads(line)["error"] for line in result.stdout.splitlines()]
    assert all("only http(s)" in e for e in errors)
    assert "example.invalid" not in result.stdout
