"""Decode + validate throughput of realistic host frames through a READY ``vxp.Session``.

    .venv/bin/python bench/bench_frames.py [--runs 5] [--rounds 1000] [--profile] [--pin] [--quick]

The stream mixes the events and responses a busy Cueboard sees: panel_event with typed args,
command_invoked, audio_loaded, media_snapshot with two sessions, settings_changed; and the
responses kv value, audio status with playing rows, assets ok, panel applied. ``--rounds``
copies of the nine frames make one run. One thread (``--pin`` pins it to one CPU; on a
shared machine that can hurt, since a busy neighbour then takes half of that CPU).

Variants are interleaved (each pass runs every variant once, so load from other processes
falls on all of them alike); the median of ``--runs`` passes:

* ``json.loads`` of each frame line: the baseline every ratio is taken against;
* ``Session.receive_data`` fed one frame per call, and fed the same bytes in 64 KiB chunks;
* parts: the decoder alone, pydantic validation alone (frames parsed before the clock), and
  ``pydantic_core.from_json`` alone (the session's parser). Their sum is the floor of the
  session's design; what the session costs above it is its own per-frame bookkeeping.

Then per frame kind (session vs json.loads), and, for events, three ways from a line to an
event model: json.loads + validate_python, from_json + validate_python (the session's way), and
``validate_json`` of the whole line.
Last, one line of 2.6 MB (the size of a full animated icon's ``assets.put``, which is what
vrosdev's decoder reads) fed in 64 KiB chunks to ``FrameDecoder``, against joining the
chunks (one copy of the bytes: the floor).

Pending requests are made with ``Session.request`` before the clock starts; outcomes are
checked once (every frame an event or a reply) and then only produced, not kept. The
validators are built (pydantic's deferred build) by a warm-up whose time is printed.
``--profile`` adds a cProfile of the one-frame-per-call session path.
Targets: at least 100,000 frames/s (issue 2, "Benchmarks") and, on both session rows, at most
1.5x ``json.loads`` (issue 23, "Ready in a quarter of a second", goal 3).
Timings are printed, never asserted.
"""

from __future__ import annotations

import argparse
import contextlib
import cProfile
import gc
import io
import json
import os
import pstats
import statistics
import time
from collections.abc import Callable
from typing import Any

from pydantic import BaseModel, TypeAdapter
from pydantic_core import from_json

from vxp.framing import FrameDecoder
from vxp.models import registry
from vxp.models.assets import AssetClear
from vxp.models.audio import AudioGetStatus
from vxp.models.events import Event
from vxp.models.kv import KvGet
from vxp.models.panel import PanelProps, prop_i64, prop_str
from vxp.secret import Secret
from vxp.session import EventReceived, Replied, Session, State

TARGET_FPS = 100_000
TARGET_RATIO = 1.5
CHUNK = 64 * 1024
CLIENT_ID = "com.cueboard.bench"

# --- the frames ----------------------------------------------------------------------------

WELCOME = (
    b'{"jsonrpc":"2.0","id":1,"result":{"result":"welcome","vxp_version":"1.7",'
    b'"granted":{"bus":["vr.lifecycle"],"overlays":true,"capture":false,"audio":true,'
    b'"media":true,"osc":false,"network":false,"secrets":true},"locale":"en-US",'
    b'"content_root":"/home/you/vrOS"}}\n'
)

EVENTS: list[tuple[str, dict[str, Any]]] = [
    (
        "panel_event",
        {
            "event": "panel_event",
            "panel": "soundboard",
            "callback": "pad_pressed",
            "args": [
                {"t": "i64", "v": 7},
                {"t": "str", "v": "airhorn"},
                {"t": "bool", "v": True},
                {"t": "f64", "v": 0.75},
            ],
        },
    ),
    ("command_invoked", {"event": "command_invoked", "command": "play-next"}),
    (
        "audio_loaded",
        {
            "event": "audio_loaded",
            "sound": "s-00000017",
            "outcome": {"kind": "loaded", "duration_ms": 2350, "loudness_lufs": -17.1},
        },
    ),
    (
        "media_snapshot",
        {
            "event": "media_snapshot",
            "granted": True,
            "sessions": [
                {
                    "key": f"deck-{n}",
                    "session": f"m-0000000{n}",
                    "source_generation": n + 1,
                    "title": f"Stream {n}",
                    "playback": {"kind": "playing"} if n == 1 else {"kind": "buffering"},
                    "video": "ready",
                    "paused": False,
                    "volume_pct": 80,
                    "muted": False,
                    "show_video": True,
                    "max_fps": 30,
                    "native_controls": True,
                    "controls_on_player": False,
                }
                for n in (1, 2)
            ],
        },
    ),
    ("settings_changed", {"event": "settings_changed", "key": "mic_gain", "value": 40}),
]

# (label, namespace, the request that makes it pending, the result the host answers)
RESPONSES: list[tuple[str, str, BaseModel, dict[str, Any]]] = [
    (
        "kv value",
        "kv",
        KvGet(key="layout"),
        {"result": "value", "value": {"pads": [1, 2, 3], "page": "main"}, "revision": 12},
    ),
    (
        "audio status",
        "audio",
        AudioGetStatus(),
        {
            "result": "status",
            "playing": [
                {
                    "sound": f"s-0000000{n}",
                    "targets": [
                        {"channel": "soundboard", "gain_pct": 80},
                        {"channel": "mic", "gain_pct": 40},
                    ],
                    "looping": n == 2,
                }
                for n in (1, 2, 3)
            ],
        },
    ),
    ("assets ok", "assets", AssetClear(), {"result": "ok"}),
    (
        "panel applied",
        "panel",
        PanelProps(
            panel="soundboard", props=[("count", prop_i64(21)), ("title", prop_str("Pads"))]
        ),
        {"result": "applied"},
    ),
]

EVENT_KINDS: frozenset[str] = frozenset(name for name, _ in EVENTS)
KINDS: list[str] = [name for name, _ in EVENTS] + [label for label, *_ in RESPONSES]


def _dumps(obj: Any) -> bytes:
    return json.dumps(obj, separators=(",", ":")).encode() + b"\n"


def event_line(params: dict[str, Any]) -> bytes:
    return _dumps({"jsonrpc": "2.0", "method": "event", "params": params})


def response_line(request_id: int, result: dict[str, Any]) -> bytes:
    return _dumps({"jsonrpc": "2.0", "id": request_id, "result": result})


class Workload:
    """``rounds`` copies of the nine frames, interleaved, and how to make a session ready."""

    def __init__(self, rounds: int) -> None:
        self.rounds = rounds
        self.lines: list[bytes] = []
        self.kinds: list[str] = []
        self.requests: list[tuple[str, BaseModel]] = []
        next_id = 2  # the session's first request id after hello
        for _ in range(rounds):
            for name, params in EVENTS:
                self.lines.append(event_line(params))
                self.kinds.append(name)
            for label, namespace, request, result in RESPONSES:
                self.requests.append((namespace, request))
                self.lines.append(response_line(next_id, result))
                self.kinds.append(label)
                next_id += 1
        self.stream = b"".join(self.lines)
        self.chunks = [self.stream[i : i + CHUNK] for i in range(0, len(self.stream), CHUNK)]
        self.events = rounds * len(EVENTS)
        self.responses = rounds * len(RESPONSES)

    def __len__(self) -> int:
        return len(self.lines)

    def ready_session(self) -> Session:
        """A welcomed session with every response of the stream pending, ids as in the lines."""
        session = Session(CLIENT_ID, Secret("bench-token"))
        session.start()
        session.receive_data(WELCOME)
        if session.state is not State.READY:
            raise SystemExit("bench: the welcome frame did not make the session ready")
        expected = 2
        for namespace, params in self.requests:
            request_id, _ = session.request(namespace, params)
            if request_id != expected:
                raise SystemExit(f"bench: request id {request_id}, expected {expected}")
            expected += 1
        return session


# --- variants ------------------------------------------------------------------------------
# Each takes the workload and returns the seconds its loop took; setup happens before the
# clock. Outcomes are counted, not kept: a client hands each event on and drops it, and a list
# of every outcome would make the collector walk a growing heap (it doubled the session's time).


def run_json_loads(work: Workload) -> float:
    loads = json.loads
    start = time.perf_counter()
    for line in work.lines:
        loads(line)
    return time.perf_counter() - start


def run_session_per_frame(work: Workload) -> float:
    receive = work.ready_session().receive_data
    start = time.perf_counter()
    for line in work.lines:
        receive(line)
    return time.perf_counter() - start


def run_session_chunked(work: Workload) -> float:
    receive = work.ready_session().receive_data
    start = time.perf_counter()
    for chunk in work.chunks:
        receive(chunk)
    return time.perf_counter() - start


def run_decoder_only(work: Workload) -> float:
    feed = FrameDecoder().feed
    start = time.perf_counter()
    for line in work.lines:
        feed(line)
    return time.perf_counter() - start


def run_validate_only(work: Workload) -> float:
    """The session's pydantic validation alone, on frames parsed before the clock."""
    events = registry.event_adapter().validate_python
    by_id = _responses_by_id(work)
    parsed = [json.loads(line) for line in work.lines]
    start = time.perf_counter()
    for msg in parsed:
        if "method" in msg:
            events(msg["params"])
        else:
            by_id[msg["id"]](msg["result"])
    return time.perf_counter() - start


def run_from_json(work: Workload) -> float:
    start = time.perf_counter()
    for line in work.lines:
        from_json(line)
    return time.perf_counter() - start


def _responses_by_id(work: Workload) -> dict[int, Callable[[Any], Any]]:
    return {
        i + 2: registry.NAMESPACES[namespace].response.validate_python
        for i, (namespace, _) in enumerate(work.requests)
    }


def event_lines(work: Workload) -> list[bytes]:
    return [line for line, kind in zip(work.lines, work.kinds, strict=True) if kind in EVENT_KINDS]


def run_events_loads_validate(lines: list[bytes]) -> float:
    validate = registry.event_adapter().validate_python
    loads = json.loads
    start = time.perf_counter()
    for line in lines:
        validate(loads(line)["params"])
    return time.perf_counter() - start


def run_events_from_json_validate(lines: list[bytes]) -> float:
    validate = registry.event_adapter().validate_python
    start = time.perf_counter()
    for line in lines:
        validate(from_json(line)["params"])
    return time.perf_counter() - start


class _EventEnvelope(BaseModel):
    """A whole event line, for validate_json of the raw bytes."""

    jsonrpc: str
    method: str
    params: Event


_ENVELOPE = TypeAdapter(_EventEnvelope)


def run_events_validate_json(lines: list[bytes]) -> float:
    validate = _ENVELOPE.validate_json
    start = time.perf_counter()
    for line in lines:
        validate(line)
    return time.perf_counter() - start


# --- running -------------------------------------------------------------------------------

Variant = Callable[[Workload], float]
BASELINE = "json.loads (baseline)"
PER_FRAME = "Session.receive_data, one frame per call"
CHUNKED = "Session.receive_data, 64 KiB chunks"
VARIANTS: dict[str, Variant] = {
    BASELINE: run_json_loads,
    PER_FRAME: run_session_per_frame,
    CHUNKED: run_session_chunked,
    "  part: FrameDecoder.feed, one frame per call": run_decoder_only,
    "  part: validate_python on parsed frames": run_validate_only,
    "  part: pydantic_core.from_json": run_from_json,
}
EVENT_VARIANTS: dict[str, Callable[[list[bytes]], float]] = {
    "json.loads + validate_python": run_events_loads_validate,
    "pydantic_core.from_json + validate_python": run_events_from_json_validate,
    "validate_json of the line (envelope adapter)": run_events_validate_json,
}


def check_outcomes(work: Workload) -> None:
    """A session that dropped or refused frames would be fast for the wrong reason."""
    with contextlib.nullcontext():
        for feed in (work.lines, work.chunks):
            session = work.ready_session()
            out = [event for data in feed for event in session.receive_data(data)]
            events = sum(isinstance(e, EventReceived) for e in out)
            replies = sum(isinstance(e, Replied) for e in out)
            if events != work.events or replies != work.responses or len(out) != len(work):
                kinds = ", ".join(sorted({type(e).__name__ for e in out}))
                raise SystemExit(
                    f"bench: {events} events and {replies} replies in {len(out)} outcomes "
                    f"({kinds}); expected {work.events} and {work.responses}"
                )


def warm_up(work: Workload) -> float:
    """The first frame of each kind builds its validators (pydantic's deferred build)."""
    session = work.ready_session()
    start = time.perf_counter()
    for line in work.lines[: len(KINDS)]:
        session.receive_data(line)
    return time.perf_counter() - start


def median_times(
    runs: int, variants: dict[str, Callable[[Any], float]], arg: Any
) -> dict[str, float]:
    """Interleaved: each pass runs every variant once, so a load spike hits them alike."""
    times: dict[str, list[float]] = {name: [] for name in variants}
    for _ in range(runs):
        for name, run in variants.items():
            gc.collect()
            times[name].append(run(arg))
    return {name: statistics.median(values) for name, values in times.items()}


def per_kind(work: Workload, runs: int) -> list[tuple[str, int, float, float]]:
    """(kind, bytes, session µs/frame, json.loads µs/frame), one frame per call."""
    rows: list[tuple[str, int, float, float]] = []
    for kind in KINDS:
        lines = [line for line, k in zip(work.lines, work.kinds, strict=True) if k == kind]
        session_times: list[float] = []
        loads_times: list[float] = []
        for _ in range(runs):
            receive = work.ready_session().receive_data
            gc.collect()
            start = time.perf_counter()
            for line in lines:
                receive(line)
            session_times.append(time.perf_counter() - start)
            loads = json.loads
            start = time.perf_counter()
            for line in lines:
                loads(line)
            loads_times.append(time.perf_counter() - start)
        session_us = statistics.median(session_times) / len(lines) * 1e6
        loads_us = statistics.median(loads_times) / len(lines) * 1e6
        rows.append((kind, len(lines[0]), session_us, loads_us))
    return rows


def profile_session(work: Workload) -> str:
    receive = work.ready_session().receive_data
    profiler = cProfile.Profile()
    profiler.enable()
    for line in work.lines:
        receive(line)
    profiler.disable()
    text = io.StringIO()
    pstats.Stats(profiler, stream=text).sort_stats("tottime").print_stats(16)
    return text.getvalue()


def pin_one_core() -> str:
    if not hasattr(os, "sched_setaffinity"):
        return "not pinned (no sched_setaffinity)"
    cpu = min(os.sched_getaffinity(0))
    os.sched_setaffinity(0, {cpu})
    return f"pinned to CPU {cpu}"


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--rounds", type=int, default=1000, help="copies of the nine frames")
    parser.add_argument("--profile", action="store_true", help="print a cProfile of the session")
    parser.add_argument("--pin", action="store_true", help="pin to one CPU (one thread anyway)")
    parser.add_argument("--quick", action="store_true", help="one run, small sizes")
    args = parser.parse_args()
    if args.quick:
        args.rounds, args.runs = 100, 1

    pinned = pin_one_core() if args.pin else "one thread, not pinned"
    work = Workload(args.rounds)
    build_s = warm_up(work)
    check_outcomes(work)
    run_events_validate_json(event_lines(work)[: len(EVENTS)])  # builds the envelope adapter

    print(
        f"{len(work):,} frames ({len(EVENTS)} event kinds, {len(RESPONSES)} response kinds, "
        f"{len(work.stream) / len(work):.0f} bytes/frame on average, {len(work.chunks)} chunks "
        f"of 64 KiB); {pinned}; median of {args.runs} runs"
    )
    print(f"warm-up, first frame of each kind (builds the validators): {build_s * 1e3:.1f} ms\n")
    medians = median_times(args.runs, VARIANTS, work)
    print_main_table(work, medians)
    print_kind_table(per_kind(work, args.runs))
    lines = event_lines(work)
    print_events_table(lines, median_times(args.runs, EVENT_VARIANTS, lines))
    print_large_line(args.runs)
    print_targets(work, medians)
    if args.profile:
        print("\ncProfile of Session.receive_data, one frame per call (tottime):")
        print(profile_session(work))


def print_large_line(runs: int) -> None:
    text = b"A" * 2_600_000
    line = b'{"jsonrpc":"2.0","id":7,"method":"assets","params":{"s":"' + text + b'"}}\n'
    chunks = [line[i : i + 65536] for i in range(0, len(line), 65536)]

    def decoder(chunks: list[bytes]) -> float:
        start = time.perf_counter()
        decoder = FrameDecoder()
        for chunk in chunks:
            decoder.feed(chunk)
        return time.perf_counter() - start

    def join(chunks: list[bytes]) -> float:
        start = time.perf_counter()
        b"".join(chunks)
        return time.perf_counter() - start

    medians = median_times(runs * 4, {"FrameDecoder.feed": decoder, "b''.join": join}, chunks)
    base = medians["b''.join"]
    header = f"{'one 2.6 MB line in 64 KiB chunks':<46} {'ms':>9} {'x join':>9}"
    print(header)
    print("-" * len(header))
    for name, seconds in medians.items():
        print(f"{name:<46} {seconds * 1e3:>9.3f} {seconds / base:>9.2f}")
    print()


def print_main_table(work: Workload, medians: dict[str, float]) -> None:
    frames = len(work)
    base = medians[BASELINE]
    header = f"{'all nine kinds':<46} {'frames/s':>10} {'µs/frame':>9} {'x json.loads':>13}"
    print(header)
    print("-" * len(header))
    for name, seconds in medians.items():
        fps = frames / seconds
        us = seconds / frames * 1e6
        print(f"{name:<46} {fps:>10,.0f} {us:>9.2f} {seconds / base:>13.2f}")
    print()


def print_kind_table(rows: list[tuple[str, int, float, float]]) -> None:
    header = (
        f"{'per kind, one frame per call':<30} {'bytes':>6} {'session µs':>11} "
        f"{'json.loads µs':>14} {'ratio':>6}"
    )
    print(header)
    print("-" * len(header))
    for kind, size, session_us, loads_us in rows:
        ratio = session_us / loads_us
        print(f"{kind:<30} {size:>6} {session_us:>11.2f} {loads_us:>14.2f} {ratio:>6.2f}")
    print()


def print_events_table(lines: list[bytes], medians: dict[str, float]) -> None:
    base = medians["json.loads + validate_python"]
    header = f"{'events only: line -> event model':<46} {'µs/event':>9} {'x row 1':>9}"
    print(header)
    print("-" * len(header))
    for name, seconds in medians.items():
        print(f"{name:<46} {seconds / len(lines) * 1e6:>9.2f} {seconds / base:>9.2f}")
    print()


def print_targets(work: Workload, medians: dict[str, float]) -> None:
    base = medians[BASELINE]
    print(f"targets: >= {TARGET_FPS:,} frames/s and <= {TARGET_RATIO:g}x json.loads")
    for name in (PER_FRAME, CHUNKED):
        fps = len(work) / medians[name]
        ratio = medians[name] / base
        fps_verdict = "meets" if fps >= TARGET_FPS else "MISSES"
        ratio_verdict = "meets" if ratio <= TARGET_RATIO else "MISSES"
        print(
            f"  {name}: {fps:,.0f} frames/s ({fps_verdict}), "
            f"{ratio:.2f}x json.loads ({ratio_verdict})"
        )


if __name__ == "__main__":
    with contextlib.suppress(KeyboardInterrupt):
        main()
