"""Shared model conventions.

Inbound models (what the host sends) ignore unknown fields (VXP T-12) and are built lazily
(pydantic's ``defer_build``) so importing the SDK before hello stays cheap. Outbound models
(what we send) forbid unknown fields, so a typo in our own code fails here and not at the host.

Tagged unions on ``op``/``result``/``event``/``kind`` use :func:`tag_of`, whose discriminator
maps any tag it does not know to ``"unknown"``: a newer host's additions parse into an explicit
Unknown model that callers skip (VXP "Forward compatibility").
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from pydantic import BaseModel, ConfigDict, Discriminator

UNKNOWN_TAG = "unknown"


class Inbound(BaseModel):
    """A message or object that the host produces."""

    model_config = ConfigDict(extra="ignore", frozen=True, defer_build=True)


class Outbound(BaseModel):
    """A message or object that the client produces: strict, validated before sending."""

    model_config = ConfigDict(extra="forbid", frozen=True, defer_build=True)


@dataclass(frozen=True, slots=True)
class Since:
    """Field metadata: the VXP minor version that introduced an outbound option.

    The client refuses to send a field whose ``Since`` is newer than the host's welcome version
    (readings R23); see :func:`vxp.version.fields_newer_than`.
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

    def discriminate(value: Any) -> str:
        if isinstance(value, dict):
            tag: object = value.get(field)  # pyright: ignore[reportUnknownMemberType,reportUnknownVariableType]
        else:
            tag = getattr(value, field, None)
        if isinstance(tag, str) and tag in frozen:
            return tag
        return UNKNOWN_TAG

    return Discriminator(discriminate)
