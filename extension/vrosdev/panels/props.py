"""Typed panel values: wire `{"t": ..., "v": ...}` against the panel's declared Slint types.

PAN-8..11 give the wire tags; docs/protocol-notes.md#r29 says an unknown prop name or a wrongly
typed value is a logged violation and is ignored. Checking is pure (no Slint import), so the host
can validate in its own process; building Slint values happens in the preview worker.

The `rows` shape (see README.md): the Slint property is a model of structs whose fields are named
c0, c1, ... in cell order, e.g. `in property <[{c0: string, c1: int, c2: bool}]> sounds;` (or a
named struct with those fields). Each wire row must have exactly one cell per field, tagged to
match the field's type.
"""

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from vrosdev.panels.declarations import (
    FIELD_BLUR,
    CallbackDecl,
    PanelInterface,
    describe_type,
)
from vrosdev.panels.slint_types import ListOf, Scalar, SlintType, StructOf

if TYPE_CHECKING:
    import slint

I64_MIN, I64_MAX = -(2**63), 2**63 - 1
# PAN-9: ints are exact up to 2^53 in Slint (they travel as f64 inside the interpreter).
MAX_EXACT_INT = 2**53

# Scalar wire tag <-> Slint scalar type (PAN-9).
SCALAR_TAGS: dict[str, str] = {"bool": "bool", "i64": "int", "f64": "float", "str": "string"}
SLINT_TO_TAG: dict[str, str] = {v: k for k, v in SCALAR_TAGS.items()}
STRING_LIST = ListOf(Scalar("string"))
IMAGE_LIST = ListOf(Scalar("image"))


@dataclass(frozen=True)
class AcceptedProp:
    """A wire value that matches the declared type, as plain Python data."""

    name: str
    tag: str
    value: Any  # bool | int | float | str | list[str] | list[dict[str, ...]] | list[str] (keys)


class WireValueError(ValueError):
    """A tagged value that is malformed or does not fit the declared type."""


def _scalar(tag: str, value: Any) -> bool | int | float | str:
    match tag:
        case "bool" if isinstance(value, bool):
            return value
        case "i64" if isinstance(value, int) and not isinstance(value, bool):
            if not I64_MIN <= value <= I64_MAX:
                raise WireValueError(f"i64 value {value} is outside the 64-bit range")
            return value
        case "f64" if isinstance(value, int | float) and not isinstance(value, bool):
            if not math.isfinite(value):
                raise WireValueError("f64 value is not finite")
            return float(value)
        case "str" if isinstance(value, str):
            return value
        case _:
            raise WireValueError(f"value {value!r:.60} is not a valid {tag}")


def _tagged(item: Any) -> tuple[str, Any]:
    if not isinstance(item, dict) or "t" not in item or "v" not in item:
        raise WireValueError('a value must be {"t": tag, "v": value}')
    tag = item["t"]
    if not isinstance(tag, str):
        raise WireValueError("the tag t must be a string")
    return tag, item["v"]


def rows_fields(declared: SlintType | None) -> tuple[tuple[str, str], ...] | None:
    """(field, scalar type) pairs if declared is the rows shape `[{c0: T0, c1: T1, ...}]`."""
    if not (isinstance(declared, ListOf) and isinstance(declared.element, StructOf)):
        return None
    fields = declared.element.fields
    names_ok = [name for name, _ in fields] == [f"c{i}" for i in range(len(fields))]
    types_ok = all(isinstance(t, Scalar) and t.name in SLINT_TO_TAG for _, t in fields)
    if not names_ok or not types_ok:
        return None
    return tuple((name, str(t)) for name, t in fields)


def _expected_tag(declared: SlintType | None) -> str | None:
    if isinstance(declared, Scalar) and declared.name in SLINT_TO_TAG:
        return SLINT_TO_TAG[declared.name]
    if declared == STRING_LIST:
        return "str_list"
    if declared == IMAGE_LIST:
        return "assets"
    if rows_fields(declared) is not None:
        return "rows"
    return None


def _rows(fields: tuple[tuple[str, str], ...], value: Any) -> list[dict[str, Any]]:
    if not isinstance(value, list):
        raise WireValueError("rows must be a list of rows")
    rows: list[dict[str, Any]] = []
    for index, row in enumerate(value):
        if not isinstance(row, list) or len(row) != len(fields):
            raise WireValueError(f"row {index} must be a list of {len(fields)} cells")
        cells: dict[str, Any] = {}
        for (field, slint_type), cell in zip(fields, row, strict=True):
            tag, raw = _tagged(cell)
            if SCALAR_TAGS.get(tag) != slint_type:
                raise WireValueError(f"row {index} cell {field} is {tag}, declared {slint_type}")
            cells[field] = _scalar(tag, raw)
        rows.append(cells)
    return rows


def _list_of_str(value: Any, what: str) -> list[str]:
    if not isinstance(value, list) or not all(isinstance(s, str) for s in value):
        raise WireValueError(f"{what} must be a list of strings")
    return list(value)


def accept_prop(interface: PanelInterface, name: str, tagged: Any) -> AcceptedProp | str:
    """The checked value, or a violation message (docs/protocol-notes.md#r29: the value is then
    ignored)."""
    decl = interface.properties.get(name)
    if decl is None or not decl.settable:
        return f"PAN-3: unknown prop {name!r}: the panel root declares no in property of that name"
    if name == FIELD_BLUR:
        return f"PAN-26: {FIELD_BLUR} is advanced by the host, an extension cannot set it"
    try:
        tag, value = _tagged(tagged)
        expected = _expected_tag(decl.type)
        if expected is None:
            raise WireValueError(
                f"its declared type {describe_type(decl.type)} has no wire type (PAN-9..11)"
            )
        if tag != expected:
            raise WireValueError(f"sent as {tag}, declared {describe_type(decl.type)}")
        match tag:
            case "str_list":
                checked: Any = _list_of_str(value, "str_list")
            case "assets":
                checked = _list_of_str(value, "assets")
            case "rows":
                fields = rows_fields(decl.type)
                assert fields is not None
                checked = _rows(fields, value)
            case _:
                checked = _scalar(tag, value)
    except WireValueError as exc:
        return f"PAN-8: prop {name!r} ignored: {exc}"
    return AcceptedProp(name, tag, checked)


def to_slint_value(prop: AcceptedProp) -> Any:
    """The value Slint's Python API takes for this prop; `assets` are built by the window."""
    import slint

    match prop.tag:
        case "str_list":
            return slint.ListModel(list(prop.value))
        case "rows":
            return slint.ListModel([dict(row) for row in prop.value])
        case "assets":
            raise ValueError("assets props are bound by PanelWindow (they animate)")
        case _:
            return prop.value


def images_model(images: "Sequence[slint.Image]") -> "slint.ListModel[slint.Image]":
    import slint

    return slint.ListModel(list(images))


def wire_value(slint_type: SlintType, value: Any) -> dict[str, Any]:
    """A callback argument from Slint as a typed wire value (panel_event args are typed like
    props). Raises WireValueError for types with no wire form."""
    if isinstance(slint_type, Scalar) and slint_type.name in SLINT_TO_TAG:
        tag = SLINT_TO_TAG[slint_type.name]
        match tag:
            case "i64":
                return {"t": tag, "v": int(value)}
            case "f64":
                return {"t": tag, "v": float(value)}
            case "bool":
                return {"t": tag, "v": bool(value)}
            case _:
                return {"t": tag, "v": str(value)}
    if slint_type == STRING_LIST:
        return {"t": "str_list", "v": [str(s) for s in value]}
    raise WireValueError(f"a callback argument of type {slint_type} has no wire type")


def wire_args(decl: CallbackDecl, args: Sequence[Any]) -> list[dict[str, Any]]:
    if len(args) != len(decl.params):
        raise WireValueError(f"{decl.name} got {len(args)} arguments, declared {len(decl.params)}")
    return [wire_value(t, a) for t, a in zip(decl.params, args, strict=True)]


def args_from_wire(decl: CallbackDecl, tagged_args: Any) -> list[Any]:
    """Typed wire args -> Python values for invoking a callback (a scripted click). Slint does
    not type-check invocations from Python, so this does."""
    if not isinstance(tagged_args, list) or len(tagged_args) != len(decl.params):
        raise WireValueError(f"{decl.name} takes {len(decl.params)} arguments")
    values: list[Any] = []
    for slint_type, item in zip(decl.params, tagged_args, strict=True):
        tag, raw = _tagged(item)
        if slint_type == STRING_LIST and tag == "str_list":
            import slint

            values.append(slint.ListModel(_list_of_str(raw, "str_list")))
        elif isinstance(slint_type, Scalar) and SCALAR_TAGS.get(tag) == slint_type.name:
            values.append(_scalar(tag, raw))
        else:
            raise WireValueError(f"{decl.name}: {tag} does not fit {slint_type}")
    return values
