"""Credentials never reach vrosdev's logs and transcripts (T-6, MED-12, secrets)."""

from __future__ import annotations

import copy
import json
import string
from typing import Any

import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from vrosdev.redact import OPAQUE_SCHEMES, FrameRedactor, is_url, redact_frame, redact_text
from vrosdev.script import parse_line, transcript_text

TOKEN = "tok_Zq3x9LmP2vR7sKd4"

# Launch tokens are random url-safe strings, long enough (vrosdev's are far longer).
tokens = st.text(alphabet=string.ascii_letters + string.digits + "-_", min_size=8, max_size=40)
json_scalars = st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text()
json_values = st.recursive(
    json_scalars,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(), inner, max_size=4),
    max_leaves=20,
)


@pytest.mark.parametrize(
    "text",
    [
        "https://cdn.example/live.m3u8?sig=abc",
        "HTTP://EXAMPLE.COM",
        "rtmp://live.example/app/key",
        "rtsp://10.0.0.2:554/stream",
        "file:///home/me/clip.mp4",
        "ws://localhost:8080/socket",
        "srt://host:9000?passphrase=x",
        "mailto:me@example.com",
        "magnet:?xt=urn:btih:abc",
        "data:text/plain,hello",
        "http:example.com/x",
        "custom-scheme+v2.x://anything",
    ],
)
def test_urls_with_a_scheme_are_urls(text: str) -> None:
    assert is_url(text)
    assert redact_text(text, None) == "<url>"


@pytest.mark.parametrize(
    "text",
    [
        "e:icon:1",
        "e:icon:https",
        "e:file:1",
        "e:data:12",
        "icons/mailto:3",
        "s-00000001",
        "m-00000001",
        "12:30",
        "12:30:45",
        "Note: the stream",
        "C:\\Users\\you\\Documents\\vrOS",
        "ext.cueboard.title",
        "vr.lifecycle",
        "https://",
        "localhost:8080",
        "ratio 16:9",
        "",
    ],
)
def test_non_urls_are_kept(text: str) -> None:
    assert not is_url(text)
    assert redact_text(text, None) == text


def test_urls_inside_longer_strings_are_replaced() -> None:
    line = 'opening "https://cdn.example/a?sig=S1" then rtmp://x/y, at 12:30 for e:icon:1'
    assert redact_text(line, None) == 'opening "<url> then <url> at 12:30 for e:icon:1'


def test_a_url_inside_a_name_is_still_redacted() -> None:
    assert redact_text("e:https://thumb.example/p.png", None) == "e:<url>"


def test_token_is_replaced_everywhere_in_text() -> None:
    assert redact_text(f"hello token={TOKEN}; again:{TOKEN}", TOKEN) == (
        "hello token=<token>; again:<token>"
    )


def test_short_or_missing_tokens_are_not_searched() -> None:
    assert redact_text("a short abc", "abc") == "a short abc"
    assert redact_text("x", "") == "x"


def test_hello_frame_loses_its_token() -> None:
    hello = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "hello",
        "params": {"id": "com.cueboard.soundboard", "vxp_version": "1.7", "token": TOKEN},
    }
    assert redact_frame(hello, TOKEN)["params"]["token"] == "<token>"


def test_media_url_field_is_replaced_whatever_it_holds_med12() -> None:
    for url in ("https://cdn.example/x", "not a url at all", 42):
        frame = {
            "jsonrpc": "2.0",
            "id": 7,
            "method": "media",
            "params": {"op": "open", "key": "deck-1", "url": url, "title": "Stream"},
        }
        out = redact_frame(frame, TOKEN)
        assert out["params"] == {"op": "open", "key": "deck-1", "url": "<url>", "title": "Stream"}


def test_a_url_field_outside_media_is_only_redacted_when_it_is_a_url() -> None:
    frame = {"jsonrpc": "2.0", "id": 3, "method": "kv", "params": {"op": "get", "key": "url"}}
    assert redact_frame(frame, TOKEN) == frame


def test_panel_event_args_with_typed_urls_are_redacted() -> None:
    frame = {
        "jsonrpc": "2.0",
        "method": "event",
        "params": {
            "event": "panel_event",
            "panel": "overlay",
            "callback": "url-entered",
            "args": [
                {"t": "str", "v": "rtsp://cam.local/live?user=a&pw=b"},
                {"t": "str_list", "v": ["ok", "see https://x.example/p now"]},
                {
                    "t": "rows",
                    "v": [[{"t": "str", "v": "https://y.example"}, {"t": "i64", "v": 3}]],
                },
                {"t": "assets", "v": ["e:icon:1"]},
            ],
        },
    }
    args = redact_frame(frame, TOKEN)["params"]["args"]
    assert args == [
        {"t": "str", "v": "<url>"},
        {"t": "str_list", "v": ["ok", "see <url> now"]},
        {"t": "rows", "v": [[{"t": "str", "v": "<url>"}, {"t": "i64", "v": 3}]]},
        {"t": "assets", "v": ["e:icon:1"]},
    ]


def test_object_keys_are_redacted_too() -> None:
    frame = {"jsonrpc": "2.0", "id": 2, "result": {"https://k.example/x": 1, TOKEN: 2}}
    assert redact_frame(frame, TOKEN)["result"] == {"<url>": 1, "<token>": 2}


def test_secrets_set_value_is_replaced() -> None:
    frame = {
        "jsonrpc": "2.0",
        "id": 9,
        "method": "secrets",
        "params": {"op": "set", "slot": "stream-1", "value": "plain password"},
    }
    out = redact_frame(frame, TOKEN)
    assert out["params"] == {"op": "set", "slot": "stream-1", "value": "<secret>"}


def test_redactor_pairs_responses_with_secrets_requests() -> None:
    redactor = FrameRedactor(TOKEN)
    secret_get = {
        "jsonrpc": "2.0",
        "id": 4,
        "method": "secrets",
        "params": {"op": "get", "slot": "s"},
    }
    kv_get = {"jsonrpc": "2.0", "id": 5, "method": "kv", "params": {"op": "get", "key": "k"}}
    assert redactor.redact(secret_get) == secret_get
    assert redactor.redact(kv_get) == kv_get
    kv_value = {"jsonrpc": "2.0", "id": 5, "result": {"result": "value", "value": "visible"}}
    secret_value = {"jsonrpc": "2.0", "id": 4, "result": {"result": "value", "value": "hunter2"}}
    assert redactor.redact(kv_value)["result"]["value"] == "visible"
    assert redactor.redact(secret_value)["result"]["value"] == "<secret>"
    empty = {"jsonrpc": "2.0", "id": 6, "result": {"result": "value", "value": None}}
    redactor.redact({"jsonrpc": "2.0", "id": 6, "method": "secrets", "params": {"op": "get"}})
    assert redactor.redact(empty)["result"]["value"] is None, "an empty slot is not a secret"
    assert "hunter2" not in repr(redactor)


def test_without_the_request_a_value_result_without_revision_is_taken_for_a_secret() -> None:
    bare = {"jsonrpc": "2.0", "id": 4, "result": {"result": "value", "value": "hunter2"}}
    kv = {"jsonrpc": "2.0", "id": 5, "result": {"result": "value", "value": 3, "revision": 12}}
    assert redact_frame(bare, TOKEN)["result"]["value"] == "<secret>"
    assert redact_frame(kv, TOKEN)["result"]["value"] == 3
    assert redact_frame(bare, TOKEN, response_to="kv")["result"]["value"] == "hunter2"
    assert redact_frame(kv, TOKEN, response_to="secrets")["result"]["value"] == "<secret>"


def test_input_frame_is_not_modified() -> None:
    frame = {
        "jsonrpc": "2.0",
        "id": 7,
        "method": "media",
        "params": {"op": "open", "key": "k", "url": "https://h/x", "extra": [TOKEN]},
    }
    before = copy.deepcopy(frame)
    redact_frame(frame, TOKEN)
    assert frame == before


@given(token=tokens, before=st.text(), after=st.text())
@example(token="abcdefgh", before="abcdefg", after="h")
@example(token="n>xxxxxxx", before="", after="xxxxxxx")
def test_token_never_survives(token: str, before: str, after: str) -> None:
    text = before + token + after
    assert token not in redact_text(text, token)
    frame = {"method": "event", "params": {"args": [text, {text: text}]}}
    assert token not in json.dumps(redact_frame(frame, token), ensure_ascii=False)


@given(token=tokens, text=st.text())
@example(token=TOKEN, text="x-data:http://a b mailto:http://c")
@example(token=TOKEN, text="http" + TOKEN + "://host/p")
def test_text_redaction_is_idempotent(token: str, text: str) -> None:
    once = redact_text(text, token)
    assert redact_text(once, token) == once


@given(token=tokens, frame=json_values)
def test_frame_redaction_is_idempotent(token: str, frame: Any) -> None:
    once = redact_frame(frame, token)
    assert redact_frame(once, token) == once


@given(
    scheme=st.sampled_from(["http", "https", "rtmp", "rtsp", "ws", "file", "srt", "x-custom"]),
    rest=st.text(alphabet=string.ascii_letters + string.digits + "/?&=.%-_~", min_size=1),
    before=st.text(alphabet=string.ascii_letters + " .,", max_size=20),
)
def test_embedded_urls_never_survive(scheme: str, rest: str, before: str) -> None:
    url = f"{scheme}://{rest}"
    assert redact_text(f"{before} {url} tail", None) == f"{before} <url> tail"


@given(
    st.from_regex(r"[a-z]:[a-z]{1,12}:[0-9]{1,4}", fullmatch=True)
    | st.builds("e:{}:{}".format, st.sampled_from(sorted(OPAQUE_SCHEMES)), st.integers(0, 999))
    | st.from_regex(r"[sm]-[0-9]{8}", fullmatch=True)
    | st.from_regex(r"[0-2][0-9]:[0-5][0-9](:[0-5][0-9])?", fullmatch=True)
)
def test_asset_keys_ids_and_times_are_kept(text: str) -> None:
    assert redact_text(text, TOKEN) == text
    assert redact_frame({"v": [text]}, TOKEN) == {"v": [text]}


@pytest.mark.parametrize(
    ("line", "noted"),
    [
        (
            'click overlay media-open ["https://media.example/s.m3u8?token=x", "Demo stream"]',
            'click overlay media-open ["<url>", "Demo stream"]',
        ),
        (
            'bus-publish ext.a.b {"path": "x.wav", "link": "rtmp://h/app/key"}',
            'bus-publish ext.a.b {"path": "x.wav", "link": "<url>"}',
        ),
        ('setting sounds_folder "https://h/p q"', 'setting sounds_folder "<url> q"'),
        ("invoke play-slot-1", "invoke play-slot-1"),
    ],
)
def test_a_script_steps_json_argument_is_redacted_as_json(line: str, noted: str) -> None:
    """The transcript's note of a step keeps its JSON valid: the URL becomes "<url>", and the
    quote and comma after it stay."""
    step = parse_line(line)
    assert step is not None
    assert transcript_text(step) == noted
