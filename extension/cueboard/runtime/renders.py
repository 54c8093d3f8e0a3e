"""The render cache: edited sounds, rendered by a worker process into FLAC files in Cueboard's
own data folder (never beside, never over, the user's file).

A rendered file's name holds its key: a hash of the sound's rel path, then the source's size,
modification time and a hash of its content, then the edit. So a source changed on disk (even
to the same size and time) is rendered again, and a render of the same source and edit is
found again after a restart. Once a sound has a new render, its older ones go; an edit reset
drops them all. The cache holds at most the ``render_cache_mb`` setting: past it, the files
played least recently go first (a play touches its file; so does finding it again).

Hashing and file work run in a thread, the render itself in a worker process at a lower
priority (``cueboard.workers.render_job``), one render at a time: the event loop only waits.
"""

from __future__ import annotations

import hashlib
import logging
import os
from collections.abc import Callable
from pathlib import Path

import anyio
import anyio.to_process

from cueboard.core.inputs import Input
from cueboard.core.render import DropRenders, RenderSound, SoundRendered, TouchRender
from cueboard.workers.render_job import render_file, render_in_worker

__all__ = ["RenderCache", "cache_size", "render_folder", "sound_key"]

log = logging.getLogger("cueboard.runtime")
HASH_CHUNK = 1 << 20
SUFFIX = ".flac"

type Feed = Callable[[Input], None]


def render_folder(data_home: Path) -> Path:
    """Cueboard's own folder for rendered sounds."""
    return data_home / "Cueboard" / "Renders"


def sound_key(rel: str) -> str:
    """A rendered file's first field: which sound (the rel path, hashed: any length, any
    characters)."""
    return hashlib.blake2b(rel.encode(), digest_size=8).hexdigest()


def cache_size(folder: Path) -> int:
    """What the rendered files take on disk."""
    return sum(size for _, size, _ in _entries(folder))


class RenderCache:
    def __init__(self, folder: Path, feed: Feed) -> None:
        self.folder = folder
        self._feed = feed
        self._lock = anyio.Lock()
        self._digests: dict[tuple[str, int, int], str] = {}  # (path, size, mtime) -> hash
        self.in_process = True

    async def render(self, job: RenderSound) -> None:
        async with self._lock:
            path, error = await self._render(job)
        self._feed(SoundRendered(job.rel, job.edit, job.fingerprint, path, error))

    async def _render(self, job: RenderSound) -> tuple[Path | None, str | None]:
        try:
            stat = await anyio.to_thread.run_sync(os.stat, job.source)
            digest = await anyio.to_thread.run_sync(self._digest, job.source, stat)
        except FileNotFoundError:
            return None, "not_found"
        except OSError:
            return None, "unreadable"
        name = f"{sound_key(job.rel)}-{stat.st_size}-{stat.st_mtime_ns}-{digest}"
        dest = self.folder / f"{name}-{job.edit.token()}{SUFFIX}"
        if await anyio.to_thread.run_sync(_touch, dest):
            return dest, None
        try:
            await anyio.to_thread.run_sync(lambda: self.folder.mkdir(parents=True, exist_ok=True))
        except OSError:
            return None, "render_failed"
        error = await self._run(str(job.source), str(dest), job)
        if error is not None:
            return None, error
        await anyio.to_thread.run_sync(_tidy, self.folder, job.rel, dest, job.cache_bytes)
        return dest, None

    async def _run(self, source: str, dest: str, job: RenderSound) -> str | None:
        if self.in_process:
            try:
                return await anyio.to_process.run_sync(
                    render_in_worker, source, dest, job.edit, cancellable=True
                )
            except anyio.BrokenWorkerProcess as exc:
                log.warning("render worker process failed (%s); rendering in a thread", exc)
                self.in_process = False
            except Exception as exc:  # soundfile missing, say: no render, never a crash
                log.warning("render failed: %s", type(exc).__name__)
                return "render_failed"
        try:
            return await anyio.to_thread.run_sync(render_file, source, dest, job.edit)
        except Exception as exc:
            log.warning("render failed: %s", type(exc).__name__)
            return "render_failed"

    def _digest(self, source: Path, stat: os.stat_result) -> str:
        """The content's hash, once per (path, size, modification time)."""
        key = (str(source), stat.st_size, stat.st_mtime_ns)
        known = self._digests.get(key)
        if known is None:
            h = hashlib.blake2b(digest_size=8)
            with source.open("rb") as f:
                while chunk := f.read(HASH_CHUNK):
                    h.update(chunk)
            known = self._digests[key] = h.hexdigest()
        return known

    async def drop(self, job: DropRenders) -> None:
        await anyio.to_thread.run_sync(_drop, self.folder, job.rel, None)

    async def touch(self, job: TouchRender) -> None:
        await anyio.to_thread.run_sync(_touch, job.path)


def _touch(path: Path) -> bool:
    """Mark a rendered file as just used; False when it is not there."""
    try:
        os.utime(path)
    except OSError:
        return False
    return True


def _entries(folder: Path) -> list[tuple[Path, int, int]]:
    """(file, size, last used) of every rendered file."""
    out: list[tuple[Path, int, int]] = []
    try:
        with os.scandir(folder) as it:
            for entry in it:
                if entry.name.endswith(SUFFIX) and entry.is_file():
                    stat = entry.stat()
                    out.append((Path(entry.path), stat.st_size, stat.st_mtime_ns))
    except OSError:
        pass
    return out


def _drop(folder: Path, rel: str, keep: Path | None) -> None:
    """Remove the sound's rendered files but ``keep``, and any part of one a render cut off."""
    prefix = sound_key(rel) + "-"
    for path, _, _ in _entries(folder):
        if path.name.startswith(prefix) and path != keep:
            path.unlink(missing_ok=True)
    for part in folder.glob(f"{prefix}*{SUFFIX}.part"):
        part.unlink(missing_ok=True)


def _tidy(folder: Path, rel: str, dest: Path, bound: int) -> None:
    """After a render: the sound's older renders go, and any part file (renders run one at a
    time, so a part left now is one a killed worker cut off: at exit, say), then the least
    recently used files until the cache is within its bound (the new file stays, even alone
    past it)."""
    _drop(folder, rel, dest)
    for part in folder.glob(f"*{SUFFIX}.part"):
        part.unlink(missing_ok=True)
    entries = sorted(_entries(folder), key=lambda e: e[2])
    total = sum(size for _, size, _ in entries)
    for path, size, _ in entries:
        if total <= bound:
            break
        if path == dest:
            continue
        path.unlink(missing_ok=True)
        total -= size
