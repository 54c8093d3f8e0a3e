"""Fitting into the host's limits: size (AST-9), frames (AST-10), delays (AST-11), bytes
(AST-12)."""

from __future__ import annotations

import itertools

import pytest
from hypothesis import given
from hypothesis import strategies as st

from cueboard.thumbnails import decode_thumbnail
from cueboard.thumbnails.fit import FrameCollector, evenly_kept, fit_delays, fit_size, frame_budget

from .thumbgen import GifFrame, gif, pixel, solid


@pytest.mark.parametrize(
    ("size", "fitted"),
    [
        ((300, 200), (128, 85)),
        ((64, 64), (64, 64)),  # never upscaled
        ((1, 1), (1, 1)),
        ((10000, 1), (128, 1)),  # never a side of 0
        ((1, 10000), (1, 128)),
        ((128, 129), (127, 128)),
    ],
)
def test_fit_size(size: tuple[int, int], fitted: tuple[int, int]) -> None:
    assert fit_size(*size) == fitted


@given(st.integers(1, 20000), st.integers(1, 20000))
def test_fit_size_keeps_aspect_within_a_pixel(width: int, height: int) -> None:
    w, h = fit_size(width, height)
    assert 1 <= w <= min(128, width) and 1 <= h <= min(128, height)
    scale = min(1.0, 128 / width, 128 / height)
    assert abs(w - width * scale) <= 0.5 + 1e-9 or w == 1
    assert abs(h - height * scale) <= 0.5 + 1e-9 or h == 1


def test_frame_budget_respects_two_mib() -> None:
    assert frame_budget(128, 128) == 32  # 32 x 64 KiB = 2 MiB
    assert frame_budget(64, 64) == 60
    assert frame_budget(1, 1) == 60


@given(st.integers(1, 5000), st.integers(1, 60))
def test_evenly_kept(total: int, budget: int) -> None:
    kept = evenly_kept(total, budget)
    assert kept[0] == 0 and len(kept) == min(total, budget)
    assert kept == sorted(set(kept)) and kept[-1] < total


def test_fit_delays_passes_excess_on_and_keeps_the_total() -> None:
    assert fit_delays([1500, 100, 100]) == ([1000, 600, 100], [])
    assert fit_delays([100, 100, 1500]) == ([100, 600, 1000], [])


def test_fit_delays_shortens_and_says_so_when_nothing_else_fits() -> None:
    delays, warnings = fit_delays([5000, 20])
    assert delays == [1000, 1000]
    assert warnings and "5020 ms to 2000 ms" in warnings[0]


@given(st.lists(st.integers(0, 100_000), min_size=2, max_size=60))
def test_fit_delays_always_within_limits(source: list[int]) -> None:
    delays, warnings = fit_delays(source)
    assert len(delays) == len(source)
    assert all(20 <= d <= 1000 for d in delays)
    if sum(source) <= 1000 * len(source) and min(source) >= 20:
        assert sum(delays) == sum(source) and not warnings


def test_unknown_length_stream_keeps_an_even_selection() -> None:
    collector = FrameCollector(None, 60)
    for i in range(1000):
        collector.add(10, lambda i=i: i.to_bytes(4, "little"))
    frames, _ = collector.finish()
    assert len(frames) == 60
    shown = [int.from_bytes(f.rgba, "little") for f in frames]
    assert shown[0] == 0 and shown == sorted(shown)
    gaps = {b - a for a, b in itertools.pairwise(shown)}
    assert max(gaps) - min(gaps) <= 16
    assert sum(f.delay_ms for f in frames) == 10_000


def _indexed_gif(count: int, delay_cs: int, size: int = 1) -> bytes:
    """Frame i is a solid colour whose red channel is i: which frame was kept is readable."""
    palette = [(i, 0, 0) for i in range(256)]
    frames = [GifFrame(solid(size, size, i % 256), delay_cs=delay_cs) for i in range(count)]
    return gif(size, size, frames, palette=palette, loop=0)


def test_dropping_frames_keeps_the_total_duration() -> None:
    """120 frames of 50 ms: 60 kept, every other one, each shown 100 ms; 6 s in all."""
    thumb = decode_thumbnail(_indexed_gif(120, 5))
    assert len(thumb.frames) == 60
    assert [pixel(f.rgba, 1, 0, 0)[0] for f in thumb.frames] == list(range(0, 120, 2))
    assert {f.delay_ms for f in thumb.frames} == {100}
    assert thumb.duration_ms == thumb.source_duration_ms == 6000
    assert not thumb.warnings


def test_too_long_to_fit_is_capped_and_reported() -> None:
    """200 frames of 1 s cannot fit 60 frames of at most 1 s: 60 s, reported."""
    thumb = decode_thumbnail(_indexed_gif(200, 100))
    assert len(thumb.frames) == 60
    assert {f.delay_ms for f in thumb.frames} == {1000}
    assert thumb.source_duration_ms == 200_000
    assert any("shortened from 200000 ms to 60000 ms" in w for w in thumb.warnings)


def test_byte_limit_bounds_frames_of_full_size_icons() -> None:
    """128x128 frames: 32 of them make 2 MiB (AST-12)."""
    thumb = decode_thumbnail(_indexed_gif(50, 4, size=128))
    assert len(thumb.frames) == 32
    assert thumb.decoded_bytes <= 2 * 1024 * 1024
    assert thumb.duration_ms == 50 * 40


def test_every_frame_has_exactly_width_height_4_bytes() -> None:
    """AST-7."""
    thumb = decode_thumbnail(_indexed_gif(3, 4, size=200))
    assert (thumb.width, thumb.height) == (128, 128)
    assert all(len(f.rgba) == 128 * 128 * 4 for f in thumb.frames)
