"""Render one edited sound: trim, fades and a loop's seam, written as FLAC.

Runs in a worker process (``anyio.to_process``), never on the event loop: soundfile and numpy
are imported here only, so the extension's own process never loads them. libsndfile reads
every format Cueboard plays (wav, flac, ogg/vorbis, ogg/opus, mp3) and writes FLAC.

The source is read in blocks, so a long file is never held whole. Fades are linear gain ramps
(the fade-in from silence at the trim start, the fade-out to silence at the trim end). A loop's
seam is crossfaded: the last :data:`SEAM_MS` of the trimmed sound are mixed into its first ones
and the file ends where that tail began, so the sample after the file's last one, when it loops,
is the one that followed it in the source: no step at the seam, whatever the fades.

A render stays within what ``audio.load`` takes (AUD-15, AUD-16): at most
:data:`MAX_RENDER_BYTES` on disk, and at most :data:`MAX_RENDER_S` long, so the host's decode
of it stays far inside its 30 s (``bench/bench_render.py`` measures a decode).
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING, Any

from cueboard.core.library import MAX_SOUND_BYTES
from cueboard.core.render import Edit

from .priority import lower_priority

if TYPE_CHECKING:
    import numpy as np
    import numpy.typing as npt

__all__ = ["MAX_RENDER_BYTES", "MAX_RENDER_S", "SEAM_MS", "render_file", "render_in_worker"]

SEAM_MS = 20
MAX_RENDER_BYTES = MAX_SOUND_BYTES
MAX_RENDER_S = 30 * 60
BLOCK_FRAMES = 65_536
_DEEP = {"PCM_24", "PCM_32", "FLOAT", "DOUBLE"}  # kept at 24 bits; the rest (lossy too) at 16


def render_in_worker(source: str, dest: str, edit: Edit) -> str | None:
    """:func:`render_file` in a worker process, at its lower priority."""
    lower_priority()
    return render_file(source, dest, edit)


def render_file(source: str, dest: str, edit: Edit) -> str | None:
    """Write ``source`` as ``edit`` to ``dest`` (whole or not at all); None when written, else
    a reason code: ``unreadable``, ``empty`` (nothing left between start and end),
    ``too_long`` or ``too_large``."""
    import soundfile

    part = dest + ".part"
    try:
        with soundfile.SoundFile(source) as src:
            rate, channels = src.samplerate, src.channels
            start = min(_frames(edit.start_ms, rate), src.frames)
            end = src.frames if edit.end_ms is None else _frames(edit.end_ms, rate)
            end = min(end, src.frames)
            length = end - start
            if length <= 0:
                return "empty"
            seam = min(_frames(SEAM_MS, rate), length // 4) if edit.loop else 0
            if (length - seam) > MAX_RENDER_S * rate:
                return "too_long"
            subtype = "PCM_24" if src.subtype in _DEEP else "PCM_16"
            with soundfile.SoundFile(
                part, "w", samplerate=rate, channels=channels, format="FLAC", subtype=subtype
            ) as out:
                _copy(src, out, edit, start, length, seam)
    except (RuntimeError, OSError, ValueError, TypeError):
        _remove(part)
        return "unreadable"
    if os.path.getsize(part) > MAX_RENDER_BYTES:
        _remove(part)
        return "too_large"
    os.replace(part, dest)
    return None


def _frames(ms: int, rate: int) -> int:
    return max(0, round(ms * rate / 1000))


def _copy(src: Any, out: Any, edit: Edit, start: int, length: int, seam: int) -> None:
    """Blocks of the trimmed sound, faded; the seam's tail mixed into the head."""
    import numpy as np

    rate = src.samplerate
    fade_in, fade_out = _frames(edit.fade_in_ms, rate), _frames(edit.fade_out_ms, rate)
    tail: npt.NDArray[np.float32] | None = None
    if seam:
        src.seek(start + length - seam)
        tail = _read(src, seam)
        tail = tail * _gains(np.arange(length - seam, length), length, fade_in, fade_out)
    src.seek(start)
    written, total = 0, length - seam
    while written < total:
        block = _read(src, min(BLOCK_FRAMES, total - written))
        if not len(block):
            break
        at = np.arange(written, written + len(block))
        block = block * _gains(at, length, fade_in, fade_out)
        if tail is not None and written < seam:
            head = at[at < seam]
            w = (head / seam)[:, None].astype(np.float32)
            block[: len(head)] = block[: len(head)] * w + tail[head] * (1 - w)
        out.write(np.clip(block, -1.0, 1.0))
        written += len(block)


def _read(src: Any, frames: int) -> npt.NDArray[np.float32]:
    block: npt.NDArray[np.float32] = src.read(frames, dtype="float32", always_2d=True)
    return block


def _gains(
    at: npt.NDArray[np.int64], length: int, fade_in: int, fade_out: int
) -> npt.NDArray[np.float32]:
    """Each frame's gain: a ramp up over the first ``fade_in`` frames, down over the last
    ``fade_out`` (the last frame silent)."""
    import numpy as np

    gain = np.ones(len(at), dtype=np.float32)
    if fade_in:
        gain = np.minimum(gain, at / fade_in)
    if fade_out:
        gain = np.minimum(gain, (length - 1 - at) / fade_out)
    return np.clip(gain, 0.0, 1.0).astype(np.float32)[:, None]


def _remove(path: str) -> None:
    try:
        os.remove(path)
    except OSError:
        pass
