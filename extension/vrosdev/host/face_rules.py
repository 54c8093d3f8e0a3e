"""What a face source and a face sample must be (docs/face.md), checked as vrOS would.

vrosdev's own reading of the rules, written from docs/face.md rather than taken from the SDK's
models: the SDK refuses a bad value before sending, the host must receive it and answer with
the domain error (``invalid_source``, ``invalid_sample``).
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from typing import Any

from .errors import DomainErr

# docs/face.md "The 37 expressions"; tests/vrosdev/test_face_docs.py compares the two.
EXPRESSIONS = frozenset(
    """
    jaw_forward jaw_left jaw_right jaw_open
    mouth_close mouth_funnel mouth_pucker mouth_left mouth_right
    mouth_smile_left mouth_smile_right mouth_frown_left mouth_frown_right
    mouth_dimple_left mouth_dimple_right mouth_stretch_left mouth_stretch_right
    mouth_roll_lower mouth_roll_upper mouth_shrug_lower mouth_shrug_upper
    mouth_press_left mouth_press_right mouth_lower_down_left mouth_lower_down_right
    mouth_upper_up_left mouth_upper_up_right
    cheek_puff cheek_squint_left cheek_squint_right
    nose_sneer_left nose_sneer_right
    tongue_out tongue_up tongue_down tongue_left tongue_right
    """.split()  # noqa: SIM905 - laid out as in docs/face.md
)
ID_RE = re.compile(r"[a-z0-9-]{1,64}")  # FACE-12
TEXT_MAX_BYTES = 128  # FACE-13
RATE_MIN, RATE_MAX = 1, 240  # FACE-14
MAX_PER_EXTENSION, MAX_IN_VROS = 4, 16  # FACE-17
MAX_AGE_MS = 250  # FACE-22
UNIT_TOLERANCE = 0.01  # how far a gaze vector's length may be from 1
GAZE_FLAGS = ("combined_gaze", "per_eye_gaze", "eye_lids")


@dataclass(frozen=True)
class Claims:
    """What a source says it measures (FACE-15)."""

    combined_gaze: bool
    per_eye_gaze: bool
    eye_lids: bool
    expressions: frozenset[str]

    @property
    def eyes(self) -> bool:
        return self.combined_gaze or self.per_eye_gaze or self.eye_lids

    @property
    def mouth(self) -> bool:
        return bool(self.expressions)

    def claims(self, part: str) -> bool:
        return self.eyes if part == "eyes" else self.mouth


@dataclass(frozen=True)
class Source:
    id: str
    name: str
    device: str
    transport: str
    max_rate_hz: int
    claims: Claims


def _bad_source(message: str) -> DomainErr:
    return DomainErr("invalid_source", message)


def check_source(raw: dict[str, Any]) -> Source:
    """A ``register``'s source, or ``invalid_source`` naming what is wrong."""
    source_id = raw.get("id")
    if not isinstance(source_id, str) or not ID_RE.fullmatch(source_id):
        raise _bad_source("source id must be 1-64 characters of [a-z0-9-] (FACE-12)")
    texts: dict[str, str] = {}
    for field in ("name", "device", "transport"):
        text = raw.get(field)
        if not isinstance(text, str):
            raise _bad_source(f"source {field} must be a string (FACE-11)")
        if len(text.encode("utf-8", "surrogatepass")) > TEXT_MAX_BYTES:
            raise _bad_source(f"source {field} is over {TEXT_MAX_BYTES} bytes (FACE-13)")
        texts[field] = text
    rate = raw.get("max_rate_hz")
    if type(rate) is not int or not RATE_MIN <= rate <= RATE_MAX:
        raise _bad_source(f"max_rate_hz must be an integer {RATE_MIN}-{RATE_MAX} (FACE-14)")
    caps = raw.get("capabilities")
    if not isinstance(caps, dict):
        raise _bad_source("a source needs a capabilities object (FACE-11)")
    flags: dict[str, bool] = {}
    for flag in GAZE_FLAGS:
        value = caps.get(flag, False)
        if not isinstance(value, bool):
            raise _bad_source(f"capabilities.{flag} must be true or false")
        flags[flag] = value
    names = caps.get("expressions", [])
    if not isinstance(names, list):
        raise _bad_source("capabilities.expressions must be a list of names")
    for name in names:
        if name not in EXPRESSIONS:
            raise _bad_source(f"{name!r} is not one of the 37 expressions (FACE-15)")
    if len(set(names)) != len(names):
        raise _bad_source("capabilities.expressions names an expression twice")
    claims = Claims(expressions=frozenset(names), **flags)
    if not (claims.eyes or claims.mouth):
        raise _bad_source("a source must claim at least one capability")
    return Source(source_id, texts["name"], texts["device"], texts["transport"], rate, claims)


def _bad_sample(message: str) -> DomainErr:
    return DomainErr("invalid_sample", message)


def _number(value: Any) -> bool:
    return type(value) in (int, float) and math.isfinite(value)


def _unit(value: Any, what: str) -> None:
    if not _number(value) or not 0 <= value <= 1:
        raise _bad_sample(f"{what} must be a number 0-1")


def _gaze(value: Any, what: str) -> None:
    if not (isinstance(value, list) and len(value) == 3 and all(_number(c) for c in value)):
        raise _bad_sample(f"{what} must be [x, y, z] (FACE-24)")
    length = math.sqrt(sum(c * c for c in value))
    if abs(length - 1) > UNIT_TOLERANCE:
        raise _bad_sample(f"{what} has length {length:.3f}; it must be a unit vector (FACE-24)")


def _check_eyes(eyes: Any, claims: Claims) -> dict[str, Any]:
    if not isinstance(eyes, dict):
        raise _bad_sample("eyes must be an object")
    needs = {
        "gaze": "combined_gaze",
        "gaze_left": "per_eye_gaze",
        "gaze_right": "per_eye_gaze",
        "closed_left": "eye_lids",
        "closed_right": "eye_lids",
    }
    known: dict[str, Any] = {}
    for field, flag in needs.items():
        if field not in eyes:
            continue
        if not getattr(claims, flag):
            raise _bad_sample(f"eyes.{field} needs the source to claim {flag} (FACE-16)")
        if field.startswith("gaze"):
            _gaze(eyes[field], f"eyes.{field}")
        else:
            _unit(eyes[field], f"eyes.{field} (FACE-25)")
        known[field] = eyes[field]
    for field in ("convergence_m", "confidence"):
        if field not in eyes:
            continue
        if not (claims.combined_gaze or claims.per_eye_gaze):
            raise _bad_sample(f"eyes.{field} needs the source to claim a gaze (FACE-16)")
        value = eyes[field]
        if field == "confidence":
            _unit(value, "eyes.confidence (FACE-26)")
        elif not _number(value) or value < 0:
            raise _bad_sample("eyes.convergence_m must be a number of metres >= 0 (FACE-26)")
        known[field] = value
    if not known:
        raise _bad_sample("eyes carries nothing; leave the part out instead (FACE-28)")
    return known


def _check_mouth(mouth: Any, claims: Claims) -> dict[str, Any]:
    weights = mouth.get("weights") if isinstance(mouth, dict) else None
    if not isinstance(weights, list) or not weights:
        raise _bad_sample("mouth must be {weights: [{expression, value}, ...]} (FACE-27)")
    seen: set[str] = set()
    out: list[dict[str, Any]] = []
    for weight in weights:
        name = weight.get("expression") if isinstance(weight, dict) else None
        if not isinstance(name, str) or name not in EXPRESSIONS:
            raise _bad_sample(f"{name!r} is not one of the 37 expressions (FACE-15)")
        if name not in claims.expressions:
            raise _bad_sample(f"{name} is not claimed by the source (FACE-16)")
        if name in seen:
            raise _bad_sample(f"{name} appears twice in the weights")
        seen.add(name)
        _unit(weight.get("value"), f"the weight of {name} (FACE-27)")
        out.append({"expression": name, "value": weight["value"]})
    return {"weights": out}


@dataclass(frozen=True)
class Sample:
    sequence: int
    age_ms: float
    parts: dict[str, dict[str, Any]]  # "eyes" / "mouth" -> the part as published


def check_sample(raw: dict[str, Any], claims: Claims) -> Sample:
    """A ``publish``'s sample, or ``invalid_sample``; unknown fields are dropped (T-12)."""
    sequence = raw.get("sequence")
    if type(sequence) is not int or sequence < 0:
        raise _bad_sample("sequence must be an integer >= 0 (FACE-21)")
    age: Any = raw.get("age_ms")
    if not _number(age) or not 0 <= age < MAX_AGE_MS:
        raise _bad_sample(f"age_ms must be 0 to under {MAX_AGE_MS}; older is too old (FACE-22)")
    parts: dict[str, dict[str, Any]] = {}
    if "eyes" in raw and raw["eyes"] is not None:
        parts["eyes"] = _check_eyes(raw["eyes"], claims)
    if "mouth" in raw and raw["mouth"] is not None:
        parts["mouth"] = _check_mouth(raw["mouth"], claims)
    if not parts:
        raise _bad_sample("a sample carries eyes, mouth or both (FACE-23)")
    return Sample(sequence, float(age), parts)
