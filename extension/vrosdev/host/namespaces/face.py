"""face (FACE-1 … FACE-32): providers, readers, the user's selection, as docs/face.md reads it.

Every extension of a vrosdev run shares one :class:`FaceHub`. A change made by a request is
followed, after its reply, by the ``face_update`` events it causes (to this extension and to
the others); a change the user makes (a script step) sends them at once.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .. import shapes as S
from ..errors import DomainErr
from ..face_hub import GRANTS, FaceHub
from ..face_rules import check_sample, check_source

if TYPE_CHECKING:
    from ..core import Connection, ExtensionHost


def hub_of(host: ExtensionHost) -> FaceHub:
    hub = host.shared.get("face")
    if hub is None:
        hub = host.shared["face"] = FaceHub()
    assert isinstance(hub, FaceHub)
    return hub


async def send_updates(hub: FaceHub) -> None:
    for conn, state in hub.due():
        await conn.emit({"event": "face_update", "state": state})


def install(host: ExtensionHost) -> None:
    hub = hub_of(host)
    hub.hosts[host.config.ext_id] = host

    async def flush() -> None:
        await send_updates(hub)

    async def handle(conn: Connection, req: Any) -> dict[str, Any]:
        result: dict[str, Any] = {"result": "ok"}
        if host.config.face_mode == "unsupported":
            reading = isinstance(req, S.FaceSubscribe | S.FaceUnsubscribe)
            hub.require(conn, "read" if reading else "provide", req.op)
            raise DomainErr("unsupported", "this vrOS has no face tracking")
        if isinstance(req, S.FaceRegister):
            hub.require(conn, "provide", "register")
            generation = hub.register(conn, check_source(req.source))
            result = {"result": "registered", "generation": generation}
        elif isinstance(req, S.FaceUnregister):
            hub.require(conn, "provide", "unregister")
            hub.unregister(conn, req.source_id)
        elif isinstance(req, S.FacePublish):
            hub.require(conn, "provide", "publish")
            found = hub.check_generation(conn, req.source_id, req.generation)
            sample = check_sample(req.sample, found.source.claims)
            hub.publish(conn, req.source_id, req.generation, sample)
        elif isinstance(req, S.FaceSubscribe):
            hub.require(conn, "read", "subscribe")
            hub.subscribe(conn, req.eyes, req.mouth)
        else:
            hub.require(conn, "read", "unsubscribe")
            hub.unsubscribe(conn)
        conn.after_reply.append(flush)
        return result

    async def on_close(conn: Connection) -> None:
        hub.closed(conn)
        await send_updates(hub)

    def welcome(conn: Connection) -> None:
        conn.data["face_grants"] = {k: host.granted(cap) for k, cap in GRANTS.items()}

    host.register("face", "1.5", None, handle)
    host.on_welcome.append(welcome)
    host.on_close.append(on_close)
