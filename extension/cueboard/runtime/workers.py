"""The runtime's workers: the folder scan, the folder watcher and the icon decoder.

Decoding runs in a separate process (anyio's ``to_process``), not a thread: a thread holds the
GIL against the event loop, and on two cores that can hold a press back by a whole switch
interval; a process cannot, and it runs at a lower CPU priority, so the event loop and the host
get a core first (``cueboard.workers.icon_job``; ``bench/bench_latency.py`` measures both).
Pillow is therefore never imported into the extension's own process.
``CUEBOARD_ICON_DECODE=thread`` picks threads instead, so the bench can measure both with the
same Cueboard.
"""

from __future__ import annotations

import logging
import os
import signal
import time
from collections.abc import Callable
from pathlib import Path

import anyio
import anyio.abc
import anyio.to_process

from cueboard.core.effects import DecodeIcons, DrawWaveform, Scan
from cueboard.core.inputs import (
    Decoded,
    FolderChanged,
    IconsDecoded,
    Input,
    Scanned,
    Waveform,
    WaveformDrawn,
)
from cueboard.workers.icon_job import decode_icon, decode_in_worker, warm_decoder
from cueboard.workers.scan import scan

log = logging.getLogger("cueboard.runtime")
ICON_DECODE_ENV = "CUEBOARD_ICON_DECODE"  # "thread" or "process" (the default)

type Feed = Callable[[Input], None]


async def end_worker_processes(reap_s: float = 1.0) -> None:
    """Kill the worker processes (icons, waveforms, renders) while the event loop still runs;
    call it last.

    Killed, not asked: a worker holds nothing worth waiting for (a render writes a part file
    and renames it whole), and a worker that is asked (its stdin closed) must first finish its
    job, read that and tear its interpreter down, at its lower priority: on a machine whose
    cores are busy that can take longer than the host's 2 s for an extension to exit
    (docs/protocol-notes.md#r26).

    One wait reaps each: left to itself, anyio ends its pool as the loop closes and kills each
    worker twice, and a worker reaped by the second kill (``Popen.send_signal`` polls first)
    makes asyncio's child watcher log "exit status already read". anyio keeps its pool private
    (``anyio.to_process._process_pool_workers``); without a pool this does nothing.
    """
    from anyio.to_process import _process_pool_workers  # pyright: ignore[reportPrivateUsage]

    try:
        workers = _process_pool_workers.get()
    except LookupError:
        return
    with anyio.CancelScope(shield=True):
        for process in list(workers):
            if process.returncode is not None:
                continue
            _kill(process)
        for process in list(workers):
            with anyio.move_on_after(reap_s):
                await process.aclose()


def _kill(process: anyio.abc.Process) -> None:
    """SIGKILL by pid, not ``Popen.kill``: that polls first, and a poll that reaps a worker
    already dead is the double wait the docstring above avoids (a dead, unreaped worker takes
    the signal harmlessly). Windows has neither the signal nor the child watcher."""
    kill = getattr(signal, "SIGKILL", None)
    try:
        if kill is None:
            process.kill()
        else:
            os.kill(process.pid, kill)
    except ProcessLookupError:
        pass


class Workers:
    """Jobs the core asks for, run in the connection's task group; results go to ``feed``."""

    def __init__(self, feed: Feed, *, in_process: bool | None = None) -> None:
        if in_process is None:
            in_process = os.environ.get(ICON_DECODE_ENV, "process").strip().lower() != "thread"
        self.in_process = in_process
        self._feed = feed
        self._scan_lock = anyio.Lock()
        self._decode_lock = anyio.Lock()
        self.folder: Path | None = None
        self._folder_changed = anyio.Event()
        self._warm_started = False

    async def scan(self, job: Scan) -> None:
        """The first scan that finds icons also starts and warms the icon worker process,
        before the core hears of the library: the decodes it asks for then wait behind the
        warm-up and find the worker ready. A library without icons starts no worker."""
        async with anyio.create_task_group() as tg, self._scan_lock:
            started = time.perf_counter()
            library = await anyio.to_thread.run_sync(scan, job.root)
            exists = await anyio.to_thread.run_sync(job.root.is_dir)
            elapsed = (time.perf_counter() - started) * 1000
            has_icons = any(sound.icon for sound in library.sounds)
            if self.in_process and has_icons and not self._warm_started:
                self._warm_started = True
                tg.start_soon(self._warm_up)
            self._feed(Scanned(library, job.reason, elapsed, exists))

    async def _warm_up(self) -> None:
        """Decodes wait behind the warm-up (the decode lock): it spawns the worker they use."""
        async with self._decode_lock:
            try:
                await anyio.to_process.run_sync(warm_decoder, cancellable=True)
            except Exception as exc:  # the first decode then reports (or falls back to threads)
                log.warning("icon worker warm-up failed: %s", type(exc).__name__)

    # -- icons ------------------------------------------------------------------------------

    async def decode(self, job: DecodeIcons) -> None:
        async with self._decode_lock:
            results: list[tuple[str, Decoded | str]] = []
            for rel, path in job.items:
                results.append((rel, await self._decode(path)))
            self._feed(IconsDecoded(tuple(results)))

    async def _decode(self, path: Path) -> Decoded | str:
        if self.in_process:
            try:
                return await anyio.to_process.run_sync(
                    decode_in_worker, str(path), cancellable=True
                )
            except anyio.BrokenWorkerProcess as exc:
                log.warning("icon worker process failed (%s); decoding in a thread instead", exc)
                self.in_process = False
            except Exception as exc:  # e.g. Pillow missing: no icons, never a crash
                return f"cannot decode: {type(exc).__name__}"
        try:
            return await anyio.to_thread.run_sync(decode_icon, str(path))
        except Exception as exc:
            return f"cannot decode: {type(exc).__name__}"

    # -- the editor's waveform ------------------------------------------------------------

    async def draw_waveform(self, job: DrawWaveform) -> None:
        """In the icon worker (one at a time, behind the icons' decodes): reading a long
        file is the very work a thread would hold the event loop back with."""
        from cueboard.workers.waveform import draw_in_worker, draw_waveform

        args = (str(job.path), job.peaks, job.duration_ms, job.edit)
        result: Waveform | str
        async with self._decode_lock:
            if self.in_process:
                try:
                    result = await anyio.to_process.run_sync(
                        draw_in_worker, *args, cancellable=True
                    )
                except Exception as exc:
                    result = f"cannot draw: {type(exc).__name__}"
            else:
                try:
                    result = await anyio.to_thread.run_sync(draw_waveform, *args)
                except Exception as exc:
                    result = f"cannot draw: {type(exc).__name__}"
        self._feed(WaveformDrawn(job.rel, job.fingerprint, job.edit, result))

    # -- watching the folder ----------------------------------------------------------------

    def watch(self, folder: Path) -> None:
        self.folder = folder
        self._folder_changed.set()

    async def watcher(self) -> None:
        """Report changes under the sounds folder (inotify & co. via watchfiles: no polling),
        debounced so a copy of many files is one rescan. A folder that does not exist yet is
        waited for: its nearest existing parent is watched (not recursively, which could be a
        whole home folder) until the folder appears, and that is a change too."""
        while True:
            folder = self.folder
            parent = _nearest_existing(folder) if folder is not None else None
            if folder is None or parent is None:
                await self._folder_changed.wait()
                self._folder_changed = anyio.Event()
                continue
            from watchfiles import awatch

            stop = self._folder_changed
            if parent == folder:
                async for _ in awatch(folder, debounce=400, stop_event=stop, recursive=True):
                    self._feed(FolderChanged())
            else:
                async for _ in awatch(parent, debounce=400, stop_event=stop, recursive=False):
                    if folder.is_dir():
                        self._feed(FolderChanged())
                    if _nearest_existing(folder) != parent:
                        break  # the folder or a parent of it appeared (or went): look again
                if not stop.is_set():
                    continue
            self._folder_changed = anyio.Event()

    def stop_watching(self) -> None:
        """awatch waits in a thread that a cancel cannot interrupt: its stop event can."""
        self._folder_changed.set()


def _nearest_existing(folder: Path) -> Path | None:
    """The folder itself if it exists, else its nearest parent that does."""
    for candidate in (folder, *folder.parents):
        if candidate.is_dir():
            return candidate
    return None
