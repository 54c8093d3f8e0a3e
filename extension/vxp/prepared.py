"""Requests validated and serialised ahead of time, possibly in another process.

A large request (an animated ``assets.put`` is up to 2.7 MB of JSON) costs tens of milliseconds
to validate and serialise; done on the event loop, that time delays every press behind it.
:func:`prepare` does that work wherever it is called (a worker process, say) and returns plain
bytes that pickle cheaply; the session only frames them. The version gate still applies: the
fields newer than 1.0 travel with the bytes and are checked against the host when sent.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, NamedTuple, cast

if TYPE_CHECKING:
    from pydantic import BaseModel

__all__ = ["Prepared", "prepare"]


class Prepared(NamedTuple):
    namespace: str
    params_json: bytes
    gated: tuple[tuple[str, str], ...] = ()  # (field, the VXP version that introduced it)

    def __repr__(self) -> str:  # the body may hold pixels or a URL: never in a repr
        return f"Prepared({self.namespace}, {len(self.params_json)} bytes)"


def prepare(namespace: str, params: BaseModel) -> Prepared:
    """Serialise a request model now (it was validated when it was built)."""
    from .models._base import Since

    gated: list[tuple[str, str]] = []
    for name, info in type(params).model_fields.items():
        if getattr(params, name) is None:
            continue
        gated += [(name, m.version) for m in info.metadata if isinstance(m, Since)]
    return Prepared(namespace, _json(params), tuple(gated))


def _json(params: BaseModel) -> bytes:
    """``params.model_dump_json(exclude_none=True)``, the same bytes, with a list of models (an
    animated put's frames) serialised an item at a time: serialising is one call that holds the
    interpreter throughout, and 2.6 MB of frames in one call is milliseconds that an event loop
    in another thread of the process (a press) would wait for."""
    fields = type(params).model_fields
    lists = [name for name in fields if _models(getattr(params, name))]
    if not lists:
        return params.__pydantic_serializer__.to_json(params, exclude_none=True)
    parts: list[bytes] = [b"{"]
    for name in fields:
        value = getattr(params, name)
        if value is None:
            continue
        if len(parts) > 1:
            parts.append(b",")
        parts.append(b'"%s":' % name.encode())
        if name in lists:
            parts.append(b"[")
            for i, item in enumerate(value):
                if i:
                    parts.append(b",")
                parts.append(item.__pydantic_serializer__.to_json(item, exclude_none=True))
            parts.append(b"]")
        else:  # b'{"name":value}' -> value
            whole = params.__pydantic_serializer__.to_json(
                params, include={name}, exclude_none=True
            )
            parts.append(whole[len(name) + 4 : -1])
    parts.append(b"}")
    return b"".join(parts)


def _models(value: object) -> bool:
    from pydantic import BaseModel

    if not isinstance(value, list):
        return False
    items = cast(list[object], value)
    return len(items) > 1 and isinstance(items[0], BaseModel)
