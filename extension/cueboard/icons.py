"""Sound icons: decoded in a worker process, put into vrOS's asset table, shown per page.

Decoding runs in a separate process (anyio's ``to_process``), not a thread: a thread holds the
GIL against the event loop, and on two cores that can hold a press back by a whole switch
interval; a process cannot (``bench/bench_latency.py`` measures both). Pillow is therefore
never imported into the extension's own process. ``CUEBOARD_ICON_DECODE=thread`` picks threads
instead, so the bench can measure both with the same Cueboard.
"""

from __future__ import annotations

import logging
import os
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import anyio
import anyio.to_process

from vxp.prepared import Prepared, prepare

from .asset_table import AssetRef, AssetTable, AssetTableFull, Icon, apply_plan

if TYPE_CHECKING:
    import vxp

    from .library import Sound

log = logging.getLogger("cueboard.icons")
PANEL = "overlay"
ICON_DECODE_ENV = "CUEBOARD_ICON_DECODE"  # "thread" or "process" (the default)

type Put = tuple[AssetRef, Prepared]
type Decoded = tuple[Put, Put | None]  # the icon, and its still variant when it is animated


def decode_icon(path: str) -> Decoded | str:
    """Runs in the worker process: decode, then validate and serialise the ``assets.put``
    there too, so the event loop only frames and writes it (bench/bench_latency.py)."""
    from cueboard.thumbnails import ThumbnailError, decode_file

    try:
        thumb = decode_file(Path(path))
    except ThumbnailError as exc:
        return f"{exc.kind}: {exc.reason}"
    except OSError as exc:
        return f"unreadable: {exc.strerror}"
    still = _put(thumb.first_frame_only().put_params()) if thumb.animated else None
    return _put(thumb.put_params()), still


def _put(params: Mapping[str, Any]) -> Put:
    from vxp.models.assets import AssetPut

    frames = len(params["frames"])
    ref = AssetRef(params["key"], params["width"] * params["height"] * 4 * frames, frames)
    return ref, prepare("assets", AssetPut(**params))


async def close_decode_workers(grace_s: float = 2.0) -> None:
    """End the icon worker processes while the event loop still runs; call it last.

    Left to itself, anyio ends its process pool as the loop closes and kills each worker twice:
    from the root task's done callback, then from its shutdown task. A worker that died of the
    first kill is reaped by the second (``Popen.send_signal`` polls first), before asyncio's
    child watcher gets to it, and the watcher logs "child process pid N exit status already
    read: will report returncode 255". Closing a worker's stdin ends it (it returns on EOF) and
    one wait reaps it, so anyio finds no worker left to kill. anyio keeps its pool private
    (``anyio.to_process._process_pool_workers``); without a pool this does nothing.
    """
    from anyio.to_process import _process_pool_workers  # pyright: ignore[reportPrivateUsage]

    try:
        workers = _process_pool_workers.get()
    except LookupError:
        return
    with anyio.CancelScope(shield=True):
        for process in list(workers):
            with anyio.move_on_after(grace_s):  # a busy worker: aclose kills it, then waits
                await process.aclose()


class _Port:
    def __init__(self, client: vxp.Client) -> None:
        self.client = client

    async def put(self, params: Prepared) -> str:
        import vxp

        try:
            await self.client.assets.put_prepared(params)
        except vxp.DomainError as exc:
            return exc.code
        return "ok"

    async def remove(self, key: str) -> str:
        import vxp

        try:
            await self.client.assets.remove(key)
        except vxp.DomainError as exc:
            return exc.code
        return "ok"


class IconManager:
    def __init__(self, on_change: Callable[[], None], *, in_process: bool | None = None) -> None:
        if in_process is None:
            in_process = os.environ.get(ICON_DECODE_ENV, "process").strip().lower() != "thread"
        self.table = AssetTable()
        self.decoded: dict[str, tuple[Icon, dict[str, Prepared]] | None] = {}
        self.shown: dict[str, str] = {}  # rel path -> key shown in the grid
        self._on_change = on_change
        self._wanted = anyio.Event()
        self._page: list[tuple[str, Path]] = []
        self.in_process = in_process
        self.failures: dict[str, str] = {}

    def want(self, root: Path, sounds: Sequence[Sound]) -> None:
        """The grid shows these now; their icons follow as soon as they are decoded."""
        self._page = [(s.rel_path, root / s.icon) for s in sounds if s.icon]
        self._wanted.set()

    def connection_lost(self) -> None:
        self.table.connection_lost()
        self.shown.clear()

    async def _decode(self, path: Path) -> Decoded | str:
        if self.in_process:
            try:
                return await anyio.to_process.run_sync(decode_icon, str(path), cancellable=True)
            except anyio.BrokenWorkerProcess as exc:
                log.warning("icon worker process failed (%s); decoding in a thread instead", exc)
                self.in_process = False
            except Exception as exc:  # e.g. Pillow missing: no icons, never a crash
                return f"cannot decode: {type(exc).__name__}"
        try:
            return await anyio.to_thread.run_sync(decode_icon, str(path))
        except Exception as exc:
            return f"cannot decode: {type(exc).__name__}"

    async def run(self, client: vxp.Client) -> None:
        while True:
            await self._wanted.wait()
            self._wanted = anyio.Event()
            page = list(self._page)
            for rel, path in page:
                if rel in self.decoded:
                    continue
                result = await self._decode(path)
                if isinstance(result, str):
                    log.info("icon of %s not shown: %s", rel, result)
                    self.failures[rel] = result
                    self.decoded[rel] = None
                    continue
                (anim_ref, anim), still = result
                puts = {anim_ref.key: anim}
                still_ref = anim_ref
                if still is not None:
                    still_ref, puts[still_ref.key] = still
                self.decoded[rel] = (Icon(anim_ref, still_ref), puts)
            await self._show(client, page)

    async def _show(self, client: vxp.Client, page: list[tuple[str, Path]]) -> None:
        rels = [rel for rel, _ in page if self.decoded.get(rel) is not None]
        icons = [self.decoded[rel][0] for rel in rels]  # type: ignore[index]
        params: dict[str, Prepared] = {}
        for rel in rels:
            params.update(self.decoded[rel][1])  # type: ignore[index]
        try:
            plan = self.table.plan_panel(PANEL, icons)
        except AssetTableFull as exc:
            log.warning("icons: %s", exc)
            return
        failed = await apply_plan(
            self.table, plan, _Port(client), lambda ref: params[ref.key], sleep=anyio.sleep
        )
        self.shown = {
            rel: key for rel, key in zip(rels, plan.keys, strict=True) if key and key not in failed
        }
        self._on_change()
