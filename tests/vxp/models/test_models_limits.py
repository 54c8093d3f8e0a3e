"""Each limit of the page fails locally, with a clear message and the host's domain code.

A bad call must never reach the host: the client gets a pydantic ValidationError naming the
limit. The host emulator reads the domain code back with ``registry.domain_error_of``.
"""

from __future__ import annotations

import base64
import re
from collections.abc import Callable
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st
from pydantic import ValidationError

from vxp.models import registry
from vxp.models.assets import AssetFrame, AssetPut, AssetRemove, base64_size
from vxp.models.audio import AudioLoad, AudioPlay, PlayTarget
from vxp.models.bus import BusPublish, BusSubscribe
from vxp.models.commands import CommandRegister
from vxp.models.face import (
    Eyes,
    FaceCapabilities,
    FaceSample,
    FaceSource,
    Mouth,
    Weight,
)
from vxp.models.kv import KvGet, KvSet
from vxp.models.media import MediaOpen, MediaReload, MediaSet
from vxp.models.panel import (
    BoolValue,
    F64Value,
    I64Value,
    PanelDefine,
    PanelProps,
    PanelRemove,
    prop_assets,
    prop_str,
)
from vxp.models.secrets import SecretSet
from vxp.models.settings import SettingsGet
from vxp.models.strings import StringsGet

URL = "https://example.test/live.m3u8?token=URL-CREDENTIAL-4242"
SECRET = "SECRET-VALUE-4242"
PIXEL = base64.b64encode(b"\xff\xff\xff\xff").decode()


def _frames(count: int, side: int = 1, delay: int = 100) -> list[AssetFrame]:
    return [AssetFrame.from_rgba(b"\x00" * side * side * 4, delay) for _ in range(count)]


def _source(**change: Any) -> FaceSource:
    fields: dict[str, Any] = {
        "id": "sim",
        "name": "Sim",
        "device": "Demo",
        "transport": "VXP",
        "capabilities": {"combined_gaze": True},
        "max_rate_hz": 30,
    }
    fields.update(change)
    return FaceSource(**fields)


# (checklist id, a call that breaks the limit, words the message must contain, domain code)
CASES: list[tuple[str, Callable[[], object], str, str | None]] = [
    ("KV-9-key", lambda: KvGet(key="k" * 257), "257 bytes", "key_too_large"),
    (
        "KV-10-value",
        lambda: KvSet(key="k", value="v" * 65536),
        "the limit is 65536",
        "value_too_large",
    ),
    (
        "SEC-7-value",
        lambda: SecretSet(slot="s", value=SECRET * 200),
        "the limit is 2048",
        "too_large",
    ),
    (
        "BUS-6-pattern",
        lambda: BusSubscribe(pattern="ext.a*.b"),
        "prefix ending in '.*'",
        "not_allowed",
    ),
    ("BUS-6-star-only", lambda: BusSubscribe(pattern=".*"), "prefix ending", "not_allowed"),
    ("BUS-1-topic", lambda: BusPublish(topic="ext.a.*", payload=1), "without '*'", "not_allowed"),
    ("PAN-20-upper", lambda: PanelRemove(panel="Overlay"), "[a-z0-9-]", "invalid_name"),
    ("PAN-20-long", lambda: PanelRemove(panel="p" * 65), "1-64", "invalid_name"),
    ("PAN-20-empty", lambda: PanelRemove(panel=""), "1-64", "invalid_name"),
    (
        "PAN-21-source",
        lambda: PanelDefine(panel="p", source="x" * (256 * 1024 + 1)),
        "the limit is 262144",
        "source_too_large",
    ),
    ("PAN-16-anchor", lambda: PanelDefine(panel="p", source="", anchor="floor"), "world", None),
    ("PAN-9-i64", lambda: I64Value(v=2**53 + 1), "2**53", None),
    ("PAN-9-i64-neg", lambda: I64Value(v=-(2**53) - 1), "2**53", None),
    ("PAN-9-i64-bool", lambda: I64Value.model_validate({"t": "i64", "v": True}), "integer", None),
    ("PAN-9-bool", lambda: BoolValue.model_validate({"t": "bool", "v": 1}), "boolean", None),
    ("PAN-9-f64-nan", lambda: F64Value(v=float("nan")), "finite", None),
    ("PAN-11-asset-key", lambda: prop_assets(["no spaces"]), "asset key", None),
    (
        "PAN-6-prop-name",
        lambda: PanelProps(panel="overlay", props=[("two words", prop_str("x"))]),
        "Slint identifier",
        None,
    ),
    (
        "PAN-10-rows-nest",
        lambda: PanelProps.model_validate(
            {"panel": "overlay", "props": [["r", {"t": "rows", "v": [[{"t": "rows", "v": []}]]}]]}
        ),
        "does not match",
        None,
    ),
    ("AST-15-key", lambda: AssetRemove(key="k" * 129), "1-128", "bad_key"),
    ("AST-15-chars", lambda: AssetRemove(key="a b"), "1-128", "bad_key"),
    (
        "AST-9-side",
        lambda: AssetPut(key="k", width=129, height=1, frames=_frames(1)),
        "the limit is 128",
        "too_large",
    ),
    (
        "R18-zero-side",
        lambda: AssetPut(key="k", width=0, height=1, frames=_frames(1)),
        "at least 1",
        "bad_pixels",
    ),
    (
        "AST-10-frames",
        lambda: AssetPut(key="k", width=1, height=1, frames=_frames(61)),
        "the limit is 60",
        "too_many_frames",
    ),
    (
        "R18-no-frames",
        lambda: AssetPut(key="k", width=1, height=1, frames=[]),
        "at least one frame",
        "bad_pixels",
    ),
    (
        "AST-11-delay-low",
        lambda: AssetFrame(rgba_base64=PIXEL, delay_ms=19),
        "20-1000",
        "bad_pixels",
    ),
    (
        "AST-11-delay-high",
        lambda: AssetFrame(rgba_base64=PIXEL, delay_ms=1001),
        "20-1000",
        "bad_pixels",
    ),
    (
        "AST-7-length",
        lambda: AssetPut(
            key="k", width=2, height=1, frames=[AssetFrame(rgba_base64=PIXEL, delay_ms=100)]
        ),
        "needs 8",
        "bad_pixels",
    ),
    (
        "AST-7-base64",
        lambda: AssetFrame(rgba_base64="not base64!", delay_ms=100),
        "not valid base64",
        "bad_pixels",
    ),
    (
        "AST-12-decoded",
        lambda: AssetPut(key="k", width=128, height=128, frames=_frames(33, side=128)),
        "the limit is 2097152",
        "too_large",
    ),
    (
        "AST-8-loop",
        lambda: AssetPut(key="k", width=1, height=1, frames=_frames(1), loop=-1),
        "greater than or equal to 0",
        None,
    ),
    ("CMD-8-name", lambda: CommandRegister(name="Play_Next"), "[a-z0-9-]", "invalid_name"),
    ("SET-12-key", lambda: SettingsGet(key="Send Target"), "[a-z0-9_-]", "no_such_key"),
    (
        "STR-2-prefix",
        lambda: StringsGet(prefix="com.cueboard."),
        "must start with 'ext.'",
        "prefix_not_allowed",
    ),
    ("AUD-19-gain-high", lambda: PlayTarget(channel="mic", gain_pct=101), "0-100", None),
    ("AUD-19-gain-low", lambda: PlayTarget(channel="mic", gain_pct=-1), "0-100", None),
    ("AUD-14-relative", lambda: AudioLoad(path="sounds/a.wav"), "absolute", "not_found"),
    (
        "AUD-20-no-targets",
        lambda: AudioPlay(sound="s-1", targets=[]),
        "at least one target",
        "no_valid_targets",
    ),
    ("MED-9-key", lambda: MediaOpen(key="Deck 1", url=URL), "[a-z0-9-]", "invalid_key"),
    (
        "MED-11-url",
        lambda: MediaOpen(key="d", url=URL + "x" * 8192),
        "the limit is 8192",
        "invalid_url",
    ),
    ("MED-11-url-empty", lambda: MediaOpen(key="d", url=""), "empty", "invalid_url"),
    (
        "MED-11-reload-url",
        lambda: MediaReload(session="m", url=URL * 300),
        "the limit is 8192",
        "invalid_url",
    ),
    (
        "MED-11-title",
        lambda: MediaOpen(key="d", url=URL, title="é" * 129),
        "258 bytes",
        "invalid_value",
    ),
    ("MED-13-fps-low", lambda: MediaOpen(key="d", url=URL, max_fps=0), "1-120", "invalid_value"),
    ("MED-13-fps-high", lambda: MediaSet(session="m", max_fps=121), "1-120", "invalid_value"),
    ("MED-13-volume-low", lambda: MediaSet(session="m", volume_pct=-1), "0-100", "invalid_value"),
    (
        "MED-13-volume-high",
        lambda: MediaOpen(key="d", url=URL, volume_pct=101),
        "0-100",
        "invalid_value",
    ),
    (
        "MED-4-R23-native",
        lambda: MediaSet.model_validate({"session": "m", "native_controls": True}),
        "native_controls",
        "invalid_value",
    ),
    ("FACE-12-id", lambda: _source(id="Sim"), "[a-z0-9-]", "invalid_source"),
    ("FACE-13-text", lambda: _source(device="d" * 129), "the limit is 128", "invalid_source"),
    ("FACE-14-rate-low", lambda: _source(max_rate_hz=0), "1-240", "invalid_source"),
    ("FACE-14-rate-high", lambda: _source(max_rate_hz=241), "1-240", "invalid_source"),
    (
        "FACE-15-expression",
        lambda: FaceCapabilities(expressions=["Jaw Open"]),
        "expression",
        "invalid_source",
    ),
    (
        "FACE-15-not-one-of-the-37",
        lambda: FaceCapabilities(expressions=["smile"]),
        "37 expressions",
        "invalid_source",
    ),
    (
        "FACE-27-weight-of-no-expression",
        lambda: FaceSample(
            sequence=1, age_ms=1, mouth=Mouth(weights=[Weight(expression="grin", value=0.5)])
        ),
        "37 expressions",
        "invalid_sample",
    ),
    (
        "FACE-22-age",
        lambda: FaceSample(sequence=1, age_ms=250, eyes=Eyes(closed_left=0.5)),
        "under 250",
        "invalid_sample",
    ),
    (
        "FACE-23-empty",
        lambda: FaceSample(sequence=1, age_ms=1),
        "eyes, mouth or both",
        "invalid_sample",
    ),
    ("FACE-24-gaze", lambda: Eyes(gaze=(0.0, 0.0, -2.0)), "unit vector", "invalid_sample"),
    ("FACE-25-lid", lambda: Eyes(closed_left=1.5), "0-1", "invalid_sample"),
    ("FACE-26-confidence", lambda: Eyes(confidence=-0.1), "0-1", "invalid_sample"),
    ("FACE-26-convergence", lambda: Eyes(convergence_m=-1.0), ">= 0", "invalid_sample"),
    ("FACE-27-weight", lambda: Weight(expression="jaw_open", value=1.5), "0-1", "invalid_sample"),
]


@pytest.mark.parametrize(("check_id", "call", "words", "code"), CASES, ids=[c[0] for c in CASES])
def test_limit_fails_locally(
    check_id: str, call: Callable[[], object], words: str, code: str | None
) -> None:
    with pytest.raises(ValidationError) as info:
        call()
    text = str(info.value)
    assert words in text, text
    assert registry.domain_error_of(info.value) == (
        None if code is None else (code, info.value.errors()[0]["msg"])
    )
    assert SECRET not in text and URL not in text and SECRET not in repr(info.value)


def test_limits_accept_their_edges() -> None:
    """The inclusive ends of each range are legal (AST-9 … AST-12, MED-13, FACE-14, AUD-19)."""
    AssetPut(key="k" * 128, width=128, height=128, frames=_frames(32, side=128))
    AssetPut(key="k", width=1, height=1, frames=_frames(60, delay=20), loop=3)
    AssetFrame(rgba_base64=PIXEL, delay_ms=1000)
    PlayTarget(channel="mic", gain_pct=0)
    PlayTarget(channel="mic", gain_pct=100)
    MediaOpen(key="k" * 64, url="u" * 8192, title="t" * 256, max_fps=120, volume_pct=0)
    MediaSet(session="m", max_fps=1, volume_pct=100)
    _source(max_rate_hz=240, name="n" * 128)
    SecretSet(slot="s", value="v" * 2048)
    KvGet(key="k" * 256)
    PanelDefine(panel="p" * 64, source="x" * 256 * 1024)
    I64Value(v=2**53)
    FaceSample(sequence=0, age_ms=249.9, eyes=Eyes(gaze=(0.0, 0.0, -1.0), closed_left=1.0))
    Weight(expression="jaw_open", value=0.0)


def test_url_never_appears_in_errors_or_reprs() -> None:
    """MED-12: the URL is a credential, also through the registry's adapter and in reprs."""
    bad = {"op": "open", "key": "Deck 1", "url": URL, "max_fps": "fast", "extra": URL}
    with pytest.raises(ValidationError) as info:
        registry.NAMESPACES["media"].request.validate_python(bad)
    assert URL not in str(info.value) and URL not in repr(info.value)
    assert URL not in info.value.json(include_input=False)
    opened = MediaOpen(key="deck-1", url=URL)
    reloaded = MediaReload(session="m-1", url=URL)
    for model in (opened, reloaded):
        assert URL not in repr(model) and URL not in str(model)
    assert opened.model_dump()["url"] == URL  # revealed only when serialising


def test_secret_never_appears_in_errors_or_reprs() -> None:
    """SEC-8: a secret value stays out of reprs and validation errors, both directions."""
    secret_set = SecretSet(slot="stream", value=SECRET)
    assert SECRET not in repr(secret_set) and SECRET not in str(secret_set)
    spec = registry.NAMESPACES["secrets"]
    reply = spec.response.validate_python({"result": "value", "value": SECRET})
    assert SECRET not in repr(reply)
    for bad in (
        {"op": "set", "slot": 7, "value": SECRET * 200},
        {"op": "set", "slot": "s", "value": SECRET * 200},
    ):
        with pytest.raises(ValidationError) as info:
            spec.request.validate_python(bad)
        assert SECRET not in str(info.value) and SECRET not in repr(info.value)
    with pytest.raises(ValidationError) as reply_info:
        spec.response.validate_python({"result": "value", "value": [SECRET]})
    assert SECRET not in str(reply_info.value)


def test_domain_error_needs_every_failure_to_be_a_limit() -> None:
    """A limit plus a shape error is -32602, not a domain err (E-1: never both)."""
    with pytest.raises(ValidationError) as info:
        registry.NAMESPACES["panel"].request.validate_python(
            {"op": "define", "panel": "Bad", "source": "", "width": "wide"}
        )
    assert registry.domain_error_of(info.value) is None


# -- base64: the one rule the SDK and vrosdev share (AST-7, docs/protocol-notes.md#r18) ------------

_PADDED_BASE64 = re.compile(r"(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?")


@given(st.binary(max_size=64))
def test_ast7_base64_size_of_every_encoding_is_its_length(data: bytes) -> None:
    assert base64_size(base64.b64encode(data).decode()) == len(data)


@given(st.text(alphabet="AQgw/+=-_ \n\u00e9", max_size=12))
def test_ast7_base64_size_agrees_with_the_rfc_4648_grammar(text: str) -> None:
    """Against an independent statement of RFC 4648 § 4: a regex, then a real decode."""
    expected = len(base64.b64decode(text)) if _PADDED_BASE64.fullmatch(text) else None
    assert base64_size(text) == expected


def test_ast7_padding_after_a_complete_quad_is_refused() -> None:
    """binascii's strict mode accepts "AAAA=" (3 bytes); the host and the SDK refuse it."""
    assert base64_size("AAAA=") is None and base64_size("AAAA") == 3
    with pytest.raises(ValidationError):
        AssetFrame(rgba_base64="AAAA====", delay_ms=100)
