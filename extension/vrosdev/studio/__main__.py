"""``python -m vrosdev.studio``: the same as ``vrosdev studio``."""

from __future__ import annotations

import sys

from .cli import main

raise SystemExit(main(sys.argv[1:]))
