"""face: device-independent face tracking (VXP FACE-1 … FACE-32). Since 1.5.

Providing needs ``face_provide`` (register, unregister, publish), reading ``face_read``
(subscribe, unsubscribe); a missing or revoked grant is the domain err ``not_granted``.

The page names the sample and state fields but not their JSON shapes; this SDK reads them as: a gaze
is a ``[x, y, z]`` unit vector in headset space (FACE-24), eyes carry ``gaze`` (combined) or
``gaze_left``/``gaze_right``, ``closed_left``/``closed_right``, ``convergence_m`` and
``confidence``; a mouth carries ``weights``. The ``face_update`` state is ``{"granted": {"provide",
"read"}, "eyes": selected | null, "mouth": selected | null, "demands": [{"source_id", "eyes",
"mouth"}]}`` where selected is ``{"source_id", "age_ms", "sample"}``. The 37 expression names are
not listed on the page, so names are only checked for their form. A missing channel means unknown,
never zero (FACE-28): every part is optional.
"""

from __future__ import annotations

import math
from typing import Annotated, Literal, Self

from pydantic import BaseModel, ConfigDict, Field, Tag, field_validator, model_validator

from ..limits import (
    FACE_EXPRESSION_RE,
    FACE_MAX_AGE_MS,
    FACE_RATE_MAX,
    FACE_RATE_MIN,
    FACE_TEXT_MAX_BYTES,
)
from . import _checks
from ._base import Inbound, Outbound, domain_error, tag_of

NAMESPACE = "face"
CAPABILITY: str | None = None
SINCE = "1.5"
OP_CAPABILITIES = {
    "register": "face_provide",
    "unregister": "face_provide",
    "publish": "face_provide",
    "subscribe": "face_read",
    "unsubscribe": "face_read",
}
UNIT_TOLERANCE = 1e-2  # how far a gaze vector's length may be from 1

# --- sample data: sent by providers, received by readers ------------------------------------


class _Data(BaseModel):
    """Travels both ways, so it ignores unknown fields (T-12) and checks ranges on both."""

    model_config = ConfigDict(extra="ignore", frozen=True, defer_build=True)


def _unit_interval(value: float | None, what: str) -> float | None:
    if value is not None and not 0.0 <= value <= 1.0:
        raise domain_error("invalid_sample", f"{what} is {value}; it must be 0-1 (FACE-25)")
    return value


type Vec3 = tuple[float, float, float]


def _gaze(value: Vec3 | None) -> Vec3 | None:
    if value is not None:
        length = math.sqrt(sum(c * c for c in value))
        if not abs(length - 1.0) <= UNIT_TOLERANCE:
            raise domain_error(
                "invalid_sample", f"gaze has length {length:.3f}; it must be a unit vector"
            )
    return value


class Eyes(_Data):
    gaze: Vec3 | None = None  # combined
    gaze_left: Vec3 | None = None
    gaze_right: Vec3 | None = None
    closed_left: float | None = None  # 0 open, 1 closed
    closed_right: float | None = None
    convergence_m: float | None = None  # metres
    confidence: float | None = None

    _gazes = field_validator("gaze", "gaze_left", "gaze_right")(_gaze)

    @field_validator("convergence_m")
    @classmethod
    def _convergence(cls, metres: float | None) -> float | None:
        if metres is not None and not metres >= 0:
            raise domain_error("invalid_sample", f"convergence_m is {metres}; it must be >= 0")
        return metres

    @field_validator("closed_left", "closed_right", "confidence")
    @classmethod
    def _unit(cls, value: float | None) -> float | None:
        return _unit_interval(value, "an eye value")


class Weight(_Data):
    expression: str
    value: float

    @field_validator("value")
    @classmethod
    def _value(cls, value: float) -> float:
        if not 0.0 <= value <= 1.0:
            raise domain_error("invalid_sample", f"weight is {value}; it must be 0-1 (FACE-27)")
        return value


class Mouth(_Data):
    weights: list[Weight] = Field(default_factory=list[Weight])


# --- requests -------------------------------------------------------------------------------


class FaceCapabilities(Outbound):
    """Only what the source really measures (FACE-16); None claims nothing."""

    combined_gaze: bool | None = None
    per_eye_gaze: bool | None = None
    eye_lids: bool | None = None
    expressions: list[str] | None = None

    @field_validator("expressions")
    @classmethod
    def _expressions(cls, names: list[str] | None) -> list[str] | None:
        for name in names or ():
            if not FACE_EXPRESSION_RE.fullmatch(name):
                raise domain_error(
                    "invalid_source", f"expression {name!r} is not an expression name (FACE-15)"
                )
        return names


class FaceSource(Outbound):
    id: str
    name: str
    device: str
    transport: str
    capabilities: FaceCapabilities = Field(default_factory=FaceCapabilities)
    max_rate_hz: int

    @field_validator("id")
    @classmethod
    def _id(cls, source_id: str) -> str:
        return _checks.name(source_id, "face source id", "invalid_source")

    @field_validator("name", "device", "transport")
    @classmethod
    def _text(cls, text: str) -> str:
        return _checks.max_bytes(text, FACE_TEXT_MAX_BYTES, "a face source text", "invalid_source")

    @field_validator("max_rate_hz")
    @classmethod
    def _rate(cls, rate: int) -> int:
        _checks.in_range(rate, FACE_RATE_MIN, FACE_RATE_MAX, "max_rate_hz", "invalid_source")
        return rate


class FaceSample(Outbound):
    """Send only while demanded (FACE-20); ``sequence`` increases (FACE-21)."""

    sequence: Annotated[int, Field(ge=0)]
    age_ms: float
    eyes: Eyes | None = None
    mouth: Mouth | None = None

    @field_validator("age_ms")
    @classmethod
    def _age(cls, age: float) -> float:
        if not 0 <= age < FACE_MAX_AGE_MS:
            raise domain_error(
                "invalid_sample", f"age_ms is {age}; it must be 0 to under {FACE_MAX_AGE_MS}"
            )
        return age

    @model_validator(mode="after")
    def _some_channel(self) -> Self:
        if self.eyes is None and self.mouth is None:
            raise domain_error("invalid_sample", "a sample carries eyes, mouth or both (FACE-23)")
        return self


class FaceRegister(Outbound):
    op: Literal["register"] = "register"
    source: FaceSource


class FaceUnregister(Outbound):
    op: Literal["unregister"] = "unregister"
    source_id: str


class FacePublish(Outbound):
    op: Literal["publish"] = "publish"
    source_id: str
    generation: Annotated[int, Field(ge=0)]
    sample: FaceSample


class FaceSubscribe(Outbound):
    op: Literal["subscribe"] = "subscribe"
    eyes: bool = True
    mouth: bool = True


class FaceUnsubscribe(Outbound):
    op: Literal["unsubscribe"] = "unsubscribe"


FaceRequest = Annotated[
    Annotated[FaceRegister, Tag("register")]
    | Annotated[FaceUnregister, Tag("unregister")]
    | Annotated[FacePublish, Tag("publish")]
    | Annotated[FaceSubscribe, Tag("subscribe")]
    | Annotated[FaceUnsubscribe, Tag("unsubscribe")],
    Field(discriminator="op"),
]

# --- responses ------------------------------------------------------------------------------


class FaceRegistered(Inbound):
    result: Literal["registered"]
    generation: Annotated[int, Field(ge=0)]


class FaceOk(Inbound):
    result: Literal["ok"]


class FaceErr(Inbound):
    result: Literal["err"]
    code: str
    message: str | None = None


class FaceUnknown(Inbound):
    result: str


FaceResponse = Annotated[
    Annotated[FaceRegistered, Tag("registered")]
    | Annotated[FaceOk, Tag("ok")]
    | Annotated[FaceErr, Tag("err")]
    | Annotated[FaceUnknown, Tag("unknown")],
    tag_of("result", FaceRegistered, FaceOk, FaceErr),
]

# --- the face_update state (FACE-30) ---------------------------------------------------------


class FaceGrant(Inbound):
    provide: bool = False
    read: bool = False


class SelectedEyes(Inbound):
    """``age_ms`` is at sending; add your own delivery delay before trusting it (FACE-31)."""

    source_id: str
    age_ms: float | None = None
    sample: Eyes | None = None


class SelectedMouth(Inbound):
    source_id: str
    age_ms: float | None = None
    sample: Mouth | None = None


class FaceDemand(Inbound):
    """Which of this extension's sources are wanted, for what (FACE-18)."""

    source_id: str
    eyes: bool = False
    mouth: bool = False


class FaceState(Inbound):
    granted: FaceGrant = Field(default_factory=FaceGrant)
    eyes: SelectedEyes | None = None
    mouth: SelectedMouth | None = None
    demands: list[FaceDemand] = Field(default_factory=list[FaceDemand])


ERROR_CODES = frozenset(
    {
        "not_granted",
        "invalid_source",
        "invalid_sample",
        "too_many",
        "no_such_source",
        "stale_generation",
        "out_of_order",
        "not_demanded",
        "unsupported",
    }
)
