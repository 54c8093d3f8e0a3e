"""Interpreter start to hello written, for a spawned extension, beside the bare interpreter.

    .venv/bin/python bench/bench_startup.py [--runs 15]

The bench process listens on a Unix socket in a temporary directory (as vrOS does before it
launches an extension), spawns a child with ``VROS_EXT_ENDPOINT``, ``VROS_EXT_TOKEN`` and
``VROS_EXT_ID`` set, and times from just before the spawn to the child's first line arriving
at the listener. Children, each in a fresh interpreter (the venv's python, so the editable
install's path hooks are paid by every row alike):

* ``python -c pass``: spawn to exit, the baseline every ratio is taken against;
* a raw socket: connect with the ``socket`` module and write a line, no SDK;
* anyio + a hand-built hello: ``anyio.run``, ``anyio.connect_unix`` and a hello made with
  ``json.dumps``, no pydantic: what the SDK could reach if hello needed no pydantic;
* ``vxp.connect()``: the tiny extension ``async with vxp.connect(): pass`` under
  ``anyio.run``; the listener answers its hello with a welcome and waits for it to exit;
* ``python -m cueboard``: Cueboard itself, spawned the same way with the same environment;
  the listener times its hello line, then kills it (no welcome: what follows is not timed);
* imports alone, spawn to exit: ``import anyio``, ``from pydantic import BaseModel``,
  ``import vxp.client``; they say where the time before hello goes;
* with ``--candidate DIR``: ``vxp.connect()`` again, with a modified copy of the ``vxp``
  package in ``DIR`` ahead on ``PYTHONPATH`` (to measure a proposed change side by side).

Variants are interleaved (each pass spawns every child once, so load from other processes
falls on all of them alike); the median of ``--runs`` passes. Then the phases before hello,
timed inside a child (imports, the first ``Session.start()``, the first ``anyio.run``), and
``python -X importtime -c "import vxp.client"``: the ten largest cumulative imports and the
largest packages by self time.
Targets: hello within 8x of the bare interpreter (issue 2, "Benchmarks"); Cueboard's hello
within 1.25x of the ``vxp.connect()`` row (issue 23, goal 1). Timings are printed, never
asserted.
"""

from __future__ import annotations

import argparse
import compileall
import json
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path

TARGET_RATIO = 8.0
CUEBOARD_TARGET_RATIO = 1.25  # Cueboard's hello / the bare SDK's, same run
ACCEPT_TIMEOUT_S = 15.0
EXT_ID = "com.cueboard.bench"
TOKEN = "bench-launch-token"

WELCOME = (
    b'{"jsonrpc":"2.0","id":1,"result":{"result":"welcome","vxp_version":"1.7",'
    b'"granted":{"bus":[],"overlays":false,"capture":false,"audio":false,"media":false,'
    b'"osc":false,"network":false,"secrets":false},"locale":"en-US",'
    b'"content_root":"/tmp/vrOS"}}\n'
)

RAW_LINE = """\
import os, socket
s = socket.socket(socket.AF_UNIX)
s.connect(os.environ["VROS_EXT_ENDPOINT"])
s.sendall(b'{"jsonrpc":"2.0","id":1,"method":"hello","params":{}}\\n')
s.close()
"""

ANYIO_HAND_HELLO = """\
import json, os
import anyio

async def main():
    stream = await anyio.connect_unix(os.environ["VROS_EXT_ENDPOINT"])
    params = {"id": os.environ["VROS_EXT_ID"], "vxp_version": "1.7",
              "token": os.environ["VROS_EXT_TOKEN"]}
    frame = {"jsonrpc": "2.0", "id": 1, "method": "hello", "params": params}
    await stream.send(json.dumps(frame, separators=(",", ":")).encode() + b"\\n")
    await stream.aclose()

anyio.run(main)
"""

SDK_HELLO = """\
import anyio
import vxp

async def main():
    async with vxp.connect():
        pass

anyio.run(main)
"""

PHASES = """\
import json, time
t = [time.perf_counter()]
import anyio
t.append(time.perf_counter())
from pydantic import BaseModel
t.append(time.perf_counter())
import vxp.client
t.append(time.perf_counter())
from vxp.secret import Secret
from vxp.session import Session
Session("com.cueboard.bench", Secret("x")).start()
t.append(time.perf_counter())

async def noop():
    pass

anyio.run(noop)
t.append(time.perf_counter())
print(json.dumps([b - a for a, b in zip(t, t[1:])]))
"""
PHASE_NAMES = (
    "import anyio",
    "from pydantic import BaseModel (after anyio)",
    "import vxp.client (after both)",
    "first Session.start(): builds Hello, serialises",
    "first anyio.run(): imports asyncio, makes a loop",
)


@dataclass(frozen=True)
class Child:
    label: str
    code: str
    connects: bool  # times spawn -> first line at the listener; else spawn -> exit
    answers_welcome: bool = False
    pythonpath: str | None = None  # a candidate copy of the SDK, ahead of the installed one
    module: str | None = None  # run as ``python -m module`` (``code`` unused); killed after hello


BASELINE = "python -c pass (spawn -> exit)"
SDK = "vxp.connect() hello (spawn -> hello line)"
SDK_CHILD = Child(SDK, SDK_HELLO, connects=True, answers_welcome=True)
CUEBOARD = "python -m cueboard hello (spawn -> hello line)"
CUEBOARD_CHILD = Child(CUEBOARD, "", connects=True, module="cueboard")
CHILDREN = [
    Child(BASELINE, "pass", connects=False),
    Child("raw socket line, no SDK (spawn -> line)", RAW_LINE, connects=True),
    Child("anyio + hand-built hello (spawn -> line)", ANYIO_HAND_HELLO, connects=True),
    SDK_CHILD,
    CUEBOARD_CHILD,
    Child("import anyio (spawn -> exit)", "import anyio", connects=False),
    Child(
        "from pydantic import BaseModel (spawn -> exit)", "from pydantic import BaseModel", False
    ),
    Child("import vxp.client (spawn -> exit)", "import vxp.client", connects=False),
]


class ChildFailed(Exception):
    pass


def child_env(endpoint: Path) -> dict[str, str]:
    env = dict(os.environ)
    env.update(VROS_EXT_ENDPOINT=str(endpoint), VROS_EXT_TOKEN=TOKEN, VROS_EXT_ID=EXT_ID)
    return env


def spawn(child: Child, env: dict[str, str]) -> subprocess.Popen[bytes]:
    if child.pythonpath is not None:
        env = {**env, "PYTHONPATH": child.pythonpath}
    args = ["-m", child.module] if child.module is not None else ["-c", child.code]
    return subprocess.Popen(
        [sys.executable, *args],
        env=env,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )


def read_line(conn: socket.socket) -> bytes:
    data = b""
    while b"\n" not in data:
        chunk = conn.recv(65536)
        if not chunk:
            raise ChildFailed("the child closed the connection before a full line")
        data += chunk
    return data.split(b"\n", 1)[0]


def finish(proc: subprocess.Popen[bytes], label: str) -> None:
    try:
        _, err = proc.communicate(timeout=ACCEPT_TIMEOUT_S)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.communicate()
        raise ChildFailed(f"{label}: the child did not exit") from None
    if proc.returncode != 0:
        tail = err.decode(errors="replace").strip().splitlines()[-3:]
        raise ChildFailed(f"{label}: exit status {proc.returncode}: {' / '.join(tail)}")


def time_exit(child: Child, env: dict[str, str]) -> float:
    start = time.perf_counter()
    proc = spawn(child, env)
    proc.wait()
    elapsed = time.perf_counter() - start
    finish(proc, child.label)
    return elapsed


def time_first_line(child: Child, env: dict[str, str], endpoint: Path) -> float:
    """Spawn to the first line at the listener; the listener exists before the spawn."""
    endpoint.unlink(missing_ok=True)
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as listener:
        listener.bind(str(endpoint))
        listener.listen(1)
        listener.settimeout(ACCEPT_TIMEOUT_S)
        start = time.perf_counter()
        proc = spawn(child, env)
        try:
            conn, _ = listener.accept()
        except TimeoutError:
            proc.kill()
            finish(proc, child.label)
            raise ChildFailed(f"{child.label}: no connection") from None
        with conn:
            conn.settimeout(ACCEPT_TIMEOUT_S)
            line = read_line(conn)
            elapsed = time.perf_counter() - start
            check_hello(child, line)
            if child.module is not None:  # an extension that runs on: its hello is all we time
                proc.kill()
                proc.communicate()
                return elapsed
            if child.answers_welcome:
                conn.sendall(WELCOME)
                while conn.recv(65536):  # until the client closes after its block
                    pass
        finish(proc, child.label)
    return elapsed


def check_hello(child: Child, line: bytes) -> None:
    """The SDK's first frame must be its hello (H-1), or the time measured is of nothing."""
    if not child.answers_welcome and child.module is None:
        return
    frame = json.loads(line)
    params = frame.get("params") or {}
    if frame.get("method") != "hello" or params.get("id") != EXT_ID:
        raise ChildFailed(f"{child.label}: the first frame is not the hello")


def measure(runs: int, children: list[Child]) -> dict[str, list[float]]:
    times: dict[str, list[float]] = {child.label: [] for child in children}
    with tempfile.TemporaryDirectory(prefix="vxp-bench-") as tmp:
        endpoint = Path(tmp) / "endpoint.sock"
        env = child_env(endpoint)
        for child in children:  # one untimed pass: page cache, .pyc files
            run_one(child, env, endpoint)
        for _ in range(runs):
            for child in children:
                times[child.label].append(run_one(child, env, endpoint))
    return times


def run_one(child: Child, env: dict[str, str], endpoint: Path) -> float:
    if child.connects:
        return time_first_line(child, env, endpoint)
    return time_exit(child, env)


def measure_phases(runs: int) -> list[float]:
    """Median of each phase, timed inside the child (the import order of a vxp extension)."""
    samples: list[list[float]] = []
    for _ in range(runs):
        result = subprocess.run(
            [sys.executable, "-c", PHASES], capture_output=True, check=False, timeout=60
        )
        if result.returncode != 0:
            raise ChildFailed("the phase child failed: " + result.stderr.decode()[-300:])
        samples.append(json.loads(result.stdout))
    return [statistics.median(column) for column in zip(*samples, strict=True)]


def print_phase_table(runs: int, phases: list[float]) -> None:
    header = f"\n{f'inside one child, before hello (median of {runs})':<52} {'ms':>9}"
    print(header)
    print("-" * (len(header) - 1))
    for name, seconds in zip(PHASE_NAMES, phases, strict=True):
        print(f"{name:<52} {seconds * 1e3:>9.1f}")
    print(f"{'sum':<52} {sum(phases) * 1e3:>9.1f}")


# --- -X importtime -------------------------------------------------------------------------


@dataclass(frozen=True)
class ImportRow:
    self_us: int
    cumulative_us: int
    depth: int
    name: str


def import_times(statement: str) -> list[ImportRow]:
    result = subprocess.run(
        [sys.executable, "-X", "importtime", "-c", statement],
        capture_output=True,
        check=False,
    )
    if result.returncode != 0:
        raise ChildFailed(f"-X importtime -c {statement!r} failed")
    rows: list[ImportRow] = []
    for raw in result.stderr.decode().splitlines():
        if not raw.startswith("import time:") or "[us]" in raw:
            continue
        self_part, cumulative_part, name_part = raw.removeprefix("import time:").split("|")
        stripped = name_part.lstrip(" ")
        depth = (len(name_part) - len(stripped) - 1) // 2
        rows.append(ImportRow(int(self_part), int(cumulative_part), depth, stripped.rstrip()))
    return rows


def print_import_tables(statement: str, rows: list[ImportRow]) -> None:
    total = sum(row.self_us for row in rows)
    print(
        f'\npython -X importtime -c "{statement}": {len(rows)} modules, '
        f"{total / 1e3:.1f} ms of import time in all (importtime's own overhead included)"
    )
    header = f"{'10 largest cumulative':<52} {'cumul. ms':>9} {'self ms':>8}"
    print(header)
    print("-" * len(header))
    for row in sorted(rows, key=lambda r: r.cumulative_us, reverse=True)[:10]:
        name = "  " * row.depth + row.name
        print(f"{name:<52} {row.cumulative_us / 1e3:>9.1f} {row.self_us / 1e3:>8.1f}")

    by_package: dict[str, int] = defaultdict(int)
    counts: dict[str, int] = defaultdict(int)
    for row in rows:
        top = row.name.split(".")[0]
        by_package[top] += row.self_us
        counts[top] += 1
    header = f"\n{'by top-level package (sum of self)':<52} {'ms':>9} {'modules':>8}"
    print(header)
    print("-" * (len(header) - 1))
    for top, us in sorted(by_package.items(), key=lambda kv: kv[1], reverse=True)[:10]:
        print(f"{top:<52} {us / 1e3:>9.1f} {counts[top]:>8}")


# --- report --------------------------------------------------------------------------------


def print_spawn_table(runs: int, times: dict[str, list[float]]) -> None:
    median = {label: statistics.median(values) for label, values in times.items()}
    base = median[BASELINE]
    print(f"{sys.executable} (Python {sys.version.split()[0]}), median of {runs} runs")
    header = f"{'child':<50} {'median ms':>10} {'min ms':>8} {'x bare':>7}"
    print(header)
    print("-" * len(header))
    for label, values in times.items():
        ms = median[label] * 1e3
        print(f"{label:<50} {ms:>10.1f} {min(values) * 1e3:>8.1f} {median[label] / base:>7.2f}")
    print(f"\ntarget: hello within {TARGET_RATIO:g}x of the bare interpreter")
    for label in median:
        if "vxp.connect() hello" in label:
            ratio = median[label] / base
            verdict = "meets" if ratio <= TARGET_RATIO else "MISSES"
            print(f"  {label}: {ratio:.1f}x, {verdict}")
    if CUEBOARD in median and SDK in median:
        ratio = median[CUEBOARD] / median[SDK]
        verdict = "meets" if ratio <= CUEBOARD_TARGET_RATIO else "MISSES"
        print(
            f"target: Cueboard's hello within {CUEBOARD_TARGET_RATIO:g}x of the bare SDK's\n"
            f"  python -m cueboard / vxp.connect(): {ratio:.2f}x, {verdict}"
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--runs", type=int, default=15)
    parser.add_argument(
        "--candidate",
        metavar="DIR",
        help="also time the hello of a candidate SDK: DIR holds a modified vxp/ package "
        "(put first on PYTHONPATH, so it shadows the installed one)",
    )
    parser.add_argument("--quick", action="store_true", help="one run of each row")
    args = parser.parse_args()
    if args.quick:
        args.runs = 1
    # Time the start an installed extension has: with bytecode. PYTHONDONTWRITEBYTECODE (set on
    # some machines, this one included) would otherwise recompile every edited module in every
    # child; compileall writes the .pyc files whatever that variable says.
    import cueboard
    import vxp

    for package in (vxp, cueboard):
        compileall.compile_dir(str(Path(package.__file__ or "").parent), quiet=1)
    if args.candidate:
        compileall.compile_dir(args.candidate, quiet=1)
    children = list(CHILDREN)
    if args.candidate:
        candidate = Child(
            "candidate vxp.connect() hello (spawn -> line)",
            SDK_HELLO,
            connects=True,
            answers_welcome=True,
            pythonpath=str(Path(args.candidate).resolve()),
        )
        children.insert(children.index(SDK_CHILD) + 1, candidate)
    try:
        times = measure(args.runs, children)
        phase_runs = 1 if args.quick else max(3, args.runs // 3)
        phases = measure_phases(phase_runs)
        statement = "import vxp.client"
        rows = import_times(statement)
    except ChildFailed as exc:
        sys.exit(f"bench: {exc}")
    print_spawn_table(args.runs, times)
    print_phase_table(phase_runs, phases)
    print_import_tables(statement, rows)


if __name__ == "__main__":
    main()
