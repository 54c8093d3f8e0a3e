"""Fitting into the host's limits: size (AST-9), frames (AST-10), delays (AST-11), bytes
(AST-12)."""

from __future__ import annotations

import itertools

import pytest
from hypothesis import given
from hypothesis import strategies as st
from PIL import Image

from cueboard.workers.thumbnails import decode_thumbnail
from cueboard.workers.thumbnails.fit import (
    FrameCollector,
    evenly_kept,
    fit_size,
    frame_budget,
    rgba_bytes,
)
from cueboard.workers.thumbnails.timeline import fit_timeline

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


def test_long_frames_are_repeated_and_the_total_is_exact() -> None:
    """AST-11: 500, 3000, 500 ms become 500, three repeats of 1000, 500: 4000 ms, as the
    source."""
    entries, warnings = fit_timeline([500, 3000, 500], 60)
    assert entries == [(0, 500), (1, 1000), (1, 1000), (1, 1000), (2, 500)]
    assert not warnings


def test_a_long_frame_is_split_into_near_equal_repeats() -> None:
    entries, _ = fit_timeline([100, 2500], 60)
    assert entries == [(0, 100), (1, 834), (1, 833), (1, 833)]


def test_shares_are_kept_when_the_repeats_do_not_fit() -> None:
    """32 entries cannot hold 61 s: each frame is halved (500 -> 250, 60 s -> 30 x 1 s), 30.5 s
    in all, within 10% of 32 entries x 1 s."""
    entries, warnings = fit_timeline([500, 60_000, 500], 32)
    assert entries == [(0, 250)] + [(1, 1000)] * 30 + [(2, 250)]
    (warning,) = warnings
    assert "61000 ms" in warning and "30500 ms" in warning and "share" in warning


def test_short_frames_beside_a_long_one_share_time_slots() -> None:
    """31 frames of 100 ms and one of 5 s cannot each have an entry and keep 8.1 s in 32
    entries: the timeline is cut into 32 slots of about 253 ms, the first frame still first."""
    entries, warnings = fit_timeline([100] * 31 + [5000], 32)
    assert len(entries) <= 32 and entries[0][0] == 0
    assert sum(d for _, d in entries) == 8100
    long_frame = sum(d for i, d in entries if i == 31)
    assert abs(long_frame - 5000) <= 8100 / 32
    assert warnings and "8100 ms" in warnings[0]


@given(st.lists(st.integers(0, 100_000), min_size=2, max_size=60), st.integers(2, 60))
def test_timeline_always_within_limits(source: list[int], budget: int) -> None:
    """AST-10, AST-11: at most `budget` entries of 20-1000 ms, in frame order, the first frame
    first; exact when the repeats fit, else within 10% of min(source, 1000 ms x budget)."""
    source = source[:budget]
    entries, warnings = fit_timeline(source, budget)
    assert 1 <= len(entries) <= budget
    assert entries[0][0] == 0
    assert [i for i, _ in entries] == sorted(i for i, _ in entries)
    assert all(20 <= d <= 1000 for _, d in entries)
    played = sum(d for _, d in entries)
    floored = [max(20, d) for d in source]
    if sum(-(-d // 1000) for d in floored) <= budget:
        assert played == sum(floored) and not warnings
    else:
        target = min(sum(floored), 1000 * budget)
        assert abs(played - target) <= 0.1 * target
        assert warnings and f"{sum(source)} ms" in warnings[0] and f"{played} ms" in warnings[0]


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
    """200 frames of 1 s cannot fit 60 frames of at most 1 s: 60 s, reported with both
    totals."""
    thumb = decode_thumbnail(_indexed_gif(200, 100))
    assert len(thumb.frames) == 60
    assert {f.delay_ms for f in thumb.frames} == {1000}
    assert thumb.source_duration_ms == 200_000
    assert any("200000 ms" in w and "60000 ms" in w for w in thumb.warnings)


def _delays_gif(delays_cs: list[int], size: int = 1) -> bytes:
    palette = [(i, 0, 0) for i in range(256)]
    frames = [GifFrame(solid(size, size, i), delay_cs=d) for i, d in enumerate(delays_cs)]
    return gif(size, size, frames, palette=palette, loop=0)


def test_gif_frame_longer_than_the_host_allows_is_repeated() -> None:
    """AST-11: a GIF of 500, 3000 and 500 ms plays 4000 ms: the middle frame three times."""
    thumb = decode_thumbnail(_delays_gif([50, 300, 50]))
    assert [f.delay_ms for f in thumb.frames] == [500, 1000, 1000, 1000, 500]
    assert [pixel(f.rgba, 1, 0, 0)[0] for f in thumb.frames] == [0, 1, 1, 1, 2]
    assert thumb.duration_ms == thumb.source_duration_ms == 4000
    assert not thumb.warnings


def test_gif_fast_delays_count_as_100_ms_in_the_total() -> None:
    """Delays of 0 and 10 ms play as 100 ms: 100 + 100 + 2500 = 2700 ms."""
    thumb = decode_thumbnail(_delays_gif([0, 1, 250]))
    assert [f.delay_ms for f in thumb.frames] == [100, 100, 834, 833, 833]
    assert thumb.source_duration_ms == thumb.duration_ms == 2700


def test_gif_too_long_for_the_byte_budget_keeps_every_share() -> None:
    """128x128 frames: 32 fit in 2 MiB. 500, 60000, 500 ms become 250, 30 x 1000, 250: each
    frame half as long, 30.5 s, within 10% of 32 s; the warning gives both totals."""
    thumb = decode_thumbnail(_delays_gif([50, 6000, 50], size=128))
    assert [f.delay_ms for f in thumb.frames] == [250] + [1000] * 30 + [250]
    assert thumb.source_duration_ms == 61_000
    (warning,) = thumb.warnings
    assert "61000 ms" in warning and "30500 ms" in warning


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


@pytest.mark.parametrize("size", [(1, 1), (48, 48), (128, 77), (300, 300)])
def test_rgba_bytes_are_the_images_bytes(size: tuple[int, int]) -> None:
    """Every row, in order, whether the encoder hands them over in one piece or several (300 x
    300 x 4 is more than one 64 KiB piece)."""
    width, height = size
    data = bytes(
        (x * 7 + y * 13 + c) % 256 for y in range(height) for x in range(width) for c in range(4)
    )
    image = Image.frombytes("RGBA", size, data)
    assert rgba_bytes(image) == data
    assert rgba_bytes(image.convert("RGB")) == image.convert("RGB").tobytes()
