"""media: vrosdev's simulated player (vrosdev.media), or ``unsupported`` as on Linux (MED-2).

The simulation is sans-IO; this module feeds it requests, runs its clock, and delivers each
due ``media_snapshot`` right after the response that caused it (or when the clock moves a
session on), and the script's native-control steps as ``media_control`` events.
"""

from __future__ import annotations

import logging
import math
import time
from typing import TYPE_CHECKING, Any

import anyio

from vrosdev.media import ControlEvent, MediaHost, MediaParamsError

from .. import errors as E
from ..errors import RpcError

if TYPE_CHECKING:
    from ...script import Step
    from ..core import Connection, ExtensionHost

log = logging.getLogger("vrosdev")


def install(host: ExtensionHost) -> None:
    media: MediaHost = host.services.get("media") or MediaHost(host.config.media_mode)
    host.services["media"] = media
    wake = {"event": anyio.Event()}

    async def flush() -> None:
        for conn in media.due_connections():
            snapshot = media.take_snapshot(conn)
            if snapshot is not None:
                await conn.emit(snapshot)

    async def handle(conn: Connection, params: Any) -> dict[str, Any]:
        try:
            result = media.handle(conn, params)
        except MediaParamsError as exc:
            raise RpcError(E.INVALID_PARAMS, f"params do not fit media: {exc}") from None
        conn.after_reply.append(flush)
        wake["event"].set()
        return result

    def opened(conn: Connection) -> None:
        media.connection_opened(conn, str(conn.client_version), granted=host.granted("media"))

    async def closed(conn: Connection) -> None:
        ended = media.connection_closed(conn)
        if ended:
            log.info("media: %d session(s) ended with the connection", len(ended))

    async def clock() -> None:
        while True:
            deadline = media.next_deadline()
            wait = math.inf if deadline is None else max(0.0, deadline - time.monotonic())
            with anyio.move_on_after(wait):
                await wake["event"].wait()
            wake["event"] = anyio.Event()
            media.tick()
            await flush()

    async def control(step: Step) -> None:
        args = list(step.args)
        generation = None
        for a in list(args):
            if a.startswith("generation="):
                generation = int(a.split("=", 1)[1])
                args.remove(a)
        verb = step.verb
        if verb == "media-pause":
            outcome = media.control(args[0], "set_paused")
        elif verb == "media-volume":
            outcome = media.control(args[0], "set_volume", args[1])
        elif verb == "media-stop":
            outcome = media.control(args[0], "stop")
        else:
            value = args[2] if len(args) > 2 else None
            outcome = media.control(args[0], args[1], value, generation=generation)
        if isinstance(outcome, ControlEvent):
            conn: Connection = outcome.connection  # type: ignore[assignment]
            if not await conn.emit(outcome.params):
                host.recorder.note(f"{verb} {args[0]}: the client is too old for media_control")
        else:
            host.recorder.note(f"{verb} {args[0]}: not sent ({outcome.reason})")

    async def fail(key: str, code: str) -> str | None:
        why = media.fail(key, code)
        if why is None:
            host.hook.injected("fail_media", key=key, code=code)
            await flush()
        return why

    host.on_welcome.append(opened)
    host.on_close.append(closed)
    host.background.append(clock)
    host.services["media_control"] = control
    host.services["media_fail"] = fail
    host.register("media", "1.4", "media", handle, raw=True)
