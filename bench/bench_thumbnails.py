"""Thumbnail pipeline vs a straightforward Pillow pipeline, on the same files in the same run.

    .venv/bin/python bench/bench_thumbnails.py [--runs 5]

Cases (generated into a temporary directory): a mixed set (GIF, APNG, animated WebP, JPEG
photo, RGBA PNG), a 1,000-frame 64x64 GIF, and a 2048x1536 40-frame GIF.

Time: both pipelines in one child process per case, runs interleaved (so load from other
processes falls on both alike), median of `--runs` runs after one warm-up run each. Memory:
each (pipeline, case) in a fresh child process after the same imports, peak RSS growth above
the RSS after imports over one run, measured by the kernel (VmHWM in /proc/self/status,
reset through /proc/self/clear_refs), so allocations made by Pillow's C code count too
(tracemalloc sees only Python's allocator and would miss them).

Straightforward = open, ImageSequence, convert("RGBA"), thumbnail((128, 128)), base64.
Pipeline = cueboard.thumbnails.decode_file (GIFs streamed from the file), put_params().
Targets (issue 5): no slower on any case; on the large GIF, peak growth at most half.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
from PIL import Image

CASES = ("mixed", "gif-1000x64", "gif-2048x1536x40")
PIPELINES = ("straightforward", "pipeline")


# --- inputs ----------------------------------------------------------------------------------


def _palette() -> list[int]:
    return [v for i in range(256) for v in ((i * 7) % 256, (i * 3) % 256, 255 - i)]


def _moving_frames(width: int, height: int, count: int) -> list[Image.Image]:
    """Palette frames: a diagonal gradient that shifts, and a disc that moves."""
    y, x = np.mgrid[0:height, 0:width]
    frames = []
    for i in range(count):
        index = ((x + y) // 8 + i * 3) % 200
        cx, cy = (i * 37) % width, (i * 23) % height
        disc = (x - cx) ** 2 + (y - cy) ** 2 < (min(width, height) // 6) ** 2
        index = np.where(disc, 250, index).astype(np.uint8)
        frame = Image.fromarray(index, "P")
        frame.putpalette(_palette())
        frames.append(frame)
    return frames


def _save_gif(path: Path, frames: list[Image.Image], duration: int) -> None:
    frames[0].save(path, "GIF", save_all=True, append_images=frames[1:], duration=duration, loop=0)


def _rgba_frames(size: int, count: int) -> list[Image.Image]:
    out = []
    for i in range(count):
        frame = Image.new("RGBA", (size, size), (0, 0, 0, 0))
        frame.paste((255, 80, 0, 200), (i * 5, i * 3, i * 5 + size // 2, i * 3 + size // 2))
        out.append(frame)
    return out


def make_cases(directory: Path) -> dict[str, list[Path]]:
    mixed = directory / "mixed"
    mixed.mkdir()
    _save_gif(mixed / "anim.gif", _moving_frames(320, 240, 30), 50)
    rgba = _rgba_frames(256, 20)
    rgba[0].save(mixed / "anim.png", "PNG", save_all=True, append_images=rgba[1:], duration=60)
    rgba[0].save(mixed / "anim.webp", "WEBP", save_all=True, append_images=rgba[1:], duration=60)
    photo = _moving_frames(1920, 1080, 1)[0].convert("RGB")
    photo.save(mixed / "photo.jpg", "JPEG", quality=90)
    _rgba_frames(512, 1)[0].save(mixed / "still.png", "PNG")
    many = directory / "many.gif"
    _save_gif(many, _moving_frames(64, 64, 1000), 40)
    large = directory / "large.gif"
    _save_gif(large, _moving_frames(2048, 1536, 40), 80)
    return {
        "mixed": sorted(mixed.iterdir()),
        "gif-1000x64": [many],
        "gif-2048x1536x40": [large],
    }


# --- the two pipelines (run in the child) ------------------------------------------------------


def straightforward(path: Path) -> int:
    import base64

    from PIL import ImageSequence

    count = 0
    with Image.open(path) as image:
        for frame in ImageSequence.Iterator(image):
            rgba = frame.convert("RGBA")
            rgba.thumbnail((128, 128))
            base64.b64encode(rgba.tobytes())
            count += 1
    return count


def pipeline(path: Path) -> int:
    from cueboard.thumbnails import decode_file

    params = decode_file(path).put_params()
    return len(params["frames"])


def _rss_kib(field: str) -> int:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith(field + ":"):
            return int(line.split()[1])
    raise RuntimeError(f"{field} not in /proc/self/status")


def child_memory(name: str, paths: list[Path]) -> dict[str, float]:
    """Peak RSS growth of one run of one pipeline, in a fresh process after the imports."""
    import cueboard.thumbnails  # noqa: F401  (the same imports for both pipelines)

    run = straightforward if name == "straightforward" else pipeline
    Path("/proc/self/clear_refs").write_text("5")  # reset VmHWM to the current RSS
    baseline = _rss_kib("VmRSS")
    for path in paths:
        run(path)
    return {"peak_growth_mib": (_rss_kib("VmHWM") - baseline) / 1024}


def child_time(paths: list[Path], runs: int) -> dict[str, float]:
    """Median times of both pipelines, runs interleaved so that load from other processes
    falls on both alike; one warm-up run each."""
    import cueboard.thumbnails  # noqa: F401

    times: dict[str, list[float]] = {name: [] for name in PIPELINES}
    for attempt in range(runs + 1):
        for name, run in (("straightforward", straightforward), ("pipeline", pipeline)):
            start = time.perf_counter()
            for path in paths:
                run(path)
            if attempt:
                times[name].append(time.perf_counter() - start)
    return {name: statistics.median(values) for name, values in times.items()}


# --- the parent --------------------------------------------------------------------------------


def _in_child(call: str, paths: list[Path]) -> dict[str, float]:
    script = (
        "import json, sys; from pathlib import Path; sys.path.insert(0, sys.argv[1]);"
        "import bench_thumbnails as b; paths = [Path(p) for p in sys.argv[2:]];"
        f"print(json.dumps(b.{call}))"
    )
    out = subprocess.run(
        [sys.executable, "-c", script, str(Path(__file__).parent), *map(str, paths)],
        capture_output=True,
        text=True,
        check=True,
    )
    return json.loads(out.stdout.splitlines()[-1])


def measure(case: list[Path], runs: int) -> dict[str, dict[str, float]]:
    times = _in_child(f"child_time(paths, {runs})", case)
    return {
        name: {
            "median_s": times[name],
            **_in_child(f"child_memory({name!r}, paths)", case),
        }
        for name in PIPELINES
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="bench-thumbs-") as temp:
        cases = make_cases(Path(temp))
        sizes = {c: sum(p.stat().st_size for p in ps) for c, ps in cases.items()}
        measured = {c: measure(cases[c], args.runs) for c in CASES}
        results = {(c, n): measured[c][n] for c in CASES for n in PIPELINES}
    header = (
        f"{'case':<18} {'input':>9} {'straightforward':>16} {'pipeline':>10} {'ratio':>6}"
        f" {'peak MiB (sf)':>14} {'peak MiB (ours)':>16} {'ratio':>6}"
    )
    print(header)
    print("-" * len(header))
    for case in CASES:
        sf, ours = results[(case, "straightforward")], results[(case, "pipeline")]
        print(
            f"{case:<18} {sizes[case] / 2**20:>7.1f}Mi {sf['median_s']:>15.3f}s "
            f"{ours['median_s']:>9.3f}s {ours['median_s'] / sf['median_s']:>6.2f}"
            f" {sf['peak_growth_mib']:>14.1f} {ours['peak_growth_mib']:>16.1f}"
            f" {ours['peak_growth_mib'] / max(sf['peak_growth_mib'], 0.01):>6.2f}"
        )
    print(
        f"\nmedian of {args.runs} runs; peak = VmHWM growth above the RSS after imports (first "
        "run, fresh process). Targets: time ratio <= 1 everywhere; peak ratio <= 0.5 on the "
        "2048x1536 GIF."
    )


if __name__ == "__main__":
    main()
