"""A real HTTPS server on 127.0.0.1 with a certificate from a test authority (trustme).

Routes are set per test as ``path -> Route``; a route answers with a status, headers and a
body, and may stall (before its headers, or after part of its body) until the test ends.
"""

from __future__ import annotations

import gzip
import ssl
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import cast

import trustme

# How often serve_forever looks for shutdown(): its default half second is what every test's
# teardown would wait.
SHUTDOWN_POLL_S = 0.01
STALL_CEILING_S = 60.0  # a stalled handler gives up by itself if a test forgets to release it


@dataclass
class Route:
    status: int = 200
    body: bytes = b""
    headers: dict[str, str] = field(default_factory=dict[str, str])
    length: int | None = None  # the Content-Length to declare, when not len(body)
    chunked: bool = False
    gzip: bool = False
    stall_before_headers: bool = False
    stall_after: int | None = None  # bytes of body sent before stalling
    hang_up_after: int | None = None  # bytes of body sent before closing the connection


class TlsServer(ThreadingHTTPServer):
    daemon_threads = True
    block_on_close = False

    def __init__(self, context: ssl.SSLContext) -> None:
        super().__init__(("127.0.0.1", 0), _Handler)
        self.socket = context.wrap_socket(
            self.socket, server_side=True, do_handshake_on_connect=False
        )
        self.routes: dict[str, Route | Callable[[str], Route]] = {}
        self.requests: list[str] = []  # the paths asked for, queries included
        self.connections = 0
        self.release = threading.Event()

    @property
    def origin(self) -> str:
        return f"https://127.0.0.1:{self.server_address[1]}"

    def verify_request(self, request: object, client_address: object) -> bool:
        self.connections += 1
        return True

    def handle_error(self, request: object, client_address: object) -> None:
        pass  # clients that hang up or refuse our certificate are what some tests do


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    @property
    def tls(self) -> TlsServer:
        return cast(TlsServer, self.server)

    def setup(self) -> None:
        self.request.do_handshake()  # in this handler's thread, not the accepting one
        super().setup()

    def log_message(self, format: str, *args: object) -> None:
        pass

    def do_GET(self) -> None:
        self.tls.requests.append(self.path)
        path = self.path.split("?", 1)[0]
        found = self.tls.routes.get(path)
        route = found(self.path) if callable(found) else found
        if route is None:
            route = Route(404, b"not here")
        try:
            self._answer(route)
        except (OSError, ssl.SSLError):
            pass  # the client hung up, as a download that refuses a body does

    def _answer(self, route: Route) -> None:
        if route.stall_before_headers:
            self.tls.release.wait(STALL_CEILING_S)
            return
        body = gzip.compress(route.body) if route.gzip else route.body
        self.send_response(route.status)
        for name, value in route.headers.items():
            self.send_header(name, value)
        if route.gzip:
            self.send_header("Content-Encoding", "gzip")
        if route.chunked:
            self.send_header("Transfer-Encoding", "chunked")
        else:
            self.send_header("Content-Length", str(route.length or len(body)))
        self.end_headers()
        cut = route.stall_after if route.stall_after is not None else route.hang_up_after
        sent = body if cut is None else body[:cut]
        if route.chunked:
            for at in range(0, len(sent), 65536):
                block = sent[at : at + 65536]
                self.wfile.write(b"%x\r\n%s\r\n" % (len(block), block))
        else:
            self.wfile.write(sent)
        self.wfile.flush()
        if route.stall_after is not None:
            self.tls.release.wait(STALL_CEILING_S)
            return
        if route.chunked and route.hang_up_after is None:
            self.wfile.write(b"0\r\n\r\n")
        self.close_connection = True


@dataclass
class Tls:
    server: TlsServer
    client_context: ssl.SSLContext  # trusts the test authority, and nothing else
    authority_pem: bytes  # the test authority's certificate, for a process's SSL_CERT_FILE


@contextmanager
def tls_server() -> Iterator[Tls]:
    authority = trustme.CA()
    server_context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    authority.issue_cert("127.0.0.1", "localhost").configure_cert(server_context)
    server = TlsServer(server_context)
    thread = threading.Thread(target=server.serve_forever, args=(SHUTDOWN_POLL_S,), daemon=True)
    thread.start()
    try:
        yield Tls(server, _only(authority), authority.cert_pem.bytes())
    finally:
        server.release.set()
        server.shutdown()
        server.server_close()


def _only(authority: trustme.CA) -> ssl.SSLContext:
    """A client context that trusts the test authority alone (not the system's roots)."""
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
    authority.configure_trust(context)
    return context
