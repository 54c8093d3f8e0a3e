"""Every JSON example of the VXP 1.7 page and of the protocol notes' shapes parses and
re-serialises.

Fixtures are literal lines copied from the VXP 1.7 page and from
docs/protocol-notes.md#shapes-the-page-does-not-give; a second
table covers every op and result the page's tables name, built from those tables.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from pydantic import BaseModel

from vxp.models import registry
from vxp.models.handshake import Hello

# (namespace or "event" / "hello" / "hello_result", direction, literal JSON)
SPEC_EXAMPLES: list[tuple[str, str, str]] = [
    # the VXP 1.7 page, "Requests, responses and events"
    ("kv", "request", '{"op":"get","key":"count"}'),
    ("kv", "response", '{"result":"value","value":3,"revision":12}'),
    ("event", "event", '{"event":"panel_shown","panel":"overlay"}'),
    # "Domain errors"
    ("kv", "response", '{"result":"err","code":"value_too_large","message":"…"}'),
    # "Handshake"
    ("hello", "request", '{"id":"com.example.hello","vxp_version":"1.7","token":"…"}'),
    (
        "hello_result",
        "response",
        '{"result":"welcome","vxp_version":"1.7","granted":{"bus":["vr.lifecycle"],'
        '"overlays":false,"capture":false,"audio":false,"media":false,"osc":false,'
        '"network":false,"secrets":false},"locale":"en-US",'
        '"content_root":"C:\\\\Users\\\\you\\\\Documents\\\\vrOS"}',
    ),
    (
        "hello_result",
        "response",
        '{"result":"rejected","code":"version_unsupported",'
        '"message":"host speaks 1.7 (N and N-1 majors)"}',
    ),
    # "panel"
    (
        "panel",
        "request",
        '{"op":"props","panel":"overlay","props":[["count",{"t":"i64","v":21}],'
        '["title",{"t":"str","v":"Hello"}]]}',
    ),
    # "assets"
    (
        "assets",
        "request",
        '{"op":"put","key":"e:icon:1","width":1,"height":1,'
        '"frames":[{"rgba_base64":"/////w==","delay_ms":100}],"loop":0}',
    ),
    # "audio"
    (
        "audio",
        "request",
        '{"op":"play","sound":"s-00000001","targets":[{"channel":"soundboard","gain_pct":80},'
        '{"channel":"mic","gain_pct":40}],"looping":false}',
    ),
    # "face"
    (
        "face",
        "request",
        '{"op":"register","source":{"id":"sim","name":"Simulated eyes + mouth","device":"Demo",'
        '"transport":"VXP","capabilities":{"combined_gaze":true,"eye_lids":true,'
        '"expressions":["jaw_open"]},"max_rate_hz":30}}',
    ),
]

# docs/protocol-notes.md#shapes-the-page-does-not-give (verbatim)
READINGS_SHAPES: list[tuple[str, str, str]] = [
    (
        "event",
        "event",
        '{"event":"audio_loaded","sound":"s-00000001","outcome":{"kind":"loaded",'
        '"duration_ms":600,"loudness_lufs":-17.1}}',
    ),
    (
        "event",
        "event",
        '{"event":"audio_loaded","sound":"s-00000002","outcome":{"kind":"failed",'
        '"code":"undecodable","message":"not an audio file"}}',
    ),
    (
        "audio",
        "response",
        '{"result":"status","playing":[{"sound":"s-00000001","targets":[{"channel":"soundboard",'
        '"gain_pct":80}],"looping":false}]}',
    ),
    (
        "audio",
        "response",
        '{"result":"channels","channels":[{"channel":"mic","available":true,"armed":false,'
        '"endpoint":"cable-in"}]}',
    ),
    (
        "audio",
        "response",
        '{"result":"devices","endpoints":[{"id":"speakers","name":"Speakers"}],'
        '"default_endpoint":"speakers"}',
    ),
    (
        "event",
        "event",
        '{"event":"media_snapshot","granted":true,"sessions":[{"key":"deck-1",'
        '"session":"m-00000001","source_generation":2,"title":"Stream","playback":{"kind":"failed",'
        '"code":"network"},"video":"recovering","paused":false,"volume_pct":80,"muted":false,'
        '"show_video":true,"max_fps":30,"native_controls":true,"controls_on_player":false}]}',
    ),
    (
        "event",
        "event",
        '{"event":"media_control","key":"deck-1","session":"m-00000001","source_generation":2,'
        '"action":{"kind":"set_paused","paused":true}}',
    ),
    (
        "event",
        "event",
        '{"event":"media_control","key":"deck-1","session":"m-00000001","source_generation":2,'
        '"action":{"kind":"set_volume","volume_pct":35}}',
    ),
    (
        "event",
        "event",
        '{"event":"media_control","key":"deck-1","session":"m-00000001","source_generation":2,'
        '"action":{"kind":"stop"}}',
    ),
    (
        "settings",
        "response",
        '{"result":"values","entries":[{"key":"mic_gain","value":40,"is_default":true}]}',
    ),
]

# Every other op and result of the page's tables, with the fields the tables name.
TABLE_EXAMPLES: list[tuple[str, str, str]] = [
    ("kv", "request", '{"op":"set","key":"count","value":{"a":[1,null]}}'),
    ("kv", "request", '{"op":"set","key":"count","value":null}'),
    ("kv", "request", '{"op":"delete","key":"count"}'),
    ("kv", "request", '{"op":"list"}'),
    ("kv", "response", '{"result":"written","revision":13,"over_quota":false}'),
    ("kv", "response", '{"result":"deleted"}'),
    ("kv", "response", '{"result":"keys","keys":["count"]}'),
    ("secrets", "request", '{"op":"set","slot":"stream","value":"hunter2"}'),
    ("secrets", "request", '{"op":"get","slot":"stream"}'),
    ("secrets", "request", '{"op":"delete","slot":"stream"}'),
    ("secrets", "request", '{"op":"exists","slot":"stream"}'),
    ("secrets", "response", '{"result":"ok"}'),
    ("secrets", "response", '{"result":"value","value":null}'),
    ("secrets", "response", '{"result":"value","value":"hunter2"}'),
    ("secrets", "response", '{"result":"exists","exists":true}'),
    ("secrets", "response", '{"result":"err","code":"not_persistable","message":"no backend"}'),
    ("bus", "request", '{"op":"publish","topic":"ext.com.cueboard.soundboard.x","payload":null}'),
    ("bus", "request", '{"op":"subscribe","pattern":"ext.cat.kittyn.twitch.*"}'),
    ("bus", "request", '{"op":"unsubscribe","pattern":"vr.lifecycle"}'),
    ("bus", "response", '{"result":"ok"}'),
    ("bus", "response", '{"result":"err","code":"not_allowed"}'),
    (
        "panel",
        "request",
        '{"op":"props","panel":"dash-tab","props":[["on",{"t":"bool","v":true}],'
        '["ratio",{"t":"f64","v":0.5}],["names",{"t":"str_list","v":["a","b"]}],'
        '["grid",{"t":"rows","v":[[{"t":"str","v":"row"},{"t":"i64","v":-7}]]}],'
        '["icons",{"t":"assets","v":["e:icon:1"]}]]}',
    ),
    (
        "panel",
        "request",
        '{"op":"define","panel":"mini","source":"export component Mini {}","width":400,'
        '"height":300,"anchor":"hmd"}',
    ),
    ("panel", "request", '{"op":"define","panel":"mini","source":"export component Mini {}"}'),
    ("panel", "request", '{"op":"remove","panel":"mini"}'),
    ("panel", "response", '{"result":"applied"}'),
    ("panel", "response", '{"result":"defined","revision":2}'),
    ("panel", "response", '{"result":"removed"}'),
    ("panel", "response", '{"result":"err","code":"compile_failed","message":"line 1"}'),
    ("assets", "request", '{"op":"remove","key":"e:icon:1"}'),
    ("assets", "request", '{"op":"clear"}'),
    ("assets", "response", '{"result":"ok"}'),
    ("assets", "response", '{"result":"err","code":"budget_full","message":"retry"}'),
    ("commands", "request", '{"op":"register","name":"play-next"}'),
    ("commands", "request", '{"op":"unregister","name":"play-next"}'),
    ("commands", "response", '{"result":"ok"}'),
    ("commands", "response", '{"result":"err","code":"invalid_name"}'),
    ("settings", "request", '{"op":"get","key":"send_target"}'),
    ("settings", "request", '{"op":"list"}'),
    (
        "settings",
        "response",
        '{"result":"value","key":"send_target","value":"127.0.0.1:9000","is_default":true}',
    ),
    ("settings", "response", '{"result":"err","code":"no_such_key","message":"nope"}'),
    ("strings", "request", '{"op":"get","prefix":"ext.vros.","locale":"ja-JP"}'),
    ("strings", "request", '{"op":"get","prefix":"ext.vros."}'),
    ("strings", "response", '{"result":"strings","locale":"en-US","entries":{"ext.vros.a":"A"}}'),
    ("strings", "response", '{"result":"err","code":"prefix_not_allowed"}'),
    ("audio", "request", '{"op":"load","path":"/home/u/vrOS/airhorn.wav","normalize":true}'),
    ("audio", "request", '{"op":"load","path":"C:\\\\Users\\\\you\\\\a.wav","normalize":false}'),
    ("audio", "request", '{"op":"unload","sound":"s-00000001"}'),
    ("audio", "request", '{"op":"pre_arm","channel":"mic"}'),
    ("audio", "request", '{"op":"stop","sound":"s-00000001"}'),
    ("audio", "request", '{"op":"stop_all"}'),
    ("audio", "request", '{"op":"get_status"}'),
    ("audio", "request", '{"op":"list_channels"}'),
    ("audio", "request", '{"op":"list_devices"}'),
    ("audio", "response", '{"result":"loading","sound":"s-00000001"}'),
    ("audio", "response", '{"result":"ok"}'),
    ("audio", "response", '{"result":"err","code":"unknown_sound","message":"gone"}'),
    (
        "media",
        "request",
        '{"op":"open","key":"deck-1","url":"https://example.test/live.m3u8?token=s3cr3t",'
        '"title":"Stream","max_fps":30,"volume_pct":80,"muted":false,"paused":false,'
        '"show_video":true,"native_controls":true,"controls_on_player":false}',
    ),
    ("media", "request", '{"op":"open","key":"deck-1","url":"https://example.test/a"}'),
    ("media", "request", '{"op":"set","session":"m-00000001","volume_pct":35,"paused":true}'),
    (
        "media",
        "request",
        '{"op":"reload","session":"m-00000001","url":"https://example.test/b","title":"B"}',
    ),
    ("media", "request", '{"op":"close","session":"m-00000001"}'),
    ("media", "request", '{"op":"status","session":"m-00000001"}'),
    ("media", "response", '{"result":"opened","session":"m-00000001","source_generation":1}'),
    ("media", "response", '{"result":"applied","source_generation":2}'),
    ("media", "response", '{"result":"closed"}'),
    (
        "media",
        "response",
        '{"result":"status","key":"deck-1","session":"m-00000001","source_generation":2,'
        '"title":"Stream","playback":{"kind":"playing"},"video":"ready","paused":false,'
        '"volume_pct":80,"muted":false,"show_video":true,"max_fps":30,"native_controls":true,'
        '"controls_on_player":false}',
    ),
    ("media", "response", '{"result":"err","code":"unsupported","message":"Windows only"}'),
    ("face", "request", '{"op":"unregister","source_id":"sim"}'),
    (
        "face",
        "request",
        '{"op":"publish","source_id":"sim","generation":1,"sample":{"sequence":7,"age_ms":12.5,'
        '"eyes":{"gaze":[0.0,0.0,-1.0],"closed_left":0.1,"closed_right":0.2,'
        '"convergence_m":0.8,"confidence":0.9},"mouth":{"weights":[{"expression":"jaw_open",'
        '"value":0.5}]}}}',
    ),
    ("face", "request", '{"op":"subscribe","eyes":true,"mouth":false}'),
    ("face", "request", '{"op":"unsubscribe"}'),
    ("face", "response", '{"result":"registered","generation":3}'),
    ("face", "response", '{"result":"ok"}'),
    ("face", "response", '{"result":"err","code":"not_demanded"}'),
    ("event", "event", '{"event":"shutting_down"}'),
    ("event", "event", '{"event":"vr_lifecycle","state":"attached"}'),
    ("event", "event", '{"event":"bus","topic":"ext.a.b","payload":{"n":1}}'),
    ("event", "event", '{"event":"panel_hidden","panel":"overlay"}'),
    (
        "event",
        "event",
        '{"event":"panel_event","panel":"overlay","callback":"play",'
        '"args":[{"t":"i64","v":3},{"t":"str","v":"airhorn"}]}',
    ),
    ("event", "event", '{"event":"command_invoked","command":"play-next"}'),
    ("event", "event", '{"event":"settings_changed","key":"rate","value":10}'),
    ("event", "event", '{"event":"locale_changed","locale":"ja-JP"}'),
    (
        "event",
        "event",
        '{"event":"face_update","state":{"granted":{"provide":true,"read":true},'
        '"eyes":{"source_id":"sim","age_ms":20.0,"sample":{"gaze":[0.0,0.0,-1.0]}},'
        '"mouth":null,"demands":[{"source_id":"sim","eyes":true,"mouth":false}]}}',
    ),
]


def _parse(kind: str, direction: str, text: str) -> BaseModel:
    data: Any = json.loads(text)
    if kind == "event":
        return registry.event_adapter().validate_python(data)
    if kind == "hello":
        return Hello.model_validate(data)
    if kind == "hello_result":
        return registry.hello_adapter().validate_python(data)
    spec = registry.NAMESPACES[kind]
    adapter = spec.request if direction == "request" else spec.response
    model: BaseModel = adapter.validate_python(data)
    return model


def _covers(original: Any, dumped: Any) -> bool:
    """``dumped`` holds everything ``original`` holds (it may add defaults); 1 equals 1.0.

    A null in ``original`` may be absent from ``dumped`` (``exclude_none``).
    """
    if isinstance(original, dict):
        return isinstance(dumped, dict) and all(
            (v is None and k not in dumped) or (k in dumped and _covers(v, dumped[k]))
            for k, v in original.items()  # pyright: ignore[reportUnknownVariableType]
        )
    if isinstance(original, list):
        return (
            isinstance(dumped, list)
            and len(dumped) == len(original)  # pyright: ignore[reportUnknownArgumentType]
            and all(_covers(a, b) for a, b in zip(original, dumped, strict=True))  # pyright: ignore[reportUnknownArgumentType]
        )
    if isinstance(original, bool) or isinstance(dumped, bool):
        return original is dumped
    return bool(original == dumped)


ALL = SPEC_EXAMPLES + READINGS_SHAPES + TABLE_EXAMPLES


@pytest.mark.parametrize(
    ("kind", "direction", "text"), ALL, ids=[f"{k}-{t[:40]}" for k, _, t in ALL]
)
def test_example_parses_and_reserialises(kind: str, direction: str, text: str) -> None:
    """T-13, T-14, T-15, PAN-8, AST-6, AUD-19, FACE-11, and the shapes of
    docs/protocol-notes.md#shapes-the-page-does-not-give."""
    model = _parse(kind, direction, text)
    assert "Unknown" not in type(model).__name__, "a known example parsed as unknown"
    original = json.loads(text)
    dumped = model.model_dump(mode="json", exclude_none=True)
    if direction == "request":
        # What we send is exactly what the page shows: no defaults added, nothing dropped.
        assert _covers(original, dumped)
        assert _covers(dumped, original)
    else:
        assert _covers(original, dumped)
    assert _parse(kind, direction, json.dumps(dumped)) == model


def test_every_example_tag_is_covered() -> None:
    """Each op of every namespace appears in at least one request example (T-13)."""
    seen: dict[str, set[str]] = {}
    for kind, direction, text in ALL:
        if direction == "request" and kind in registry.NAMESPACES:
            seen.setdefault(kind, set()).add(json.loads(text)["op"])
    for name, spec in registry.NAMESPACES.items():
        assert seen.get(name, set()) == set(spec.ops), name
