"""The runtime's part of a backup: write the file whole or not at all, and read it back.

Small files, so a thread does the I/O. A write goes to a hidden temporary file in the same
folder, synced, then renamed over the old one: a crash leaves the old backup or the new one,
never half of either. A reason is the OS's words for it, without the path.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

import anyio.to_thread

from cueboard.core.effects import ReadFile, WriteFile
from cueboard.core.inputs import FileRead, FileWritten, Input

MAX_READ_BYTES = 16 * 1024 * 1024

type Feed = Callable[[Input], None]


async def write_file(job: WriteFile, feed: Feed) -> None:
    try:
        await anyio.to_thread.run_sync(_write, job.path, job.text)
    except OSError as exc:
        feed(FileWritten(job.purpose, job.request_id, exc.strerror or type(exc).__name__))
        return
    feed(FileWritten(job.purpose, job.request_id, None))


async def read_file(job: ReadFile, feed: Feed) -> None:
    try:
        text = await anyio.to_thread.run_sync(_read, job.path)
    except FileNotFoundError:
        feed(FileRead(job.purpose, job.request_id, None, "missing"))
        return
    except (OSError, UnicodeDecodeError) as exc:
        reason = exc.strerror if isinstance(exc, OSError) else "not UTF-8 text"
        feed(FileRead(job.purpose, job.request_id, None, reason or type(exc).__name__))
        return
    feed(FileRead(job.purpose, job.request_id, text, None))


def _write(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    temporary = path.with_name(f".{path.name}.partial")
    try:
        with temporary.open("w", encoding="utf-8") as out:
            out.write(text)
            out.flush()
            os.fsync(out.fileno())
        temporary.replace(path)
    finally:
        temporary.unlink(missing_ok=True)


def _read(path: Path) -> str:
    with path.open("rb") as source:
        data = source.read(MAX_READ_BYTES + 1)
    if len(data) > MAX_READ_BYTES:
        raise OSError(0, "too large for a backup")
    return data.decode("utf-8")
