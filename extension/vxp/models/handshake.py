"""hello / welcome / rejected (VXP H-1 … H-18)."""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import Field, Tag

from ._base import Inbound, Outbound, tag_of

VERSION_PATTERN = r"^[0-9]+\.[0-9]+$"


class Hello(Outbound):
    """params of the first frame (H-3, H-4). ``token`` is revealed only when serialising."""

    id: str
    vxp_version: Annotated[str, Field(pattern=VERSION_PATTERN)]
    token: str

    def __repr__(self) -> str:  # the token never reaches a repr (T-6)
        return f"Hello(id={self.id!r}, vxp_version={self.vxp_version!r}, token=<redacted>)"

    __str__ = __repr__


class Granted(Inbound):
    """What the user granted: the manifest's requests narrowed by consent (H-7, H-10)."""

    bus: list[str] = Field(default_factory=list[str])
    overlays: bool = False
    capture: bool = False
    audio: bool = False
    media: bool = False
    osc: bool = False
    network: bool = False
    secrets: bool = False
    face_provide: bool = False
    face_read: bool = False


class Welcome(Inbound):
    result: Literal["welcome"]
    vxp_version: Annotated[str, Field(pattern=VERSION_PATTERN)]
    granted: Granted = Field(default_factory=Granted)
    locale: str = "en-US"
    content_root: str | None = None


class Rejected(Inbound):
    result: Literal["rejected"]
    code: str
    message: str = ""


class UnknownHelloResult(Inbound):
    result: str


HelloResponse = Annotated[
    Annotated[Welcome, Tag("welcome")]
    | Annotated[Rejected, Tag("rejected")]
    | Annotated[UnknownHelloResult, Tag("unknown")],
    tag_of("result", Welcome, Rejected),
]

REJECTED_CODES = frozenset({"bad_token", "wrong_id", "version_unsupported", "already_connected"})
