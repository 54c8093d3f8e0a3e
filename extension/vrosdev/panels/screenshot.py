"""Capturing exactly the panel's window from the X server.

Slint's Python API has no snapshot call, so the pixels are read back from X with ImageMagick's
`import` (the real one: a stand-in `convert` may come first on PATH here, `import` has none).
The window is found by its unique title; without a window manager it also sits at 0,0, which is
the fallback.
"""

import shutil
import subprocess
from pathlib import Path

CAPTURE_TIMEOUT_S = 20.0


class ScreenshotError(RuntimeError):
    pass


def _import_tool() -> str:
    for name in ("import-im6.q16", "import"):
        found = shutil.which(name)
        if found:
            return found
    raise ScreenshotError("ImageMagick's import is not installed (apt-get install imagemagick)")


def capture_window(title: str, width: int, height: int, out: Path, display: str | None) -> None:
    tool = _import_tool()
    env_display = ["-display", display] if display else []
    # Without the date chunks, two captures of the same pixels are the same bytes.
    stable = ["-define", "png:exclude-chunks=date,time"]
    by_name = [tool, *env_display, "-window", title, *stable, f"png:{out}"]
    at_origin = [tool, *env_display, "-window", "root", *stable, "-crop", f"{width}x{height}+0+0"]
    at_origin += ["+repage", f"png:{out}"]
    errors: list[str] = []
    for command in (by_name, at_origin):
        done = subprocess.run(command, capture_output=True, timeout=CAPTURE_TIMEOUT_S, check=False)
        if done.returncode == 0 and out.exists():
            return
        errors.append(done.stderr.decode("utf-8", "replace").strip())
    raise ScreenshotError(f"could not capture the panel window: {'; '.join(errors)}")
