"""A private X server for headless previews and screenshots.

Xvfb picks a free display number itself and reports it on a pipe once it accepts connections
(`-displayfd`), so there is no guessing of numbers and no race with other Xvfb instances.
"""

import os
import select
import shutil
import subprocess
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

XVFB_START_TIMEOUT_S = 10.0
SCREEN = "1280x1024x24"


class DisplayUnavailable(RuntimeError):
    pass


def xvfb_installed() -> bool:
    return shutil.which("Xvfb") is not None


class VirtualDisplay:
    """`Xvfb :N -screen 0 1280x1024x24` on a free N; stop() kills it."""

    def __init__(self, screen: str = SCREEN) -> None:
        self.screen = screen
        self.display: str | None = None
        self._process: subprocess.Popen[bytes] | None = None

    def start(self) -> str:
        executable = shutil.which("Xvfb")
        if executable is None:
            raise DisplayUnavailable("Xvfb is not installed (make sysdeps installs it)")
        read_fd, write_fd = os.pipe()
        try:
            self._process = subprocess.Popen(
                [
                    executable,
                    "-displayfd",
                    str(write_fd),
                    "-screen",
                    "0",
                    self.screen,
                    "-nolisten",
                    "tcp",
                ],
                pass_fds=(write_fd,),
                stdin=subprocess.DEVNULL,
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
            )
        finally:
            os.close(write_fd)
        number = self._read_display_number(read_fd)
        self.display = f":{number}"
        socket = Path(f"/tmp/.X11-unix/X{number}")
        deadline = time.monotonic() + XVFB_START_TIMEOUT_S
        while not socket.exists():
            if time.monotonic() > deadline:
                self.stop()
                raise DisplayUnavailable(f"Xvfb socket {socket} did not appear")
            time.sleep(0.02)
        return self.display

    def _read_display_number(self, read_fd: int) -> int:
        """Waits until Xvfb writes its display number (it does so once it is ready)."""
        data = b""
        deadline = time.monotonic() + XVFB_START_TIMEOUT_S
        try:
            while not data.endswith(b"\n"):
                left = deadline - time.monotonic()
                ready, _, _ = select.select([read_fd], [], [], max(0.0, left))
                if not ready:
                    self.stop()
                    raise DisplayUnavailable("Xvfb did not report a display in time")
                chunk = os.read(read_fd, 64)
                if not chunk:
                    self.stop()
                    raise DisplayUnavailable("Xvfb exited before it was ready")
                data += chunk
        finally:
            os.close(read_fd)
        return int(data.strip())

    def stop(self) -> None:
        process, self._process = self._process, None
        if process is None:
            return
        process.terminate()
        try:
            process.wait(timeout=5)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


@contextmanager
def display_for_preview() -> Iterator[str]:
    """The DISPLAY to use: the current one, or a private Xvfb for the duration."""
    current = os.environ.get("DISPLAY")
    if current:
        yield current
        return
    server = VirtualDisplay()
    try:
        yield server.start()
    finally:
        server.stop()
