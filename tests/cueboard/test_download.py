"""Importing a sound from a link against a real HTTPS server on 127.0.0.1 (a trustme
authority): names, refusals, size caps, redirects, timeouts, cancellation, progress, and the
link (a credential) kept out of logs, errors and file names. Nothing half-written is left."""

from __future__ import annotations

import io
import logging
import stat
from collections.abc import Iterator
from functools import partial
from pathlib import Path

import anyio
import httpx
import numpy as np
import pytest
import soundfile

from cueboard.core.link_import import (
    DiscardSound,
    FetchFailed,
    FetchProgress,
    FetchSound,
    LinkImportError,
    SoundFetched,
    check_link,
)
from cueboard.workers.download import (
    TEMP_PREFIX,
    TEMP_SUFFIX,
    discard_sound,
    fetch_sound,
    run_fetch,
)
from cueboard.workers.scan import scan
from vxp.secret import Secret

from .tls_server import Route, Tls, tls_server

pytestmark = pytest.mark.anyio

TOKEN = "tok3n-s3cr3t"
KIB = 1024


def _encoded(format: str, seconds: float) -> bytes:
    buffer = io.BytesIO()
    tone = (np.sin(np.arange(int(48000 * seconds)) / 7) * 0.4).astype(np.float32)
    soundfile.write(
        buffer, tone, 48000, format=format, subtype="FLOAT" if format == "WAV" else None
    )
    return buffer.getvalue()


WAV = _encoded("WAV", 6.5)  # a little over 1 MiB
MP3 = _encoded("MP3", 0.5)


@pytest.fixture
def tls() -> Iterator[Tls]:
    with tls_server() as server:
        yield server


def _link(tls: Tls, path: str) -> str:
    return tls.server.origin + path


async def _fetch(tls: Tls, path: str, folder: Path, **options: object) -> Path:
    return await fetch_sound(
        Secret(_link(tls, path)),
        folder,
        verify=tls.client_context,
        **options,  # type: ignore[arg-type]
    )


def _names(folder: Path, pattern: str = "*") -> list[str]:
    return sorted(p.name for p in folder.rglob(pattern))


async def _refused(tls: Tls, path: str, folder: Path, **options: object) -> LinkImportError:
    with pytest.raises(LinkImportError) as caught:
        await _fetch(tls, path, folder, **options)
    assert _names(folder) == [], "a failed download left something in the folder"
    for text in (str(caught.value), repr(caught.value)):
        assert TOKEN not in text and "/" not in text
    return caught.value


async def test_a_wav_is_saved_under_the_content_disposition_name(tls: Tls, tmp_path: Path) -> None:
    tls.server.routes["/s/get"] = Route(
        body=WAV,
        headers={
            "Content-Disposition": 'attachment; filename="fallback.wav"; '
            "filename*=UTF-8''Air%20horn%20%E2%9C%93.wav"
        },
    )
    path = await _fetch(tls, f"/s/get?token={TOKEN}", tmp_path)
    assert path == tmp_path / "Air horn ✓.wav"
    assert path.read_bytes() == WAV
    assert _names(tmp_path) == ["Air horn ✓.wav"]
    assert [s.rel_path for s in scan(tmp_path).sounds] == ["Air horn ✓.wav"]


async def test_the_sound_gets_the_usual_permissions(tls: Tls, tmp_path: Path) -> None:
    """Not the owner-only mode of a temporary file: other tools read the sounds folder too."""
    tls.server.routes["/clap.wav"] = Route(body=WAV)
    path = await _fetch(tls, "/clap.wav", tmp_path)
    (tmp_path / "beside.wav").touch()
    assert stat.S_IMODE(path.stat().st_mode) == stat.S_IMODE(
        (tmp_path / "beside.wav").stat().st_mode
    )


async def test_the_name_comes_from_the_path_without_a_header(tls: Tls, tmp_path: Path) -> None:
    tls.server.routes["/sounds/clap%20loud.wav"] = Route(body=WAV)
    path = await _fetch(tls, "/sounds/clap%20loud.wav?name=other.mp3", tmp_path)
    assert path.name == "clap loud.wav"


async def test_the_query_never_names_the_file(tls: Tls, tmp_path: Path) -> None:
    tls.server.routes["/download"] = Route(body=MP3)
    path = await _fetch(tls, f"/download?filename=evil.wav&token={TOKEN}", tmp_path)
    assert path.name == "download.mp3"


async def test_an_existing_name_gets_a_number_and_is_kept(tls: Tls, tmp_path: Path) -> None:
    tls.server.routes["/clap.wav"] = Route(body=WAV)
    (tmp_path / "clap.wav").write_bytes(b"mine")
    first = await _fetch(tls, "/clap.wav", tmp_path)
    second = await _fetch(tls, "/clap.wav", tmp_path)
    assert (first.name, second.name) == ("clap (2).wav", "clap (3).wav")
    assert (tmp_path / "clap.wav").read_bytes() == b"mine"


async def test_a_redirect_chain_names_the_file_from_the_pasted_path(
    tls: Tls, tmp_path: Path
) -> None:
    tls.server.routes["/s/airhorn.mp3"] = Route(302, headers={"Location": "../cdn/8f1e2a"})
    tls.server.routes["/cdn/8f1e2a"] = Route(body=MP3)
    path = await _fetch(tls, "/s/airhorn.mp3", tmp_path)
    assert path.name == "airhorn.mp3" and path.read_bytes() == MP3


async def test_bytes_that_are_not_audio_are_refused(tls: Tls, tmp_path: Path) -> None:
    tls.server.routes["/song.mp3"] = Route(body=b"<!DOCTYPE html><p>log in first</p>" * 40)
    error = await _refused(tls, "/song.mp3", tmp_path)
    assert (error.reason, error.host) == ("not_audio", "127.0.0.1")


async def test_too_large_by_its_declared_length(tls: Tls, tmp_path: Path) -> None:
    tls.server.routes["/big.wav"] = Route(body=WAV)
    error = await _refused(tls, "/big.wav", tmp_path, max_bytes=256 * KIB)
    assert error.reason == "too_large"
    assert tls.server.requests == ["/big.wav"]


async def test_too_large_while_streaming_without_a_length(tls: Tls, tmp_path: Path) -> None:
    tls.server.routes["/big.wav"] = Route(body=WAV, chunked=True)
    assert (await _refused(tls, "/big.wav", tmp_path, max_bytes=256 * KIB)).reason == "too_large"


async def test_too_large_when_the_length_is_a_lie(tls: Tls, tmp_path: Path) -> None:
    """A small Content-Length of a gzip body (never asked for) that unpacks past the cap."""
    tls.server.routes["/bomb.wav"] = Route(body=WAV[:64] + bytes(2048 * KIB), gzip=True)
    assert (await _refused(tls, "/bomb.wav", tmp_path, max_bytes=256 * KIB)).reason == "too_large"


@pytest.mark.parametrize(
    ("status", "reason"), [(404, "not_found"), (410, "not_found"), (503, "http_error")]
)
async def test_an_http_error_says_its_status(
    tls: Tls, tmp_path: Path, status: int, reason: str
) -> None:
    tls.server.routes["/x.wav"] = Route(status, b"nope")
    error = await _refused(tls, "/x.wav", tmp_path)
    assert (error.reason, error.status) == (reason, status)


@pytest.mark.parametrize(
    "route", [Route(stall_before_headers=True), Route(body=WAV, stall_after=4 * KIB)]
)
async def test_a_server_that_stalls_times_out(tls: Tls, tmp_path: Path, route: Route) -> None:
    tls.server.routes["/slow.wav"] = route
    error = await _refused(tls, "/slow.wav", tmp_path, timeout_s=0.5)
    assert (error.reason, error.host) == ("timeout", "127.0.0.1")


@pytest.mark.parametrize("chunked", [False, True])
async def test_a_server_that_hangs_up_midway_is_a_network_failure(
    tls: Tls, tmp_path: Path, chunked: bool
) -> None:
    tls.server.routes["/cut.wav"] = Route(body=WAV, hang_up_after=600 * KIB, chunked=chunked)
    assert (await _refused(tls, "/cut.wav", tmp_path)).reason == "network"


async def test_an_http_link_is_refused_before_connecting(tls: Tls, tmp_path: Path) -> None:
    plain = "http" + tls.server.origin.removeprefix("https")
    with pytest.raises(LinkImportError) as caught:
        await fetch_sound(plain + "/clap.wav", tmp_path, verify=tls.client_context)
    assert caught.value.reason == "not_https" and tls.server.connections == 0


async def test_a_redirect_to_http_is_refused(tls: Tls, tmp_path: Path) -> None:
    plain = "http" + tls.server.origin.removeprefix("https")
    tls.server.routes["/to-http"] = Route(302, headers={"Location": f"{plain}/clap.wav"})
    tls.server.routes["/clap.wav"] = Route(body=WAV)
    assert (await _refused(tls, "/to-http", tmp_path)).reason == "not_https"
    assert tls.server.requests == ["/to-http"]


def _hops(path: str) -> Route:
    left = int(path.rsplit("/", 1)[1])
    return Route(302, headers={"Location": "/clap.wav" if left == 0 else f"/hop/{left - 1}"})


async def test_five_redirects_are_followed(tls: Tls, tmp_path: Path) -> None:
    tls.server.routes.update({f"/hop/{n}": _hops for n in range(6)})
    tls.server.routes["/clap.wav"] = Route(body=WAV)
    assert (await _fetch(tls, "/hop/4", tmp_path)).name == "clap.wav"


async def test_six_redirects_are_too_many(tls: Tls, tmp_path: Path) -> None:
    tls.server.routes.update({f"/hop/{n}": _hops for n in range(6)})
    tls.server.routes["/clap.wav"] = Route(body=WAV)
    assert (await _refused(tls, "/hop/5", tmp_path)).reason == "too_many_redirects"
    assert "/clap.wav" not in tls.server.requests and len(tls.server.requests) == 6


async def test_a_certificate_the_system_does_not_trust_is_refused(tls: Tls, tmp_path: Path) -> None:
    tls.server.routes["/clap.wav"] = Route(body=WAV)
    with pytest.raises(LinkImportError) as caught:
        await fetch_sound(_link(tls, "/clap.wav"), tmp_path)  # the system's roots
    assert caught.value.reason == "network" and _names(tmp_path) == []


async def test_a_missing_folder_cannot_be_written(tls: Tls, tmp_path: Path) -> None:
    tls.server.routes["/clap.wav"] = Route(body=WAV)
    with pytest.raises(LinkImportError) as caught:
        await _fetch(tls, "/clap.wav", tmp_path / "missing")
    assert caught.value.reason == "cannot_write" and _names(tmp_path) == []


async def test_cancelling_mid_stream_leaves_nothing(tls: Tls, tmp_path: Path) -> None:
    tls.server.routes["/slow.wav"] = Route(body=WAV, stall_after=300 * KIB)
    midway = anyio.Event()
    writing: list[list[str]] = []

    def progress(received: int, total: int | None) -> None:
        if received and not midway.is_set():
            writing.append(_names(tmp_path, f"{TEMP_PREFIX}*"))
            midway.set()

    async with anyio.create_task_group() as group:
        group.start_soon(partial(_fetch, tls, "/slow.wav", tmp_path, progress=progress))
        await midway.wait()
        group.cancel_scope.cancel()
    assert len(writing) == 1 and len(writing[0]) == 1, "no hidden file while downloading"
    assert writing[0][0].endswith(TEMP_SUFFIX)
    assert _names(tmp_path) == []


async def test_progress_is_reported_up_to_the_total(tls: Tls, tmp_path: Path) -> None:
    tls.server.routes["/clap.wav"] = Route(body=WAV)
    seen: list[tuple[int, int | None]] = []
    await _fetch(tls, "/clap.wav", tmp_path, progress=lambda got, total: seen.append((got, total)))
    assert seen[0] == (0, len(WAV)) and seen[-1] == (len(WAV), len(WAV))
    assert len(seen) > 2 and [got for got, _ in seen] == sorted(got for got, _ in seen)


async def test_progress_without_a_declared_total(tls: Tls, tmp_path: Path) -> None:
    tls.server.routes["/clap.wav"] = Route(body=WAV, chunked=True)
    seen: list[tuple[int, int | None]] = []
    await _fetch(tls, "/clap.wav", tmp_path, progress=lambda got, total: seen.append((got, total)))
    assert seen[0] == (0, None) and seen[-1] == (len(WAV), None)


async def test_the_link_never_reaches_a_log_an_error_or_a_file_name(
    tls: Tls, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG)
    secret_path = f"/t/{TOKEN}/airhorn.wav?key={TOKEN}"
    tls.server.routes[f"/t/{TOKEN}/airhorn.wav"] = Route(body=WAV)
    tls.server.routes["/gone"] = Route(404)
    tls.server.routes["/slow"] = Route(stall_before_headers=True)
    tls.server.routes["/to-http"] = Route(302, headers={"Location": f"http://x/{TOKEN}"})
    async with httpx.AsyncClient(verify=tls.client_context) as client:
        await client.get(_link(tls, f"/gone?key={TOKEN}"))
    assert TOKEN in caplog.text, "this check would not see httpx logging the link"
    caplog.clear()
    saved = await _fetch(tls, secret_path, tmp_path)
    errors: list[LinkImportError] = []
    for path in (f"/gone?key={TOKEN}", f"/slow?key={TOKEN}", f"/to-http?key={TOKEN}"):
        with pytest.raises(LinkImportError) as caught:
            await _fetch(tls, path, tmp_path, timeout_s=0.5)
        errors.append(caught.value)
    assert [e.reason for e in errors] == ["not_found", "timeout", "not_https"]
    assert TOKEN not in caplog.text
    assert all(TOKEN not in f"{e} {e!r} {e.args}" for e in errors)
    assert all(TOKEN not in name for name in _names(tmp_path)) and saved.name == "airhorn.wav"


async def test_run_fetch_feeds_progress_then_the_sound(tls: Tls, tmp_path: Path) -> None:
    (tmp_path / "Memes").mkdir()
    tls.server.routes["/clap.wav"] = Route(body=WAV)
    link = check_link(_link(tls, "/clap.wav"))
    inputs: list[object] = []
    await run_fetch(
        FetchSound(3, link, "Memes"), tmp_path, inputs.append, verify=tls.client_context
    )
    assert isinstance(inputs[0], FetchProgress) and inputs[0].ticket == 3
    assert inputs[-1] == SoundFetched(3, "Memes/clap.wav")


@pytest.mark.parametrize("category", ["../outside", "/abs", ".hidden", "Missing", "Link"])
async def test_run_fetch_writes_only_into_a_library_folder(
    tls: Tls, tmp_path: Path, category: str
) -> None:
    (tmp_path / "outside").mkdir()
    tmp_path = tmp_path / "root"
    (tmp_path / ".hidden").mkdir(parents=True)
    (tmp_path / "Link").symlink_to(tmp_path.parent / "outside")
    link = check_link(_link(tls, "/clap.wav"))
    inputs: list[object] = []
    await run_fetch(
        FetchSound(4, link, category), tmp_path, inputs.append, verify=tls.client_context
    )
    assert len(inputs) == 1 and isinstance(inputs[0], FetchFailed)
    assert inputs[0].error.reason == "cannot_write" and tls.server.connections == 0


def test_discard_removes_only_a_file_inside_the_root(tmp_path: Path) -> None:
    root = tmp_path / "root"
    (root / "Memes").mkdir(parents=True)
    (root / "Memes" / "bad.wav").write_bytes(b"RIFF")
    (tmp_path / "outside.wav").write_bytes(b"RIFF")
    (root / "Memes" / "link.wav").symlink_to(tmp_path / "outside.wav")
    assert discard_sound(root, DiscardSound("Memes/bad.wav"))
    assert not discard_sound(root, DiscardSound("Memes/bad.wav"))
    assert not discard_sound(root, DiscardSound("../outside.wav"))
    assert not discard_sound(root, DiscardSound("Memes/link.wav"))
    assert not discard_sound(root, DiscardSound("Memes"))
    assert _names(tmp_path) == ["Memes", "link.wav", "outside.wav", "root"]
