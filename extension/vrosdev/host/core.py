"""The emulated host: one listener, one extension, strict about every rule of VXP 1.7.

A connection goes AWAIT_HELLO -> READY -> CLOSED. Before hello, any request other than hello is
answered -32002 and the connection closed (E-11); no hello within the deadline closes it too
(docs/protocol-notes.md#r5). After welcome, each request is checked in the spec's order: a valid
JSON-RPC request (-32700/-32600), a known namespace for this host version (-32601), the capability
(-32001), the params shape (-32602); then the namespace answers with a result or an ``err``. Every
refusal is also a logged violation, so an extension author sees what vrOS would refuse.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

import anyio
import anyio.abc
from pydantic import ValidationError
from pydantic_core import from_json

from vxp.errors import FrameTooLarge, validation_summary
from vxp.framing import FrameDecoder
from vxp.models.events import EVENT_SINCE
from vxp.version import Version

from . import errors as E
from .checks import REJECT_IDS, check_request, hello_refusal, parse_hello, rpc_check_id
from .config import HostConfig
from .endings import hung_up, shut
from .errors import DomainErr, RpcError
from .faults import parse_delay, parse_fault
from .hook import RequestHook, Verdict
from .log import Recorder
from .shapes import REQUESTS

# What the event loop's transport reads at once (asyncio: 256 KiB): a 2.6 MB assets put takes
# 11 turns of the read loop instead of 40 with anyio's default of 64 KiB.
READ_CHUNK = 256 * 1024

log = logging.getLogger("vrosdev")

AfterReply = Callable[[], Awaitable[None]]
Handler = Callable[["Connection", Any], Awaitable[dict[str, Any]]]


@dataclass(frozen=True)
class Namespace:
    since: str
    capability: str | None
    handler: Handler
    raw: bool = False  # the handler checks the params' shape itself (raises RpcError -32602)


class ExtensionHost:
    """Host-wide state for one extension: config, stores, engines, the live connection."""

    def __init__(
        self,
        config: HostConfig,
        recorder: Recorder | None = None,
        shared: dict[str, Any] | None = None,
    ) -> None:
        self.config = config
        # vrOS-wide state of every extension in this run (the face hub); see docs/face.md
        self.shared: dict[str, Any] = {} if shared is None else shared
        self.version = Version.parse(config.host_version)
        self.recorder = recorder or Recorder(config.token)
        self.connection: Connection | None = None
        self.connections_served = 0
        self.namespaces: dict[str, Namespace] = {}
        self.ready = anyio.Event()  # set at the first welcome
        self.on_request: list[Callable[[str, Any], None]] = []  # for wait-for script steps
        self.services: dict[str, Any] = {}  # host-wide namespace state (kv store, engines, …)
        self.background: list[Callable[[], Awaitable[None]]] = []  # run while serving
        self.on_welcome: list[Callable[[Connection], None]] = []
        self.on_close: list[Callable[[Connection], Awaitable[None]]] = []
        self.hook = RequestHook(self)
        for spec in config.faults:
            self.hook.plan.add(parse_fault(spec))
        for spec in config.delays:
            method, op, seconds = parse_delay(spec)
            self.hook.plan.delays[method, op] = seconds
        self.hook.plan.reject = config.reject
        self.hook.chaos_seed = config.chaos_seed
        from .namespaces import install

        install(self)

    def register(
        self, name: str, since: str, capability: str | None, handler: Handler, *, raw: bool = False
    ) -> None:
        self.namespaces[name] = Namespace(since, capability, handler, raw)

    def granted(self, capability: str) -> bool:
        return bool(self.config.granted.get(capability, False))

    def violation(self, check_id: str, what: str) -> None:
        self.recorder.violation(check_id, what)

    async def serve(self, listener: anyio.abc.Listener[Any]) -> None:
        """Accept connections for as long as the listener lives."""
        async with anyio.create_task_group() as tg:
            for task in self.background:
                tg.start_soon(task)
            while True:
                try:
                    stream = await listener.accept()
                except (anyio.ClosedResourceError, anyio.BrokenResourceError):
                    tg.cancel_scope.cancel()
                    return
                tg.start_soon(Connection(self, stream).run)

    async def emit(self, event: dict[str, Any]) -> bool:
        """Send an event to the live connection, if its hello version may receive it."""
        conn = self.connection
        if conn is None or conn.state != "ready":
            return False
        return await conn.emit(event)


class Connection:
    def __init__(self, host: ExtensionHost, stream: anyio.abc.ByteStream) -> None:
        self.host = host
        self.stream = stream
        self.state = "await_hello"
        self.client_version = Version(0, 0)
        self.decoder = FrameDecoder()
        self.send_lock = anyio.Lock()
        self.data: dict[str, Any] = {}  # per-connection namespace state (commands, assets, …)
        self.after_reply: list[Callable[[], Awaitable[None]]] = []  # e.g. a due media_snapshot
        self.granted: dict[str, Any] = {}  # what welcome granted, for the whole connection (H-11)
        self._closed = False  # the clean-up has begun: it runs once, however the connection ends
        self._broken = False  # a write failed: nothing more is sent, the clean-up follows
        self.ended = anyio.Event()  # set when the clean-up is done

    # -- lifecycle ------------------------------------------------------------------------------

    async def run(self) -> None:
        host = self.host
        host.connections_served += 1
        try:
            async with anyio.create_task_group() as tg:
                self._tg = tg
                tg.start_soon(self._hello_deadline)
                await self._read_loop()
                tg.cancel_scope.cancel()
        finally:
            await self.close()

    async def _hello_deadline(self) -> None:
        await anyio.sleep(self.host.config.hello_deadline_s)
        if self.state == "await_hello":
            self.host.violation("H-2", f"no hello within {self.host.config.hello_deadline_s:g} s")
            shut(self.stream)  # the read loop ends and ``run`` cleans up

    async def _read_loop(self) -> None:
        while not (self._closed or self._broken):
            try:
                data = await self.stream.receive(READ_CHUNK)
            except (anyio.EndOfStream, anyio.BrokenResourceError, anyio.ClosedResourceError):
                return
            try:
                lines = self.decoder.feed(data)
            except FrameTooLarge:
                self.host.violation("T-9", "a frame larger than 3 MiB: connection closed")
                return
            for line in lines:
                await self._handle_line(line)
                if self._closed or self._broken:
                    return

    async def close(self) -> None:
        """The one clean-up, whichever way the connection ends: the client closes or is killed,
        a read or a write fails, the host ends it, or a new hello finds its client gone. It frees
        the extension's slot, so the next hello is never ``already_connected``."""
        if self._closed:
            await self.ended.wait()
            return
        self._closed = True
        self.state = "closed"
        with anyio.CancelScope(shield=True):
            try:
                if self.host.connection is self:
                    self.host.connection = None
                if self.client_version > Version(0, 0):
                    for on_close in self.host.on_close:
                        try:
                            await on_close(self)
                        except Exception:  # a namespace's cleanup must not keep it alive
                            log.exception("cleanup failed")
                shut(self.stream)
                async with self.send_lock:  # a write in flight ends first (the socket is shut)
                    await self.stream.aclose()
            finally:
                self.ended.set()

    def peer_gone(self) -> bool:
        """The client has hung up, though this connection may not have read that yet: a
        handler can still be running for its last request."""
        return self._closed or self._broken or hung_up(self.stream)

    async def end(self) -> None:
        """End the connection from outside it; returns once its own task has cleaned up, so no
        handler of the old connection runs on after the clean-up."""
        shut(self.stream)
        await self.ended.wait()

    # -- sending --------------------------------------------------------------------------------

    async def send(self, frame: dict[str, Any], *, plain: bool = False) -> None:
        """``plain``: never touched by ``--chaos`` (the handshake's answer)."""
        if self._closed or self._broken:
            return
        prefix = b""
        if not plain:
            frame, prefix = self.host.hook.outgoing(frame)
        self.host.recorder.frame("host>ext", frame)
        data = prefix + json.dumps(frame, ensure_ascii=False, separators=(",", ":")).encode()
        await self.send_raw(data + b"\n")

    async def send_raw(self, data: bytes) -> None:
        """Bytes as they are: chaos lines, the oversized frame (the caller records them).

        A failed write ends the connection."""
        if self._closed or self._broken:
            return
        try:
            async with self.send_lock:
                await self.stream.send(data)
        except (anyio.BrokenResourceError, anyio.ClosedResourceError, OSError):
            self._broken = True
            shut(self.stream)  # the read loop sees the end and ``run`` cleans up

    async def emit(self, event: dict[str, Any]) -> bool:
        """Events are notifications (T-15), withheld from clients too old for them
        (docs/protocol-notes.md#r16)."""
        since = EVENT_SINCE.get(str(event.get("event")), "1.0")
        if not self.client_version.at_least(since):
            log.debug("withheld %s from a %s client", event.get("event"), self.client_version)
            return False
        if not self.host.version.at_least(since):
            return False
        await self.send({"jsonrpc": "2.0", "method": "event", "params": event})
        return True

    async def _error(self, rid: Any, code: int, message: str) -> None:
        await self.send({"jsonrpc": "2.0", "id": rid, "error": {"code": code, "message": message}})

    # -- receiving ------------------------------------------------------------------------------

    async def _handle_line(self, line: bytes) -> None:
        host = self.host
        try:
            # jiter, as the SDK parses: 8-16x json.loads(bytes) on a 2.6 MB assets put, which
            # otherwise holds up every request behind it. Like a native host's parser it
            # refuses invalid UTF-8 and lone surrogate escapes (not text) as not JSON.
            frame: Any = from_json(line)
        except ValueError:
            host.recorder.frame("ext>host", line)
            host.violation("E-5", "a line that is not JSON")
            await self._error(None, E.PARSE_ERROR, "parse error: the line is not JSON")
            return
        host.recorder.frame("ext>host", frame)
        rid = frame.get("id") if isinstance(frame, dict) else None
        if type(rid) is not int or rid < 0:
            rid = None
        try:
            method, params = check_request(frame)
            if self.state == "await_hello":
                if method != "hello":
                    host.violation("E-11", f"{method} before a valid hello: disconnecting")
                    await self._error(rid, E.BEFORE_HELLO, "a request arrived before hello")
                    await self.close()
                    return
                await self._hello(rid, params)
                return
            if method == "hello":
                raise RpcError(
                    E.INVALID_REQUEST,
                    "hello is only valid as the first frame (docs/protocol-notes.md#r19)",
                )
            for watcher in list(host.on_request):
                watcher(method, params)
        except RpcError as exc:
            host.violation(rpc_check_id(exc.code), exc.message)
            await self._error(rid, exc.code, exc.message)
            return
        op = params.get("op") if isinstance(params, dict) else None
        verdict = host.hook.request(method, op if isinstance(op, str) else None, rid)
        if verdict.close:
            await self.close()
            return
        response = verdict.response
        if response is None:
            response = await self._answer(rid, method, params)
        callbacks, self.after_reply = self.after_reply, []
        if verdict.delay_s > 0:
            self._tg.start_soon(self._deliver_later, verdict, response, callbacks)
        else:
            await self._deliver(verdict, response, callbacks)

    async def _answer(self, rid: Any, method: str, params: Any) -> dict[str, Any]:
        """The namespace's response frame to a checked request (or its protocol error)."""
        try:
            result = await self._dispatch(method, params)
        except RpcError as exc:
            self.host.violation(rpc_check_id(exc.code), exc.message)
            error = {"code": exc.code, "message": exc.message}
            return {"jsonrpc": "2.0", "id": rid, "error": error}
        except DomainErr as exc:
            result = exc.result()
        except Exception:
            log.exception("vrosdev failed on a %s request", method)
            error = {"code": E.INTERNAL_ERROR, "message": "internal error"}
            return {"jsonrpc": "2.0", "id": rid, "error": error}
        if result.get("result") == "err":
            log.info("%s: err %s", method, result.get("code"))
        return {"jsonrpc": "2.0", "id": rid, "result": result}

    async def _deliver(
        self, verdict: Verdict, response: dict[str, Any], callbacks: list[AfterReply]
    ) -> None:
        await self.send(response)
        if verdict.duplicate:
            await self.send(response)
        for callback in callbacks:  # after the response, as AUD-6 orders audio_loaded
            await callback()

    async def _deliver_later(
        self, verdict: Verdict, response: dict[str, Any], callbacks: list[AfterReply]
    ) -> None:
        await anyio.sleep(verdict.delay_s)
        await self._deliver(verdict, response, callbacks)

    async def _dispatch(self, method: str, params: Any) -> dict[str, Any]:
        host = self.host
        ns = host.namespaces.get(method)
        if ns is None or not host.version.at_least(ns.since):
            raise RpcError(E.METHOD_NOT_FOUND, f"unknown namespace {method!r}")
        if ns.capability is not None and not self.granted.get(ns.capability, False):
            raise RpcError(
                E.CAPABILITY_DENIED, f"capability_denied: {method} needs {ns.capability}"
            )
        if ns.raw:
            if not isinstance(params, dict):
                raise RpcError(E.INVALID_PARAMS, f"params of {method} must be an object")
            return await ns.handler(self, params)
        try:
            request = REQUESTS[method].validate_python(params)
        except ValidationError as exc:
            raise RpcError(
                E.INVALID_PARAMS, f"params do not fit {method}: {validation_summary(exc)}"
            ) from None
        return await ns.handler(self, request)

    async def _hello(self, rid: Any, params: Any) -> None:
        host = self.host
        cfg = host.config
        ext_id, client, token = parse_hello(params)
        refusal = hello_refusal(host, self, ext_id, client, token)
        if refusal is not None:
            if not refusal.forced:
                host.violation(REJECT_IDS[refusal.code], f"hello rejected: {refusal.code}")
            result = {"result": "rejected", "code": refusal.code, "message": refusal.message}
            await self.send({"jsonrpc": "2.0", "id": rid, "result": result}, plain=True)
            await self.close()
            return
        if (gone := host.connection) is not None and gone is not self:
            await gone.end()  # its client hung up; the clean-up may not have run yet
        self.client_version = client
        self.granted = cfg.welcome_granted()
        self.state = "ready"
        host.connection = self
        for on_welcome in host.on_welcome:
            on_welcome(self)
        welcome: dict[str, Any] = {
            "result": "welcome",
            "vxp_version": str(host.version),
            "granted": self.granted,
            "locale": cfg.locale,
        }
        if cfg.content_root is not None and host.version.at_least("1.2"):
            welcome["content_root"] = cfg.content_root
        await self.send({"jsonrpc": "2.0", "id": rid, "result": welcome}, plain=True)
        host.ready.set()
