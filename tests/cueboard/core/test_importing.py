"""An import from a link in memory: refused before anything connects without the grant or
with a bad link, one at a time, then scanned and loaded, and removed again when vrOS refuses
the file for good."""

from __future__ import annotations

from cueboard.core.effects import Notice
from cueboard.core.library import Library
from cueboard.core.link_import import (
    CancelFetch,
    DiscardSound,
    FetchFailed,
    FetchProgress,
    FetchSound,
    LinkImportError,
    SoundFetched,
)
from vxp.models import audio
from vxp.models.handshake import Granted

from .fakehost import ROOT, Driver, FakeHost, library

LINK = "https://sounds.example.invalid/pack/airhorn.ogg?token=s3cret"
NETWORK = Granted(audio=True, network=True, bus=["vr.lifecycle"])


def _driver(*, network: bool = True) -> Driver:
    d = Driver(FakeHost(granted=NETWORK if network else Granted(audio=True, bus=[])))
    d.connect()
    return d


def _start(d: Driver, link: str = LINK) -> list[object]:
    return d.core.importer.start(link, "")


def test_without_the_network_grant_it_is_refused_before_anything_connects() -> None:
    d = _driver(network=False)
    [notice] = _start(d)
    assert isinstance(notice, Notice) and notice.key == "import.error.no_grant"
    assert not d.core.importer.busy


def test_a_link_that_is_not_https_is_refused_naming_only_its_host() -> None:
    d = _driver()
    [notice] = _start(d, "http://sounds.example.invalid/a.ogg?token=s3cret")
    assert isinstance(notice, Notice) and notice.key == "import.error.not_https"
    assert notice.params == {"host": "sounds.example.invalid"}


def test_one_import_at_a_time_and_the_link_never_in_the_effects_repr() -> None:
    d = _driver()
    [fetch] = _start(d)
    assert isinstance(fetch, FetchSound)
    assert "s3cret" not in repr(fetch) and "airhorn" not in repr(fetch)
    [busy] = _start(d)
    assert isinstance(busy, Notice) and busy.key == "import.busy"
    assert d.core.importer.cancel() == [CancelFetch(fetch.ticket)]
    assert not d.core.importer.busy


def test_progress_is_shown_then_a_fetched_file_is_scanned_loaded_and_announced() -> None:
    d = _driver()
    [fetch] = _start(d)
    assert isinstance(fetch, FetchSound)
    d.feed(FetchProgress(fetch.ticket, 512 * 1024, 2 * 1024 * 1024))
    assert d.core.importer.progress_text() == "Downloading… 512 KiB of 2.0 MiB"
    d.lib = Library(d.lib.root, [*d.lib.sounds, *library("airhorn.ogg").sounds])
    d.feed(SoundFetched(fetch.ticket, "airhorn.ogg"))
    assert d.core.board.states["airhorn.ogg"].status == "loaded"
    assert d.status_key() == "import.done"
    assert d.core.importer.progress_text() == ""


def test_a_file_vrOS_cannot_decode_is_removed_and_the_user_told() -> None:
    host = FakeHost(granted=NETWORK)
    failed = audio.LoadFailed(kind="failed", code="undecodable")
    host.load_outcomes[str(ROOT / "noise.ogg")] = [failed]
    d = Driver(host)
    d.connect()
    [fetch] = _start(d)
    assert isinstance(fetch, FetchSound)
    d.lib = Library(d.lib.root, [*d.lib.sounds, *library("noise.ogg").sounds])
    d.feed(SoundFetched(fetch.ticket, "noise.ogg"))
    assert DiscardSound("noise.ogg") in d.jobs
    assert d.status_key() == "import.error.undecodable"
    assert d.core.board.status is not None and d.core.board.status.params == {"name": "noise.ogg"}


def test_a_failed_download_says_why_and_a_cancelled_ones_last_word_is_ignored() -> None:
    d = _driver()
    [fetch] = _start(d)
    assert isinstance(fetch, FetchSound)
    d.feed(FetchFailed(fetch.ticket, LinkImportError("too_large", host="sounds.example.invalid")))
    assert d.status_key() == "import.error.too_large"
    [again] = _start(d)
    assert isinstance(again, FetchSound)
    d.core.importer.cancel()
    d.core.board.status = None
    d.feed(FetchFailed(again.ticket, LinkImportError("network", host="x")))
    assert d.status_key() is None
