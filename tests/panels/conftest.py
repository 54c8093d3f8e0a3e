"""What the panel tests that open a real window share: an X server and Slint, and one anyio
backend (a window test needs one; the models are tested on both elsewhere)."""

from __future__ import annotations

import shutil

import pytest


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture
def needs_x() -> None:
    """Skips a test where Xvfb or Slint is missing; used by ``pytest.mark.usefixtures``."""
    if shutil.which("Xvfb") is None:
        pytest.skip("Xvfb is not installed: run `make sysdeps`")
    pytest.importorskip("slint")
