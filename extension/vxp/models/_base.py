"""Shared model conventions.

Inbound models (what the host sends) ignore unknown fields (VXP T-12) and are built lazily
(pydantic's ``defer_build``) so importing the SDK before hello stays cheap. Outbound models
(what we send) forbid unknown fields, so a typo in our own code fails here and not at the host.

Tagged unions on ``op``/``result``/``event``/``kind`` use :func:`tag_of`, whose discriminator
maps any tag it does not know to ``"unknown"``: a newer host's additions parse into an explicit
Unknown model that callers skip (VXP "Forward compatibility").

The same outbound models serve the host emulator, which must answer a request that breaks a
limit with the namespace's domain ``err`` rather than a protocol error, and must ignore unknown
fields (T-12). So a limit check raises :func:`domain_error`, whose ``ctx["code"]`` names the
domain code, and validating with ``context=host_context()`` drops unknown fields instead of
refusing them. The client's own behaviour is unchanged by either.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from pydantic import (
    BaseModel,
    ConfigDict,
    Discriminator,
    SerializationInfo,
    SerializerFunctionWrapHandler,
    ValidationInfo,
    model_serializer,
    model_validator,
)
from pydantic_core import PydanticCustomError

UNKNOWN_TAG = "unknown"
DOMAIN_ERROR = "vxp_domain"  # the pydantic error type of a limit that has a domain error code
_HOST_KEY = "vxp_host"


def domain_error(code: str, message: str) -> PydanticCustomError:
    """A failed limit that the host answers with the domain ``err`` ``code``.

    ``message`` is shown as is; it must never contain a secret or a URL.
    """
    return PydanticCustomError(DOMAIN_ERROR, "{message}", {"code": code, "message": message})


def host_context() -> dict[str, Any]:
    """Validation context for the host side: unknown fields of a request are ignored (T-12)."""
    return {_HOST_KEY: True}


def is_host(info: ValidationInfo) -> bool:
    context: object = info.context
    return isinstance(context, dict) and context.get(_HOST_KEY) is True  # pyright: ignore[reportUnknownMemberType]


class Inbound(BaseModel):
    """A message or object that the host produces."""

    model_config = ConfigDict(extra="ignore", frozen=True, defer_build=True)


class Outbound(BaseModel):
    """A message or object that the client produces: strict, validated before sending."""

    model_config = ConfigDict(extra="forbid", frozen=True, defer_build=True)

    @model_validator(mode="before")
    @classmethod
    def _host_ignores_unknown_fields(cls, data: Any, info: ValidationInfo) -> Any:
        if is_host(info) and isinstance(data, dict):
            fields = cls.model_fields
            return {k: v for k, v in data.items() if k in fields}  # pyright: ignore[reportUnknownVariableType]
        return data

    @model_serializer(mode="wrap")
    def _keep_required_nulls(
        self, handler: SerializerFunctionWrapHandler, info: SerializationInfo
    ) -> Any:
        """``exclude_none`` omits unset options, never a required field whose value is null.

        ``kv set`` of ``null`` or a ``bus`` payload of ``null`` must still carry the field.
        """
        data: Any = handler(self)
        if info.exclude_none and isinstance(data, dict):
            for name, field in type(self).model_fields.items():
                if field.is_required() and getattr(self, name) is None and name not in data:
                    data[name] = None
        return data  # pyright: ignore[reportUnknownVariableType]


@dataclass(frozen=True, slots=True)
class Since:
    """Field metadata: the VXP minor version that introduced an outbound option.

    The client refuses to send a field whose ``Since`` is newer than the host's welcome version
    (docs/protocol-notes.md#r23); see :func:`vxp.version.fields_newer_than`.
    """

    version: str


def tag_of(field: str, *members: type[BaseModel]) -> Discriminator:
    """A discriminator over models tagged by ``field``; unknown tags map to ``UNKNOWN_TAG``.

    Each member declares ``field`` as a one-value ``Literal``; the union it discriminates
    tags each member with that value and the Unknown model with ``UNKNOWN_TAG``.
    """
    known: set[str] = set()
    for m in members:
        values: tuple[Any, ...] = getattr(m.model_fields[field].annotation, "__args__", ())
        if len(values) != 1 or not isinstance(values[0], str):
            raise TypeError(f"{m.__name__}.{field} must be a one-value Literal")
        known.add(values[0])
    frozen = frozenset(known)
    tags = {tag: tag for tag in known}

    def discriminate(value: Any) -> str:
        # Called for every tagged value validated: the usual case (a dict with a known str
        # tag) is two lookups; anything else takes the careful path.
        if type(value) is dict:
            tag: object = value.get(field)  # pyright: ignore[reportUnknownMemberType,reportUnknownVariableType]
            if type(tag) is str:  # pyright: ignore[reportUnknownArgumentType]
                return tags.get(tag, UNKNOWN_TAG)
        return _careful(value)

    def _careful(value: Any) -> str:
        if isinstance(value, dict):
            tag: object = value.get(field)  # pyright: ignore[reportUnknownMemberType,reportUnknownVariableType]
        else:
            tag = getattr(value, field, None)
        if isinstance(tag, str) and tag in frozen:
            return tag
        return UNKNOWN_TAG

    return Discriminator(discriminate)
