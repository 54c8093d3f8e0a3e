"""The wire shapes of the panel contract: typed values, props, callbacks, a panel's contract.

Wire values are plain dicts tagged like VXP props (PAN-8..11): {"t": "i64", "v": 21}. A `rows`
prop is a Slint array of anonymous structs whose fields c0..cN carry the cells in order (the shape
vrosdev documents); `Prop.cells` names them for people, the wire only knows their order.
"""

from collections.abc import Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any, cast

type WireValue = dict[str, Any]


class Wire(StrEnum):
    BOOL = "bool"
    I64 = "i64"
    F64 = "f64"
    STR = "str"
    STR_LIST = "str_list"
    ROWS = "rows"
    ASSETS = "assets"


SCALARS = frozenset({Wire.BOOL, Wire.I64, Wire.F64, Wire.STR})
_SLINT_SCALAR = {Wire.BOOL: "bool", Wire.I64: "int", Wire.F64: "float", Wire.STR: "string"}
# PAN-9: Slint ints are exact only up to 2^53.
MAX_EXACT_INT = 2**53


class WireError(ValueError):
    """A value that does not fit the declared wire type (a programming error on our side, or a
    malformed panel_event from the host)."""


@dataclass(frozen=True)
class Cell:
    name: str
    wire: Wire
    meaning: str


@dataclass(frozen=True)
class Prop:
    name: str
    wire: Wire
    meaning: str
    cells: tuple[Cell, ...] = ()
    text_key: str | None = None  # a static label: its text is the catalog entry of this key
    max_rows: int | None = None  # rows/assets/str_list: the most the panel is ever sent

    @property
    def slint_type(self) -> str:
        match self.wire:
            case Wire.STR_LIST:
                return "[string]"
            case Wire.ASSETS:
                return "[image]"
            case Wire.ROWS:
                fields = ", ".join(
                    f"c{i}: {_SLINT_SCALAR[c.wire]}" for i, c in enumerate(self.cells)
                )
                return f"[{{{fields}}}]"
            case _:
                return _SLINT_SCALAR[self.wire]

    def wire_value(self, value: Any) -> WireValue:
        """The tagged value for a Python value (rows: a sequence of cell sequences)."""
        return tagged(self.wire, value, self.cells, self.max_rows, self.name)

    def check(self, tagged_value: Any) -> WireValue:
        """A tagged value that is well-formed for this prop, or WireError."""
        if not isinstance(tagged_value, dict) or tagged_value.keys() != {"t", "v"}:
            raise WireError(f'{self.name}: a value must be {{"t": tag, "v": value}}')
        if tagged_value["t"] != self.wire.value:
            raise WireError(f"{self.name}: sent as {tagged_value['t']!r}, declared {self.wire}")
        raw: Any = cast(dict[str, Any], tagged_value)["v"]
        if self.wire is Wire.ROWS:
            if not isinstance(raw, list):
                raise WireError(f"{self.name}: rows must be a list")
            rows: list[list[Any]] = []
            for row in cast(list[Any], raw):
                if not isinstance(row, list) or len(row) != len(self.cells):  # pyright: ignore[reportUnknownArgumentType]
                    raise WireError(f"{self.name}: each row has {len(self.cells)} cells")
                cells = zip(cast(list[Any], row), self.cells, strict=True)
                rows.append([_untag(v, c.wire, f"{self.name}.{c.name}") for v, c in cells])
            return self.wire_value(rows)
        return self.wire_value(raw)


@dataclass(frozen=True)
class Arg:
    name: str
    wire: Wire
    meaning: str

    @property
    def slint_type(self) -> str:
        return _SLINT_SCALAR[self.wire]


@dataclass(frozen=True)
class Callback:
    name: str
    args: tuple[Arg, ...]
    meaning: str

    def decode(self, args: Any) -> tuple[Any, ...]:
        """Typed panel_event args -> Python values, or WireError."""
        if not isinstance(args, list) or len(args) != len(self.args):  # pyright: ignore[reportUnknownArgumentType]
            raise WireError(f"{self.name} takes {len(self.args)} arguments")
        values: list[Any] = []
        for item, arg in zip(cast(list[Any], args), self.args, strict=True):
            values.append(_untag(item, arg.wire, f"{self.name}({arg.name})"))
        return tuple(values)


@dataclass(frozen=True)
class PanelContract:
    name: str  # the panel's wire name (manifest role key or runtime panel name)
    source: str  # path of the .slint file, relative to the repository
    purpose: str
    props: tuple[Prop, ...]
    callbacks: tuple[Callback, ...] = ()
    _by_name: dict[str, Prop] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        names = [p.name for p in self.props] + [c.name for c in self.callbacks]
        if len(names) != len(set(names)):
            raise ValueError(f"{self.name}: a prop or callback name is declared twice")
        reserved = RESERVED_NAMES.intersection(names)
        if reserved:
            raise ValueError(f"{self.name}: {sorted(reserved)} clash with Slint built-ins")
        # by name: every prop of every refresh is looked up here
        object.__setattr__(self, "_by_name", {p.name: p for p in self.props})

    def prop(self, name: str) -> Prop:
        try:
            return self._by_name[name]
        except KeyError:
            raise KeyError(f"{self.name} has no prop {name!r}") from None

    def callback(self, name: str) -> Callback | None:
        return next((c for c in self.callbacks if c.name == name), None)

    @property
    def text_props(self) -> tuple[Prop, ...]:
        return tuple(p for p in self.props if p.text_key is not None)


# Properties every Slint element (or a Window) already has: a root may not redeclare them.
RESERVED_NAMES = frozenset(
    {
        "x", "y", "z", "width", "height", "visible", "opacity", "row", "col", "rowspan",
        "colspan", "title", "background", "icon", "enabled", "clip", "cache-rendering-hint",
        "min-width", "min-height", "max-width", "max-height", "preferred-width",
        "preferred-height", "horizontal-stretch", "vertical-stretch", "accessible-role",
        "accessible-label", "dialog-button-role", "drop-shadow-color", "drop-shadow-blur",
        "drop-shadow-offset-x", "drop-shadow-offset-y", "rotation-angle", "has-hover",
        "default-font-size", "default-font-family", "default-font-weight", "text", "color",
        "font-size", "always-on-top", "no-frame", "resize-border-width", "full-screen",
        "transform-rotation", "transform-scale", "transform-scale-x", "transform-scale-y",
        "transform-origin",
    }
)  # fmt: skip


# -- typed wire values -------------------------------------------------------------------------


def _scalar(wire: Wire, value: Any, where: str) -> bool | int | float | str:
    match wire:
        case Wire.BOOL if isinstance(value, bool):
            return value
        case Wire.I64 if isinstance(value, int) and not isinstance(value, bool):
            if abs(value) > MAX_EXACT_INT:
                raise WireError(f"{where}: {value} is beyond the exact range of a Slint int")
            return value
        case Wire.F64 if isinstance(value, int | float) and not isinstance(value, bool):
            as_float = float(value)
            if as_float != as_float or as_float in (float("inf"), float("-inf")):
                raise WireError(f"{where}: f64 must be finite")
            return as_float
        case Wire.STR if isinstance(value, str):
            return value
        case _:
            raise WireError(f"{where}: {type(value).__name__} is not a valid {wire}")


def _untag(item: Any, wire: Wire, where: str) -> Any:
    if not isinstance(item, dict) or "t" not in item or "v" not in item:
        raise WireError(f'{where}: a value must be {{"t": tag, "v": value}}')
    if item["t"] != wire.value:
        raise WireError(f"{where}: sent as {item['t']!r}, declared {wire}")
    return _scalar(wire, item["v"], where)


def _str_list(value: Any, where: str) -> list[str]:
    if isinstance(value, str) or not isinstance(value, Sequence):
        raise WireError(f"{where}: expected a list of strings")
    items: list[Any] = list(value)  # pyright: ignore[reportUnknownArgumentType]
    if not all(isinstance(s, str) for s in items):
        raise WireError(f"{where}: expected a list of strings")
    return [str(s) for s in items]


def tagged(
    wire: Wire,
    value: Any,
    cells: tuple[Cell, ...] = (),
    max_rows: int | None = None,
    where: str = "value",
) -> WireValue:
    """Build `{"t": wire, "v": value}` from a Python value, checking it fits the wire type."""
    if wire in SCALARS:
        return {"t": wire.value, "v": _scalar(wire, value, where)}
    if wire in (Wire.STR_LIST, Wire.ASSETS):
        items = _str_list(value, where)
        if max_rows is not None and len(items) > max_rows:
            raise WireError(f"{where}: {len(items)} items, at most {max_rows} (page the list)")
        return {"t": wire.value, "v": items}
    if isinstance(value, str) or not isinstance(value, Sequence):
        raise WireError(f"{where}: rows must be a list of rows")
    rows: list[Any] = list(value)  # pyright: ignore[reportUnknownArgumentType]
    if max_rows is not None and len(rows) > max_rows:
        raise WireError(f"{where}: {len(rows)} rows, at most {max_rows} (page the list)")
    out: list[list[WireValue]] = []
    for row in rows:
        if not isinstance(row, list | tuple) or len(row) != len(cells):  # pyright: ignore[reportUnknownArgumentType]
            raise WireError(f"{where}: each row has {len(cells)} cells")
        out.append(
            [
                {"t": c.wire.value, "v": _scalar(c.wire, v, f"{where}.{c.name}")}
                for v, c in zip(cast(Sequence[Any], row), cells, strict=True)
            ]
        )
    return {"t": Wire.ROWS.value, "v": out}
