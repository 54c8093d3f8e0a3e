"""The worker that downloads a sound from a link into the sounds folder (httpx, on anyio).

The bytes go to a hidden ``.cueboard-download-*.part`` file in the target folder, which the
library scan skips like every dot file, and become a visible sound only once complete and
sniffed: a hard link to a fresh name (which never replaces an existing file), then the
temporary name is removed. Every failure, cancellation included, removes the temporary file.

The link is a credential: it is revealed only to httpx, a failure is a
:class:`~cueboard.core.link_import.LinkImportError` naming the host at most, and httpx's own
and httpcore's log lines (which quote the URL and the response headers) are dropped while a
download runs. The decisions
(which link, which redirect, which format, which name) are :mod:`cueboard.core.link_import`'s.
httpx is imported on the first download: Cueboard starts without it.
"""

from __future__ import annotations

import contextlib
import os
import secrets
from collections.abc import Callable
from itertools import islice
from pathlib import Path, PurePosixPath
from typing import TYPE_CHECKING, BinaryIO
from urllib.parse import urlsplit

import anyio.to_thread

from cueboard.core.link_import import (
    MAX_IMPORT_BYTES,
    MAX_REDIRECTS,
    SNIFF_BYTES,
    AudioFormat,
    CheckedLink,
    DiscardSound,
    FetchFailed,
    FetchProgress,
    FetchSound,
    LinkImportError,
    SoundFetched,
    candidate_names,
    check_link,
    pick_name,
    redirect_target,
    safe_file_name,
    sniff_audio,
    status_reason,
)
from cueboard.workers.http_logs import hiding_http_logs
from vxp.secret import Secret

if TYPE_CHECKING:
    import ssl

    import httpx

__all__ = ["TEMP_PREFIX", "TEMP_SUFFIX", "Progress", "discard_sound", "fetch_sound", "run_fetch"]

TEMP_PREFIX = ".cueboard-download-"
TEMP_SUFFIX = ".part"
DEFAULT_TIMEOUT_S = 30.0  # for each step: connecting, and every wait for more bytes
WRITE_BYTES = 1024 * 1024  # bytes gathered before one write in a worker thread
PROGRESS_BYTES = 256 * 1024  # bytes between two progress reports
NAME_TRIES = 1000
REDIRECT_STATUSES = frozenset({301, 302, 303, 307, 308})
HEADERS = {
    "Accept": "audio/*, application/ogg, application/octet-stream;q=0.9, */*;q=0.5",
    # Counted bytes are the bytes stored, and Content-Length then counts the same bytes.
    "Accept-Encoding": "identity",
}

type Progress = Callable[[int, int | None], None]
"""Called with the bytes received so far and the total, when the server declared one."""


async def fetch_sound(
    link: Secret | str,
    folder: Path,
    *,
    max_bytes: int = MAX_IMPORT_BYTES,
    progress: Progress | None = None,
    timeout_s: float = DEFAULT_TIMEOUT_S,
    max_redirects: int = MAX_REDIRECTS,
    verify: ssl.SSLContext | bool = True,
) -> Path:
    """Download the sound at ``link`` into ``folder`` and return its path there.

    Raises :class:`LinkImportError` for every failure (``invalid_link`` and ``not_https``
    before anything connects); ``verify`` is the TLS trust httpx uses (the system's by
    default).
    """
    checked = check_link(link)
    import httpx

    with hiding_http_logs():
        async with httpx.AsyncClient(
            verify=verify,
            follow_redirects=False,
            timeout=httpx.Timeout(timeout_s),
            headers=HEADERS,
        ) as client:
            return await _follow(client, checked, folder, max_bytes, max_redirects, progress)


async def _follow(
    client: httpx.AsyncClient,
    link: CheckedLink,
    folder: Path,
    max_bytes: int,
    max_redirects: int,
    progress: Progress | None,
) -> Path:
    """GET the link, following at most ``max_redirects`` redirects, each to https only."""
    import httpx

    paths = [urlsplit(link.url.reveal()).path]
    for hop in range(max_redirects + 1):
        try:
            async with client.stream("GET", link.url.reveal()) as response:
                location = response.headers.get("Location")
                if response.status_code in REDIRECT_STATUSES and location is not None:
                    if hop == max_redirects:
                        raise LinkImportError("too_many_redirects", host=link.host)
                    link = redirect_target(link, location)
                    paths.append(urlsplit(link.url.reveal()).path)
                    continue
                reason = status_reason(response.status_code)
                if reason is not None:
                    raise LinkImportError(reason, host=link.host, status=response.status_code)
                naming = (response.headers.get("Content-Disposition"), paths)
                return await _save(response, link.host, folder, max_bytes, progress, naming)
        except httpx.TimeoutException:
            raise LinkImportError("timeout", host=link.host) from None
        except httpx.HTTPError:
            # TLS, refused connections, broken or truncated responses. str(error) may quote
            # the URL, so nothing of it is kept.
            raise LinkImportError("network", host=link.host) from None
    raise AssertionError("unreachable: the last hop either returns or raises")


def _declared_length(response: httpx.Response) -> int | None:
    declared = response.headers.get("Content-Length", "").strip()
    encoded = response.headers.get("Content-Encoding", "identity").strip().lower()
    return int(declared) if declared.isdigit() and encoded == "identity" else None


async def _save(
    response: httpx.Response,
    host: str,
    folder: Path,
    max_bytes: int,
    progress: Progress | None,
    naming: tuple[str | None, list[str]],
) -> Path:
    """Stream the body into a hidden file, sniff it, and give it its name."""
    total = _declared_length(response)
    if total is not None and total > max_bytes:
        raise LinkImportError("too_large", host=host)
    report = progress or (lambda received, total: None)
    report(0, total)
    received = reported = 0
    pending = bytearray()
    audio: AudioFormat | None = None
    temp: Path | None = None
    file: BinaryIO | None = None
    try:
        async for chunk in response.aiter_bytes():
            received += len(chunk)
            if received > max_bytes:
                raise LinkImportError("too_large", host=host)
            pending += chunk
            if audio is None:
                if len(pending) < SNIFF_BYTES:
                    continue
                audio = _sniffed(pending, host)
                temp, file = _open_temp(folder)
            if len(pending) >= WRITE_BYTES:
                await _write(file, pending)
            if received - reported >= PROGRESS_BYTES:
                report(received, total)
                reported = received
        if audio is None:
            audio = _sniffed(pending, host)
            temp, file = _open_temp(folder)
        await _write(file, pending)
        assert file is not None and temp is not None
        await anyio.to_thread.run_sync(_flush, file)
        file.close()
        report(received, total)
        # No await from here on: once renamed, the sound is in place and the call succeeded.
        name = safe_file_name(pick_name(*naming), audio)
        final = _place(temp, folder, name)
        temp = None
        return final
    finally:
        if file is not None:
            file.close()
        if temp is not None:
            with contextlib.suppress(OSError):
                temp.unlink()


def _sniffed(head: bytearray, host: str) -> AudioFormat:
    audio = sniff_audio(bytes(head[:SNIFF_BYTES]))
    if audio is None:
        raise LinkImportError("not_audio", host=host)
    return audio


def _open_temp(folder: Path) -> tuple[Path, BinaryIO]:
    """Create the hidden file without awaiting, so a cancellation cannot lose track of it.

    Made with the user's usual permissions (``tempfile.mkstemp`` would make it owner-only, and
    the sound would stay so after the rename)."""
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_BINARY", 0)
    for _ in range(NAME_TRIES):
        path = folder / f"{TEMP_PREFIX}{secrets.token_hex(6)}{TEMP_SUFFIX}"
        try:
            fd = os.open(path, flags, 0o666)
        except FileExistsError:
            continue
        except OSError:
            break
        return path, os.fdopen(fd, "wb")
    raise LinkImportError("cannot_write")


async def _write(file: BinaryIO | None, pending: bytearray) -> None:
    assert file is not None
    data = bytes(pending)
    pending.clear()
    try:
        await anyio.to_thread.run_sync(file.write, data)
    except OSError:
        raise LinkImportError("cannot_write") from None


def _flush(file: BinaryIO) -> None:
    try:
        file.flush()
        os.fsync(file.fileno())
    except OSError:
        raise LinkImportError("cannot_write") from None


def _place(temp: Path, folder: Path, name: str) -> Path:
    """Give the complete file the first free name of ``name``, ``name (2)``…, never replacing
    a file: a hard link fails on an existing name; where there are no hard links (FAT, some
    network shares) a rename after a look, which Windows also refuses over an existing file."""
    try:
        for candidate in islice(candidate_names(name), NAME_TRIES):
            target = folder / candidate
            try:
                os.link(temp, target)
            except FileExistsError:
                continue
            except OSError:
                if os.path.lexists(target):
                    continue
                os.rename(temp, target)
                return target
            with contextlib.suppress(OSError):
                temp.unlink()
            return target
    except OSError:
        raise LinkImportError("cannot_write") from None
    raise LinkImportError("cannot_write")


async def run_fetch(
    effect: FetchSound,
    root: Path,
    deliver: Callable[[FetchProgress | SoundFetched | FetchFailed], None],
    *,
    timeout_s: float = DEFAULT_TIMEOUT_S,
    verify: ssl.SSLContext | bool = True,
) -> None:
    """Carry out a :class:`FetchSound` for the runtime: progress, then exactly one of
    :class:`SoundFetched` or :class:`FetchFailed` (nothing when cancelled)."""
    folder = _category_folder(root, effect.category)
    if folder is None:
        deliver(FetchFailed(effect.ticket, LinkImportError("cannot_write")))
        return
    try:
        path = await fetch_sound(
            effect.link.url,
            folder,
            max_bytes=effect.max_bytes,
            progress=lambda got, total: deliver(FetchProgress(effect.ticket, got, total)),
            timeout_s=timeout_s,
            verify=verify,
        )
    except LinkImportError as error:
        deliver(FetchFailed(effect.ticket, error))
        return
    deliver(SoundFetched(effect.ticket, path.relative_to(root).as_posix()))


def discard_sound(root: Path, effect: DiscardSound) -> bool:
    """Carry out a :class:`DiscardSound`: remove that one file, if it is a file inside root.
    False when there was nothing to remove."""
    path = root / PurePosixPath(effect.rel_path)
    try:
        inside = path.parent.resolve(strict=True).is_relative_to(root.resolve(strict=True))
        if not inside or not path.is_file() or path.is_symlink():
            return False
        path.unlink()
    except OSError:
        return False
    return True


def _category_folder(root: Path, category: str) -> Path | None:
    """The folder of a library category, if it is one: relative, inside root (symbolic links
    resolved), not hidden, and there."""
    parts = PurePosixPath(category).parts if category else ()
    if category.startswith("/") or any(
        p in (".", "..") or p.startswith(".") or "\\" in p or ":" in p for p in parts
    ):
        return None
    folder = root.joinpath(*parts)
    try:
        inside = folder.resolve(strict=True).is_relative_to(root.resolve(strict=True))
    except OSError:
        return None
    return folder if inside and folder.is_dir() else None
