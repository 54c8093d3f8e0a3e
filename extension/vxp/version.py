"""VXP versions: ``"major.minor"`` (H-5), compared as pairs."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, NamedTuple

if TYPE_CHECKING:
    from pydantic import BaseModel

__all__ = ["CLIENT_VERSION", "Version", "fields_newer_than"]


class Version(NamedTuple):
    major: int
    minor: int

    @classmethod
    def parse(cls, text: str) -> Version:
        major, sep, minor = text.partition(".")
        if not sep or not major.isdigit() or not minor.isdigit():
            raise ValueError(f"not a VXP version: {text!r} (expected major.minor)")
        return cls(int(major), int(minor))

    def __str__(self) -> str:
        return f"{self.major}.{self.minor}"

    def at_least(self, other: str | Version) -> bool:
        return self >= (Version.parse(other) if isinstance(other, str) else other)


CLIENT_VERSION = Version(1, 7)


def fields_newer_than(model: BaseModel, host: Version) -> list[str]:
    """Names of fields set on ``model`` (not None) that need a newer host than ``host``."""
    from .models._base import Since

    newer: list[str] = []
    for name, info in type(model).model_fields.items():
        value: Any = getattr(model, name)
        if value is None:
            continue
        for meta in info.metadata:
            if isinstance(meta, Since) and not host.at_least(meta.version):
                newer.append(name)
    return newer
