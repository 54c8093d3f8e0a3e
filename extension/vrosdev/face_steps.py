"""Script steps where the user works vrOS's face-tracking page, and one that drops a connection.

face-select eyes|mouth SOURCE|none     SOURCE is ID or EXTENSION/ID (docs/face.md)
face-grant EXTENSION provide|read on|off
                                       off applies at once; on from the next hello
drop EXTENSION                         close that extension's connection without
                                       shutting_down and wait for its next hello
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import anyio

from .script import ScriptError, Step

if TYPE_CHECKING:
    from .host.core import ExtensionHost
    from .host.face_hub import FaceHub

DROP_WAIT_S = 10.0


def _hub(host: ExtensionHost) -> FaceHub:
    from .host.namespaces.face import hub_of

    return hub_of(host)


async def face_select(host: ExtensionHost, step: Step) -> None:
    from .host.namespaces.face import send_updates

    part, spec = step.args
    if part not in ("eyes", "mouth"):
        raise ScriptError(f"line {step.line_no}: face-select takes eyes or mouth")
    hub = _hub(host)
    try:
        hub.select(part, spec)
    except ValueError as exc:
        raise ScriptError(f"line {step.line_no}: {exc}") from None
    await send_updates(hub)


async def face_grant(host: ExtensionHost, step: Step) -> None:
    from .host.namespaces.face import send_updates

    ext_id, grant, switch = step.args
    if grant not in ("provide", "read") or switch not in ("on", "off"):
        raise ScriptError(f"line {step.line_no}: face-grant EXTENSION provide|read on|off")
    hub = _hub(host)
    try:
        applied = hub.set_grant(ext_id, grant, switch == "on")
    except KeyError:
        raise ScriptError(f"line {step.line_no}: no extension {ext_id!r} here") from None
    host.recorder.note(f"face_{grant} of {ext_id} {switch}: {applied}")
    await send_updates(hub)


async def face_wait(host: ExtensionHost, step: Step) -> None:
    what, name = step.args[0], step.args[1]
    timeout = float(step.args[2]) if len(step.args) > 2 else DROP_WAIT_S
    hub = _hub(host)
    if what == "source":
        ext_id, _, source_id = name.rpartition("/")

        def done() -> bool:
            return any(s == source_id and (not ext_id or e == ext_id) for e, s in hub.sources)
    elif what == "reader":

        def done() -> bool:
            return any(c.host.config.ext_id == name for c in hub.readers)
    else:
        raise ScriptError(f"line {step.line_no}: face-wait source SOURCE | reader EXTENSION")
    with anyio.move_on_after(timeout) as scope:
        while not done():  # noqa: ASYNC110 - the hub changes on many paths; a poll is enough
            await anyio.sleep(0.02)
    if scope.cancelled_caught:
        raise ScriptError(f"line {step.line_no}: no {what} {name} within {timeout:g} s")


async def drop(host: ExtensionHost, step: Step) -> None:
    target = _hub(host).hosts.get(step.args[0])
    if target is None:
        raise ScriptError(f"line {step.line_no}: no extension {step.args[0]!r} here")
    conn = target.connection
    if conn is not None:
        target.ready = anyio.Event()
        await conn.close()
    with anyio.move_on_after(DROP_WAIT_S) as scope:
        await target.ready.wait()
    if scope.cancelled_caught:
        raise ScriptError(f"line {step.line_no}: {step.args[0]} did not say hello again")


ACTIONS = {
    "face-select": face_select,
    "face-grant": face_grant,
    "face-wait": face_wait,
    "drop": drop,
}
