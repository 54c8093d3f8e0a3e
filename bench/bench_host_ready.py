"""How soon vrosdev answers the first audio request of a session, beside the old path.

    .venv/bin/python bench/bench_host_ready.py [--runs 5] [--quick]

Each run launches ``vrosdev run --command`` with a raw-socket extension (no SDK): it connects,
says hello, and the moment the welcome is read sends ``audio.pre_arm`` twice, timing each round
trip. Hosts, interleaved run by run so load from other processes falls on all of them alike:

* this host: the engine (no numpy) and then its decoder, meter and mixer (numpy, libsndfile,
  soxr, its own BS.1770 meter) imported in the background from launch; a request waits only
  for what is left of the engine's import;
* pyloudnorm imported with the engine, in the background: the other way to take the import off
  the request path, keeping the old meter (scipy.signal comes with it);
* the old path: the engine and pyloudnorm imported when the first audio request arrives.

The last two run the same host through a small wrapper (``WRAPPER``) that swaps the import the
audio namespace does (pyloudnorm, the engine and its decoder, as the old engine module did),
and for the old path removes the import at launch. The second pre_arm of each session is the
floor: a request once the engine is loaded (in this host the decoder may still be importing in
the background then, on the same interpreter).

Then imports in fresh interpreters (in-process time, without interpreter start):
``import vrosdev.audio.engine`` alone and after the modules the host has already imported when
a request arrives (what the first audio request waits for), the decoder, meter and mixer that
load in the background, beside ``import pyloudnorm`` and pyloudnorm with the engine (what the
old engine module imported).

Target (issue 18): the first pre_arm answered within 100 ms of being asked, even right after
launch. Timings are printed, never asserted.
"""

from __future__ import annotations

import argparse
import json
import os
import shlex
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

TARGET_MS = 100.0
REPO = Path(__file__).resolve().parent.parent
VROSDEV = Path(sys.executable).with_name("vrosdev")

CLIENT = """\
import json, os, socket, sys, time
s = socket.socket(socket.AF_UNIX)
s.connect(os.environ["VROS_EXT_ENDPOINT"])
buf = b""
def line():
    global buf
    while b"\\n" not in buf:
        chunk = s.recv(65536)
        if not chunk:
            raise SystemExit("vrosdev closed the connection")
        buf += chunk
    frame, buf = buf.split(b"\\n", 1)
    return json.loads(frame)
def reply(rid):
    while True:
        frame = line()
        if frame.get("id") == rid:
            return frame
hello = {"id": os.environ["VROS_EXT_ID"], "vxp_version": "1.7",
         "token": os.environ["VROS_EXT_TOKEN"]}
s.sendall(json.dumps({"jsonrpc": "2.0", "id": 1, "method": "hello", "params": hello}).encode()
          + b"\\n")
reply(1)
times = []
for rid in (2, 3):
    t0 = time.perf_counter()
    s.sendall(b'{"jsonrpc":"2.0","id":%d,"method":"audio","params":'
              b'{"op":"pre_arm","channel":"soundboard"}}\\n' % rid)
    answer = reply(rid)
    times.append(time.perf_counter() - t0)
    assert answer.get("result", {}).get("result") == "ok", answer
with open(sys.argv[1], "w") as out:
    json.dump(times, out)
s.sendall(b'{"jsonrpc":"2.0","id":4,"method":"kv","params":{"op":"delete","key":"done"}}\\n')
reply(4)
"""

WRAPPER = """\
import sys
import vrosdev.host.namespaces.audio as audio
from vrosdev.host.core import ExtensionHost

def import_with_pyloudnorm():
    import pyloudnorm
    import vrosdev.audio
    import vrosdev.audio.decode, vrosdev.audio.mixer

# Each swap must find what it replaces: a host that no longer has it would be timed unchanged.
assert callable(audio._import_engine), "vrosdev's audio namespace has no _import_engine"
audio._import_engine = import_with_pyloudnorm
if sys.argv.pop(1) == "at-first-request":
    install = ExtensionHost.__init__
    def without_warm(self, *args, **kwargs):
        install(self, *args, **kwargs)
        kept = [t for t in self.background if t.__name__ != "warm"]
        assert len(kept) == len(self.background) - 1, "no background task named warm"
        self.background[:] = kept
    ExtensionHost.__init__ = without_warm
from vrosdev.cli import main
sys.exit(main())
"""

HOSTS = {
    "this host (engine imported at launch, numpy meter)": None,
    "pyloudnorm imported with the engine at launch": "at-launch",
    "old path: engine + pyloudnorm at the first request": "at-first-request",
}

HOST_FIRST = "import vrosdev.cli, vrosdev.host.core, vrosdev.launcher"
IMPORTS = {
    "import vrosdev.audio.engine": "import vrosdev.audio.engine",
    "the same after the host's own imports (what a request waits for)": (
        f"{HOST_FIRST}; t = time.perf_counter(); import vrosdev.audio.engine"
    ),
    "then its decoder, meter and mixer (loaded in the background)": (
        f"{HOST_FIRST}, vrosdev.audio.engine; t = time.perf_counter(); "
        "import vrosdev.audio.decode, vrosdev.audio.loudness, vrosdev.audio.mixer"
    ),
    "import pyloudnorm (baseline: the old meter)": "import pyloudnorm",
    "import pyloudnorm, vrosdev.audio.engine (old engine)": (
        "import pyloudnorm, vrosdev.audio.engine"
    ),
}


def one_session(variant: str | None, work: Path) -> tuple[float, float]:
    out = work / "times.json"
    out.unlink(missing_ok=True)
    client = work / "client.py"
    client.write_text(CLIENT)
    script = work / "steps.txt"
    script.write_text("wait-for kv.delete 60\n")  # the client's last request
    args = [
        "run",
        "--command",
        shlex.join([sys.executable, str(client), str(out)]),
        "--id",
        "com.cueboard.bench",
        "--grant",
        "audio=true",
        "--state",
        str(work / "state"),
        "--script",
        str(script),
        "--log-level",
        "ERROR",
    ]
    if variant is None:
        cmd = [str(VROSDEV), *args]
    else:
        cmd = [sys.executable, "-c", WRAPPER, variant, *args]
    env = {**os.environ, "XDG_RUNTIME_DIR": str(work)}
    done = subprocess.run(cmd, cwd=REPO, env=env, capture_output=True, text=True, timeout=120)
    if not out.exists():
        sys.exit(f"no timing from the extension ({variant}):\n{done.stdout}\n{done.stderr}")
    first, second = json.loads(out.read_text())
    return first, second


def import_time(statement: str) -> float:
    code = f"import time; t = time.perf_counter(); {statement}; print(time.perf_counter() - t)"
    done = subprocess.run(
        [sys.executable, "-c", code], check=True, capture_output=True, text=True, cwd=REPO
    )
    return float(done.stdout)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--quick", action="store_true", help="one run, small sizes")
    args = parser.parse_args()
    hosts, imports_of = HOSTS, IMPORTS
    if args.quick:  # one run; pyloudnorm (a second or so) imported once per table, not twice
        args.runs = 1
        hosts = {k: v for k, v in HOSTS.items() if v != "at-launch"}
        imports_of = {k: v for k, v in IMPORTS.items() if "(old engine)" not in k}

    firsts: dict[str, list[float]] = {label: [] for label in hosts}
    seconds: dict[str, list[float]] = {label: [] for label in hosts}
    imports: dict[str, list[float]] = {label: [] for label in imports_of}
    with tempfile.TemporaryDirectory(prefix="bench-ready-") as tmp:
        work = Path(tmp)
        for _ in range(args.runs):
            for label, variant in hosts.items():
                first, second = one_session(variant, work)
                firsts[label].append(first)
                seconds[label].append(second)
            for label, statement in imports_of.items():
                imports[label].append(import_time(statement))

    print(f"{sys.executable} (Python {sys.version.split()[0]}), median (min-max) of {args.runs}")
    header = f"{'first audio.pre_arm right after hello':<66} {'first ms':>22} {'second ms':>10}"
    print(header)
    print("-" * len(header))
    for label in hosts:
        ms = [t * 1e3 for t in firsts[label]]
        spread = f"{statistics.median(ms):.1f} ({min(ms):.1f}-{max(ms):.1f})"
        print(f"{label:<66} {spread:>22} {statistics.median(seconds[label]) * 1e3:>10.2f}")
    print()
    header = f"{'import in a fresh interpreter':<66} {'ms':>22}"
    print(header)
    print("-" * len(header))
    for label in imports_of:
        ms = [t * 1e3 for t in imports[label]]
        spread = f"{statistics.median(ms):.1f} ({min(ms):.1f}-{max(ms):.1f})"
        print(f"{label:<66} {spread:>22}")
    worst = max(firsts[next(iter(hosts))]) * 1e3
    verdict = "met" if worst <= TARGET_MS else "missed"
    print(
        f"\ntarget: the first pre_arm within {TARGET_MS:g} ms: {verdict} (slowest {worst:.1f} ms)"
    )


if __name__ == "__main__":
    main()
