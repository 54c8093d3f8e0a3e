"""The icon worker process's jobs, in a module that imports only what decoding needs.

A worker imports the module of each function it runs (pickle names a function by its module),
so these stand apart from the runtime's modules: importing those would load the core's inputs
and effects (their models, the SDK's event models) into the worker before its first icon.

A worker process runs at a lower CPU priority: on two cores a decode otherwise takes a core that
the extension's event loop and the host need for a press, and the press waits for the scheduler
(``bench/bench_latency.py``, the "hop in" and "hop out" stages). Where the OS has it (Linux), the
worker takes the idle scheduling policy (``SCHED_IDLE``): any ordinary task that wakes, a press
being read or written, takes the core from it at once, where a niced task may first finish its
slice. A decode still gets any core nothing else wants. It is also niced
(:data:`WORKER_NICENESS`), which is what lowers it where the idle policy is missing or refused.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from cueboard.core.asset_table import AssetRef
from vxp.prepared import prepare

from .lasting import lasting_imports

if TYPE_CHECKING:
    from cueboard.core.inputs import Decoded, Put

__all__ = ["WORKER_NICENESS", "decode_icon", "decode_in_worker", "warm_decoder"]

WORKER_NICENESS = 10
_lowered = False


def lower_priority() -> None:
    """Once per worker process: lower its CPU priority (POSIX; elsewhere nothing changes)."""
    global _lowered
    if _lowered:
        return
    _lowered = True
    nice = getattr(os, "nice", None)
    if nice is not None:
        try:
            nice(WORKER_NICENESS)
        except OSError:
            pass
    idle = getattr(os, "SCHED_IDLE", None)
    if idle is not None:
        try:
            os.sched_setscheduler(0, idle, os.sched_param(0))
        except OSError:
            pass


def decode_icon(path: str) -> Decoded | str:
    """Decode, then validate and serialise the ``assets.put`` here too, so the event loop only
    frames and writes it (bench/bench_latency.py)."""
    from cueboard.workers.thumbnails import ThumbnailError, decode_file

    try:
        thumb = decode_file(Path(path))
    except ThumbnailError as exc:
        return f"{exc.kind}: {exc.reason}"
    except OSError as exc:
        return f"unreadable: {exc.strerror}"
    still = _put(thumb.first_frame_only().put_params()) if thumb.animated else None
    return _put(thumb.put_params()), still


def decode_in_worker(path: str) -> Decoded | str:
    """:func:`decode_icon` in a worker process, which runs at the workers' lower priority."""
    lower_priority()
    return decode_icon(path)


def warm_decoder() -> None:
    """In a worker process: import what decoding needs, the put's model included, so no icon
    pays for it (at the workers' priority); what they make lives as long as the worker."""
    lower_priority()
    with lasting_imports():
        from cueboard.workers.thumbnails.warm import warm_up
        from vxp.models.assets import AssetPut

        warm_up()
        AssetPut.model_rebuild()


def _put(params: Mapping[str, Any]) -> Put:
    from vxp.models.assets import AssetPut

    frames = len(params["frames"])
    ref = AssetRef(params["key"], params["width"] * params["height"] * 4 * frames, frames)
    return ref, prepare("assets", AssetPut(**params))
