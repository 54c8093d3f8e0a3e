"""Sources: a real HTTP server on 127.0.0.1 (redirects, size cap, timeout, 304 revalidation),
local files, refused schemes, and URLs kept out of file names and messages."""

from __future__ import annotations

import logging
import re
import sys
import threading
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import ClassVar

import pytest

from cueboard.workers.thumbnails import IconCache, ThumbnailError, fetch_url, load_source

from .thumbgen import GifFrame, gif, solid

ICON = gif(2, 2, [GifFrame(solid(2, 2, 1))], palette=[(0, 0, 0), (255, 0, 0)])
SECRET_QUERY = "token=s3cr3t"
MIB = 1024 * 1024
SHUTDOWN_POLL_S = 0.01  # serve_forever's default, half a second, is what each teardown waited


class _Handler(BaseHTTPRequestHandler):
    hits: ClassVar[dict[str, int]] = {}
    conditional: ClassVar[list[str]] = []

    def log_message(self, format: str, *args: object) -> None:
        pass

    def do_GET(self) -> None:
        path = self.path.split("?")[0]
        type(self).hits[path] = type(self).hits.get(path, 0) + 1
        if path.startswith("/hop/"):
            left = int(path.rsplit("/", 1)[1])
            target = "/icon" if left == 0 else f"/hop/{left - 1}"
            self._send(302, b"", {"Location": target})
        elif path == "/icon":
            if self.headers.get("If-None-Match") == '"v1"':
                type(self).conditional.append(self.headers["If-None-Match"])
                self._send(304, None, {"ETag": '"v1"'})
            else:
                self._send(200, ICON, {"ETag": '"v1"', "Content-Type": "text/plain"})
        elif path == "/big-declared":
            self._send(200, None, {"Content-Length": str(9 * MIB)})
        elif path == "/big-streamed":
            self.send_response(200)
            self.send_header("Transfer-Encoding", "chunked")
            self.end_headers()
            block = b"\0" * 65536
            try:
                for _ in range(9 * 16 + 1):
                    self.wfile.write(b"%x\r\n%s\r\n" % (len(block), block))
                self.wfile.write(b"0\r\n\r\n")
            except OSError:
                pass  # the client hung up past the cap, as it should
        elif path == "/slow":
            time.sleep(3)
            self._send(200, ICON, {})
        elif path == "/to-ftp":
            self._send(302, b"", {"Location": "ftp://127.0.0.1/icon.gif"})
        else:
            self._send(404, b"", {})

    def _send(self, status: int, body: bytes | None, headers: dict[str, str]) -> None:
        self.send_response(status)
        for name, value in headers.items():
            self.send_header(name, value)
        if body is not None:
            self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        if body:
            self.wfile.write(body)


class _Server(ThreadingHTTPServer):
    def handle_error(self, request: object, client_address: object) -> None:
        # A client that gave up (the timeout tests) has hung up before /slow answers: that is
        # what the test does, not a failure of the server; anything else is still printed.
        if not isinstance(sys.exc_info()[1], ConnectionError):
            super().handle_error(request, client_address)  # type: ignore[arg-type]


@pytest.fixture
def server() -> Iterator[str]:
    _Handler.hits = {}
    _Handler.conditional = []
    httpd = _Server(("127.0.0.1", 0), _Handler)
    httpd.daemon_threads = True
    thread = threading.Thread(target=httpd.serve_forever, args=(SHUTDOWN_POLL_S,), daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{httpd.server_address[1]}"
    finally:
        httpd.shutdown()
        httpd.server_close()


async def _refused(url: str, **options: object) -> ThumbnailError:
    with pytest.raises(ThumbnailError) as caught:
        await fetch_url(url, network_granted=True, **options)  # type: ignore[arg-type]
    assert "127.0.0.1" not in caught.value.reason and SECRET_QUERY not in caught.value.reason
    return caught.value


@pytest.mark.anyio
async def test_fetches_and_sniffs_from_bytes(server: str) -> None:
    """The server says text/plain; the bytes say GIF."""
    assert await fetch_url(f"{server}/icon?{SECRET_QUERY}", network_granted=True) == ICON


@pytest.mark.anyio
async def test_an_icon_url_never_reaches_the_log(
    server: str, caplog: pytest.LogCaptureFixture
) -> None:
    """httpx logs each request's whole URL; an icon URL may carry a token (a credential)."""
    import httpx

    caplog.set_level(logging.DEBUG)
    async with httpx.AsyncClient() as client:
        await client.get(f"{server}/nothing?{SECRET_QUERY}")
    assert SECRET_QUERY in caplog.text, "this check would not see httpx logging the URL"
    caplog.clear()
    assert await fetch_url(f"{server}/hop/1?{SECRET_QUERY}", network_granted=True) == ICON
    await _refused(f"{server}/nothing?{SECRET_QUERY}")
    assert SECRET_QUERY not in caplog.text


@pytest.mark.anyio
async def test_five_redirects_are_followed(server: str) -> None:
    assert await fetch_url(f"{server}/hop/4", network_granted=True) == ICON  # 5 redirects


@pytest.mark.anyio
async def test_six_redirects_are_refused(server: str) -> None:
    error = await _refused(f"{server}/hop/5?{SECRET_QUERY}")
    assert "more than 5" in error.reason


@pytest.mark.anyio
async def test_redirect_to_another_scheme_is_refused(server: str) -> None:
    assert (await _refused(f"{server}/to-ftp")).kind == "bad_source"


@pytest.mark.anyio
async def test_declared_oversize_is_refused(server: str) -> None:
    assert (await _refused(f"{server}/big-declared")).kind == "too_large"


@pytest.mark.anyio
async def test_streamed_oversize_is_aborted(server: str) -> None:
    error = await _refused(f"{server}/big-streamed")
    assert error.kind == "too_large" and "stopped" in error.reason


@pytest.mark.anyio
async def test_timeout(server: str) -> None:
    error = await _refused(f"{server}/slow?{SECRET_QUERY}", timeout_s=0.5)
    assert "timed out" in error.reason


@pytest.mark.anyio
async def test_not_found(server: str) -> None:
    assert "HTTP 404" in (await _refused(f"{server}/nothing")).reason


@pytest.mark.anyio
async def test_cache_revalidates_with_etag(server: str, tmp_path: Path) -> None:
    cache = IconCache(tmp_path / "cache")
    url = f"{server}/icon?{SECRET_QUERY}"
    assert await fetch_url(url, network_granted=True, cache=cache) == ICON
    assert await fetch_url(url, network_granted=True, cache=cache) == ICON
    assert _Handler.hits["/icon"] == 2
    assert _Handler.conditional == ['"v1"']  # the second GET was answered 304
    for path in (tmp_path / "cache").iterdir():
        # The name is the URL's digest, never the URL (a hex digest may contain "127" by chance).
        assert re.fullmatch(r"[0-9a-f]{64}\.(body|json)", path.name), path.name
        assert (
            b"127.0.0.1" not in path.read_bytes() and SECRET_QUERY.encode() not in path.read_bytes()
        )


@pytest.mark.anyio
async def test_network_needs_the_grant(server: str) -> None:
    with pytest.raises(ThumbnailError) as caught:
        await load_source(f"{server}/icon", network_granted=False)
    assert caught.value.kind == "network_denied"
    assert _Handler.hits == {}


@pytest.mark.anyio
@pytest.mark.parametrize("url", ["ftp://host/icon.gif", "file:///etc/passwd", "data://x"])
async def test_other_schemes_are_refused(url: str) -> None:
    with pytest.raises(ThumbnailError) as caught:
        await load_source(url, network_granted=True)
    assert caught.value.kind == "bad_source"


@pytest.mark.anyio
async def test_local_file_beside_the_sounds(tmp_path: Path) -> None:
    (tmp_path / "airhorn.gif").write_bytes(ICON)
    assert await load_source("airhorn.gif", base_dir=tmp_path) == ICON
    with pytest.raises(ThumbnailError) as caught:
        await load_source("missing.gif", base_dir=tmp_path)
    assert caught.value.kind == "bad_source"
