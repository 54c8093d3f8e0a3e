"""Typed props against declared Slint types (PAN-6 … PAN-11, docs/protocol-notes.md#r29), asset
frames (AST-*)."""

from __future__ import annotations

import base64
from typing import Any

import pytest
import slint
from hypothesis import given
from hypothesis import strategies as st

from vrosdev.panels import accept_prop, parse_interface, to_slint_value, wire_args
from vrosdev.panels.assets import asset_from_wire, finished, frame_images, frame_index
from vrosdev.panels.props import AcceptedProp, args_from_wire, rows_fields
from vrosdev.panels.slint_types import ListOf, Scalar, StructOf, parse_type

from .panel_samples import PROBE_PANEL

PANEL = parse_interface(PROBE_PANEL)


def _accept(name: str, tag: str, value: Any) -> AcceptedProp:
    accepted = accept_prop(PANEL, name, {"t": tag, "v": value})
    assert isinstance(accepted, AcceptedProp), accepted
    return accepted


def _violation(name: str, tagged: Any) -> str:
    result = accept_prop(PANEL, name, tagged)
    assert isinstance(result, str), result
    return result


def test_scalars_map_to_their_slint_types() -> None:
    """PAN-9."""
    assert to_slint_value(_accept("count", "i64", 2**53)) == 2**53
    assert to_slint_value(_accept("level", "f64", 1)) == 1.0
    assert isinstance(to_slint_value(_accept("level", "f64", 1)), float)
    assert to_slint_value(_accept("label", "str", "héllo 🎵")) == "héllo 🎵"


def test_str_list_becomes_a_list_model_of_str() -> None:
    """PAN-9: a plain list would be rejected by Slint, so it must be a ListModel."""
    model = to_slint_value(_accept("names", "str_list", ["a", "b"]))
    assert isinstance(model, slint.ListModel)
    assert list(model) == ["a", "b"]


def test_rows_become_a_model_of_c0_cn_dicts() -> None:
    """PAN-10: the fixed rows shape [{c0: T0, c1: T1, ...}]."""
    cells = [
        {"t": "str", "v": "Airhorn"},
        {"t": "i64", "v": -7},
        {"t": "bool", "v": True},
        {"t": "f64", "v": 0.5},
    ]
    model = to_slint_value(_accept("sounds", "rows", [cells, cells]))
    assert isinstance(model, slint.ListModel)
    assert list(model) == [{"c0": "Airhorn", "c1": -7, "c2": True, "c3": 0.5}] * 2


@pytest.mark.parametrize(
    ("rows", "why"),
    [
        ([[{"t": "str", "v": "a"}]], "4 cells"),  # a missing cell would show as blank in Slint
        ([[{"t": "str", "v": "a"}, {"t": "f64", "v": 1.0}, {"t": "bool", "v": True}] * 2], "cells"),
        (
            [
                [
                    {"t": "i64", "v": 1},
                    {"t": "i64", "v": 1},
                    {"t": "bool", "v": 1},
                    {"t": "f64", "v": 1},
                ]
            ],
            "declared string",
        ),
        ("not rows", "list of rows"),
    ],
)
def test_badly_shaped_rows_are_violations(rows: Any, why: str) -> None:
    assert why in _violation("sounds", {"t": "rows", "v": rows})


def test_the_rows_shape_is_recognised_only_with_c0_cn_scalar_fields() -> None:
    assert rows_fields(parse_type("[{c0: string, c1: int}]")) == (("c0", "string"), ("c1", "int"))
    named = StructOf("Row", (("c0", Scalar("bool")),))
    assert rows_fields(parse_type("[Row]", {"Row": named})) == (("c0", "bool"),)
    assert rows_fields(parse_type("[{name: string}]")) is None
    assert rows_fields(parse_type("[{c1: string}]")) is None
    assert rows_fields(parse_type("[{c0: [string]}]")) is None
    assert parse_type("[[string]]") == ListOf(ListOf(Scalar("string")))


def test_unknown_names_and_wrong_types_are_violations() -> None:
    """docs/protocol-notes.md#r29: logged and ignored."""
    assert "unknown prop 'nope'" in _violation("nope", {"t": "i64", "v": 1})
    assert "unknown prop 'seen'" in _violation("seen", {"t": "str", "v": "x"})  # an out property
    assert "declared int" in _violation("count", {"t": "f64", "v": 1.0})
    assert "declared float" in _violation("level", {"t": "i64", "v": 1})
    assert "not a valid i64" in _violation("count", {"t": "i64", "v": True})
    assert "not a valid i64" in _violation("count", {"t": "i64", "v": "5"})
    assert "64-bit range" in _violation("count", {"t": "i64", "v": 2**63})
    assert "not a valid str" in _violation("label", {"t": "str", "v": None})
    assert "list of strings" in _violation("names", {"t": "str_list", "v": ["a", 1]})
    assert '{"t": tag, "v": value}' in _violation("count", 5)
    assert "PAN-26" in _violation("field-blur", {"t": "i64", "v": 9})


@given(st.integers(min_value=-(2**63), max_value=2**63 - 1))
def test_every_i64_fits_an_int_prop_and_no_bool_does(value: int) -> None:
    assert _accept("count", "i64", value).value == value


@given(st.booleans())
def test_bools_are_never_ints(value: bool) -> None:
    assert isinstance(accept_prop(PANEL, "count", {"t": "i64", "v": value}), str)


def test_callback_args_are_typed_like_props() -> None:
    """panel_event args are typed values (spec Events)."""
    play, level = PANEL.callbacks["play"], PANEL.callbacks["set-level"]
    assert wire_args(play, (3, "x")) == [{"t": "i64", "v": 3}, {"t": "str", "v": "x"}]
    assert wire_args(level, (0.25, False)) == [{"t": "f64", "v": 0.25}, {"t": "bool", "v": False}]
    assert args_from_wire(play, [{"t": "i64", "v": 2}, {"t": "str", "v": "y"}]) == [2, "y"]
    with pytest.raises(ValueError, match="does not fit"):
        args_from_wire(play, [{"t": "str", "v": "2"}, {"t": "str", "v": "y"}])


def _frame(rgba: bytes, delay: int) -> dict[str, Any]:
    return {"rgba_base64": base64.b64encode(rgba).decode(), "delay_ms": delay}


def test_asset_frames_become_slint_images() -> None:
    """AST-6, AST-7: straight RGBA8, width x height x 4 bytes per frame."""
    red, blue = bytes([255, 0, 0, 255]) * 4, bytes([0, 0, 255, 255]) * 4
    asset = asset_from_wire(
        {"key": "e:icon:1", "width": 2, "height": 2, "frames": [_frame(red, 100), _frame(blue, 50)]}
    )
    images = frame_images(asset)
    assert [(i.width, i.height) for i in images] == [(2, 2), (2, 2)]
    with pytest.raises(ValueError, match="expected 16"):
        asset_from_wire({"key": "k", "width": 2, "height": 2, "frames": [_frame(red[:12], 100)]})


def test_frames_follow_their_delays_and_loop_count() -> None:
    """AST-8: loop is the total number of plays; 0 repeats forever."""
    one = bytes(4)
    frames = [_frame(one, 100), _frame(one, 50)]
    forever = asset_from_wire({"key": "a", "width": 1, "height": 1, "frames": frames, "loop": 0})
    twice = asset_from_wire({"key": "b", "width": 1, "height": 1, "frames": frames, "loop": 2})
    assert [frame_index(forever, t) for t in (0, 99, 100, 149, 150, 1000, 1050)] == [
        0,
        0,
        1,
        1,
        0,
        1,
        0,
    ]
    assert [frame_index(twice, t) for t in (0, 120, 160, 260, 300, 10_000)] == [0, 1, 0, 1, 1, 1]
    assert finished(twice, 300)
    assert not finished(forever, 10**9)
