"""The pure decisions of importing a sound from a link: the grant, the link and its redirects,
the format from real encoders' bytes, the file name, and errors that never quote the link."""

from __future__ import annotations

import io
import unicodedata
from collections.abc import Callable
from pathlib import PurePosixPath, PureWindowsPath

import numpy as np
import pytest
import soundfile
from hypothesis import given
from hypothesis import strategies as st

from cueboard.core import library
from cueboard.core.link_import import (
    FORMATS,
    MAX_IMPORT_BYTES,
    MP3,
    OGG,
    OPUS,
    REASON_KEYS,
    REASONS,
    SNIFF_BYTES,
    STEM_MAX_BYTES,
    WAV,
    AudioFormat,
    CheckedLink,
    FetchSound,
    LinkImportError,
    can_import,
    candidate_names,
    check_link,
    content_disposition_name,
    pick_name,
    redirect_target,
    safe_file_name,
    sniff_audio,
    start_import,
    status_reason,
)
from cueboard.runtime.catalogs import load_catalog
from cueboard.workers import scan
from vxp.secret import Secret

TOKEN = "tok3n-s3cr3t"
LINK = f"https://user:{TOKEN}@sounds.example/t/{TOKEN}/airhorn.wav?key={TOKEN}"


def _encoded(format: str, subtype: str | None = None) -> bytes:
    buffer = io.BytesIO()
    tone = np.sin(np.linspace(0, 200, 4800)).astype(np.float32) * 0.5
    soundfile.write(buffer, tone, 48000, format=format, subtype=subtype)
    return buffer.getvalue()


# -- the grant and the link -------------------------------------------------------------------


def test_can_import_needs_the_network_grant() -> None:
    assert can_import(granted_network=False) == "no_grant"
    assert can_import(granted_network=True) is None


def test_start_import_refuses_without_grant_before_looking_at_the_link() -> None:
    refused = start_import("nonsense", granted_network=False, category="", ticket=1)
    assert isinstance(refused, LinkImportError) and refused.reason == "no_grant"


def test_start_import_gives_the_effect_with_the_link_kept_secret() -> None:
    effect = start_import(f"  {LINK}\n", granted_network=True, category="Memes", ticket=7)
    assert isinstance(effect, FetchSound)
    assert effect.link.url == Secret(LINK) and effect.link.host == "sounds.example"
    assert (effect.ticket, effect.category) == (7, "Memes")
    assert TOKEN not in repr(effect) and TOKEN not in str(effect)


@pytest.mark.parametrize(
    ("link", "reason", "host"),
    [
        ("http://sounds.example/a.wav", "not_https", "sounds.example"),
        ("ftp://sounds.example/a.wav", "not_https", "sounds.example"),
        ("HTTP://sounds.example/a.wav", "not_https", "sounds.example"),
        ("sounds.example/a.wav", "invalid_link", ""),
        ("https:///a.wav", "invalid_link", ""),
        ("https://sounds.example:99999/a.wav", "invalid_link", ""),
        ("https://sounds.example/a b.wav", "invalid_link", ""),
        ("https://sounds.example/\u202ea.wav", "invalid_link", ""),
        ("", "invalid_link", ""),
        ("https://sounds.example/" + "a" * 9000, "invalid_link", ""),
    ],
)
def test_check_link_refuses_before_connecting(link: str, reason: str, host: str) -> None:
    with pytest.raises(LinkImportError) as caught:
        check_link(Secret(link))
    assert (caught.value.reason, caught.value.host) == (reason, host)


def test_check_link_accepts_https_with_a_host() -> None:
    checked = check_link(LINK)
    assert checked.url.reveal() == LINK and checked.host == "sounds.example"


def test_redirects_resolve_relative_locations_and_stay_secret() -> None:
    here = check_link(LINK)
    there = redirect_target(here, "../b/clap.ogg?sig=x")
    assert there.url.reveal() == "https://user:tok3n-s3cr3t@sounds.example/t/b/clap.ogg?sig=x"
    moved = redirect_target(here, "https://cdn.example/x.wav")
    assert moved.host == "cdn.example"


@pytest.mark.parametrize(
    ("location", "reason", "host"),
    [
        ("http://cdn.example/x.wav", "not_https", "cdn.example"),
        ("file:///etc/passwd", "network", "sounds.example"),
        ("https://[::1/x", "network", "sounds.example"),
    ],
)
def test_a_redirect_must_be_https_too(location: str, reason: str, host: str) -> None:
    with pytest.raises(LinkImportError) as caught:
        redirect_target(check_link(LINK), location)
    assert (caught.value.reason, caught.value.host) == (reason, host)


@pytest.mark.parametrize(
    ("status", "reason"),
    [(200, None), (404, "not_found"), (410, "not_found"), (403, "http_error"), (500, "http_error")],
)
def test_status_reason(status: int, reason: str | None) -> None:
    assert status_reason(status) == reason


def test_an_error_says_the_host_at_most() -> None:
    error = LinkImportError("not_found", host="sounds.example", status=404)
    assert str(error) == "not_found from sounds.example (HTTP 404)"
    assert repr(error) == "LinkImportError(not_found from sounds.example (HTTP 404))"
    assert error.notice_params() == {"host": "sounds.example", "status": 404}


@pytest.mark.parametrize("locale", ["en-US", "ja-JP"])
def test_every_reason_has_a_text_with_its_parameters_filled(locale: str) -> None:
    catalog = load_catalog(locale)
    assert set(REASON_KEYS) == set(REASONS)
    for reason in REASONS:
        error = LinkImportError(reason, host="sounds.example", status=503)
        text = catalog.t(REASON_KEYS[reason], name="clap.wav", **error.notice_params())
        assert REASON_KEYS[reason] in catalog and "{" not in text, (reason, text)


def test_too_large_names_the_cap_in_mib() -> None:
    assert LinkImportError("too_large").notice_params(limit=64 * 1024 * 1024)["limit"] == 64


# -- the format ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("format", "subtype", "expected"),
    [
        ("WAV", "PCM_16", "wav"),
        ("WAV", "FLOAT", "wav"),
        ("FLAC", "PCM_16", "flac"),
        ("OGG", "VORBIS", "ogg"),
        ("OGG", "OPUS", "opus"),
        ("MP3", "MPEG_LAYER_III", "mp3"),
    ],
)
def test_sniffs_what_real_encoders_write(format: str, subtype: str, expected: str) -> None:
    """Files written by libsndfile, the same bytes a server would send."""
    head = _encoded(format, subtype)[:SNIFF_BYTES]
    sniffed = sniff_audio(head)
    assert sniffed is not None and sniffed.name == expected
    assert scan.sniff_sound(head[:12])


@pytest.mark.parametrize(
    "head",
    [
        b"<!DOCTYPE html><html>",
        b"",
        b"RIFF\0\0\0\0AVI LIST",
        b"\xff\xf1\x50\x80",  # ADTS AAC: MPEG sync with layer 0
        b"\xff\xfb\xf0\x00",  # an MPEG header with the "bad" bit rate
        b"\0\0\0\x20ftypM4A ",  # m4a: the library does not list it
        b"GIF89a",
    ],
)
def test_other_bytes_are_not_audio(head: bytes) -> None:
    assert sniff_audio(head) is None


def test_an_mpeg_frame_without_id3_is_mp3() -> None:
    assert sniff_audio(b"\xff\xfb\x90\x64" + b"\0" * 100) is MP3


@given(st.binary(max_size=64), st.sampled_from([b"", b"RIFF", b"fLaC", b"OggS", b"ID3", b"\xff"]))
def test_whatever_is_sniffed_the_library_lists(tail: bytes, magic: bytes) -> None:
    """Never looser than the scan, and always named with an extension the scan reads."""
    head = magic + tail
    sniffed = sniff_audio(head)
    if sniffed is not None:
        assert scan.sniff_sound(head[:12])


def test_every_format_extension_is_a_library_extension() -> None:
    assert all(ext in library.SOUND_EXTENSIONS for f in FORMATS for ext in f.extensions)
    assert MAX_IMPORT_BYTES <= library.MAX_SOUND_BYTES


# -- the name --------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("header", "expected"),
    [
        ("attachment; filename=\"EURO rates\"; filename*=utf-8''%e2%82%ac%20rates", "€ rates"),
        ("attachment; filename*=UTF-8''Air%20horn%20%E2%9C%93.wav", "Air horn ✓.wav"),
        ("attachment; filename*=iso-8859-1'en'%A3%20rates.mp3", "£ rates.mp3"),
        ('attachment; filename="a \\"quoted\\" name.wav"', 'a "quoted" name.wav'),
        ("inline; filename=plain.ogg", "plain.ogg"),
        ("attachment; filename*=koi8-r''%C1.wav; filename=fallback.wav", "fallback.wav"),
        ("attachment; filename*=UTF-8''%FF%FE.wav; filename=fallback.wav", "fallback.wav"),
        ("attachment", None),
        ('attachment; filename=""', None),
    ],
)
def test_content_disposition_name(header: str, expected: str | None) -> None:
    assert content_disposition_name(header) == expected


@given(st.text())
def test_content_disposition_never_raises(header: str) -> None:
    content_disposition_name(header)


def test_pick_name_prefers_the_header_then_an_audio_path_then_the_last_path() -> None:
    paths = ["/s/airhorn.mp3", "/cdn/8f1e2a"]
    assert pick_name("attachment; filename=Horn.mp3", paths) == "Horn.mp3"
    assert pick_name(None, paths) == "airhorn.mp3"
    assert pick_name(None, ["/s/get", "/cdn/clap%20loud.wav"]) == "clap loud.wav"
    assert pick_name("attachment", ["/s/get", "/cdn/8f1e2a"]) == "8f1e2a"
    assert pick_name(None, ["/"]) is None


@pytest.mark.parametrize(
    ("raw", "audio", "expected"),
    [
        ("Air horn ✓.wav", WAV, "Air horn ✓.wav"),
        ("clap.WAVE", WAV, "clap.wave"),
        ("clap.mp3", WAV, "clap.wav"),  # the bytes decide the extension
        ("download.php", MP3, "download.php.mp3"),
        ("song.ogg", OPUS, "song.ogg"),
        ("song", OGG, "song.ogg"),
        ("../../etc/passwd", MP3, "_.._etc_passwd.mp3"),
        ("..", MP3, "sound.mp3"),
        (".hidden.wav", WAV, "hidden.wav"),
        ("C:\\Windows\\evil.wav", WAV, "C__Windows_evil.wav"),
        ("con.wav", WAV, "_con.wav"),
        ("LPT1 .x.mp3", MP3, "_LPT1 .x.mp3"),
        ("evil\u202egnp.wav", WAV, "evilgnp.wav"),
        ("tab\there\n.wav", WAV, "tabhere.wav"),
        ("trailing. . ", MP3, "trailing.mp3"),
        ("   ", WAV, "sound.wav"),
        (None, WAV, "sound.wav"),
    ],
)
def test_safe_file_name(raw: str | None, audio: AudioFormat, expected: str) -> None:
    assert safe_file_name(raw, audio) == expected


@given(st.one_of(st.none(), st.text()), st.sampled_from(FORMATS))
def test_a_safe_name_is_one_visible_file_of_the_format(raw: str | None, audio: AudioFormat) -> None:
    name = safe_file_name(raw, audio)
    for path in (PurePosixPath(name), PureWindowsPath(name)):
        assert path.name == name and len(path.parts) == 1
    assert not name.startswith(".") and name == name.strip()
    assert not any(unicodedata.category(ch)[0] == "C" for ch in name)
    assert not any(ch in '<>:"/\\|?*' for ch in name)
    assert any(name.endswith(ext) for ext in audio.extensions)
    assert not PureWindowsPath(name).is_reserved()
    stem = name[: name.rindex(".")]
    assert stem and not stem.endswith((" ", ".")) and len(stem.encode()) <= STEM_MAX_BYTES
    assert len(next(iter(candidate_names(name))).encode()) <= 255


def test_candidate_names_count_up() -> None:
    names = candidate_names("Air horn.wav")
    assert [next(names) for _ in range(3)] == [
        "Air horn.wav",
        "Air horn (2).wav",
        "Air horn (3).wav",
    ]


def test_checked_link_repr_hides_the_link() -> None:
    checked = CheckedLink(Secret(LINK), "sounds.example")
    assert TOKEN not in repr(checked) and TOKEN not in str(checked)


def _outcome(check: Callable[[], CheckedLink]) -> CheckedLink | LinkImportError:
    try:
        return check()
    except LinkImportError as error:
        return error


@given(st.text(max_size=300))
def test_any_paste_is_a_link_or_a_reason(text: str) -> None:
    outcome = _outcome(lambda: check_link(text))
    if isinstance(outcome, LinkImportError):
        assert outcome.reason in ("invalid_link", "not_https")
        assert outcome.reason == "invalid_link" or outcome.host
    else:
        assert outcome.url.reveal() == text.strip() and outcome.host


@given(st.text(max_size=200))
def test_any_location_is_a_link_or_a_reason(location: str) -> None:
    outcome = _outcome(lambda: redirect_target(check_link(LINK), location))
    assert not isinstance(outcome, LinkImportError) or outcome.reason in ("not_https", "network")
