"""Every media request rule of vrosdev's player simulation (MED-2 … MED-16, MED-26,
docs/protocol-notes.md#r15, docs/protocol-notes.md#r22, docs/protocol-notes.md#r23)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import pytest

from vrosdev.media import MediaHost, MediaParamsError

if TYPE_CHECKING:
    from conftest import Harness

URL = "https://media.example/live.m3u8"


def test_open_answers_opened_with_first_session_id_and_generation_1_med3_r22(h: Harness) -> None:
    """MED-3: open answers opened with the first session id and source_generation 1."""
    assert h.open() == {"result": "opened", "session": "m-00000001", "source_generation": 1}
    assert h.open(key="deck-2")["session"] == "m-00000002"


def test_open_defaults_med8_and_title_optional_r15(h: Harness) -> None:
    """MED-8: the option defaults of a bare open; the title may be left out."""
    sid = h.open()["session"]
    row = h.row("a", sid)
    assert row["title"] == ""
    assert {k: row[k] for k in ("max_fps", "volume_pct", "muted", "paused", "show_video")} == {
        "max_fps": 30,
        "volume_pct": 100,
        "muted": False,
        "paused": False,
        "show_video": True,
    }
    assert row["native_controls"] is False
    assert row["controls_on_player"] is False


def test_open_takes_every_option(h: Harness) -> None:
    options = {
        "max_fps": 60,
        "volume_pct": 35,
        "muted": True,
        "paused": True,
        "show_video": False,
        "native_controls": True,
        "controls_on_player": True,
    }
    sid = h.open(title="Stream", **options)["session"]
    row = h.row("a", sid)
    assert row["title"] == "Stream"
    assert {k: row[k] for k in options} == options


@pytest.mark.parametrize("key", ["", "Deck", "deck_1", "deck 1", "déck", "a" * 65, "deck/1"])
def test_invalid_key_med9(h: Harness, key: str) -> None:
    """MED-9: keys outside [a-z0-9-] or longer than 64 bytes are invalid_key."""
    assert h.code(h.open(key=key)) == "invalid_key"


@pytest.mark.parametrize("key", ["a" * 64, "deck-1", "0", "-"])
def test_valid_key_med9(h: Harness, key: str) -> None:
    """MED-9: the longest and plainest valid keys are accepted."""
    assert h.open(key=key)["result"] == "opened"


@pytest.mark.parametrize(
    "url",
    ["", "not a url", "12:30", "e:icon:1", "https://", "https://host/a b", "//host/path", "/tmp/x"],
)
def test_invalid_url(h: Harness, url: str) -> None:
    assert h.code(h.open(url=url)) == "invalid_url"


@pytest.mark.parametrize(
    "url", ["https://h/x", "rtmp://h/live", "file:///tmp/clip.mp4", "rtsp://10.0.0.2:554/s"]
)
def test_valid_url(h: Harness, url: str) -> None:
    assert h.open(url=url)["result"] == "opened"


def test_url_limit_is_8_kib_in_bytes_med11(h: Harness) -> None:
    """MED-11: the URL limit is 8 KiB counted in UTF-8 bytes."""
    head = "https://h/"
    assert h.open(key="a", url=head + "x" * (8192 - len(head)))["result"] == "opened"
    assert h.code(h.open(key="b", url=head + "x" * (8193 - len(head)))) == "invalid_url"
    # Counted in UTF-8 bytes: 4092 two-byte characters after the head pass 8192 bytes.
    assert h.code(h.open(key="c", url=head + "é" * 4092)) == "invalid_url"


def test_title_limit_is_256_bytes_med11(h: Harness) -> None:
    """MED-11: the title limit is 256 UTF-8 bytes."""
    assert h.open(key="a", title="t" * 256)["result"] == "opened"
    assert h.code(h.open(key="b", title="t" * 257)) == "invalid_value"
    assert h.code(h.open(key="c", title="é" * 129)) == "invalid_value"


@pytest.mark.parametrize(
    ("option", "bad", "good"),
    [("max_fps", [0, 121, -5], [1, 120]), ("volume_pct", [-1, 101], [0, 100])],
)
def test_ranges_med13(h: Harness, option: str, bad: list[int], good: list[int]) -> None:
    """MED-13: out of range is invalid_value on open and set; the edges are accepted."""
    for value in bad:
        assert h.code(h.open(key="bad", **{option: value})) == "invalid_value"
    sid = h.open(key="ok")["session"]
    for value in bad:
        assert h.code(h.req("a", "set", session=sid, **{option: value})) == "invalid_value"
    for i, value in enumerate(good):
        assert h.open(key=f"good-{i}", **{option: value})["result"] == "opened"
        assert h.req("a", "set", session=sid, **{option: value})["result"] == "applied"
        assert h.row("a", sid)[option] == value


@pytest.mark.parametrize(
    "params",
    [
        {"op": "open", "url": URL},
        {"op": "open", "key": "k"},
        {"op": "open", "key": 5, "url": URL},
        {"op": "open", "key": "k", "url": URL, "title": 3},
        {"op": "open", "key": "k", "url": URL, "max_fps": "30"},
        {"op": "open", "key": "k", "url": URL, "max_fps": 30.0},
        {"op": "open", "key": "k", "url": URL, "volume_pct": True},
        {"op": "open", "key": "k", "url": URL, "muted": 1},
        {"op": "set"},
        {"op": "set", "session": 1},
        {"op": "reload", "session": "m-00000001"},
        {"op": "close"},
        {"op": "status"},
        {"op": "play", "session": "m-00000001"},
        {},
    ],
)
def test_params_that_fit_no_shape_raise_for_32602_r4(h: Harness, params: dict[str, Any]) -> None:
    with pytest.raises(MediaParamsError):
        h.host.handle("a", params)


def test_unknown_fields_are_ignored(h: Harness) -> None:
    assert h.open(colour="red", future_option={"x": 1})["result"] == "opened"


def test_second_open_on_a_key_is_busy_r15_med10(h: Harness) -> None:
    """MED-10: a second open on a key in use is busy."""
    h.open()
    assert h.code(h.open()) == "busy"
    h.connect("b")
    assert h.open("b")["result"] == "opened", "keys belong to the connection that opened them"


def test_a_closed_key_can_be_opened_again_med10(h: Harness) -> None:
    """MED-10: once closed, a key can be opened again."""
    sid = h.open()["session"]
    assert h.req("a", "status", session=sid)["result"] == "status"
    assert h.req("a", "close", session=sid) == {"result": "closed"}
    assert h.open()["session"] == "m-00000002", "session ids are never reused"


def test_too_many_counts_sessions_of_all_connections_med14(h: Harness) -> None:
    """MED-14: the fifth session across all connections is too_many."""
    h.connect("b", "1.6")
    for i in range(2):
        assert h.open("a", key=f"a-{i}")["result"] == "opened"
        assert h.open("b", key=f"b-{i}")["result"] == "opened"
    assert h.code(h.open("a", key="a-9")) == "too_many"
    assert h.code(h.open("b", key="b-9")) == "too_many"
    h.host.connection_closed("b")
    assert h.open("a", key="a-9")["result"] == "opened", "a closed connection frees its slots"


def test_busy_is_answered_before_too_many(h: Harness) -> None:
    for i in range(4):
        h.open(key=f"k-{i}")
    assert h.code(h.open(key="k-0")) == "busy"


@pytest.mark.parametrize("op", ["set", "reload", "close", "status"])
def test_no_such_session_unknown_or_someone_elses_med26(h: Harness, op: str) -> None:
    """MED-26: an unknown session, or another connection's, is no_such_session."""
    h.connect("b")
    theirs = h.open("b")["session"]
    extra = {"url": URL} if op == "reload" else {}
    assert h.code(h.req("a", op, session="m-00000099", **extra)) == "no_such_session"
    assert h.code(h.req("a", op, session=theirs, **extra)) == "no_such_session"
    assert h.row("b", theirs)["session"] == theirs


def test_set_cannot_carry_native_controls_r23_med4(h: Harness) -> None:
    """MED-4: set refuses native_controls."""
    sid = h.open(native_controls=True)["session"]
    for value in (True, False):
        assert h.code(h.req("a", "set", session=sid, native_controls=value)) == "invalid_value"
    assert h.row("a", sid)["native_controls"] is True


def test_a_refused_set_changes_nothing(h: Harness) -> None:
    sid = h.open()["session"]
    refused = h.req("a", "set", session=sid, volume_pct=40, muted=True, max_fps=0)
    assert h.code(refused) == "invalid_value"
    row = h.row("a", sid)
    assert (row["volume_pct"], row["muted"]) == (100, False)


def test_set_answers_applied_with_unchanged_generation_med4_med16(h: Harness) -> None:
    """MED-4, MED-16: set answers applied and leaves source_generation as it was."""
    sid = h.open()["session"]
    applied = h.req("a", "set", session=sid, volume_pct=10, show_video=False, paused=True)
    assert applied == {"result": "applied", "source_generation": 1}
    assert h.req("a", "set", session=sid) == {"result": "applied", "source_generation": 1}


def test_reload_raises_generation_and_takes_title_med5_med16(h: Harness) -> None:
    """MED-5, MED-16: reload answers applied with a higher source_generation and a new title."""
    sid = h.open(title="One")["session"]
    assert h.req("a", "reload", session=sid, url=URL) == {
        "result": "applied",
        "source_generation": 2,
    }
    assert h.row("a", sid)["title"] == "One", "reload without title keeps the title"
    assert h.req("a", "reload", session=sid, url=URL, title="Two")["source_generation"] == 3
    assert h.row("a", sid)["title"] == "Two"


def test_reload_checks_url_and_title(h: Harness) -> None:
    sid = h.open()["session"]
    assert h.code(h.req("a", "reload", session=sid, url="nope")) == "invalid_url"
    assert h.code(h.req("a", "reload", session=sid, url=URL, title="t" * 257)) == "invalid_value"
    assert h.row("a", sid)["source_generation"] == 1


def test_close_then_status_is_no_such_session_med6_med7(h: Harness) -> None:
    """MED-6, MED-7: status answers status; after close (closed) it is no_such_session."""
    sid = h.open()["session"]
    assert h.req("a", "status", session=sid)["result"] == "status"
    assert h.req("a", "close", session=sid) == {"result": "closed"}
    assert h.code(h.req("a", "status", session=sid)) == "no_such_session"
    assert h.code(h.req("a", "close", session=sid)) == "no_such_session"


# -- version gating (docs/protocol-notes.md#r23, version history) ----------------------------------


def test_options_newer_than_the_client_are_ignored_r23(harness: type[Harness]) -> None:
    h = harness()
    h.connect("v15", "1.5")
    h.connect("v16", "1.6")
    h.connect("v17", "1.7")
    opts = {"native_controls": True, "controls_on_player": True}
    rows = {c: h.row(c, h.open(c, **opts)["session"]) for c in ("v15", "v16", "v17")}
    assert [(r["native_controls"], r["controls_on_player"]) for r in rows.values()] == [
        (False, False),
        (True, False),
        (True, True),
    ]


def test_ignored_options_are_not_even_type_checked_r23(harness: type[Harness]) -> None:
    h = harness()
    h.connect("v15", "1.5")
    assert h.open("v15", native_controls="yes", controls_on_player=7)["result"] == "opened"


def test_set_native_controls_from_1_5_is_an_unknown_field_r23(
    harness: type[Harness],
) -> None:
    h = harness()
    h.connect("v15", "1.5")
    sid = h.open("v15")["session"]
    assert h.req("v15", "set", session=sid, native_controls=True)["result"] == "applied"
    assert h.row("v15", sid)["native_controls"] is False


def test_controls_on_player_by_set_only_for_1_7(harness: type[Harness]) -> None:
    h = harness()
    h.connect("v16", "1.6")
    h.connect("v17", "1.7")
    for conn in ("v16", "v17"):
        sid = h.open(conn)["session"]
        h.req(conn, "set", session=sid, controls_on_player=True)
    assert [s.options.controls_on_player for s in h.host.sessions()] == [False, True]


def test_reload_title_only_for_1_6_clients(harness: type[Harness]) -> None:
    h = harness()
    h.connect("v15", "1.5")
    h.connect("v16", "1.6")
    for conn in ("v15", "v16"):
        sid = h.open(conn, title="Old")["session"]
        h.req(conn, "reload", session=sid, url=URL, title="New")
    assert [s.title for s in h.host.sessions()] == ["Old", "New"]


# -- unsupported mode (MED-2) ---------------------------------------------------------------


@pytest.mark.parametrize(
    "params",
    [
        {"op": "open", "key": "k", "url": URL},
        {"op": "open", "key": "BAD", "url": "bad"},
        {"op": "set", "session": "m-00000001", "volume_pct": 5},
        {"op": "reload", "session": "m-00000001", "url": URL},
        {"op": "close", "session": "m-00000001"},
        {"op": "status", "session": "m-00000001"},
    ],
)
def test_unsupported_mode_answers_every_request_unsupported_med2(
    unsupported: Harness, params: dict[str, Any]
) -> None:
    """MED-2: in the unsupported mode every request is unsupported."""
    assert unsupported.code(unsupported.host.handle("a", params)) == "unsupported"
    assert unsupported.host.due_connections() == frozenset()


def test_unsupported_mode_still_reports_shape_errors(unsupported: Harness) -> None:
    with pytest.raises(MediaParamsError):
        unsupported.host.handle("a", {"op": "open", "key": "k"})


def test_unknown_mode_and_unregistered_connection_are_caller_errors() -> None:
    with pytest.raises(ValueError, match="media mode"):
        MediaHost("windows")  # type: ignore[arg-type]
    host = MediaHost()
    with pytest.raises(ValueError, match="never registered"):
        host.handle("nobody", {"op": "status", "session": "m-00000001"})
    host.connection_opened("a", "1.7")
    with pytest.raises(ValueError, match="already registered"):
        host.connection_opened("a", "1.7")
