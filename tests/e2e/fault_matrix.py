"""The fault matrix: every request kind Cueboard sends, answered wrong, on the real process.

The (namespace, op) pairs come from a baseline transcript of one scripted session (start-up,
every command, the panels' callbacks, a locale and a settings change, the media deck, icon
puts), so a request kind added to Cueboard is covered the day it appears. Each pair is run with
every domain code documented for its namespace, -32603 and an unknown code, twice: the first
request only (``@1``), and every request for 3 s (``@3s``). Each run is ``vrosdev run`` as a
person would start it, one process per run, several at once.

``python -m tests.e2e.fault_matrix`` runs the whole matrix and the chaos seeds and prints every
failing case (``make chaos``); tests/e2e/test_fault_matrix.py runs a sample of the wiring, and
every cell's decision is checked in memory (tests/cueboard/core/test_fault_decisions.py).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import tempfile
from collections.abc import Callable, Iterable, Sequence
from functools import partial
from pathlib import Path

import anyio
import anyio.to_thread

from tests import leaks

from .matrix_checks import (
    MAX_RETRIES,
    REPO,
    WINDOW_S,
    Case,
    Outcome,
    Transcript,
    check_case,
    check_seed,
)

__all__ = [
    "MAX_RETRIES",
    "Case",
    "Outcome",
    "Transcript",
    "cases",
    "codes_for",
    "run_all",
    "startup_cases",
]
UNKNOWN_CODE = "matrix_unknown_code"
# The start-up matrix (tests/e2e/test_startup_faults.py): every request kind Cueboard sends
# during start-up, its first request answered with each documented code and these.
STARTUP = [
    ("settings", "list"),
    ("commands", "register"),
    ("audio", "pre_arm"),
    ("assets", "put"),
    ("panel", "props"),
    ("bus", "subscribe"),
    ("kv", "list"),
    ("kv", "get"),
    ("kv", "set"),
    ("audio", "load"),
]
STARTUP_EXTRA = ("-32603", "-32602", "startup_unknown_code", "result:from_a_newer_host")
# Final verdicts on slot 1 itself: its file (the first load) or its command's name (the first
# register): it is rightly not played, until the file changes or the next connection.
SLOT_1_VERDICTS = {
    ("audio", "load"): {"not_found", "undecodable", "too_long", "-32602"},
    ("commands", "register"): {"invalid_name", "-32602"},
}
# Props are paced diffs, not one request per cause: how many frames carry them depends on
# timing as much as on retries, so their bound is the fault matrix's slack, not a retry count.
PACED = {("panel", "props"): 10}
# --quick: the one code per namespace a host is most likely to answer (the spec's "retry" for
# assets; the player's failure for media); the others have ``internal``.
QUICK_CODES = {"assets": "budget_full", "media": "open_failed", "face": "unsupported"}
MEDIA_URL = "https://media.example/live/matrix.m3u8?token=matrix-secret-{n}"


def _commands() -> list[str]:
    """Every static command Cueboard registers (read from Cueboard, not copied here)."""
    try:
        from cueboard.core.commands import STATIC_COMMANDS
    except ImportError:  # the module moved: the baseline still registers what it registers
        return [f"play-slot-{n}" for n in range(1, 13)] + ["stop-all", "page-next", "page-prev"]
    return [c.name for c in STATIC_COMMANDS]


def session_script() -> str:
    """The baseline session, as vrosdev script steps."""
    url = leaks.register(MEDIA_URL.format(n=1), "media URL (fault matrix)")
    other = leaks.register(MEDIA_URL.format(n=2), "media URL (fault matrix)")
    steps = ["settle 0.5 30", "show overlay", "show dash-tab", "settle"]
    for name in _commands():
        steps += [f"invoke {name}", "sleep 0.1"]
    steps += ["invoke toggle-mic", "settle"]  # back to the mic as it was
    ding = '"Effects/Ding.wav"'
    steps += [
        f"click overlay play-sound [{ding}]",
        "sleep 0.2",
        f"click overlay stop-sound [{ding}]",
        "click overlay stop-all",
        "click overlay page-next",
        "click overlay page-prev",
        'click overlay search-changed ["Beep"]',
        'click overlay search-changed [""]',
        "click overlay set-soundboard-gain [70]",
        "click overlay set-mic-gain [30]",
        "click overlay set-mic-enabled [false]",
        "click overlay set-mic-enabled [true]",
        "click overlay dismiss-status",
        f'click overlay media-open ["{url}", "Matrix stream"]',
        "settle 1.0",
        'click overlay media-set-paused ["deck-1", true]',
        'click overlay media-set-volume ["deck-1", 50]',
        'click overlay media-set-muted ["deck-1", true]',
        f'click overlay media-reload ["deck-1", "{other}", "Other stream"]',
        "settle",
        f"click dash-tab select-sound [{ding}]",
        f"click dash-tab set-sound-gain [{ding}, 60]",
        f"click dash-tab set-sound-mode [{ding}, 4]",
        f"click dash-tab set-sound-favourite [{ding}, true]",
        'click dash-tab library-search ["Beep"]',
        "click dash-tab library-page-next",
        "click dash-tab library-page-prev",
        'click dash-tab library-search [""]',
        "click dash-tab refresh-devices",
        "click dash-tab set-media-show-video [false]",
        "click dash-tab set-media-max-fps [24]",
        "click dash-tab set-media-native-controls [true]",
        "click dash-tab set-media-controls-on-player [true]",
        "click dash-tab dismiss-status",
        "click dash-tab rescan",
        "settle",
        "locale ja-JP",
        "settle",
        "setting soundboard_gain 75",
        'setting overlap "stop_others"',
        "setting now_playing_toast true",
        "invoke play-slot-3",
        "settle",
        'click overlay media-close ["deck-1"]',
        "settle",
    ]
    return "\n".join(steps) + "\n"


# After the session: out of any fault window, the person presses slot 1, then slot 2.
# Slots 2-4 are for a run where slot 1's own sound was refused for good.
TAIL = f"sleep {WINDOW_S + 0.2}\nsettle\ninvoke play-slot-1\nsleep 0.5\n" + "".join(
    f"invoke play-slot-{n}\nsleep 0.3\n" for n in (2, 3, 4)
)


def content(root: Path) -> Path:
    from cueboard_demo.content import generate

    generate(root)
    return root


def run_vrosdev(
    work: Path, script: str, content_root: Path, options: Iterable[str] = (), timeout: float = 180
) -> tuple[int, str, Transcript]:
    work.mkdir(parents=True, exist_ok=True)
    (work / "script.txt").write_text(script, encoding="utf-8")
    record = work / "transcript.jsonl"
    # A short private runtime folder: a socket path must fit in 108 bytes.
    runtime = tempfile.mkdtemp(prefix="fm-")
    env = {**os.environ, "XDG_RUNTIME_DIR": runtime, "CUEBOARD_LOG": "WARNING"}
    argv = [
        "run",
        "--manifest",
        str(REPO / "manifest.toml"),
        "--content-root",
        str(content_root),
        "--state",
        str(work / "state"),
        "--record",
        str(record),
        "--script",
        str(work / "script.txt"),
        "--no-strict",
        "--log-level",
        "WARNING",
        *options,
    ]
    try:
        done, _ = leaks.run_vrosdev_cli(
            argv, cwd=REPO, env=env, capture_output=True, text=True, timeout=timeout, check=False
        )
    finally:
        shutil.rmtree(runtime, ignore_errors=True)
    (work / "output.txt").write_text(done.stdout + done.stderr, encoding="utf-8")  # swept
    (work / "script.txt").unlink()  # the test's input holds the media URLs; the transcript
    # keeps its steps, redacted, and the leak sweep reads what the run left behind
    lines = [json.loads(x) for x in record.read_text(encoding="utf-8").splitlines()]
    return done.returncode, done.stdout + done.stderr, Transcript(lines)


def baseline(work: Path, content_root: Path) -> Transcript:
    return check_baseline(*run_vrosdev(work / "baseline", session_script() + TAIL, content_root))


def check_baseline(code: int, output: str, transcript: Transcript) -> Transcript:
    if code != 0 or "Traceback" in output:
        raise RuntimeError(f"the baseline session failed (exit {code}):\n{output[-3000:]}")
    unput = transcript.named_before_put()
    if unput:
        raise RuntimeError(f"the baseline named asset keys before their put: {unput[:3]}")
    return transcript


def codes_for(method: str) -> tuple[str, ...]:
    """The domain codes documented for a namespace (vrosdev's table, as the README lists)."""
    from vrosdev.host.codes import DOCUMENTED_CODES

    return DOCUMENTED_CODES.get(method, ())


def cases(pairs: Iterable[tuple[str, str]], *, quick: bool = False) -> list[Case]:
    """Every pair x its namespace's codes, -32603 and an unknown code x both modes; ``quick``
    keeps one documented code per namespace (``QUICK_CODES``, else ``internal``)."""
    out: list[Case] = []
    for method, op in pairs:
        documented = codes_for(method)
        if quick:
            documented = (QUICK_CODES.get(method, "internal"),)
        for code in [*documented, "-32603", UNKNOWN_CODE]:
            for mode in ("1", f"{WINDOW_S:g}s"):
                out.append((method, op, code, mode))
    return out


def startup_cases() -> list[tuple[str, str, str]]:
    """Every start-up kind x its namespace's documented codes and :data:`STARTUP_EXTRA`."""
    return [
        (method, op, code)
        for method, op in STARTUP
        for code in (*codes_for(method), *STARTUP_EXTRA)
    ]


def launch_case(work: Path, content_root: Path, case: Case) -> Outcome:
    """One fault's run, not yet judged (:func:`check_case` needs the baseline)."""
    method, op, code, mode = case
    name = f"{method}.{op}={code}@{mode}"
    folder = work / name.replace("/", "_").replace("=", "_").replace("@", "_")
    rc, output, transcript = run_vrosdev(
        folder, session_script() + TAIL, content_root, ["--fault", name]
    )
    return Outcome(case, rc, output, transcript)


def launch_together(work: Path, content_root: Path, cases_: Sequence[Case]) -> list[Outcome]:
    """Several faults on different request kinds in one run, each judged on its own kind's
    requests (:func:`check_case`): one launch exercises several wiring paths."""
    names = [f"{m}.{o}={c}@{mode}" for m, o, c, mode in cases_]
    folder = work / "+".join(f"{m}.{o}" for m, o, _, _ in cases_)
    options = [x for name in names for x in ("--fault", name)]
    rc, output, transcript = run_vrosdev(folder, session_script() + TAIL, content_root, options)
    return [Outcome(case, rc, output, transcript) for case in cases_]


def run_case(work: Path, content_root: Path, case: Case, base: Transcript) -> Outcome:
    out = launch_case(work, content_root, case)
    check_case(out, case, base)
    return out


def concurrently[T](jobs: Sequence[Callable[[], T]], limit: int) -> list[T]:
    """Every job (each waits on a vrosdev and a Cueboard process), ``limit`` at once, in one
    anyio task group; the results in the jobs' order."""

    async def main() -> list[T]:
        limiter = anyio.CapacityLimiter(limit)
        results: dict[int, T] = {}

        async def one(n: int, job: Callable[[], T]) -> None:
            results[n] = await anyio.to_thread.run_sync(job, limiter=limiter)

        async with anyio.create_task_group() as tg:
            for n, job in enumerate(jobs):
                tg.start_soon(one, n, job)
        return [results[n] for n in range(len(jobs))]

    return anyio.run(main)


# A chaos host delays an answer up to 1 s: quiet for longer than that, every answer is in (the
# registrations before a press, the press's own before the oversized frame), however busy the
# machine.
CHAOS_QUIET_S = 1.2


def chaos_script(short: bool = False) -> str:
    """The baseline session (``short``: start-up, a few presses and the media deck), then a
    press of slot 1 and the oversized last frame."""
    end = f"invoke play-slot-1\nsettle {CHAOS_QUIET_S:g}\nchaos-end\nsettle\n"
    if not short:
        return session_script() + end
    url = leaks.register(MEDIA_URL.format(n=1), "media URL (fault matrix)")
    quiet = f"settle {CHAOS_QUIET_S:g}"
    steps = [f"{quiet} 30", "show overlay", quiet, "invoke play-slot-1", "sleep 0.2"]
    steps += ["invoke play-slot-2", 'click overlay play-sound ["Effects/Ding.wav"]']
    steps += [f'click overlay media-open ["{url}", "Matrix stream"]', "settle 0.5"]
    return "\n".join(steps) + "\n" + end


def run_seed(work: Path, content_root: Path, seed: int, short: bool = False) -> Outcome:
    script = chaos_script(short)
    options = ["--chaos", str(seed)]
    rc, output, t = run_vrosdev(work / f"chaos-{seed}", script, content_root, options)
    out = Outcome(f"chaos {seed}", rc, output, t)
    check_seed(out)
    return out


def label(out: Outcome) -> str:
    if isinstance(out.case, str):
        return out.case
    method, op, code, mode = out.case
    return f"{method}.{op}={code}@{mode}"


def run_all(
    cases_: list[Case],
    seeds: list[int],
    work: Path,
    content_root: Path,
    base: Transcript,
    jobs: int,
    report: Callable[[Outcome], None] | None = None,
    short_seeds: bool = False,
) -> list[Outcome]:
    """Every case and seed, ``jobs`` at a time; ``report`` hears each as it finishes."""

    def judged(run: Callable[[], Outcome]) -> Callable[[], Outcome]:
        def job() -> Outcome:
            out = run()
            if report is not None:
                report(out)
            return out

        return job

    runs = [partial(run_case, work, content_root, c, base) for c in cases_]
    runs += [partial(run_seed, work, content_root, s, short_seeds) for s in seeds]
    return concurrently([judged(r) for r in runs], jobs)


def _print(out: Outcome) -> None:
    verdict = f"FAIL {'; '.join(out.problems)}" if out.problems else "ok"
    print(f"{label(out)}: {verdict}", flush=True)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tests.e2e.fault_matrix", description=__doc__)
    parser.add_argument("--seeds", type=int, default=200, help="chaos seeds 0..N-1")
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--pair", action="append", default=[], help="only NAMESPACE.OP (repeat)")
    parser.add_argument("--work", type=Path, help="keep every run's transcript here")
    parser.add_argument("--quick", action="store_true", help="one documented code per namespace")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="fault-matrix-") as tmp:
        work = args.work or Path(tmp)
        content_root = content(work / "content")
        base = baseline(work, content_root)
        pairs = base.pairs()
        if args.pair:
            pairs = [p for p in pairs if f"{p[0]}.{p[1]}" in args.pair]
        all_cases = cases(pairs, quick=args.quick)
        print(f"{len(pairs)} request kinds, {len(all_cases)} fault runs, {args.seeds} chaos seeds")
        seeds = list(range(args.seeds))
        outcomes = run_all(all_cases, seeds, work, content_root, base, args.jobs, _print)
    failed = [o for o in outcomes if o.problems]
    print(f"{len(outcomes) - len(failed)} passed, {len(failed)} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    raise SystemExit(main())
