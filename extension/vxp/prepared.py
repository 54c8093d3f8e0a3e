"""Requests validated and serialised ahead of time, possibly in another process.

A large request (an animated ``assets.put`` is up to 2.7 MB of JSON) costs tens of milliseconds
to validate and serialise; done on the event loop, that time delays every press behind it.
:func:`prepare` does that work wherever it is called (a worker process, say) and returns plain
bytes that pickle cheaply; the session only frames them. The version gate still applies: the
fields newer than 1.0 travel with the bytes and are checked against the host when sent.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, NamedTuple

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
    return Prepared(namespace, _json(namespace, params), tuple(gated))


def _json(namespace: str, params: BaseModel) -> bytes:
    """``params.model_dump_json(exclude_none=True)``, the same bytes, with an animated put's
    frames serialised one at a time: serialising is one call that holds the interpreter
    throughout, and 2.6 MB of frames in one call is milliseconds that an event loop in another
    thread of the process (a press) would wait for. Every other request is one call, as small
    as it is (a play's, on the way of a press)."""
    dump = params.__pydantic_serializer__.to_json
    put: Any = params  # an assets put, if it has frames: the one request that runs to megabytes
    frames: list[Any] | None = getattr(put, "frames", None) if namespace == "assets" else None
    if frames is None or len(frames) < 2:
        return dump(params, exclude_none=True)
    head = dump(params, exclude={"frames", "loop"}, exclude_none=True)  # {"op":…,"height":N}
    items = b",".join(f.__pydantic_serializer__.to_json(f) for f in frames)
    return b'%s,"frames":[%s],"loop":%d}' % (head[:-1], items, put.loop)
