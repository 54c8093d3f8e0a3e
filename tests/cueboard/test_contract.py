"""The panel contract (cueboard.core.contract) against the .slint roots, both ways, and the README.

The roots are read here with a parser of this test's own (not vrosdev's), so a mistake shared by
the host's parser and the contract cannot hide; vrosdev's prop checker is used separately, as the
real peer that must accept every value Cueboard sends (PAN-8..11, docs/protocol-notes.md#r29).
"""

from __future__ import annotations

import importlib.util
import re
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from cueboard.core.contract import (
    FIELD_BLUR,
    FIELD_FOCUS,
    NOW_PLAYING,
    OVERLAY,
    PANELS,
    RESERVED_NAMES,
    Cell,
    PanelContract,
    Prop,
    Wire,
    WireError,
    tagged,
)

REPO = Path(__file__).resolve().parents[2]
KEBAB = re.compile(r"^[a-z][a-z0-9]*(?:-[a-z0-9]+)*$")


# -- a small reader of a panel root's declarations ------------------------------------------------


def _strip_comments(source: str) -> str:
    source = re.sub(r"/\*.*?\*/", lambda m: " " * len(m.group(0)), source, flags=re.S)
    return re.sub(r"//[^\n]*", "", source)


def _root_top_level(source: str) -> tuple[str, str, list[str]]:
    """(root name, the root body with every nested block removed, the property types).

    Property types are lifted out first (`<[{c0: string}]>` -> `<#0>`): their braces are not
    blocks."""
    types: list[str] = []

    def lift(m: re.Match[str]) -> str:
        types.append(m.group(1))
        return f"property <#{len(types) - 1}>"

    text = re.sub(r"property\s*<([^>]*)>", lift, _strip_comments(source))
    roots = list(re.finditer(r"export\s+component\s+([\w-]+)\s*(inherits\s+[\w-]+\s*)?\{", text))
    assert roots, "no exported component"
    root = roots[-1]
    depth, top = 0, []
    for ch in text[root.end() :]:
        if ch == "{":
            depth += 1
        elif ch == "}":
            if depth == 0:
                break
            depth -= 1
        elif depth == 0:
            top.append(ch)
    return root.group(1), "".join(top), types


@dataclass
class RootDecls:
    name: str
    props: dict[str, tuple[str, str]] = field(default_factory=dict[str, tuple[str, str]])
    callbacks: dict[str, list[tuple[str, str]]] = field(
        default_factory=dict[str, list[tuple[str, str]]]
    )


def _squash(text: str) -> str:
    return re.sub(r"\s+", "", text)


def read_root(path: Path) -> RootDecls:
    name, top, types = _root_top_level(path.read_text(encoding="utf-8"))
    decls = RootDecls(name)
    for m in re.finditer(r"(in-out|in|out|private)?\s*property\s*<#(\d+)>\s*([\w-]+)", top):
        decls.props[m.group(3)] = (m.group(1) or "private", _squash(types[int(m.group(2))]))
    for m in re.finditer(r"callback\s+([\w-]+)\s*(?:\(([^)]*)\))?", top):
        args: list[tuple[str, str]] = []
        for part in filter(None, (p.strip() for p in (m.group(2) or "").split(","))):
            arg_name, _, arg_type = part.rpartition(":")
            args.append((arg_name.strip(), arg_type.strip()))
        decls.callbacks[m.group(1)] = args
    return decls


def _panel_params() -> list[Any]:
    return [pytest.param(p, id=p.name) for p in PANELS.values()]


# -- both ways ---------------------------------------------------------------------------------


@pytest.mark.parametrize("panel", _panel_params())
def test_every_contract_prop_is_declared_in_slint_with_its_type(panel: PanelContract) -> None:
    """PAN-9..11: the wire type of each prop maps to the declared Slint type."""
    root = read_root(REPO / panel.source)
    for prop in panel.props:
        assert prop.name in root.props, f"{panel.source}: no root property {prop.name}"
        access, slint_type = root.props[prop.name]
        assert access in ("in", "in-out"), f"{prop.name} must be settable, is {access}"
        assert slint_type == _squash(prop.slint_type), f"{prop.name}: {slint_type}"


@pytest.mark.parametrize("panel", _panel_params())
def test_every_settable_root_property_is_in_the_contract(panel: PanelContract) -> None:
    root = read_root(REPO / panel.source)
    settable = {n for n, (access, _) in root.props.items() if access in ("in", "in-out")}
    assert settable, "the reader found no properties: the test would prove nothing"
    extra = settable - {p.name for p in panel.props} - {FIELD_BLUR}
    assert not extra, f"{panel.source} declares props outside the contract: {sorted(extra)}"


@pytest.mark.parametrize("panel", _panel_params())
def test_callbacks_match_both_ways(panel: PanelContract) -> None:
    root = read_root(REPO / panel.source)
    declared = {n: a for n, a in root.callbacks.items() if n != FIELD_FOCUS}
    assert set(declared) == {c.name for c in panel.callbacks}
    for cb in panel.callbacks:
        expected = [(a.name, a.slint_type) for a in cb.args]
        assert declared[cb.name] == expected, f"{cb.name}: {declared[cb.name]} != {expected}"


@pytest.mark.parametrize("panel", _panel_params())
def test_names_are_kebab_case_and_avoid_builtins(panel: PanelContract) -> None:
    """docs/protocol-notes.md#r29: wire names are the Slint names; a built-in name cannot be
    redeclared on a root."""
    names = [p.name for p in panel.props] + [c.name for c in panel.callbacks]
    assert all(KEBAB.match(n) for n in names), [n for n in names if not KEBAB.match(n)]
    assert not RESERVED_NAMES.intersection(names)


def test_a_contract_with_a_builtin_name_is_refused() -> None:
    with pytest.raises(ValueError, match="title"):
        PanelContract("x", "x.slint", "", (Prop("title", Wire.STR, ""),))


def test_manifest_panels_are_the_contract_sources() -> None:
    """PAN-1/PAN-2: manifest panels are named by role; the contract names the same files."""
    manifest = tomllib.loads((REPO / "manifest.toml").read_text(encoding="utf-8"))
    for role, path in manifest["panels"].items():
        assert PANELS[role].source == path
    assert NOW_PLAYING.name not in manifest["panels"], "the toast is a runtime panel"


# -- the README is generated --------------------------------------------------------------------


def _generator() -> ModuleType:
    spec = importlib.util.spec_from_file_location(
        "gen_panel_contract", REPO / "tools" / "gen_panel_contract.py"
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_committed_readme_is_the_generated_one() -> None:
    text = _generator().render()
    assert (REPO / "panels" / "README.md").read_text(encoding="utf-8") == text, (
        "panels/README.md is stale: run .venv/bin/python tools/gen_panel_contract.py"
    )
    for panel in PANELS.values():
        for prop in panel.props:
            assert f"`{prop.name}`" in text
        for cb in panel.callbacks:
            assert f"`{cb.name}`" in text


# -- wire values --------------------------------------------------------------------------------


def test_tagged_values_have_the_wire_shapes() -> None:
    """PAN-8..11, with the examples of the spec."""
    cells = (Cell("a", Wire.STR, ""), Cell("b", Wire.I64, ""))
    assert tagged(Wire.BOOL, True) == {"t": "bool", "v": True}
    assert tagged(Wire.I64, 21) == {"t": "i64", "v": 21}
    assert tagged(Wire.F64, 0.5) == {"t": "f64", "v": 0.5}
    assert tagged(Wire.F64, 2) == {"t": "f64", "v": 2.0}
    assert tagged(Wire.STR, "x") == {"t": "str", "v": "x"}
    assert tagged(Wire.STR_LIST, ["a"]) == {"t": "str_list", "v": ["a"]}
    assert tagged(Wire.ROWS, [("row", -7)], cells) == {
        "t": "rows",
        "v": [[{"t": "str", "v": "row"}, {"t": "i64", "v": -7}]],
    }
    assert tagged(Wire.ASSETS, ["e:icon:1"]) == {"t": "assets", "v": ["e:icon:1"]}


@pytest.mark.parametrize(
    ("wire", "value"),
    [
        (Wire.I64, True),  # a bool is not an int on the wire
        (Wire.I64, 1.5),
        (Wire.I64, 2**53 + 1),  # PAN-9: beyond Slint's exact range
        (Wire.F64, float("nan")),
        (Wire.BOOL, 1),
        (Wire.STR, None),
        (Wire.STR_LIST, "abc"),
        (Wire.ASSETS, [1]),
    ],
)
def test_tagged_refuses_values_that_do_not_fit(wire: Wire, value: object) -> None:
    with pytest.raises(WireError):
        tagged(wire, value)


def test_lists_are_bounded_by_max_rows() -> None:
    slots = OVERLAY.prop("slots")
    blank = {Wire.STR: "", Wire.I64: 0, Wire.BOOL: False, Wire.F64: 0.0}
    row = tuple(blank[c.wire] for c in slots.cells)
    slots.wire_value([row] * 12)
    with pytest.raises(WireError, match="page"):
        slots.wire_value([row] * 13)
    with pytest.raises(WireError, match="cells"):
        slots.wire_value([row[:-1]])


_scalar_cells = st.lists(st.sampled_from([Wire.BOOL, Wire.I64, Wire.F64, Wire.STR]), max_size=5)


def _cell_value(wire: Wire) -> st.SearchStrategy[Any]:
    return {
        Wire.BOOL: st.booleans(),
        Wire.I64: st.integers(-(2**53), 2**53),
        Wire.F64: st.floats(allow_nan=False, allow_infinity=False),
        Wire.STR: st.text(max_size=20),
    }[wire]


@st.composite
def _rows_prop_and_value(draw: st.DrawFn) -> tuple[Prop, list[tuple[Any, ...]]]:
    wires = draw(_scalar_cells)
    cells = tuple(Cell(f"c{i}", w, "") for i, w in enumerate(wires))
    row = st.tuples(*(_cell_value(w) for w in wires))
    return Prop("p", Wire.ROWS, "", cells=cells), draw(st.lists(row, max_size=5))


@given(_rows_prop_and_value())
def test_check_accepts_exactly_what_wire_value_builds(case: tuple[Prop, list[Any]]) -> None:
    prop, rows = case
    value = prop.wire_value(rows)
    assert prop.check(value) == value


def test_check_refuses_a_wrong_tag() -> None:
    prop = OVERLAY.prop("page-index")
    with pytest.raises(WireError):
        prop.check({"t": "f64", "v": 1.0})
    with pytest.raises(WireError):
        prop.check({"t": "i64"})


# -- the real host's checker accepts what we send -------------------------------------------------


def _sample(prop: Prop) -> Any:
    scalar = {Wire.BOOL: True, Wire.I64: 3, Wire.F64: 0.25, Wire.STR: "テキスト"}
    match prop.wire:
        case Wire.ROWS:
            return [tuple(scalar[c.wire] for c in prop.cells)] * 2
        case Wire.STR_LIST | Wire.ASSETS:
            return ["cb:blank"]
        case _:
            return scalar[prop.wire]


@pytest.mark.parametrize("panel", _panel_params())
def test_vrosdev_accepts_every_prop_we_can_send(panel: PanelContract) -> None:
    """docs/protocol-notes.md#r29: an unknown or wrongly typed prop is a violation at the host: none
    of ours is."""
    pytest.importorskip("vrosdev.panels.props")
    from vrosdev.panels.declarations import parse_interface
    from vrosdev.panels.props import accept_prop

    interface = parse_interface((REPO / panel.source).read_text(encoding="utf-8"))
    for prop in panel.props:
        accepted = accept_prop(interface, prop.name, prop.wire_value(_sample(prop)))
        assert not isinstance(accepted, str), accepted
    assert isinstance(accept_prop(interface, "no-such-prop", tagged(Wire.STR, "x")), str)
