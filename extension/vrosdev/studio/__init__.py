"""An emulated Studio host for the extension protocol v1 (docs/protocol-notes.md#m1 to #m7).

``main(argv)`` is the ``vrosdev studio`` command; ``python -m vrosdev.studio`` runs it too.
"""

from __future__ import annotations

from .cli import build_parser, main
from .config import StudioConfig
from .host import StudioHost
from .launcher import run_studio
from .transcript import Transcript

__all__ = ["StudioConfig", "StudioHost", "Transcript", "build_parser", "main", "run_studio"]
