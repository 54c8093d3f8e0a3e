"""panel: props, runtime overlay panels and their typed values (VXP PAN-1 … PAN-22).

Typed values travel both ways: in ``props`` requests and in ``panel_event`` args. They ignore
unknown fields like everything inbound (T-12); a request only ever holds the known value types,
an event's args may also hold :class:`UnknownValue` for a type a newer host added.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Annotated, Any, Literal

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    StrictBool,
    StrictFloat,
    StrictInt,
    StrictStr,
    Tag,
    field_validator,
)

from ..limits import ASSET_KEY_RE, I64_ABS_MAX, PANEL_SOURCE_MAX_BYTES, PROP_NAME_RE
from . import _checks
from ._base import Inbound, Outbound, Since, tag_of

NAMESPACE = "panel"
CAPABILITY: str | None = None
SINCE = "1.0"
# Without it, a domain err not_allowed (docs/protocol-notes.md#r11).
OP_CAPABILITIES = {"define": "overlays"}

# --- typed values (PAN-8 … PAN-11) ----------------------------------------------------------


class _Value(BaseModel):
    model_config = ConfigDict(extra="ignore", frozen=True, defer_build=True)


class BoolValue(_Value):
    t: Literal["bool"] = "bool"
    v: StrictBool


class I64Value(_Value):
    t: Literal["i64"] = "i64"
    v: StrictInt

    @field_validator("v")
    @classmethod
    def _exact(cls, v: int) -> int:
        if abs(v) > I64_ABS_MAX:
            raise ValueError(f"i64 value {v} is not exact in a Slint int: |v| must be <= 2**53")
        return v


class F64Value(_Value):
    t: Literal["f64"] = "f64"
    v: Annotated[StrictFloat, Field(allow_inf_nan=False)]


class StrValue(_Value):
    t: Literal["str"] = "str"
    v: StrictStr


class StrListValue(_Value):
    t: Literal["str_list"] = "str_list"
    v: list[StrictStr]


CellValue = Annotated[
    Annotated[BoolValue, Tag("bool")]
    | Annotated[I64Value, Tag("i64")]
    | Annotated[F64Value, Tag("f64")]
    | Annotated[StrValue, Tag("str")],
    Field(discriminator="t"),
]
"""A cell of a ``rows`` value: scalars only, so rows never nest."""


class RowsValue(_Value):
    t: Literal["rows"] = "rows"
    v: list[list[CellValue]]


class AssetsValue(_Value):
    """Keys uploaded with ``assets`` (AST-16); shown as ``[image]``. Since VXP 1.3."""

    t: Literal["assets"] = "assets"
    v: list[StrictStr]

    @field_validator("v")
    @classmethod
    def _keys(cls, v: list[str]) -> list[str]:
        for key in v:
            if not ASSET_KEY_RE.fullmatch(key):
                raise ValueError(f"asset key {key!r} must be 1-128 of A-Z a-z 0-9 - _ . : /")
        return v


class UnknownValue(_Value):
    """A value type added by a newer host; skip it."""

    t: str
    v: Any = None


PropValue = Annotated[
    Annotated[BoolValue, Tag("bool")]
    | Annotated[I64Value, Tag("i64")]
    | Annotated[F64Value, Tag("f64")]
    | Annotated[StrValue, Tag("str")]
    | Annotated[StrListValue, Tag("str_list")]
    | Annotated[RowsValue, Tag("rows")]
    | Annotated[AssetsValue, Tag("assets")],
    Field(discriminator="t"),
]
"""A value we send."""

ArgValue = Annotated[
    Annotated[BoolValue, Tag("bool")]
    | Annotated[I64Value, Tag("i64")]
    | Annotated[F64Value, Tag("f64")]
    | Annotated[StrValue, Tag("str")]
    | Annotated[StrListValue, Tag("str_list")]
    | Annotated[RowsValue, Tag("rows")]
    | Annotated[AssetsValue, Tag("assets")]
    | Annotated[UnknownValue, Tag("unknown")],
    tag_of("t", BoolValue, I64Value, F64Value, StrValue, StrListValue, RowsValue, AssetsValue),
]
"""A value the host sends (``panel_event`` args)."""

type TypedCell = BoolValue | I64Value | F64Value | StrValue
type TypedValue = (
    BoolValue | I64Value | F64Value | StrValue | StrListValue | RowsValue | AssetsValue
)


def prop_bool(v: bool) -> BoolValue:
    return BoolValue(v=v)


def prop_i64(v: int) -> I64Value:
    return I64Value(v=v)


def prop_f64(v: float) -> F64Value:
    return F64Value(v=float(v))


def prop_str(v: str) -> StrValue:
    return StrValue(v=v)


def prop_str_list(v: Iterable[str]) -> StrListValue:
    return StrListValue(v=list(v))


def prop_rows(rows: Iterable[Iterable[TypedCell | bool | int | float | str]]) -> RowsValue:
    """Rows of cells; plain Python scalars become their typed cell (see :func:`cell`)."""
    return RowsValue(v=[[cell(c) for c in row] for row in rows])


def prop_assets(keys: Iterable[str]) -> AssetsValue:
    return AssetsValue(v=list(keys))


def cell(v: TypedCell | bool | int | float | str) -> TypedCell:
    """The typed scalar for a Python ``bool``, ``int``, ``float`` or ``str`` (kept if typed)."""
    if isinstance(v, BoolValue | I64Value | F64Value | StrValue):
        return v
    if isinstance(v, bool):
        return BoolValue(v=v)
    if isinstance(v, int):
        return I64Value(v=v)
    if isinstance(v, float):
        return F64Value(v=v)
    return StrValue(v=v)


def prop(v: TypedValue | bool | int | float | str | Sequence[str]) -> TypedValue:
    """The typed value for a plain Python value; a sequence of strings becomes ``str_list``."""
    if isinstance(v, bool | int | float | str | BoolValue | I64Value | F64Value | StrValue):
        return cell(v)
    if isinstance(v, StrListValue | RowsValue | AssetsValue):
        return v
    return StrListValue(v=list(v))


def _check_panel(panel: str) -> str:
    return _checks.name(panel, "panel name", "invalid_name")


# --- requests -------------------------------------------------------------------------------


# A panel's props are the same few names frame after frame: each is matched once.
_GOOD_NAMES: set[str] = set()
_GOOD_NAMES_KEPT = 4096


class PanelProps(Outbound):
    """``props`` is a list of ``[name, value]`` pairs; the last value of a name wins (PAN-6)."""

    op: Literal["props"] = "props"
    panel: str
    props: list[tuple[str, PropValue]]

    _panel = field_validator("panel")(_check_panel)

    @field_validator("props")
    @classmethod
    def _names(cls, props: list[tuple[str, TypedValue]]) -> list[tuple[str, TypedValue]]:
        for name, _ in props:
            if name not in _GOOD_NAMES:
                if not PROP_NAME_RE.fullmatch(name):
                    raise ValueError(f"prop name {name!r} is not a Slint identifier")
                if len(_GOOD_NAMES) < _GOOD_NAMES_KEPT:
                    _GOOD_NAMES.add(name)
        return props


class PanelDefine(Outbound):
    """A runtime overlay panel from a complete ``.slint`` source (PAN-12). Needs ``overlays``."""

    op: Literal["define"] = "define"
    panel: str
    source: str
    width: int | None = None  # logical pixels; the host fills in and clamps (PAN-15)
    height: int | None = None
    anchor: Annotated[Literal["world", "hmd"] | None, Since("1.3")] = None

    _panel = field_validator("panel")(_check_panel)

    @field_validator("source")
    @classmethod
    def _source_size(cls, source: str) -> str:
        return _checks.max_bytes(source, PANEL_SOURCE_MAX_BYTES, "panel source", "source_too_large")


class PanelRemove(Outbound):
    op: Literal["remove"] = "remove"
    panel: str

    _panel = field_validator("panel")(_check_panel)


PanelRequest = Annotated[
    Annotated[PanelProps, Tag("props")]
    | Annotated[PanelDefine, Tag("define")]
    | Annotated[PanelRemove, Tag("remove")],
    Field(discriminator="op"),
]

# --- responses ------------------------------------------------------------------------------


class PanelApplied(Inbound):
    result: Literal["applied"]


class PanelDefined(Inbound):
    result: Literal["defined"]
    revision: Annotated[int, Field(ge=0)]


class PanelRemoved(Inbound):
    result: Literal["removed"]


class PanelErr(Inbound):
    result: Literal["err"]
    code: str
    message: str | None = None


class PanelUnknown(Inbound):
    result: str


PanelResponse = Annotated[
    Annotated[PanelApplied, Tag("applied")]
    | Annotated[PanelDefined, Tag("defined")]
    | Annotated[PanelRemoved, Tag("removed")]
    | Annotated[PanelErr, Tag("err")]
    | Annotated[PanelUnknown, Tag("unknown")],
    tag_of("result", PanelApplied, PanelDefined, PanelRemoved, PanelErr),
]

ERROR_CODES = frozenset(
    {
        "invalid_name",
        "source_too_large",
        "compile_failed",
        "no_such_panel",
        "not_allowed",
        "internal",
    }
)
