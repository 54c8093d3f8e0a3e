"""The sound editor's render: a 30 s sound trimmed and faded into FLAC, per source format.

    .venv/bin/python bench/bench_render.py [--seconds 30] [--runs 5] [--quick]

For each format Cueboard plays (wav, flac, ogg/vorbis, ogg/opus, mp3) a stereo sound of
``--seconds`` is written, then rendered as the worker does (``render_file``: trim 1 s off each
end, 200 ms fades, and again as a loop with its seam) beside the baseline of reading the source
whole with soundfile (what any decode costs). Median of ``--runs``, variants interleaved. Then
the rendered FLAC's size, what the 1 GiB default cache holds of such renders, and how long the
host takes to decode it (vrosdev's decoder, which resamples to 48 kHz as vrOS does), against
``audio.load``'s 30 s (AUD-16): the longest render the worker writes (``MAX_RENDER_S``) is
estimated from it. Nothing is asserted; it exits 1 only when a render fails.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from functools import partial
from pathlib import Path

import numpy as np
import soundfile

from cueboard.core.render import Edit
from cueboard.workers.render_job import MAX_RENDER_S, render_file
from vrosdev.audio.decode import decode_file

FORMATS = {  # name: (file suffix, format, subtype, sample rate)
    "wav": (".wav", "WAV", "PCM_16", 44100),
    "flac": (".flac", "FLAC", "PCM_16", 44100),
    "ogg": (".ogg", "OGG", "VORBIS", 44100),
    "opus": (".opus", "OGG", "OPUS", 48000),
    "mp3": (".mp3", "MP3", "MPEG_LAYER_III", 44100),
}
CACHE_BYTES = 1024 * 1024 * 1024


def sound(path: Path, seconds: float, fmt: tuple[str, str, str, int]) -> Path:
    """Music-like: two tones and noise, stereo."""
    _, container, subtype, rate = fmt
    t = np.arange(int(rate * seconds)) / rate
    rng = np.random.default_rng(1)
    left = 0.3 * np.sin(2 * np.pi * 220 * t) + 0.1 * rng.standard_normal(len(t))
    right = 0.3 * np.sin(2 * np.pi * 330 * t) + 0.1 * rng.standard_normal(len(t))
    data = np.clip(np.stack([left, right], axis=1), -1, 1)
    soundfile.write(str(path), data, rate, format=container, subtype=subtype)
    return path


def median_ms(fns: dict[str, Callable[[], object]], runs: int) -> dict[str, float]:
    times: dict[str, list[float]] = {k: [] for k in fns}
    for _ in range(runs):
        for k, fn in fns.items():
            started = time.perf_counter()
            fn()
            times[k].append((time.perf_counter() - started) * 1000)
    return {k: statistics.median(v) for k, v in times.items()}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=30.0)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--quick", action="store_true", help="3 s sounds, one run")
    args = parser.parse_args()
    seconds, runs = (3.0, 1) if args.quick else (args.seconds, args.runs)
    end_ms = int(seconds * 1000) - 1000
    edit = Edit(start_ms=1000, end_ms=end_ms, fade_in_ms=200, fade_out_ms=200)
    loop = Edit(start_ms=1000, end_ms=end_ms, fade_in_ms=200, fade_out_ms=200, loop=True)
    print(f"render of a {seconds:g} s stereo sound (trim 1 s each end, 200 ms fades), "
          f"median of {runs}")  # fmt: skip
    print()
    header = f"{'source':<6} {'read ms':>9} {'render ms':>10} {'loop ms':>9} {'flac KiB':>9} "
    header += f"{'in 1 GiB':>9} {'host decode ms':>15}"
    print(header)
    print("-" * len(header))
    failed = 0
    decode_per_s: list[float] = []
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        for name, fmt in FORMATS.items():
            try:
                source = sound(folder / f"source{fmt[0]}", seconds, fmt)
            except (RuntimeError, TypeError, ValueError) as exc:  # a libsndfile without it
                print(f"{name:<6} cannot write this format here: {exc}")
                continue
            out, out_loop = folder / f"{name}.flac", folder / f"{name}-loop.flac"
            errors: list[str | None] = []

            def rendered(dest: Path, how: Edit, errors: list[str | None] = errors) -> None:
                errors.append(render_file(str(source), str(dest), how))  # noqa: B023

            figures = median_ms(
                {
                    "read": partial(soundfile.read, str(source), dtype="float32"),
                    "render": partial(rendered, out, edit),
                    "loop": partial(rendered, out_loop, loop),
                },
                runs,
            )
            if any(errors):
                print(f"{name:<6} render failed: {errors}")
                failed += 1
                continue
            size = out.stat().st_size
            started = time.perf_counter()
            decode_file(str(out), checkpoint=lambda _: None)
            decode_ms = (time.perf_counter() - started) * 1000
            decode_per_s.append(decode_ms / (seconds - 2))
            print(
                f"{name:<6} {figures['read']:>9.1f} {figures['render']:>10.1f} "
                f"{figures['loop']:>9.1f} {size / 1024:>9.0f} {CACHE_BYTES // size:>9} "
                f"{decode_ms:>15.1f}"
            )
    if decode_per_s:
        longest = max(decode_per_s) * MAX_RENDER_S / 1000
        print()
        print(f"host decode of the longest render ({MAX_RENDER_S // 60} min), estimated: "
              f"{longest:.1f} s of audio.load's 30 s")  # fmt: skip
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
