"""The deck's parts: URL and title limits (MED-11), the URL never in a message (MED-12),
option ranges (MED-13), notices, and the deck props against cueboard.core.contract.
"""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from cueboard.core.contract import DASH_TAB, OVERLAY, MediaMode, Playback, StatusLevel, Video
from cueboard.core.deck import (
    FALLBACK_TEXT,
    DeckOptions,
    DeckView,
    SlotView,
    check_options,
    dash_deck_props,
    deck_props,
    kv_slot_key,
    notice_text,
    overlay_deck_props,
)
from cueboard.core.effects import Notice
from cueboard.core.media_urls import (
    SECRET_MAX_BYTES,
    URL_MAX_BYTES,
    CheckedUrl,
    DeckInputError,
    check_title,
    check_url,
    title_for,
)
from cueboard.runtime.catalogs import load_catalog
from vxp import Secret

EN = load_catalog("en-US")
INPUT_KEYS = {
    "media.error.invalid_url",
    "media.error.url_too_long",
    "media.error.title_too_long",
    "media.error.invalid_option",
}


@pytest.mark.parametrize(
    "url",
    [
        "https://media.example.test/live.m3u8",
        "http://10.0.0.2:8080/a",
        "rtmp://live.example.test/app/key",
        "rtsp://cam.local/stream1",
        "  https://media.example.test/pasted-with-spaces  ",
        "HTTPS://MEDIA.example.test/x",
        "https://[::1]:8443/v",
    ],
)
def test_stream_urls_are_accepted(url: str) -> None:
    checked = check_url(url)
    assert isinstance(checked.url, Secret)
    assert checked.url.reveal() == url.strip()
    assert checked.host and "/" not in checked.host


@pytest.mark.parametrize(
    ("url", "key"),
    [
        ("", "media.error.invalid_url"),
        ("   ", "media.error.invalid_url"),
        ("media/live", "media.error.invalid_url"),  # no scheme, and no host https:// would fit
        ("user@media.example.test/live", "media.error.invalid_url"),
        ("ftp://media.example.test/x", "media.error.invalid_url"),
        ("file:///etc/passwd", "media.error.invalid_url"),
        ("https:///no-host", "media.error.invalid_url"),
        ("https://media.example.test/a b", "media.error.invalid_url"),
        ("https://media.example.test/a\x00b", "media.error.invalid_url"),
        ("https://media.example.test:99999/x", "media.error.invalid_url"),
        ("https://media.example.test/" + "a" * URL_MAX_BYTES, "media.error.url_too_long"),
    ],
)
def test_med11_bad_urls_are_refused_with_a_catalog_key(url: str, key: str) -> None:
    with pytest.raises(DeckInputError) as caught:
        check_url(url)
    assert caught.value.key == key


def test_med11_the_url_limit_is_8_kib_of_utf8() -> None:
    head = "https://media.example.test/"
    assert check_url(head + "a" * (URL_MAX_BYTES - len(head))).size == URL_MAX_BYTES
    with pytest.raises(DeckInputError):
        check_url(head + "é" * ((URL_MAX_BYTES - len(head)) // 2 + 1))


def test_a_url_fits_a_secret_up_to_2048_bytes() -> None:
    head = "https://media.example.test/"
    assert check_url(head + "a" * (SECRET_MAX_BYTES - len(head))).fits_secret
    assert not check_url(head + "a" * (SECRET_MAX_BYTES - len(head) + 1)).fits_secret


def _checked(url: str) -> CheckedUrl | DeckInputError:
    try:
        return check_url(url)
    except DeckInputError as exc:
        return exc


@given(st.text(max_size=300))
def test_med12_any_text_is_accepted_or_refused_with_a_key_that_never_quotes_it(text: str) -> None:
    url = "https://h.test/" + text
    outcome = _checked(url)  # anything but DeckInputError propagates and fails the test
    if isinstance(outcome, DeckInputError):
        assert outcome.key in INPUT_KEYS
        assert outcome.args == (outcome.key,) and str(outcome) == outcome.key
        assert all(not isinstance(v, str) for v in outcome.params.values())
    else:
        assert outcome.url.reveal() == url.strip()
        assert url.strip() not in repr(outcome) and url.strip() not in str(outcome)


def test_title_defaults_to_the_host_name_never_the_url() -> None:
    checked = check_url("https://user:pw@Media.Example.test:8443/live/x?token=1")
    assert title_for("", checked) == "media.example.test"
    assert title_for("  Friday stream ", checked) == "Friday stream"
    assert "live" not in repr(checked) and "token" not in repr(checked)


def test_med11_title_is_at_most_256_bytes() -> None:
    assert check_title("é" * 128) == "é" * 128
    with pytest.raises(DeckInputError) as caught:
        check_title("é" * 128 + "x")
    assert caught.value.key == "media.error.title_too_long"


@pytest.mark.parametrize(
    ("changes", "ok"),
    [
        ({"max_fps": 1}, True),
        ({"max_fps": 120}, True),
        ({"max_fps": 0}, False),
        ({"max_fps": 121}, False),
        ({"volume_pct": 0}, True),
        ({"volume_pct": 100}, True),
        ({"volume_pct": -1}, False),
        ({"volume_pct": 101}, False),
        ({"volume_pct": True}, False),
        ({"paused": 1}, False),
        ({"native_controls": False}, True),
    ],
)
def test_med13_option_ranges(changes: dict[str, object], ok: bool) -> None:
    if ok:
        check_options(changes)
    else:
        with pytest.raises(DeckInputError) as caught:
            check_options(changes)
        assert caught.value.key == "media.error.invalid_option"


def test_an_unknown_option_is_a_programming_error() -> None:
    with pytest.raises(ValueError, match="not a media option"):
        check_options({"url": "x"})


def test_notices_render_from_the_catalog_or_the_fallback_text() -> None:
    known = Notice("media.error.code", StatusLevel.ERROR, {"title": "Clip", "code": "open_failed"})
    assert notice_text(known, EN) == "Clip: media error (open_failed)."
    for key in FALLBACK_TEXT:
        params = {"title": "T", "limit": 8192, "option": "max_fps", "min": 1, "max": 120}
        text = notice_text(Notice(key, params=params), EN)
        assert text != key and "{" not in text
    not_kept = Notice(
        "media.url_not_kept",
        StatusLevel.INFO,
        {"title": "Night"},
        {"reason": "media.reason.not_persistable"},
    )
    assert (
        notice_text(not_kept, EN) == "Night: paste the URL again (this vrOS cannot store secrets)."
    )


def test_kv_keys_never_hold_more_than_the_slot_number() -> None:
    assert [kv_slot_key(f"deck-{n}") for n in range(1, 5)] == [
        "deck:1",
        "deck:2",
        "deck:3",
        "deck:4",
    ]


def _view() -> DeckView:
    slots = (
        SlotView(
            "deck-1", "Stream", Playback.PLAYING, "", Video.RECOVERING, False, 80, False, False, 2
        ),
        SlotView(
            "deck-3", "Old", Playback.NO_SESSION, "", Video.DISABLED, False, 100, True, True, None
        ),
        SlotView(
            "deck-4", "Bad", Playback.FAILED, "network", Video.DISABLED, False, 50, False, False, 1
        ),
    )
    return DeckView(MediaMode.READY, slots, DeckOptions(max_fps=60), True, False, 3)


def test_deck_props_are_exactly_the_contract_deck_props_and_well_typed() -> None:
    props = deck_props(_view(), EN)
    assert set(props["overlay"]) == {"media-mode", "deck", "url-clear"}
    dash_media = {p.name for p in DASH_TAB.props if p.name.startswith("media-")}
    assert set(props["dash-tab"]) == dash_media
    for name, value in props["overlay"].items():
        assert OVERLAY.prop(name).check(value) == value
    for name, value in props["dash-tab"].items():
        assert DASH_TAB.prop(name).check(value) == value


def test_overlay_rows_carry_title_states_and_needs_url() -> None:
    overlay = overlay_deck_props(_view(), EN)
    rows = [[cell["v"] for cell in row] for row in overlay["deck"]["v"]]
    assert rows[0] == ["deck-1", "Stream", "Playing", 2, "recovering", 3, False, 80, False, False]
    assert rows[1][0] == "deck-3" and rows[1][2] == "Waiting for its URL" and rows[1][9] is True
    assert rows[2][2] == "Failed (network)"
    assert overlay["media-mode"] == {"t": "i64", "v": 1}
    assert overlay["url-clear"] == {"t": "i64", "v": 3}


def test_dash_props_show_the_version_gated_options() -> None:
    dash = dash_deck_props(_view())
    assert dash["media-max-fps"] == {"t": "i64", "v": 60}
    assert dash["media-native-controls"] == {"t": "bool", "v": True}
    assert dash["media-native-controls-shown"] == {"t": "bool", "v": True}
    assert dash["media-controls-on-player-shown"] == {"t": "bool", "v": False}
