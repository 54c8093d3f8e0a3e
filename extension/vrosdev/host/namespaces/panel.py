"""panel (PAN-1 … PAN-41): props merged last-value-wins, runtime overlays defined from source
compiled by the real Slint compiler, manifest panels that cannot be removed.

Typed values are checked against their tag (a value that does not fit its tag is -32602);
a prop the panel does not declare, or whose tag does not fit the declared Slint type, is a
logged violation and is ignored (docs/protocol-notes.md#r29), yet the request is still ``applied``.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from vxp.limits import ASSET_MAX_ANIMATING_PER_PANEL, NAME_RE, PANEL_SOURCE_MAX_BYTES, utf8_len

from .. import errors as E
from .. import shapes as S
from ..errors import DomainErr, RpcError

if TYPE_CHECKING:
    from ..core import Connection, ExtensionHost

log = logging.getLogger("vrosdev")
I64_LIMIT = 2**53
DEFAULT_SIZE = (480.0, 320.0)
MIN_SIDE, MAX_SIDE = 64.0, 2048.0
SCALAR_TAGS = frozenset({"bool", "i64", "f64", "str"})


@dataclass
class PanelState:
    name: str
    source: str
    runtime: bool
    revision: int = 1
    width: float | None = None
    height: float | None = None
    anchor: str | None = None
    interface: Any = None  # vrosdev.panels.PanelInterface of the root, when it parsed
    props: dict[str, dict[str, Any]] = field(default_factory=dict[str, dict[str, Any]])
    props_frames: int = 0
    visible: bool = False


def check_value(value: Any) -> str | None:
    """None if ``value`` is a well-formed typed value (PAN-8 … PAN-11), else why not."""
    if not isinstance(value, dict) or "t" not in value or "v" not in value:
        return 'a typed value is {"t": tag, "v": value}'
    t, v = value["t"], value["v"]
    if t in SCALAR_TAGS:
        return _check_scalar(t, v)
    if t == "str_list":
        ok = isinstance(v, list) and all(isinstance(x, str) for x in v)
        return None if ok else "str_list needs a list of strings"
    if t == "assets":
        ok = isinstance(v, list) and all(isinstance(x, str) for x in v)
        return None if ok else "assets needs a list of asset keys"
    if t == "rows":
        if not isinstance(v, list):
            return "rows needs a list of rows"
        for row in v:
            if not isinstance(row, list):
                return "each row is a list of typed values"
            for cell in row:
                if not isinstance(cell, dict) or cell.get("t") not in SCALAR_TAGS:
                    return "row cells are typed bool, i64, f64 or str values"
                why = _check_scalar(cell["t"], cell.get("v"))
                if why:
                    return why
        return None
    return f"unknown value tag {t!r}"


def _check_scalar(t: str, v: Any) -> str | None:
    if t == "bool":
        return None if isinstance(v, bool) else "bool needs true or false"
    if t == "i64":
        if type(v) is not int or abs(v) > I64_LIMIT:
            return "i64 needs an integer within ±2^53"
        return None
    if t == "f64":
        return (
            None if isinstance(v, int | float) and not isinstance(v, bool) else "f64 needs a number"
        )
    return None if isinstance(v, str) else "str needs a string"


def panels(host: ExtensionHost) -> dict[str, PanelState]:
    return host.services.setdefault("panels", {})


def install(host: ExtensionHost) -> None:
    table = panels(host)
    for role, source in host.config.panels.items():
        table[role] = PanelState(role, source, runtime=False, interface=_interface(source))

    async def handle(conn: Connection, req: Any) -> dict[str, Any]:
        match req:
            case S.PanelProps():
                return await _props(host, conn, req)
            case S.PanelDefine():
                return await _define(host, conn, req)
            case S.PanelRemove(panel=name):
                state = table.get(name)
                if state is None:
                    raise DomainErr("no_such_panel", f"no panel {name!r}")
                if not state.runtime:
                    raise DomainErr("not_allowed", "manifest panels cannot be removed (PAN-19)")
                del table[name]
                if state.visible:
                    await host.emit({"event": "panel_hidden", "panel": name})
                renderer = host.services.get("renderer")
                if renderer is not None:
                    await renderer.panel_removed(name)
                return {"result": "removed"}
            case _:
                raise DomainErr("internal")

    async def drop_runtime_panels(conn: Connection) -> None:
        """Runtime panels end with the connection (docs/protocol-notes.md#r21)."""
        renderer = host.services.get("renderer")
        for name in [n for n, s in table.items() if s.runtime]:
            del table[name]
            if renderer is not None:
                await renderer.panel_removed(name)

    host.on_close.append(drop_runtime_panels)
    host.register("panel", "1.0", None, handle)


async def _props(host: ExtensionHost, conn: Connection, req: S.PanelProps) -> dict[str, Any]:
    table = panels(host)
    state = table.get(req.panel)
    if state is None:
        raise DomainErr("no_such_panel", f"no panel {req.panel!r}")
    for pair in req.props:
        if len(pair) != 2 or not isinstance(pair[0], str):
            raise RpcError(E.INVALID_PARAMS, "props are [name, typed value] pairs (PAN-6)")
    for name, value in req.props:
        why = check_value(value)
        if why is not None:
            raise RpcError(E.INVALID_PARAMS, f"prop {name!r}: {why}")
    state.props_frames += 1
    for name, value in req.props:
        if state.interface is not None:
            from vrosdev.panels import accept_prop

            accepted = accept_prop(state.interface, name, value)
            if isinstance(accepted, str):
                host.violation(
                    "docs/protocol-notes.md#r29", f"panel {req.panel}: {accepted}; ignored"
                )
                continue
        state.props[name] = value
    moving = animations(conn, state.props)
    if moving > ASSET_MAX_ANIMATING_PER_PANEL:
        host.violation(
            "AST-14",
            f"panel {req.panel} shows {moving} animations at once; the first "
            f"{ASSET_MAX_ANIMATING_PER_PANEL} move, the rest show their first frame "
            "(docs/protocol-notes.md#r35)",
        )
    renderer = host.services.get("renderer")
    if renderer is not None:
        await renderer.props_changed(req.panel)
    return {"result": "applied"}


def animations(conn: Connection, props: dict[str, Any]) -> int:
    """How many images of the panel's ``assets`` props are animated assets of the connection's
    table (AST-14 counts each shown image, a key shown twice twice)."""
    from .assets import table

    assets = table(conn)
    count = 0
    for value in props.values():
        if isinstance(value, dict) and value.get("t") == "assets":
            for key in value.get("v") or []:
                asset = assets.entries.get(key) if isinstance(key, str) else None
                count += asset is not None and asset.animated
    return count


async def _define(host: ExtensionHost, conn: Connection, req: S.PanelDefine) -> dict[str, Any]:
    table = panels(host)
    if not host.granted("overlays"):
        raise DomainErr(
            "not_allowed", "define needs the overlays grant (docs/protocol-notes.md#r11)"
        )
    if not NAME_RE.fullmatch(req.panel):
        raise DomainErr("invalid_name", "panel names are 1-64 characters of [a-z0-9-]")
    existing = table.get(req.panel)
    if existing is not None and not existing.runtime:
        raise DomainErr(
            "not_allowed", f"{req.panel!r} is a manifest panel (docs/protocol-notes.md#r11)"
        )
    if utf8_len(req.source) > PANEL_SOURCE_MAX_BYTES:
        raise DomainErr("source_too_large", "panel sources are at most 256 KiB")
    anchor = req.anchor if host.version.at_least("1.3") else None
    if anchor is not None and anchor not in ("world", "hmd"):
        raise RpcError(E.INVALID_PARAMS, "anchor is world or hmd")
    from vrosdev.panels import compile_source_async

    compiled = await compile_source_async(req.source)
    for warning in compiled.warnings:
        host.recorder.note(f"panel {req.panel}: {warning}")
    for violation in compiled.check.violations:
        host.violation("docs/protocol-notes.md#r29", f"panel {req.panel}: {violation}")
    if not compiled.ok:
        raise DomainErr("compile_failed", compiled.message)
    width = _clamp(req.width, DEFAULT_SIZE[0])
    height = _clamp(req.height, DEFAULT_SIZE[1])
    revision = existing.revision + 1 if existing is not None else 1
    state = PanelState(
        req.panel,
        req.source,
        runtime=True,
        revision=revision,
        width=width,
        height=height,
        anchor=anchor if existing is None else existing.anchor,  # the user's placement wins
        interface=compiled.interface,
        visible=existing.visible if existing is not None else False,
    )
    table[req.panel] = state
    renderer = host.services.get("renderer")
    if renderer is not None:
        await renderer.panel_defined(req.panel)
    if not state.visible:
        state.visible = True
        await conn.emit({"event": "panel_shown", "panel": req.panel})
    return {"result": "defined", "revision": revision}


def _clamp(value: float | None, default: float) -> float:
    if value is None:
        return default
    return min(max(float(value), MIN_SIDE), MAX_SIDE)


def _interface(source: str) -> Any:
    from vrosdev.panels import parse_interface

    try:
        return parse_interface(source)
    except Exception:  # a panel the parser cannot read: props go unchecked, never refused
        log.warning("could not read the panel's declarations; its props go unchecked")
        return None
