"""Imports whose objects live as long as the process: the extension's core after the welcome,
a worker's decoders at its warm-up.

The cyclic garbage collector is off while they run (they make tens of thousands of objects, and
it would walk them again and again), and what they made is then frozen out of its later passes
(``gc.freeze``), so no collection on the way to the first page, or behind a press, walks them.
Standard library only, so the runtime can import it before the core at no cost.
"""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager

__all__ = ["lasting_imports"]


@contextmanager
def lasting_imports() -> Iterator[None]:
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        gc.freeze()
        if enabled:
            gc.enable()
