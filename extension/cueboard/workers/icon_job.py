"""The icon worker process's jobs, in a module that imports only what decoding needs.

A worker imports the module of each function it runs (pickle names a function by its module),
so these stand apart from the runtime's modules: importing those would load the core's inputs
and effects (their models, the SDK's event models) into the worker before its first icon.

A worker process runs at a lower CPU priority (:mod:`cueboard.workers.priority`).
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from cueboard.core.asset_table import AssetRef
from vxp.prepared import prepare

from .lasting import lasting_imports
from .priority import lower_priority

if TYPE_CHECKING:
    from cueboard.core.inputs import Decoded, Put

__all__ = ["decode_icon", "decode_in_worker", "warm_decoder"]


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
