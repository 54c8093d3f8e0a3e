"""An on-disk cache of fetched icons, revalidated with ETag / Last-Modified.

Entries are named by a SHA-256 of the URL: a URL (which may carry a token in its query) never
appears in a file name, in the metadata, or in a log line. Blocking file I/O; callers in async
code run it in a worker thread.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import tempfile
from dataclasses import dataclass
from pathlib import Path

DEFAULT_MAX_BYTES = 64 * 1024 * 1024  # about 8 icons at the 8 MiB download cap, or far more


@dataclass(frozen=True, slots=True)
class CachedIcon:
    body: bytes
    etag: str | None
    last_modified: str | None

    def validators(self) -> dict[str, str]:
        """The conditional request headers that let a server answer 304."""
        headers: dict[str, str] = {}
        if self.etag:
            headers["If-None-Match"] = self.etag
        if self.last_modified:
            headers["If-Modified-Since"] = self.last_modified
        return headers


class IconCache:
    def __init__(self, directory: Path, *, max_bytes: int = DEFAULT_MAX_BYTES) -> None:
        self.directory = directory
        self.max_bytes = max_bytes

    @staticmethod
    def entry_name(url: str) -> str:
        return hashlib.sha256(url.encode("utf-8")).hexdigest()

    def _paths(self, url: str) -> tuple[Path, Path]:
        name = self.entry_name(url)
        return self.directory / f"{name}.body", self.directory / f"{name}.json"

    def load(self, url: str) -> CachedIcon | None:
        body_path, meta_path = self._paths(url)
        try:
            meta = json.loads(meta_path.read_text("utf-8"))
            body = body_path.read_bytes()
        except (OSError, ValueError):
            return None
        if not isinstance(meta, dict) or meta.get("size") != len(body):
            return None  # a half-written or foreign entry: fetch again
        etag, modified = meta.get("etag"), meta.get("last_modified")
        return CachedIcon(
            body,
            etag if isinstance(etag, str) else None,
            modified if isinstance(modified, str) else None,
        )

    def store(self, url: str, icon: CachedIcon) -> None:
        self.directory.mkdir(parents=True, exist_ok=True)
        body_path, meta_path = self._paths(url)
        meta = {"size": len(icon.body), "etag": icon.etag, "last_modified": icon.last_modified}
        # Body first, metadata last: an entry without matching metadata is ignored.
        _write_atomically(body_path, icon.body)
        _write_atomically(meta_path, json.dumps(meta).encode("utf-8"))
        self.prune()

    def touch(self, url: str) -> None:
        for path in self._paths(url):
            with contextlib.suppress(OSError):
                path.touch()

    def prune(self) -> None:
        """Delete the least recently used entries past max_bytes."""
        try:
            bodies = [
                (p.stat().st_mtime, p.stat().st_size, p) for p in self.directory.glob("*.body")
            ]
        except OSError:
            return
        total = sum(size for _, size, _ in bodies)
        for _, size, path in sorted(bodies):
            if total <= self.max_bytes:
                break
            with contextlib.suppress(OSError):
                path.with_suffix(".json").unlink()
                path.unlink()
            total -= size


def _write_atomically(path: Path, data: bytes) -> None:
    fd, temp = tempfile.mkstemp(dir=path.parent, prefix=".tmp-")
    try:
        with os.fdopen(fd, "wb") as file:
            file.write(data)
        os.replace(temp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temp)
        raise
