"""Panels under test, and a private X server for the tests that open windows."""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator

import pytest

from vrosdev.panels.xvfb import VirtualDisplay


@pytest.fixture(scope="session")
def x_display() -> Iterator[str]:
    """DISPLAY for preview workers: a private Xvfb (never the developer's own screen)."""
    if shutil.which("Xvfb") is None:
        pytest.skip("Xvfb is not installed: run `make sysdeps` (apt-get install xvfb)")
    if shutil.which("import") is None and shutil.which("import-im6.q16") is None:
        pytest.skip("ImageMagick's import is not installed: run `make sysdeps`")
    server = VirtualDisplay()
    display = server.start()
    try:
        yield display
    finally:
        server.stop()


@pytest.fixture
def no_display(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("DISPLAY", raising=False)
    if shutil.which("Xvfb") is None:
        pytest.skip("Xvfb is not installed: run `make sysdeps` (apt-get install xvfb)")
    assert "DISPLAY" not in os.environ
