"""The registry, the exported surface, version gates and serialisation rules."""

from __future__ import annotations

import importlib
import subprocess
import sys

import pytest
from pydantic import TypeAdapter

import vxp.models
from vxp.models import registry
from vxp.models.assets import AssetFrame, AssetPut
from vxp.models.bus import BusPublish
from vxp.models.events import EVENT_SINCE
from vxp.models.kv import KvSet, KvValue
from vxp.models.media import MediaOpen, MediaReload, MediaSet
from vxp.models.panel import (
    ArgValue,
    BoolValue,
    F64Value,
    I64Value,
    PanelDefine,
    PanelProps,
    RowsValue,
    StrListValue,
    StrValue,
    prop,
    prop_assets,
    prop_bool,
    prop_f64,
    prop_i64,
    prop_rows,
    prop_str,
    prop_str_list,
)
from vxp.version import Version, fields_newer_than

EXPECTED = {
    # name: (capability, since, error codes)  — VER-5 … VER-10, KV-14, SEC-11, BUS-10, PAN-22,
    # AST-20, CMD-9, SET-20, STR-6, AUD-23, MED-26, FACE-32
    "kv": (None, "1.0", {"key_too_large", "value_too_large", "internal"}),
    "secrets": ("secrets", "1.0", {"not_persistable", "too_large", "internal"}),
    "bus": (None, "1.0", {"not_allowed", "internal"}),
    "panel": (
        None,
        "1.0",
        {"invalid_name", "source_too_large", "compile_failed", "no_such_panel", "not_allowed"}
        | {"internal"},
    ),
    "assets": (
        None,
        "1.3",
        {"too_large", "too_many_frames", "budget_full", "bad_key"} | {"bad_pixels"},
    ),
    "commands": (None, "1.0", {"invalid_name", "internal"}),
    "settings": (None, "1.1", {"no_such_key", "no_schema", "internal"}),
    "strings": (None, "1.1", {"prefix_not_allowed", "internal"}),
    "audio": (
        "audio",
        "1.2",
        {"not_found", "undecodable", "too_long", "cache_full", "unknown_sound"}
        | {"unknown_channel", "sample_not_cached", "no_valid_targets", "no_endpoint", "internal"},
    ),
    "media": (
        "media",
        "1.4",
        {"invalid_url", "invalid_key", "invalid_value", "unsupported", "too_many"}
        | {"no_such_session", "busy", "endpoint_unavailable", "open_failed", "playback_failed"}
        | {"dimension_limit"},
    ),
    "face": (
        None,
        "1.5",
        {"not_granted", "invalid_source", "invalid_sample", "too_many", "no_such_source"}
        | {"stale_generation", "out_of_order", "not_demanded", "unsupported"},
    ),
}


def test_namespaces_match_the_page() -> None:
    """T-13, E-7: every namespace, its grant, its version and its error codes."""
    assert list(registry.NAMESPACES) == list(EXPECTED)
    for name, (capability, since, codes) in EXPECTED.items():
        spec = registry.NAMESPACES[name]
        assert (spec.name, spec.capability, spec.since, set(spec.error_codes)) == (
            name,
            capability,
            since,
            codes,
        )
        assert isinstance(spec.request, TypeAdapter) and isinstance(spec.response, TypeAdapter)
    assert "hello" not in registry.NAMESPACES and registry.NAMESPACES.get("nope") is None
    assert registry.NAMESPACES["panel"].op_capabilities == {"define": "overlays"}
    assert set(registry.NAMESPACES["face"].op_capabilities.values()) == {
        "face_provide",
        "face_read",
    }


def test_ops_are_read_off_the_request_union() -> None:
    """T-13: ops per namespace, as the page's tables list them."""
    ops = {name: sorted(spec.ops) for name, spec in registry.NAMESPACES.items()}
    assert ops["kv"] == ["delete", "get", "list", "set"]
    audio_ops = ["load", "unload", "pre_arm", "play", "stop", "stop_all", "get_status"]
    assert ops["audio"] == sorted([*audio_ops, "list_channels", "list_devices"])
    assert ops["strings"] == ["get"]
    assert registry.NAMESPACES["media"].ops["set"] is MediaSet


def test_event_since_is_readings_r16() -> None:
    """H-18, docs/protocol-notes.md#r16: the minor that introduced each event."""
    assert registry.event_since() == EVENT_SINCE
    newer = {name: since for name, since in EVENT_SINCE.items() if since != "1.0"}
    assert newer == {
        "settings_changed": "1.1",
        "locale_changed": "1.1",
        "audio_loaded": "1.2",
        "media_snapshot": "1.4",
        "face_update": "1.5",
        "media_control": "1.6",
    }
    assert len(EVENT_SINCE) == 13


def test_lazy_adapters_are_built_once() -> None:
    assert registry.event_adapter() is registry.event_adapter()
    assert registry.EVENT_ADAPTER is registry.event_adapter()  # pyright: ignore[reportAttributeAccessIssue]
    assert registry.hello_adapter() is registry.HELLO_ADAPTER  # pyright: ignore[reportAttributeAccessIssue]
    spec = registry.NAMESPACES["kv"]
    assert spec.response is spec.response
    assert spec.response.validate_python(
        {"result": "value", "value": 3, "revision": 12}
    ) == KvValue(result="value", value=3, revision=12)


def test_importing_the_sdk_builds_no_namespace_module() -> None:
    """Start fast: before hello only framing, session and handshake are needed."""
    code = (
        "import sys, vxp.models, vxp.models.registry as r, vxp.limits\n"
        "loaded = sorted(m for m in sys.modules if m.startswith('vxp.models.'))\n"
        "print(','.join(loaded))\n"
        "r.NAMESPACES['kv']\n"
        "print('vxp.models.kv' in sys.modules, 'vxp.models.media' in sys.modules)\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    ).stdout.splitlines()
    namespaces = {f"vxp.models.{n}" for n in [*registry.NAMESPACES, "events"]}
    assert not namespaces & set(out[0].split(",")), out[0]
    assert out[1] == "True False"


def test_exported_names_are_pinned() -> None:
    """A small public surface, pinned: every name resolves, none is missing.

    Each public class and function a namespace module defines is exported from ``vxp.models``,
    except the two helpers named here; adding or dropping a model changes this test's view.
    """
    exported = vxp.models.__all__
    assert len(set(exported)) == len(exported)
    for name in exported:
        assert getattr(vxp.models, name) is not None
    assert {"Event", "KvRequest", "MediaOpen", "PanelProps", "prop", "EVENT_SINCE"} <= set(exported)
    not_exported = {"base64_size", "Vec3"}
    for module_name in [*registry.NAMESPACES, "handshake", "events"]:
        module = importlib.import_module(f"vxp.models.{module_name}")
        defined = {
            name
            for name, value in vars(module).items()
            if not name.startswith("_") and getattr(value, "__module__", None) == module.__name__
        }
        assert defined - not_exported <= set(exported), module_name
    with pytest.raises(AttributeError):
        _ = vxp.models.NoSuchModel  # pyright: ignore[reportAttributeAccessIssue]


@pytest.mark.parametrize(
    ("model", "host", "newer"),
    [
        (MediaOpen(key="d", url="u", native_controls=True), "1.5", ["native_controls"]),
        (MediaOpen(key="d", url="u", native_controls=True), "1.6", []),
        (MediaOpen(key="d", url="u", controls_on_player=False), "1.6", ["controls_on_player"]),
        (MediaSet(session="m", controls_on_player=True), "1.7", []),
        (MediaReload(session="m", url="u", title="t"), "1.5", ["title"]),
        (PanelDefine(panel="p", source="", anchor="world"), "1.2", ["anchor"]),
        (PanelDefine(panel="p", source=""), "1.2", []),
    ],
)
def test_version_gated_options_carry_since(model: object, host: str, newer: list[str]) -> None:
    """VER-8, VER-11, VER-12, docs/protocol-notes.md#r23: options newer than the host stay off."""
    assert isinstance(model, MediaOpen | MediaSet | MediaReload | PanelDefine)
    assert fields_newer_than(model, Version.parse(host)) == newer


def test_required_nulls_survive_exclude_none() -> None:
    """KV-6 (any JSON, null included), BUS-1: exclude_none drops options, not values."""
    assert KvSet(key="k", value=None).model_dump_json(exclude_none=True) == (
        '{"op":"set","key":"k","value":null}'
    )
    assert BusPublish(topic="ext.a.b", payload=None).model_dump(exclude_none=True) == {
        "op": "publish",
        "topic": "ext.a.b",
        "payload": None,
    }
    assert MediaSet(session="m").model_dump(exclude_none=True) == {"op": "set", "session": "m"}


def test_prop_helpers_build_typed_values() -> None:
    """PAN-6 … PAN-11: helpers give the tagged values; props serialise as [name, value]."""
    assert prop(True) == prop_bool(True) == BoolValue(v=True)
    assert prop(21) == prop_i64(21) == I64Value(v=21)
    assert prop(0.5) == prop_f64(0.5) == F64Value(v=0.5)
    assert prop("text") == prop_str("text") == StrValue(v="text")
    assert prop(["a", "b"]) == prop_str_list(("a", "b")) == StrListValue(v=["a", "b"])
    rows = prop_rows([["row", -7, True, 1.5]])
    assert rows == RowsValue(
        v=[[StrValue(v="row"), I64Value(v=-7), BoolValue(v=True), F64Value(v=1.5)]]
    )
    assert prop(rows) is rows
    props = PanelProps(
        panel="overlay", props=[("count", prop(21)), ("icons", prop_assets(["e:icon:1"]))]
    )
    assert props.model_dump(mode="json", exclude_none=True)["props"] == [
        ["count", {"t": "i64", "v": 21}],
        ["icons", {"t": "assets", "v": ["e:icon:1"]}],
    ]
    args = TypeAdapter(list[ArgValue]).validate_python([{"t": "bool", "v": False}])
    assert args == [BoolValue(v=False)]


def test_asset_frame_round_trips_pixels() -> None:
    """AST-7: straight RGBA8 in, the same bytes out."""
    pixels = bytes(range(16))
    frame = AssetFrame.from_rgba(pixels, 40)
    assert frame.rgba() == pixels
    put = AssetPut(key="e:icon:1", width=2, height=2, frames=[frame])
    assert pixels.hex() not in repr(put) and frame.rgba_base64 not in repr(put)
