"""GIF compositing, on hand-written files whose every pixel is known (MED/AST asset rules).

Each case here is one that Pillow 13 gets wrong (disposal, transparency and frame offsets of
animated GIFs) or a rule of the browsers' conventions the issue asks for.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from cueboard.workers.thumbnails import ThumbnailError, decode_file, decode_thumbnail

from .thumbgen import GifFrame, gif, pixels, solid

CLEAR = (0, 0, 0, 0)
BLACK, RED, GREEN, BLUE, WHITE = (0, 0, 0), (255, 0, 0), (0, 255, 0), (0, 0, 255), (255, 255, 255)
PALETTE = [BLACK, RED, GREEN, BLUE, WHITE]
R, G, B, W = (255, 0, 0, 255), (0, 255, 0, 255), (0, 0, 255, 255), (255, 255, 255, 255)


def frames_of(data: bytes) -> list[list[list[tuple[int, int, int, int]]]]:
    thumb = decode_thumbnail(data)
    return [pixels(f.rgba, thumb.width, thumb.height) for f in thumb.frames]


def test_disposal_2_after_opaque_first_frame_clears_to_transparent() -> None:
    """Pillow fills the cleared area with the transparency index's colour, opaque."""
    data = gif(
        3,
        2,
        [
            GifFrame(solid(3, 2, 1), disposal=2),  # opaque red, no transparent index
            GifFrame(solid(1, 1, 3), x=2, y=1, transparent=4),  # blue dot; index 4 is white
        ],
        palette=PALETTE,
    )
    first, second = frames_of(data)
    assert first == [[R, R, R], [R, R, R]]
    assert second == [[CLEAR, CLEAR, CLEAR], [CLEAR, CLEAR, B]]


def test_first_frame_smaller_than_canvas_leaves_the_rest_transparent() -> None:
    """Pillow fills the rest with palette index 0, opaque black."""
    data = gif(3, 3, [GifFrame(solid(1, 1, 1), x=1, y=1)], palette=PALETTE)
    (only,) = frames_of(data)
    assert only == [[CLEAR] * 3, [CLEAR, R, CLEAR], [CLEAR] * 3]


def test_disposal_3_restores_to_the_initial_transparent_canvas() -> None:
    data = gif(
        2,
        2,
        [
            GifFrame(solid(2, 2, 2), disposal=3),  # green, then back to nothing
            GifFrame(solid(1, 1, 1), x=0, y=0),
        ],
        palette=PALETTE,
    )
    first, second = frames_of(data)
    assert first == [[G, G], [G, G]]
    assert second == [[R, CLEAR], [CLEAR, CLEAR]]


def test_disposal_3_restores_what_the_frame_covered() -> None:
    data = gif(
        3,
        1,
        [
            GifFrame(solid(3, 1, 1), disposal=1),  # red stays
            GifFrame(solid(2, 1, 3), disposal=3),  # blue over the left two, then restored
            GifFrame(solid(1, 1, 2), x=2),  # green on the right
        ],
        palette=PALETTE,
    )
    _, second, third = frames_of(data)
    assert second == [[B, B, R]]
    assert third == [[R, R, G]]


def test_disposal_0_after_disposal_2_leaves_the_frame() -> None:
    """Pillow treats disposal 0 after a disposal-2 frame as disposal 2."""
    data = gif(
        3,
        1,
        [
            GifFrame(solid(1, 1, 1), disposal=2),  # red at x=0, cleared afterwards
            GifFrame(solid(1, 1, 3), x=1, disposal=0),  # blue at x=1, stays
            GifFrame(solid(1, 1, 2), x=2, disposal=0),  # green at x=2
        ],
        palette=PALETTE,
    )
    _, second, third = frames_of(data)
    assert second == [[CLEAR, B, CLEAR]]
    assert third == [[CLEAR, B, G]]


def test_transparent_index_keeps_the_pixels_below() -> None:
    data = gif(
        2,
        1,
        [
            GifFrame(solid(2, 1, 1), disposal=1),
            GifFrame([[4, 3]], transparent=4),  # white is the transparent index
        ],
        palette=PALETTE,
    )
    _, second = frames_of(data)
    assert second == [[R, B]]


def test_local_palettes_override_the_global_one() -> None:
    data = gif(
        2,
        1,
        [
            GifFrame([[1, 2]]),
            GifFrame([[1, 2]], palette=[BLACK, WHITE, BLUE, RED]),
        ],
        palette=PALETTE,
    )
    first, second = frames_of(data)
    assert first == [[R, G]]
    assert second == [[W, B]]


def test_a_palette_goes_back_to_the_global_one_after_a_local_one() -> None:
    data = gif(
        2,
        1,
        [
            GifFrame([[1, 2]]),
            GifFrame([[1, 2]], palette=[BLACK, WHITE, BLUE, RED]),
            GifFrame([[2, 1]]),
        ],
        palette=PALETTE,
    )
    assert frames_of(data) == [[[R, G]], [[W, B]], [[G, R]]]


def test_a_frame_reaching_past_the_canvas_is_drawn_where_it_overlaps() -> None:
    data = gif(2, 2, [GifFrame(solid(2, 2, 1), x=1, y=1)], palette=PALETTE)
    (only,) = frames_of(data)
    assert only == [[CLEAR, CLEAR], [CLEAR, R]]


def test_a_large_keyed_frame_is_drawn_in_strips_with_its_transparency() -> None:
    """120x600 is more than one strip of rows (fit.STRIP_PIXELS): the blue lower half lands
    on the red first frame, the transparent upper half leaves it; no resize at that height
    would mix the two far from the middle."""
    top = [[4] * 120 for _ in range(300)]
    bottom = [[3] * 120 for _ in range(300)]
    data = gif(
        120,
        600,
        [GifFrame(solid(120, 600, 1), disposal=1), GifFrame(top + bottom, transparent=4)],
        palette=PALETTE,
    )
    _, second = frames_of(data)
    assert second[0][0] == R and second[20][10] == R
    assert second[-1][-1] == B and second[-20][10] == B


def test_interlaced_rows_land_in_place() -> None:
    rows = [[y % 4 + 1] * 2 for y in range(11)]
    colours = {1: R, 2: G, 3: B, 4: W}
    (only,) = frames_of(gif(2, 11, [GifFrame(rows, interlace=True)], palette=PALETTE))
    assert only == [[colours[y % 4 + 1]] * 2 for y in range(11)]


@pytest.mark.parametrize(
    ("delay_cs", "expected_ms"),
    [(0, 100), (1, 100), (2, 20), (7, 70), (100, 1000)],
)
def test_gif_delays_follow_the_browsers(delay_cs: int, expected_ms: int) -> None:
    """AST-11; a GIF delay of 10 ms or less plays as 100 ms."""
    frames = [GifFrame(solid(1, 1, i + 1), delay_cs=delay_cs) for i in range(2)]
    thumb = decode_thumbnail(gif(1, 1, frames, palette=PALETTE))
    assert [f.delay_ms for f in thumb.frames] == [expected_ms, expected_ms]


@pytest.mark.parametrize(("netscape", "plays"), [(None, 1), (0, 0), (1, 2), (4, 5)])
def test_loop_is_the_total_play_count(netscape: int | None, plays: int) -> None:
    """AST-8: the NETSCAPE count is repeats after the first play; none means play once."""
    frames = [GifFrame(solid(1, 1, i + 1)) for i in range(2)]
    thumb = decode_thumbnail(gif(1, 1, frames, palette=PALETTE, loop=netscape))
    assert thumb.loop == plays


def _three_frames() -> bytes:
    return gif(2, 2, [GifFrame(solid(2, 2, i + 1)) for i in range(3)], palette=PALETTE)


def test_truncated_gif_keeps_the_intact_frames_and_says_so() -> None:
    data = _three_frames()
    cut = data[: len(data) - 6]  # inside the third frame's data
    thumb = decode_thumbnail(cut)
    assert len(thumb.frames) == 2
    assert pixels(thumb.frames[1].rgba, 2, 2) == [[G, G], [G, G]]
    assert any("damage" in w and "truncated" in w for w in thumb.warnings)


def test_gif_truncated_inside_the_first_frame_is_refused() -> None:
    data = _three_frames()
    first_frame_end = data.index(b"\x21\xf9", 40)
    with pytest.raises(ThumbnailError) as caught:
        decode_thumbnail(data[: first_frame_end - 3])
    assert caught.value.kind == "truncated"


def test_corrupt_lzw_in_a_later_frame_keeps_the_frames_before() -> None:
    good = gif(1, 1, [GifFrame(solid(1, 1, 1))], palette=PALETTE, trailer=False)
    # A frame whose LZW data starts with a code beyond the table: undecodable.
    bad = b"\x21\xf9\x04\x00\x0a\x00\x00\x00" + b"\x2c" + bytes(8) + b"\x00"
    bad = bad[:10] + b"\x01\x00\x01\x00\x00" + b"\x02\x02\xff\xff\x00\x3b"
    thumb = decode_thumbnail(good + bad)
    assert len(thumb.frames) == 1
    assert thumb.warnings


def test_declared_size_bomb_is_refused_before_decoding() -> None:
    """65535x65535 declared in 40 bytes: refused from the header."""
    data = gif(1, 1, [GifFrame(solid(1, 1, 1))], palette=PALETTE)
    bomb = data[:6] + b"\xff\xff\xff\xff" + data[10:]
    with pytest.raises(ThumbnailError) as caught:
        decode_thumbnail(bomb)
    assert caught.value.kind == "too_large"


def test_frame_count_bomb_is_refused_before_decoding() -> None:
    frames = [GifFrame([[1]], graphic_control=False)] * 5001
    with pytest.raises(ThumbnailError) as caught:
        decode_thumbnail(gif(1, 1, frames, palette=PALETTE))
    assert caught.value.kind == "too_large"
    assert "5001 frames" in caught.value.reason


def test_a_gif_file_is_streamed_with_the_same_result(tmp_path: Path) -> None:
    data = gif(
        3,
        1,
        [GifFrame(solid(3, 1, 1), disposal=2), GifFrame(solid(1, 1, 3), x=1)],
        palette=PALETTE,
        loop=2,
    )
    path = tmp_path / "icon.gif"
    path.write_bytes(data)
    assert decode_file(path) == decode_thumbnail(data)
    path.write_bytes(data[:-8])
    assert decode_file(path).warnings


def test_a_file_over_the_local_cap_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "icon.gif"
    path.write_bytes(gif(1, 1, [GifFrame(solid(1, 1, 1))], palette=PALETTE))
    with pytest.raises(ThumbnailError) as caught:
        decode_file(path, max_bytes=10)
    assert caught.value.kind == "too_large"
