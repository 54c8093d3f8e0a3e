"""A soak of the real Cueboard process inside vrosdev: what is left behind after many presses.

    .venv/bin/python bench/bench_soak.py [--commands 10000] [--clicks 1000] [--icons 200]
        [--idle-s 3] [--tracemalloc N] [--rounds 10] [--quick]

vrosdev runs in this process (``vrosdev.launcher.run_extension`` with a driver, as
``bench/bench_latency.py`` does); the real Cueboard runs as its own process. The library: pages
of 12 sounds of 50 ms, the first 10 of each page with a distinct 128x128 PNG icon: page 1's are
put at start-up, then ``--icons`` more on the pages after it. After start-up (scanned, page 1
loaded, its icons put, quiet) the driver plays ten rounds, each of a tenth of: ``--commands``
invocations (two ``page-next`` that bring a new page of icons, each put once, one ``rescan``,
then ``play-slot-N`` over the page with a ``stop-all`` every 20th and a ``play-random`` every
50th, each sent once the previous one's request has reached the host), ``--clicks`` overlay
clicks (``play-sound``, ``stop-sound``, ``set-soundboard-gain``, ``stop-all``,
``dismiss-status``) and ``--icons`` icon puts.

Measured three times, after start-up (the baseline), after half the rounds and after the
soak, each once the process is quiet: its RSS (``VmRSS``), open file descriptors (entries of
``/proc/PID/fd``), the tasks and timers the runtime reports on the debug bus topic
(``cmd.debug`` -> ``ext.<id>.debug``) and its CPU over ``--idle-s`` of idleness (from
``/proc/PID/stat``). Goals (issue 14): RSS after the soak within 10% of after start-up; fds and
tasks equal. The mid-soak column tells a leak (growth between the halves) from a one-time cost
(code paths first run, caches filling to their cap).

``--tracemalloc N`` runs Cueboard with ``tracemalloc`` (N frames) and prints the 15 largest
growths between the start-up and after-soak snapshots (Python allocations only; the RSS
figures of such a run include tracemalloc's own). Nothing is asserted.
"""

from __future__ import annotations

import argparse
import os
import random
import signal
import sys
import tempfile
import time
import tracemalloc
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import anyio
import numpy as np

from vrosdev.host.config import HostConfig
from vrosdev.host.core import ExtensionHost
from vrosdev.host.namespaces.bus import deliver
from vrosdev.host.namespaces.commands import invoke
from vrosdev.launcher import run_extension
from vrosdev.script import ScriptRunner, parse, typed_arg
from vxp.manifest import load_manifest

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_latency import short_tone

REPO = Path(__file__).resolve().parents[1]
TOKEN = "bench-soak-token-5d21"
PAGE = 12
ICONS_PER_PAGE = 10
ROUNDS = 10
RSS_GOAL = 0.10
ANSWER_S = 1.0
QUIET_S = 1.5  # longer than the status reconcile's period: a finished play leaves no timer
SNAP_ENV = "BENCH_SOAK_TRACEMALLOC"

# Cueboard, unchanged, writing a tracemalloc snapshot on each SIGUSR1 (--tracemalloc only).
TRACED_CUEBOARD = r"""
import gc, os, signal, sys, tracemalloc
from cueboard import runtime
folder, frames = os.environ["BENCH_SOAK_TRACEMALLOC"].split(":")
tracemalloc.start(int(frames))
taken = [0]
def snapshot(*_):
    gc.collect()
    taken[0] += 1
    path = os.path.join(folder, f"snap-{taken[0]}")
    tracemalloc.take_snapshot().dump(path + ".part")
    os.rename(path + ".part", path)
signal.signal(signal.SIGUSR1, snapshot)
sys.exit(runtime.main())
"""

# -- the library ---------------------------------------------------------------------------------


def sound_name(n: int) -> str:
    return f"{n:03d} Cue"


def noise_png(path: Path, seed: int, size: int = 128) -> None:
    from PIL import Image

    rng = np.random.default_rng(seed)
    pixels = rng.integers(0, 256, (size, size, 4), dtype=np.uint8)
    pixels[..., 3] = 255
    Image.fromarray(pixels, "RGBA").save(path)


def make_library(root: Path, icons: int) -> int:
    """Pages of 12 sounds, the first 10 of each with an icon: page 1's are put at start-up,
    ``icons`` more on the pages after it. Returns the page count."""
    sounds = root / "content" / "Cueboard" / "Sounds"
    sounds.mkdir(parents=True)
    pages = 1 + -(-icons // ICONS_PER_PAGE)
    made = 0
    for n in range(1, pages * PAGE + 1):
        short_tone(sounds / f"{sound_name(n)}.wav", freq=300.0 + 3 * n)
        if (n - 1) % PAGE < ICONS_PER_PAGE and made < icons + ICONS_PER_PAGE:
            noise_png(sounds / f"{sound_name(n)}.png", seed=n)
            made += 1
    return pages


# -- the process ---------------------------------------------------------------------------------


def child_pid(marker: str) -> int:
    """Cueboard's pid: this process's child whose command line holds ``marker``."""
    for task in Path("/proc/self/task").iterdir():
        for pid in (task / "children").read_text().split():
            cmdline = Path(f"/proc/{pid}/cmdline").read_bytes()
            if marker.encode() in cmdline:
                return int(pid)
    raise RuntimeError("Cueboard's process not found among this process's children")


def rss_kib(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    return 0


def cpu_ticks(pid: int) -> int:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return int(fields[11]) + int(fields[12])  # utime, stime (fields 14 and 15)


@dataclass
class Figures:
    rss_kib: int
    fds: int
    tasks: int
    timers: int
    idle_cpu_pct: float

    @property
    def rss_mib(self) -> float:
        return self.rss_kib / 1024


@dataclass
class Probe:
    """What the host saw: requests by ``method.op``, waiters on one kind, the debug answers."""

    seen: Counter[str] = field(default_factory=Counter[str])
    waiting: dict[str, anyio.Event] = field(default_factory=dict[str, anyio.Event])
    debug: list[dict[str, int]] = field(default_factory=list[dict[str, int]])
    counts: dict[tuple[str, int], anyio.Event] = field(
        default_factory=dict[tuple[str, int], anyio.Event]
    )

    def watch(self, method: str, params: Any) -> None:
        op = params.get("op") if isinstance(params, dict) else None
        kind = f"{method}.{op}"
        self.seen[kind] += 1
        if kind == "bus.publish" and str(params.get("topic", "")).endswith(".debug"):
            self.debug.append(params["payload"])
            kind = "debug"
        waiter = self.waiting.pop(kind, None)
        if waiter is not None:
            waiter.set()
        for (want, n), reached in list(self.counts.items()):
            if self.seen[want] >= n:
                reached.set()
                del self.counts[want, n]

    async def reach(self, kind: str, n: int) -> None:
        """Wait until ``n`` requests of ``kind`` have been seen in all."""
        if self.seen[kind] < n:
            await self.counts.setdefault((kind, n), anyio.Event()).wait()

    async def until(self, kind: str, send: Any) -> bool:
        """Run ``send`` and wait for the next request of ``kind``; False after ANSWER_S."""
        waiter = self.waiting[kind] = anyio.Event()
        await send()
        with anyio.move_on_after(ANSWER_S):
            await waiter.wait()
        self.waiting.pop(kind, None)
        return waiter.is_set()


@dataclass
class Soak:
    args: argparse.Namespace
    pages: int
    ext_id: str
    figures: list[Figures] = field(default_factory=list[Figures])
    counts: Counter[str] = field(default_factory=Counter[str])
    puts: int = 0
    missed: int = 0
    snapshots: Path | None = None
    pid: int = 0
    page: int = 0  # the page shown (0-based)

    async def measure(self, host: ExtensionHost, probe: Probe, runner: ScriptRunner) -> None:
        await runner.run(parse(f"settle {self.args.quiet_s:g} 60"))
        topic = f"ext.{self.ext_id}.cmd.debug"
        answered = await probe.until("debug", lambda: deliver(host, topic, {}))
        counts = probe.debug[-1] if answered else {"tasks": -1, "timers": -1}
        fds = len(os.listdir(f"/proc/{self.pid}/fd"))
        ticks = cpu_ticks(self.pid)
        await anyio.sleep(self.args.idle_s)
        idle = (cpu_ticks(self.pid) - ticks) / os.sysconf("SC_CLK_TCK") / self.args.idle_s * 100
        self.figures.append(
            Figures(rss_kib(self.pid), fds, counts["tasks"], counts["timers"], idle)
        )
        if self.snapshots is not None:
            os.kill(self.pid, signal.SIGUSR1)
            for _ in range(600):  # the snapshot is written by the process: a file to poll
                if (self.snapshots / f"snap-{len(self.figures)}").exists():
                    break
                await anyio.sleep(0.1)

    async def driver(self, host: ExtensionHost) -> None:
        probe = Probe()
        host.on_request.append(probe.watch)
        runner = ScriptRunner(host)
        await host.ready.wait()
        self.pid = child_pid("cueboard")
        with anyio.fail_after(120):  # start-up ends with page 1's icons put (and the blank)
            await probe.reach("assets.put", 1 + ICONS_PER_PAGE)
        await self.measure(host, probe, runner)
        puts_before = probe.seen["assets.put"]
        rng = random.Random(14)
        for n in range(self.args.rounds):
            await self.round(n, host, probe, runner, rng)
            if n == self.args.rounds // 2 - 1:
                await self.measure(host, probe, runner)
        await self.measure(host, probe, runner)
        self.puts = probe.seen["assets.put"] - puts_before
        host.on_request.remove(probe.watch)

    async def round(
        self, n: int, host: ExtensionHost, probe: Probe, runner: ScriptRunner, rng: random.Random
    ) -> None:
        args = self.args
        commands = _share(args.commands, n, args.rounds)
        pages = _share(self.pages - 1, n, args.rounds)
        for _ in range(pages):  # a page of new icons, put once each
            self.page += 1
            icons = min(ICONS_PER_PAGE, args.icons - (self.page - 1) * ICONS_PER_PAGE)
            target = probe.seen["assets.put"] + icons
            await self.command(host, probe, "page-next", None)
            with anyio.move_on_after(30) as scope:
                await probe.reach("assets.put", target)
            self.missed += scope.cancelled_caught
            await runner.run(parse("settle 0.3 60"))
            commands -= 1
        await self.command(host, probe, "rescan", None)
        await runner.run(parse("settle 0.3 60"))
        commands -= 1
        for i in range(commands):
            if i % 20 == 19:
                await self.command(host, probe, "stop-all", "audio.stop_all")
            elif i % 50 == 24:
                await self.command(host, probe, "play-random", "audio.play")
            else:
                await self.command(host, probe, f"play-slot-{i % PAGE + 1}", "audio.play")
        keys = [f"{sound_name(self.page * PAGE + k)}.wav" for k in range(1, PAGE + 1)]
        for i in range(_share(args.clicks, n, args.rounds)):
            await self.click(host, probe, i, rng.choice(keys))
        await runner.run(parse("settle 0.3 60"))

    async def command(self, host: ExtensionHost, probe: Probe, name: str, kind: str | None) -> None:
        self.counts[f"invoke {name.rstrip('0123456789')}"] += 1
        if kind is None:
            await invoke(host, name)
        elif not await probe.until(kind, lambda: invoke(host, name)):
            self.missed += 1

    async def click(self, host: ExtensionHost, probe: Probe, i: int, key: str) -> None:
        callback, args, kind = [
            ("play-sound", [key], "audio.play"),
            ("play-sound", [key], "audio.play"),
            ("stop-sound", [key], None),
            ("set-soundboard-gain", [60 + i % 40], "kv.set"),
            ("play-sound", [key], "audio.play"),
            ("stop-all", [], "audio.stop_all"),
            ("play-sound", [key], "audio.play"),
            ("set-soundboard-gain", [60 + i % 40], "kv.set"),
            ("stop-sound", [key], None),
            ("dismiss-status", [], None),
        ][i % 10]
        self.counts[f"click {callback}"] += 1
        event = {
            "event": "panel_event",
            "panel": "overlay",
            "callback": callback,
            "args": [typed_arg(a) for a in args],
        }
        if kind is None:
            await host.emit(event)
            await anyio.sleep(0.003)
        elif not await probe.until(kind, lambda: host.emit(event)):
            self.missed += 1


def _share(total: int, n: int, rounds: int) -> int:
    """Round ``n``'s part of ``total`` (the parts add up to it)."""
    return total * (n + 1) // rounds - total * n // rounds


def host_config(tmp: Path) -> HostConfig:
    manifest = load_manifest(REPO / "manifest.toml")
    return HostConfig(
        ext_id=manifest.id,
        token=TOKEN,
        granted=manifest.capabilities.model_dump(),
        content_root=str(tmp / "content"),
        state_dir=tmp / "state",
        settings=list(manifest.settings),
        panels={role: (REPO / rel).read_text() for role, rel in manifest.panels.items()},
        audio_out=None,
        strict=False,
    )


# -- the table -----------------------------------------------------------------------------------


def print_table(soak: Soak) -> None:
    start, mid, end = soak.figures
    rows: list[tuple[str, str, str, str, str, str]] = []

    def row(label: str, fmt: str, attr: str, goal: str, met: bool | None) -> None:
        a, b, c = (getattr(f, attr) for f in (start, mid, end))
        change = f"{(c - a) / a * 100:+.1f}%" if attr == "rss_mib" else "+" + fmt.format(c - a)
        change = change.replace("+-", "-")
        verdict = "" if met is None else ("met" if met else "MISSED")
        rows.append((label, fmt.format(a), fmt.format(b), fmt.format(c), change, goal + verdict))

    rss_change = (end.rss_kib - start.rss_kib) / start.rss_kib
    row("RSS MiB", "{:.1f}", "rss_mib", "within 10%: ", abs(rss_change) <= RSS_GOAL)
    row("open fds", "{}", "fds", "equal: ", end.fds == start.fds)
    row("running tasks (debug topic)", "{}", "tasks", "equal: ", end.tasks == start.tasks)
    row("timers waiting (debug topic)", "{}", "timers", "", None)
    row(f"CPU idle over {soak.args.idle_s:g} s, %", "{:.2f}", "idle_cpu_pct", "", None)
    head = ("figure", "after start-up", "mid-soak", "after soak", "change", "goal")
    widths = [max(len(r[i]) for r in [head, *rows]) for i in range(6)]
    for r in [head, tuple("-" * w for w in widths), *rows]:
        print("  ".join(c.ljust(w) if i in (0, 5) else c.rjust(w) for i, (c, w) in
                        enumerate(zip(r, widths, strict=True))))  # fmt: skip


def print_growth(folder: Path, top: int = 15) -> None:
    first = tracemalloc.Snapshot.load(str(folder / "snap-1"))
    last = tracemalloc.Snapshot.load(str(folder / "snap-3"))
    stats = last.compare_to(first, "traceback")
    mib = [sum(s.size for s in snap.statistics("filename")) / 2**20 for snap in (first, last)]
    print(
        f"\ntracemalloc: {mib[0]:.2f} MiB of Python allocations after start-up, {mib[1]:.2f} "
        f"after the soak; the {top} largest growths:"
    )
    for stat in stats[:top]:
        frames = [
            f"{f.filename.rsplit('site-packages/', 1)[-1]}:{f.lineno}" for f in stat.traceback
        ]
        print(f"{stat.size_diff / 1024:+9.1f} KiB {stat.count_diff:+7} blocks  {frames[-1]}")
        for f in reversed(frames[:-1][-4:]):
            print(f"{'':38}<- {f}")


def main() -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n")[0])
    parser.add_argument("--commands", type=int, default=10_000)
    parser.add_argument("--clicks", type=int, default=1_000)
    parser.add_argument("--icons", type=int, default=200)
    parser.add_argument("--idle-s", type=float, default=3.0)
    parser.add_argument("--tracemalloc", type=int, default=0, metavar="FRAMES")
    parser.add_argument("--rounds", type=int, default=ROUNDS)
    parser.add_argument("--quick", action="store_true", help="two short rounds, small sizes")
    args = parser.parse_args()
    args.quiet_s = QUIET_S
    if args.quick:  # a shorter quiet: a finished play's status timer may still be counted
        args.commands, args.clicks, args.icons, args.rounds = 60, 10, 10, 2
        args.idle_s, args.quiet_s = 0.3, 0.5
    started = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="bench-soak-") as tmp_name:
        tmp = Path(tmp_name)
        pages = make_library(tmp, args.icons)
        cfg = host_config(tmp)
        soak = Soak(args, pages, cfg.ext_id)
        argv = [sys.executable, "-m", "cueboard"]
        env = {"CUEBOARD_LOG": "WARNING"}
        if args.tracemalloc:
            soak.snapshots = tmp / "snapshots"
            soak.snapshots.mkdir()
            argv = [sys.executable, "-c", TRACED_CUEBOARD]
            env[SNAP_ENV] = f"{soak.snapshots}:{args.tracemalloc}"
        saved = {k: os.environ.get(k) for k in env}
        os.environ.update(env)  # run_extension hands this process's environment on
        try:
            code = anyio.run(lambda: run_extension(cfg, argv, cwd=REPO, driver=soak.driver))
        finally:
            for k, v in saved.items():
                if v is None:
                    os.environ.pop(k, None)
                else:
                    os.environ[k] = v
        if len(soak.figures) < 3:
            print(f"the soak did not finish (Cueboard exited {code})")
            return 1
        done = ", ".join(f"{k} {v}" for k, v in sorted(soak.counts.items()))
        print(
            f"one Cueboard process (pid {soak.pid}, exit {code}), {pages * PAGE} sounds; "
            f"{sum(v for k, v in soak.counts.items() if k.startswith('invoke'))} commands, "
            f"{sum(v for k, v in soak.counts.items() if k.startswith('click'))} overlay clicks, "
            f"{soak.puts} icon puts in {time.perf_counter() - started:.0f} s ({done}); "
            f"{soak.missed} got no request within {ANSWER_S:g} s"
        )
        print_table(soak)
        if soak.snapshots is not None:
            print_growth(soak.snapshots)
    return 0


if __name__ == "__main__":
    sys.exit(main())
