"""The render cache on real files: keyed by the source's content, rendered again when the source
changes, its older renders gone, dropped on reset, and held within its bound by evicting the
least recently played."""

from __future__ import annotations

import os
from pathlib import Path

import anyio
import numpy as np
import pytest
import soundfile

from cueboard.core.inputs import Input
from cueboard.core.render import DropRenders, Edit, RenderSound, SoundRendered, TouchRender
from cueboard.runtime.renders import RenderCache, cache_size, sound_key

RATE = 48000


def _sound(path: Path, seconds: float, seed: int) -> Path:
    rng = np.random.default_rng(seed)
    soundfile.write(str(path), rng.uniform(-0.5, 0.5, int(RATE * seconds)), RATE)
    return path


class _Cache:
    def __init__(self, folder: Path, *, in_process: bool = False) -> None:
        self.reports: list[SoundRendered] = []
        self.cache = RenderCache(folder, self._feed)
        self.cache.in_process = in_process

    def _feed(self, item: Input) -> None:
        assert isinstance(item, SoundRendered)
        self.reports.append(item)

    def render(self, rel: str, source: Path, edit: Edit, bound: int = 1 << 30) -> SoundRendered:
        st = source.stat()
        job = RenderSound(rel, source, edit, (st.st_size, st.st_mtime_ns), bound)
        anyio.run(self.cache.render, job)
        return self.reports[-1]


def test_a_render_is_found_again_by_the_sources_content(tmp_path: Path) -> None:
    source = _sound(tmp_path / "a.wav", 1.0, 1)
    c = _Cache(tmp_path / "cache")
    first = c.render("a.wav", source, Edit(start_ms=100))
    assert first.path is not None and first.error is None
    assert first.path.parent == tmp_path / "cache" and first.path.name.endswith(".flac")
    made = first.path.stat().st_mtime_ns
    again = _Cache(tmp_path / "cache").render("a.wav", source, Edit(start_ms=100))  # a restart
    assert again.path == first.path
    assert first.path.stat().st_mtime_ns >= made  # found again: touched, not rewritten
    assert soundfile.info(str(first.path)).frames == RATE - RATE // 10


def test_a_source_changed_on_disk_is_rendered_again_and_its_old_render_goes(
    tmp_path: Path,
) -> None:
    """Same size, same modification time, other content: the hash tells them apart."""
    source = _sound(tmp_path / "a.wav", 1.0, 1)
    c = _Cache(tmp_path / "cache")
    first = c.render("a.wav", source, Edit(fade_in_ms=10))
    stat = source.stat()
    _sound(source, 1.0, 2)
    os.utime(source, ns=(stat.st_atime_ns, stat.st_mtime_ns))
    second = _Cache(tmp_path / "cache").render("a.wav", source, Edit(fade_in_ms=10))
    assert second.path is not None and second.path != first.path
    assert first.path is not None and not first.path.exists()
    assert sorted(p.name for p in (tmp_path / "cache").iterdir()) == [second.path.name]


def test_a_reset_drops_every_render_of_the_sound_and_only_its_own(tmp_path: Path) -> None:
    c = _Cache(tmp_path / "cache")
    a = c.render("a.wav", _sound(tmp_path / "a.wav", 0.5, 1), Edit(start_ms=10))
    b = c.render("b.wav", _sound(tmp_path / "b.wav", 0.5, 2), Edit(start_ms=10))
    anyio.run(c.cache.drop, DropRenders("a.wav"))
    assert a.path is not None and not a.path.exists()
    assert b.path is not None and b.path.exists()
    assert b.path.name.startswith(sound_key("b.wav"))


def test_the_cache_keeps_within_its_bound_evicting_the_least_recently_played(
    tmp_path: Path,
) -> None:
    folder = tmp_path / "cache"
    c = _Cache(folder)
    paths: dict[str, Path] = {}
    for n in range(3):
        rel = f"{n}.wav"
        report = c.render(rel, _sound(tmp_path / rel, 1.0, n), Edit(start_ms=1))
        assert report.path is not None
        paths[rel] = report.path
        os.utime(report.path, ns=(n * 10**9, n * 10**9))  # rendered in this order, apart
    one = paths["0.wav"].stat().st_size
    anyio.run(c.cache.touch, TouchRender(paths["0.wav"]))  # the oldest, played just now
    bound = cache_size(folder) + one // 2  # room for about half of one more
    report = c.render("3.wav", _sound(tmp_path / "3.wav", 1.0, 3), Edit(start_ms=1), bound)
    assert report.path is not None and report.path.exists()
    assert cache_size(folder) <= bound
    assert not paths["1.wav"].exists()  # the least recently played went first
    assert paths["0.wav"].exists() and paths["2.wav"].exists()


def test_a_missing_source_is_reported_not_raised(tmp_path: Path) -> None:
    c = _Cache(tmp_path / "cache")
    job = RenderSound("gone.wav", tmp_path / "gone.wav", Edit(start_ms=1), (1, 1), 1 << 30)
    anyio.run(c.cache.render, job)
    assert c.reports[-1].path is None and c.reports[-1].error == "not_found"


@pytest.mark.slow
def test_the_render_runs_in_a_worker_process(tmp_path: Path) -> None:
    c = _Cache(tmp_path / "cache", in_process=True)
    report = c.render("a.wav", _sound(tmp_path / "a.wav", 0.5, 1), Edit(fade_out_ms=100))
    assert report.path is not None and report.path.exists()
    assert c.cache.in_process


def test_parts_cut_off_renders_left_go_with_the_next_render_of_any_sound(tmp_path: Path) -> None:
    """A worker killed mid-render (at exit) leaves its part file, of whichever sound."""
    folder = tmp_path / "cache"
    folder.mkdir()
    parts = [folder / f"{sound_key(rel)}-1-2-abc-0-e-0-0-o.flac.part" for rel in ("a.wav", "b.wav")]
    for part in parts:
        part.write_bytes(b"cut off")
    c = _Cache(folder)
    assert c.render("a.wav", _sound(tmp_path / "a.wav", 0.5, 1), Edit(start_ms=1)).path
    assert [part.exists() for part in parts] == [False, False]
