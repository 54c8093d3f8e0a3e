"""The editor's waveform, in a worker process: peaks per column read from the sound's file, then
drawn as RGBA tiles with the edit in them, each an ``assets.put`` prepared here.

Reading a file whole could take hundreds of megabytes for a long song, so it is read in blocks
and only the loudest sample of each column is kept (:func:`peaks_of`); the peaks come back to
the core with the tiles, so a later edit of the same sound is drawn again from them without
reading the file (:func:`draw_tiles`). The tiles are the asset rules' widest (AST-9) and named
by their pixels, so the same picture is never put twice. Like the icon jobs, this module
imports only what its work needs, and numpy and libsndfile only inside the work: the runtime
imports it to name the function a worker runs, and its own process reads no audio.
"""

from __future__ import annotations

import hashlib
from base64 import b64encode
from pathlib import Path
from typing import TYPE_CHECKING, Any

from cueboard.core.asset_table import AssetRef
from cueboard.core.contract.common import WAVEFORM_HEIGHT, WAVEFORM_TILE_WIDTH, WAVEFORM_TILES
from vxp.prepared import prepare

from .priority import lower_priority

if TYPE_CHECKING:
    import numpy as np

    from cueboard.core.inputs import Put, WaveEdit, Waveform

__all__ = ["COLUMNS", "draw_in_worker", "draw_tiles", "draw_waveform", "peaks_of", "pixels"]

COLUMNS = WAVEFORM_TILES * WAVEFORM_TILE_WIDTH
BLOCK_FRAMES = 1 << 16
STILL_DELAY_MS = 1000  # one frame: its delay only has to be within AST-11

# Straight-alpha RGBA (AST-7). The kept part is an opaque blue, the trimmed parts a faint grey,
# and the trim points and fade envelopes an amber that reads on the light and the dark palettes.
KEPT = (64, 156, 255, 255)
TRIMMED = (128, 128, 128, 72)
MARK = (255, 168, 38, 255)


def peaks_of(path: Path, columns: int = COLUMNS) -> tuple[tuple[float, ...], int]:
    """The loudest sample of each column (0-1, every channel), and the length in ms."""
    import numpy as np
    import soundfile

    with soundfile.SoundFile(str(path)) as f:
        frames, rate = f.frames, f.samplerate
        peaks = np.zeros(columns, dtype=np.float32)
        done = 0
        while frames > 0:
            block = f.read(BLOCK_FRAMES, dtype="float32", always_2d=True)
            n = len(block)
            if n == 0:
                break
            loudest = np.abs(block).max(axis=1)
            column = (np.arange(done, done + n, dtype=np.int64) * columns) // frames
            starts = np.concatenate(([0], np.flatnonzero(np.diff(column)) + 1))
            cols = column[starts]
            peaks[cols] = np.maximum(peaks[cols], np.maximum.reduceat(loudest, starts))
            done += n
    duration_ms = round(frames * 1000 / rate) if rate else 0
    return tuple(float(p) for p in np.minimum(peaks, 1.0)), duration_ms


def pixels(
    peaks: tuple[float, ...], duration_ms: int, edit: WaveEdit, height: int = WAVEFORM_HEIGHT
) -> np.ndarray:
    """The whole strip, ``height`` x columns x RGBA: a bar per column, scaled by the fade
    envelope inside the trim and drawn faint outside it, the envelope's edge and the trim
    points marked."""
    import numpy as np

    start, end, fade_in, fade_out = edit
    columns = len(peaks)
    end = duration_ms if end is None else min(end, duration_ms)
    t = (np.arange(columns) + 0.5) / columns * duration_ms
    kept = (t >= start) & (t < end)
    gain = np.ones(columns)
    if fade_in > 0:
        gain = np.minimum(gain, np.clip((t - start) / fade_in, 0.0, 1.0))
    if fade_out > 0:
        gain = np.minimum(gain, np.clip((end - t) / fade_out, 0.0, 1.0))
    gain = np.where(kept, gain, 1.0)
    half = height / 2 - 1
    bar = np.maximum(np.asarray(peaks) * gain * half, 0.5)
    y = np.abs(np.arange(height) + 0.5 - height / 2)[:, None]
    out = np.zeros((height, columns, 4), dtype=np.uint8)
    in_bar = y <= bar[None, :]
    out[in_bar & kept[None, :]] = KEPT
    out[in_bar & ~kept[None, :]] = TRIMMED
    fading = kept & (gain < 1.0)
    edge = (np.abs(y - gain[None, :] * half) < 1.0) & fading[None, :]
    out[edge] = MARK
    for ms, on in ((start, start > 0), (end, end < duration_ms)):
        if on and duration_ms > 0:
            out[:, min(columns - 1, int(ms / duration_ms * columns))] = MARK
    return out


def draw_tiles(peaks: tuple[float, ...], duration_ms: int, edit: WaveEdit) -> tuple[Put, ...]:
    """The strip cut into tiles of the widest asset the rules allow, each a prepared put."""
    import numpy as np

    from vxp.models.assets import AssetPut

    strip = pixels(peaks, duration_ms, edit)
    puts: list[Put] = []
    for i in range(0, strip.shape[1], WAVEFORM_TILE_WIDTH):
        tile = np.ascontiguousarray(strip[:, i : i + WAVEFORM_TILE_WIDTH])
        rgba = tile.tobytes()
        height, width = tile.shape[:2]
        key = "wave:" + hashlib.blake2b(rgba, digest_size=16).hexdigest()
        frame = {"rgba_base64": b64encode(rgba).decode("ascii"), "delay_ms": STILL_DELAY_MS}
        params: dict[str, Any] = {
            "key": key, "width": width, "height": height, "frames": [frame], "loop": 0,
        }  # fmt: skip
        puts.append((AssetRef(key, len(rgba), 1), prepare("assets", AssetPut(**params))))
    return tuple(puts)


def draw_waveform(
    path: str, peaks: tuple[float, ...] | None, duration_ms: int, edit: WaveEdit
) -> Waveform | str:
    """Peaks (read when not given), the length, and the tiles; or why there is no waveform."""
    if peaks is None:
        try:
            peaks, duration_ms = peaks_of(Path(path))
        except ImportError:
            return "cannot read audio: soundfile is not installed"
        except Exception as exc:  # libsndfile's errors are RuntimeErrors; a file may go
            return f"unreadable: {type(exc).__name__}"
    return peaks, duration_ms, draw_tiles(peaks, duration_ms, edit)


def draw_in_worker(
    path: str, peaks: tuple[float, ...] | None, duration_ms: int, edit: WaveEdit
) -> Waveform | str:
    """:func:`draw_waveform` in a worker process, at the workers' lower priority."""
    lower_priority()
    return draw_waveform(path, peaks, duration_ms, edit)
