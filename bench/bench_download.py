"""Importing a sound from a link: throughput and memory of
``cueboard.workers.download.fetch_sound``.

    .venv/bin/python bench/bench_download.py [--mib 64] [--runs 5] [--quick]

A ``--mib`` MiB WAV (a real header, then noise) is served over HTTPS by the tests' loopback
server (a trustme authority, in a thread of this process) and downloaded into a temporary
folder on the same disk. ``fetch_sound`` (hidden file, sniffing, 1 MiB writes in a worker
thread, fsync, rename) is timed beside two baselines on the same server in the same run: httpx
streaming the body and dropping it (the network alone), and httpx streaming it into a file with
plain writes and an fsync (a straightforward download). Variants are interleaved, median of
``--runs``, on asyncio; ``fetch_sound`` also on trio. The peak of Python allocations during one
``fetch_sound`` (tracemalloc, a separate run) shows the body is never held in memory.
Target: ``fetch_sound`` at most 1.25x the straightforward download's time.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
import tracemalloc
from collections.abc import Awaitable, Callable
from pathlib import Path

import anyio
import httpx
import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tests.cueboard.tls_server import Route, Tls, tls_server

from cueboard.workers.download import fetch_sound

MIB = 1024 * 1024
TARGET_RATIO = 1.25


def wav(size: int) -> bytes:
    header = b"RIFF" + (size - 8).to_bytes(4, "little") + b"WAVE"
    fmt = (
        b"fmt "
        + (16).to_bytes(4, "little")
        + bytes.fromhex("0100010080bb000000770100" + "02001000")
    )
    data_size = size - len(header) - len(fmt) - 8
    noise = np.random.default_rng(1).integers(0, 256, data_size, dtype=np.uint8).tobytes()
    return header + fmt + b"data" + data_size.to_bytes(4, "little") + noise


async def network_only(tls: Tls, folder: Path) -> None:
    async with (
        httpx.AsyncClient(verify=tls.client_context) as client,
        client.stream("GET", f"{tls.server.origin}/big.wav") as response,
    ):
        async for _ in response.aiter_bytes():
            pass


async def plain_download(tls: Tls, folder: Path) -> None:
    async with (
        httpx.AsyncClient(verify=tls.client_context) as client,
        client.stream("GET", f"{tls.server.origin}/big.wav") as response,
    ):
        with (folder / "plain.wav").open("wb") as file:
            async for chunk in response.aiter_bytes():
                file.write(chunk)
            file.flush()
            os.fsync(file.fileno())


async def cueboard(tls: Tls, folder: Path) -> None:
    await fetch_sound(f"{tls.server.origin}/big.wav", folder, verify=tls.client_context)


def timed(
    variant: Callable[[Tls, Path], Awaitable[None]], tls: Tls, backend: str = "asyncio"
) -> float:
    with tempfile.TemporaryDirectory(dir=Path.cwd()) as folder:
        start = time.perf_counter()
        anyio.run(variant, tls, Path(folder), backend=backend)
        return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--mib", type=int, default=64)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--quick", action="store_true", help="one run, small sizes")
    args = parser.parse_args()
    if args.quick:
        args.mib, args.runs = 4, 1
    body = wav(args.mib * MIB)
    variants: dict[str, tuple[Callable[[Tls, Path], Awaitable[None]], str]] = {
        "httpx, body dropped (network only)": (network_only, "asyncio"),
        "httpx, plain writes + fsync (baseline)": (plain_download, "asyncio"),
        "fetch_sound, asyncio": (cueboard, "asyncio"),
        "fetch_sound, trio": (cueboard, "trio"),
    }
    times: dict[str, list[float]] = {name: [] for name in variants}
    with tls_server() as tls:
        tls.server.routes["/big.wav"] = Route(body=body)
        for variant, backend in variants.values():  # warm-up: imports, first TLS
            timed(variant, tls, backend)
        for _ in range(args.runs):
            for name, (variant, backend) in variants.items():
                times[name].append(timed(variant, tls, backend))
        tracemalloc.start()
        timed(cueboard, tls)
        _, peak = tracemalloc.get_traced_memory()
        tracemalloc.stop()
    baseline = statistics.median(times["httpx, plain writes + fsync (baseline)"])
    print(f"{args.mib} MiB over loopback HTTPS, median of {args.runs}")
    print(f"| {'variant':<40} | {'s':>6} | {'MiB/s':>7} | {'x baseline':>10} |")
    print(f"|{'-' * 42}|{'-' * 8}|{'-' * 9}|{'-' * 12}|")
    for name, samples in times.items():
        median = statistics.median(samples)
        print(
            f"| {name:<40} | {median:6.3f} | {args.mib / median:7.1f} | {median / baseline:10.2f} |"
        )
    ratio = statistics.median(times["fetch_sound, asyncio"]) / baseline
    print(f"\nPython allocation peak during one fetch_sound: {peak / MIB:.1f} MiB")
    verdict = "meets" if ratio <= TARGET_RATIO else "MISSES"
    print(f"fetch_sound on asyncio: {ratio:.2f}x the baseline ({verdict} <= {TARGET_RATIO}x)")


if __name__ == "__main__":
    main()
