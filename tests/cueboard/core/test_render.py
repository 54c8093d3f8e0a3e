"""An edited sound in the core: it loads its rendered file, never the user's; a press while the
render is not in waits briefly, then is refused with a notice; an edit's change renders and
loads again, its reset drops the renders; a changed source is rendered again."""

from __future__ import annotations

from dataclasses import replace

from cueboard.core.library import Library
from cueboard.core.loading import RENDER_WAIT_S
from cueboard.core.records import SoundPrefs, page_key, pages_for
from cueboard.core.render import DropRenders, Edit, TouchRender
from vxp.models import audio

from .fakehost import ROOT, Driver, rendered

BEEP = "01 Beep.wav"


def _loads(d: Driver) -> list[str]:
    return [p.path for p in d.host.of("audio.load")]


def _edited(d: Driver, **changes: object) -> None:
    d.carry(d.core.controls.edit(BEEP, d.now, **changes))


def _driver(*, hold: bool = False) -> Driver:
    d = Driver()
    d.hold_renders = hold
    d.connect()
    return d


def test_an_edited_sound_loads_its_render_and_never_the_file() -> None:
    d = _driver()
    assert str(ROOT / BEEP) in _loads(d)  # loaded ahead, whole
    _edited(d, trim_start_ms=250, fade_out_ms=100)
    (job,) = d.renders
    assert job.rel == BEEP and job.source == ROOT / BEEP
    assert job.edit == Edit(250, None, 0, 100)
    assert job.cache_bytes == 1024 * 1024 * 1024
    assert _loads(d)[-1] == str(rendered(job).path)
    d.invoke("play-slot-1")
    play = audio.AudioPlay.model_validate_json(d.host.of("audio.play")[-1].params_json)
    assert d.host.sounds[play.sound] == str(rendered(job).path)
    assert any(isinstance(j, TouchRender) for j in d.jobs)  # played: the cache keeps it longest


def test_a_press_waits_for_its_render_then_is_refused_with_a_notice() -> None:
    """The unedited file is never sent: not loaded, so never played into the mic."""
    d = _driver(hold=True)
    _edited(d, trim_end_ms=400)
    loads = _loads(d)
    d.invoke("play-slot-1")
    assert d.status_key() is None
    d.advance(RENDER_WAIT_S / 2)
    assert not d.host.of("audio.play")
    d.advance(RENDER_WAIT_S)
    assert d.status_key() == "status.render_not_ready"
    assert _loads(d) == loads  # nothing loaded meanwhile, the file whole least of all
    assert not d.host.of("audio.play")
    # The render comes in later: loaded, and not played (that press was refused).
    d.feed(rendered(d.renders[-1]))
    assert _loads(d)[-1] == str(rendered(d.renders[-1]).path)
    assert not d.host.of("audio.play")


def test_a_render_in_within_the_wait_plays_the_press() -> None:
    d = _driver(hold=True)
    _edited(d, fade_in_ms=50)
    d.invoke("play-slot-1")
    d.advance(RENDER_WAIT_S / 3)
    d.feed(rendered(d.renders[-1]))
    d.advance(RENDER_WAIT_S)
    assert len(d.host.of("audio.play")) == 1
    assert d.status_key() != "status.render_not_ready"


def test_a_failed_render_says_why_and_loads_nothing() -> None:
    d = _driver(hold=True)
    _edited(d, trim_start_ms=9000)
    d.invoke("play-slot-1")
    loads = len(_loads(d))
    d.feed(rendered(d.renders[-1], "empty"))
    assert d.status_key() == "status.load_failed"
    assert len(_loads(d)) == loads
    assert not d.host.of("audio.play")


def test_an_edit_changed_renders_again_and_a_reset_drops_the_renders() -> None:
    d = _driver()
    _edited(d, trim_start_ms=100)
    _edited(d, trim_start_ms=200)
    assert [j.edit.start_ms for j in d.renders] == [100, 200]
    assert _loads(d)[-1] == str(rendered(d.renders[-1]).path)
    _edited(d, trim_start_ms=0)  # the edit reset: the file whole again, no render kept
    assert DropRenders(BEEP) in d.jobs
    assert _loads(d)[-1] == str(ROOT / BEEP)
    _edited(d, mode="loop")  # no edit: a mode alone renders nothing
    assert len(d.renders) == 2


def test_a_loop_is_rendered_with_its_seam() -> None:
    d = _driver()
    _edited(d, fade_in_ms=20)
    _edited(d, mode="loop")
    assert [j.edit.loop for j in d.renders] == [False, True]


def test_a_source_changed_on_disk_is_rendered_again() -> None:
    d = _driver()
    _edited(d, trim_start_ms=100)
    lib = d.core.board.library
    sounds = [replace(s, mtime_ns=s.mtime_ns + 1) if s.rel_path == BEEP else s for s in lib.sounds]
    d.lib = Library(lib.root, sounds)
    d.carry(d.core.folder.rescan("files changed"))
    d.advance(1.0)
    assert [j.fingerprint for j in d.renders] == [(1000, 1), (1000, 2)]
    assert _loads(d)[-1] == str(rendered(d.renders[-1]).path)


def test_a_sound_whose_edit_is_read_from_kv_is_never_loaded_whole() -> None:
    """The scan waits for the stored records: the first load of an edited sound is its
    render."""
    d = Driver()
    d.host.kv.update(
        {"schema": 2, **{page_key("", n): p for n, p in enumerate(_pages(trim_start_ms=50))}}
    )
    d.connect()
    beep_loads = [p for p in _loads(d) if "Beep" in p]
    assert beep_loads == [str(rendered(d.renders[-1]).path)]
    d.invoke("play-slot-1")
    assert len(d.host.of("audio.play")) == 1


def _pages(**edit: int) -> list[dict[str, str]]:
    return pages_for("", {BEEP: SoundPrefs(**edit)})


def test_an_edit_that_failed_to_render_is_rendered_again_once_changed() -> None:
    d = _driver(hold=True)
    _edited(d, trim_start_ms=9000)
    d.feed(rendered(d.renders[-1], "empty"))
    _edited(d, trim_start_ms=100)  # fixed at once: no wait for the failure to age
    assert d.renders[-1].edit.start_ms == 100
    d.feed(rendered(d.renders[-1]))
    d.invoke("play-slot-1")
    assert len(d.host.of("audio.play")) == 1
