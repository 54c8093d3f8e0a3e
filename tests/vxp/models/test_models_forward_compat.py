"""What a newer host may add parses into explicit unknown values (VER-2, VER-3, T-12)."""

from __future__ import annotations

from typing import Any

import pytest
from pydantic import ValidationError

from vxp.models import registry
from vxp.models.audio import AudioErr, UnknownOutcome
from vxp.models.events import AudioLoaded, MediaControl, MediaSnapshot, PanelEvent, UnknownEvent
from vxp.models.kv import KvSet
from vxp.models.media import MediaSet, PlaybackUnknown, UnknownAction
from vxp.models.panel import I64Value, UnknownValue


def test_unknown_event_parses_into_unknown_event() -> None:
    """VER-3: an event a newer host added is skipped, not fatal."""
    event = registry.event_adapter().validate_python({"event": "hand_pose", "pose": [1, 2]})
    assert isinstance(event, UnknownEvent) and event.event == "hand_pose"


@pytest.mark.parametrize("namespace", list(registry.NAMESPACES))
def test_unknown_result_parses_into_the_namespace_unknown(namespace: str) -> None:
    """VER-3 for every namespace's response union."""
    reply = registry.NAMESPACES[namespace].response.validate_python(
        {"result": "queued", "eta_ms": 5}
    )
    assert type(reply).__name__.endswith("Unknown")
    assert reply.result == "queued"


@pytest.mark.parametrize("namespace", list(registry.NAMESPACES))
def test_unknown_code_is_a_plain_string(namespace: str) -> None:
    """VER-3: codes are strings; a new one is kept, not refused."""
    reply = registry.NAMESPACES[namespace].response.validate_python(
        {"result": "err", "code": "brand_new_code"}
    )
    assert reply.code == "brand_new_code" and reply.message is None
    assert "brand_new_code" not in registry.NAMESPACES[namespace].error_codes


def test_unknown_kinds_parse_into_unknown_members() -> None:
    """Unknown ``kind`` values are skipped like unknown events.

    docs/protocol-notes.md#shapes-the-page-does-not-give
    """
    adapter = registry.event_adapter()
    loaded = adapter.validate_python(
        {"event": "audio_loaded", "sound": "s-1", "outcome": {"kind": "partial", "pct": 50}}
    )
    assert isinstance(loaded, AudioLoaded) and isinstance(loaded.outcome, UnknownOutcome)
    control = adapter.validate_python(
        {
            "event": "media_control",
            "key": "deck-1",
            "session": "m-1",
            "source_generation": 1,
            "action": {"kind": "seek", "position_ms": 10},
        }
    )
    assert isinstance(control, MediaControl) and isinstance(control.action, UnknownAction)
    snapshot = adapter.validate_python(
        {
            "event": "media_snapshot",
            "granted": True,
            "sessions": [
                {
                    "key": "deck-1",
                    "session": "m-1",
                    "source_generation": 1,
                    "playback": {"kind": "seeking"},
                    "video": "upscaling",
                }
            ],
        }
    )
    assert isinstance(snapshot, MediaSnapshot)
    assert isinstance(snapshot.sessions[0].playback, PlaybackUnknown)
    assert snapshot.sessions[0].video == "upscaling"
    assert snapshot.sessions[0].max_fps == 30  # MED-8 default


def test_unknown_value_type_in_panel_event_args() -> None:
    """EVT-8: args are typed values; a type a newer host added is an UnknownValue."""
    event = registry.event_adapter().validate_python(
        {
            "event": "panel_event",
            "panel": "overlay",
            "callback": "pick",
            "args": [{"t": "color", "v": "#fff"}, {"t": "i64", "v": 4, "unit": "px"}],
        }
    )
    assert isinstance(event, PanelEvent)
    assert isinstance(event.args[0], UnknownValue) and event.args[0].t == "color"
    assert event.args[1] == I64Value(v=4)


EXTRA = {"added_in_1_9": {"nested": True}}

INBOUND_SAMPLES: list[tuple[str, dict[str, Any]]] = [
    ("kv", {"result": "value", "value": 3, "revision": 12}),
    ("secrets", {"result": "exists", "exists": False}),
    ("bus", {"result": "ok"}),
    ("panel", {"result": "defined", "revision": 1}),
    ("assets", {"result": "ok"}),
    ("commands", {"result": "ok"}),
    ("settings", {"result": "values", "entries": [{"key": "k", "value": 1, "x": 2}]}),
    ("strings", {"result": "strings", "locale": "en-US", "entries": {}}),
    ("audio", {"result": "devices", "endpoints": [{"id": "a", "name": "A", "x": 1}]}),
    ("media", {"result": "opened", "session": "m-1", "source_generation": 1}),
    ("face", {"result": "registered", "generation": 1}),
]


@pytest.mark.parametrize(
    ("namespace", "sample"), INBOUND_SAMPLES, ids=[n for n, _ in INBOUND_SAMPLES]
)
def test_inbound_ignores_unknown_fields(namespace: str, sample: dict[str, Any]) -> None:
    """VER-2, T-12: a field a newer host adds is ignored, in the response and nested objects."""
    adapter = registry.NAMESPACES[namespace].response
    assert adapter.validate_python({**sample, **EXTRA}) == adapter.validate_python(sample)
    assert not type(adapter.validate_python(sample)).__name__.endswith("Unknown")


def test_events_ignore_unknown_fields() -> None:
    """T-12 for events."""
    adapter = registry.event_adapter()
    plain = {"event": "command_invoked", "command": "play-next"}
    assert adapter.validate_python({**plain, **EXTRA}) == adapter.validate_python(plain)


def test_client_refuses_unknown_fields_but_the_host_ignores_them() -> None:
    """Outbound models catch our own typos; the host side (context) ignores extras (T-12)."""
    params = {"op": "set", "key": "k", "value": 1, "revison": 3}
    spec = registry.NAMESPACES["kv"]
    with pytest.raises(ValidationError, match="Extra inputs are not permitted"):
        spec.request.validate_python(params)
    parsed = spec.request.validate_python(params, context=registry.host_context())
    assert parsed == KvSet(key="k", value=1)


def test_set_with_native_controls_is_refused_on_both_sides() -> None:
    """docs/protocol-notes.md#r23: ``set`` carrying ``native_controls`` is err invalid_value, also
    on the host."""
    spec = registry.NAMESPACES["media"]
    params = {"op": "set", "session": "m-1", "native_controls": True}
    with pytest.raises(ValidationError) as info:
        spec.request.validate_python(params, context=registry.host_context())
    code = registry.domain_error_of(info.value)
    assert code is not None and code[0] == "invalid_value"
    assert "native_controls" not in MediaSet.model_fields


def test_unknown_op_fits_no_request_shape() -> None:
    """docs/protocol-notes.md#r4: the host answers an unknown op with -32602; it is not a domain
    error."""
    with pytest.raises(ValidationError) as info:
        registry.NAMESPACES["kv"].request.validate_python(
            {"op": "increment", "key": "k"}, context=registry.host_context()
        )
    assert registry.domain_error_of(info.value) is None


def test_error_replies_keep_their_message() -> None:
    """E-3: ``message`` is usually there, but optional."""
    reply = registry.NAMESPACES["audio"].response.validate_python(
        {"result": "err", "code": "no_endpoint", "message": "no cable"}
    )
    assert reply == AudioErr(result="err", code="no_endpoint", message="no cable")
