"""Where icon bytes come from: a local file beside the sounds, or an http(s) URL.

Fetching is async (httpx.AsyncClient; runs on asyncio and trio through anyio); decoding is not
done here. URLs are never put in an error message or a log line: they may carry tokens.
anyio and httpx are imported on the first fetch, not with the package: a decode worker that
only reads local files never loads them.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING
from urllib.parse import urlsplit

from .errors import ThumbnailError
from .limits import MAX_HTTP_BYTES, MAX_LOCAL_BYTES

if TYPE_CHECKING:
    import httpx

    from .cache import CachedIcon, IconCache

MAX_REDIRECTS = 5  # issue 5
DEFAULT_TIMEOUT_S = 10.0  # the whole fetch, redirects and body included
HTTP_SCHEMES = ("http", "https")


def is_url(reference: str) -> bool:
    """True for `scheme://...`; a Windows drive letter (`C:\\...`) is a path."""
    scheme = urlsplit(reference).scheme
    return len(scheme) > 1 and "://" in reference


async def load_source(
    reference: str,
    *,
    base_dir: Path | None = None,
    network_granted: bool = False,
    cache: IconCache | None = None,
    client: httpx.AsyncClient | None = None,
    timeout_s: float = DEFAULT_TIMEOUT_S,
) -> bytes:
    """The bytes of a local icon file or of an http(s) URL (the latter only with `network`)."""
    if is_url(reference):
        return await fetch_url(
            reference,
            network_granted=network_granted,
            cache=cache,
            client=client,
            timeout_s=timeout_s,
        )
    import anyio.to_thread

    path = Path(reference)
    if base_dir is not None and not path.is_absolute():
        path = base_dir / path
    return await anyio.to_thread.run_sync(read_local, path)


def read_local(path: Path, max_bytes: int = MAX_LOCAL_BYTES) -> bytes:
    try:
        with path.open("rb") as file:
            # Sized from fstat: read(max_bytes + 1) would allocate that much for a small icon.
            # A size of 0 may be a pipe or a special file: read up to the limit.
            size = os.fstat(file.fileno()).st_size
            data = file.read(min(size, max_bytes) + 1 if size else max_bytes + 1)
    except FileNotFoundError:
        raise ThumbnailError("bad_source", f"no such file: {path.name}") from None
    except IsADirectoryError:
        raise ThumbnailError("bad_source", f"not a file: {path.name}") from None
    except OSError as error:
        raise ThumbnailError("bad_source", f"cannot read {path.name}: {error.strerror}") from None
    if len(data) > max_bytes:
        raise ThumbnailError("too_large", f"{path.name} is larger than {max_bytes} bytes")
    return data


async def fetch_url(
    url: str,
    *,
    network_granted: bool,
    cache: IconCache | None = None,
    client: httpx.AsyncClient | None = None,
    timeout_s: float = DEFAULT_TIMEOUT_S,
    max_bytes: int = MAX_HTTP_BYTES,
) -> bytes:
    """GET an icon: at most 5 redirects, `max_bytes` streamed, one deadline for everything,
    revalidated against the on-disk cache."""
    import anyio
    import anyio.to_thread
    import httpx

    from cueboard.workers.http_logs import hiding_http_logs

    scheme = urlsplit(url).scheme.lower()
    if scheme not in HTTP_SCHEMES:
        raise ThumbnailError("bad_source", f"{scheme or 'this'} URLs are refused: only http(s)")
    if not network_granted:
        raise ThumbnailError("network_denied", "fetching an icon URL needs the network capability")
    cached = await anyio.to_thread.run_sync(cache.load, url) if cache else None
    headers = cached.validators() if cached else {}
    try:
        with anyio.fail_after(timeout_s), hiding_http_logs():
            if client is None:
                async with _new_client(timeout_s) as own_client:
                    fetched = await _get(own_client, url, headers, cached, max_bytes)
            else:
                fetched = await _get(client, url, headers, cached, max_bytes)
    except TimeoutError:
        raise ThumbnailError(
            "fetch_failed", f"the icon URL timed out after {timeout_s:g} s"
        ) from None
    except httpx.TooManyRedirects:
        raise ThumbnailError(
            "fetch_failed", f"the icon URL redirects more than {MAX_REDIRECTS} times"
        ) from None
    except httpx.UnsupportedProtocol:
        raise ThumbnailError("bad_source", "the icon URL redirects to a non-http(s) URL") from None
    except httpx.TimeoutException:
        raise ThumbnailError(
            "fetch_failed", f"the icon URL timed out after {timeout_s:g} s"
        ) from None
    except httpx.HTTPError as error:
        # The class name says what failed; str(error) could quote the URL.
        raise ThumbnailError(
            "fetch_failed", f"fetching the icon failed: {type(error).__name__}"
        ) from None
    if cache is not None:
        if fetched is cached:
            await anyio.to_thread.run_sync(cache.touch, url)
        elif fetched.etag or fetched.last_modified:
            await anyio.to_thread.run_sync(cache.store, url, fetched)
    return fetched.body


def _new_client(timeout_s: float) -> httpx.AsyncClient:
    import httpx

    return httpx.AsyncClient(
        follow_redirects=True,
        max_redirects=MAX_REDIRECTS,
        timeout=httpx.Timeout(timeout_s),
        headers={"Accept": "image/*, video/mp4, video/webm;q=0.8"},
    )


async def _get(
    client: httpx.AsyncClient,
    url: str,
    headers: dict[str, str],
    cached: CachedIcon | None,
    max_bytes: int,
) -> CachedIcon:
    from .cache import CachedIcon

    async with client.stream("GET", url, headers=headers, follow_redirects=True) as response:
        if response.status_code == 304 and cached is not None:
            return cached
        if response.status_code != 200:
            raise ThumbnailError(
                "fetch_failed", f"the icon URL answered HTTP {response.status_code}"
            )
        declared = response.headers.get("Content-Length", "")
        if declared.isdigit() and int(declared) > max_bytes:
            raise ThumbnailError(
                "too_large", f"the icon is {declared} bytes, more than {max_bytes}"
            )
        body = bytearray()
        async for chunk in response.aiter_bytes():
            body += chunk
            if len(body) > max_bytes:
                raise ThumbnailError(
                    "too_large", f"the icon is larger than {max_bytes} bytes; download stopped"
                )
        return CachedIcon(
            bytes(body), response.headers.get("ETag"), response.headers.get("Last-Modified")
        )
