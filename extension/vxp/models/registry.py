"""One table from namespace to its request and response shapes, for the client and the host.

The type adapters are built on first use, so importing the SDK builds no validator before
hello. The client validates a ``result`` with ``NAMESPACES[ns].response``; the host emulator
validates ``params`` with ``NAMESPACES[ns].request`` and ``context=host_context()`` (unknown
fields ignored, T-12). A params that fails only on limits carries the domain error code the
host answers (:func:`domain_error_of`); any other failure means ``-32602``.
"""

from __future__ import annotations

import importlib
import typing
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from functools import cache, cached_property
from types import MappingProxyType
from typing import TYPE_CHECKING, Any, Final

from pydantic import ConfigDict, TypeAdapter, ValidationError

from ._base import DOMAIN_ERROR, Outbound, host_context

if TYPE_CHECKING:
    from .events import Event
    from .handshake import HelloResponse

__all__ = [
    "NAMESPACES",
    "NamespaceSpec",
    "domain_error_of",
    "event_adapter",
    "event_since",
    "hello_adapter",
    "host_context",
]


@dataclass(frozen=True, eq=False)
class NamespaceSpec:
    """A namespace as the wire sees it.

    ``capability`` is the ``granted`` flag the whole namespace needs (else ``-32001``);
    ``op_capabilities`` are grants single ops need, refused with a domain err (``panel``
    ``define`` needs ``overlays``: ``not_allowed``; ``face``: ``not_granted``).
    ``hides_input``: validation errors never quote the input (secrets, media URLs).
    """

    name: str
    capability: str | None
    since: str
    request_type: Any
    response_type: Any
    error_codes: frozenset[str]
    op_capabilities: Mapping[str, str] = field(default_factory=dict[str, str])
    hides_input: bool = False

    @cached_property
    def request(self) -> TypeAdapter[Any]:
        return TypeAdapter(self.request_type, config=self._config())

    @cached_property
    def response(self) -> TypeAdapter[Any]:
        return TypeAdapter(self.response_type, config=self._config())

    @cached_property
    def ops(self) -> Mapping[str, type[Outbound]]:
        """``op`` -> request model, read off the request union."""
        union, *_ = typing.get_args(self.request_type)
        members = typing.get_args(union) or (union,)
        table: dict[str, type[Outbound]] = {}
        for member in members:
            args = typing.get_args(member)  # Annotated[Model, Tag(...)], or a lone Model
            model: type[Outbound] = args[0] if args else member
            table[str(model.model_fields["op"].default)] = model
        return MappingProxyType(table)

    def _config(self) -> ConfigDict | None:
        return ConfigDict(hide_input_in_errors=True) if self.hides_input else None


def _spec(name: str, request: str, response: str, hides_input: bool = False) -> NamespaceSpec:
    module: Any = importlib.import_module(f"{__package__}.{name}")
    op_capabilities: Mapping[str, str] = getattr(module, "OP_CAPABILITIES", {})
    return NamespaceSpec(
        name=module.NAMESPACE,
        capability=module.CAPABILITY,
        since=module.SINCE,
        request_type=getattr(module, request),
        response_type=getattr(module, response),
        error_codes=module.ERROR_CODES,
        op_capabilities=MappingProxyType(dict(op_capabilities)),
        hides_input=hides_input,
    )


class _Namespaces(Mapping[str, NamespaceSpec]):
    """Imports a namespace's module the first time it is looked up, not at import time."""

    _TABLE: Final = {
        "kv": ("KvRequest", "KvResponse", False),
        "secrets": ("SecretsRequest", "SecretsResponse", True),
        "bus": ("BusRequest", "BusResponse", False),
        "panel": ("PanelRequest", "PanelResponse", False),
        "assets": ("AssetsRequest", "AssetsResponse", False),
        "commands": ("CommandsRequest", "CommandsResponse", False),
        "settings": ("SettingsRequest", "SettingsResponse", False),
        "strings": ("StringsRequest", "StringsResponse", False),
        "audio": ("AudioRequest", "AudioResponse", False),
        "media": ("MediaRequest", "MediaResponse", True),
        "face": ("FaceRequest", "FaceResponse", False),
    }

    def __init__(self) -> None:
        self._built: dict[str, NamespaceSpec] = {}

    def __getitem__(self, name: str) -> NamespaceSpec:
        spec = self._built.get(name)
        if spec is None:
            request, response, hides_input = self._TABLE[name]
            spec = self._built[name] = _spec(name, request, response, hides_input)
        return spec

    def __iter__(self) -> Iterator[str]:
        return iter(self._TABLE)

    def __len__(self) -> int:
        return len(self._TABLE)

    def __contains__(self, name: object) -> bool:
        return name in self._TABLE

    def __repr__(self) -> str:
        return f"NAMESPACES({', '.join(self._TABLE)})"


NAMESPACES: Mapping[str, NamespaceSpec] = _Namespaces()
"""Namespace name -> its spec; a name not in it is an unknown namespace (-32601)."""


@cache
def event_adapter() -> TypeAdapter[Event]:
    from .events import Event

    return TypeAdapter[Event](Event)


@cache
def hello_adapter() -> TypeAdapter[HelloResponse]:
    from .handshake import HelloResponse

    return TypeAdapter[HelloResponse](HelloResponse)


def event_since() -> Mapping[str, str]:
    """Event name -> the minor that introduced it (docs/protocol-notes.md#r16)."""
    from .events import EVENT_SINCE

    return EVENT_SINCE


def domain_error_of(exc: ValidationError) -> tuple[str, str] | None:
    """``(code, message)`` when every failure is a limit with a domain code, else None.

    The host answers the first as ``{"result":"err","code":…,"message":…}``; None means the
    params do not fit the request's shape (``-32602``).
    """
    errors = exc.errors(include_url=False, include_input=False)
    if not errors or any(e["type"] != DOMAIN_ERROR for e in errors):
        return None
    ctx: dict[str, Any] = errors[0].get("ctx") or {}
    return str(ctx.get("code", "internal")), str(ctx.get("message", ""))


def __getattr__(name: str) -> TypeAdapter[Any]:
    """``EVENT_ADAPTER`` and ``HELLO_ADAPTER``, built on first access."""
    if name == "EVENT_ADAPTER":
        return event_adapter()
    if name == "HELLO_ADAPTER":
        return hello_adapter()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
