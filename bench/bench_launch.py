"""Launch to the overlay's first page of names, and to page 1's icons, under vrosdev.

    .venv/bin/python bench/bench_launch.py [--runs 5] [--quick]

Each run launches Cueboard from its manifest under ``vrosdev run`` with a generated library
(60 sounds in 5 folders, then 2,000 in 40; long, Japanese and emoji names, tiny WAV files, an
animated GIF beside each sound of the first folder) and a stored order: the first folder's
sounds reversed in kv, so page 1 in the user's order differs from the scan's. From vrosdev's
transcript (``t`` counts from just before vrosdev spawns the extension: launch), it reads

* hello: the extension's first frame;
* welcome: the host's answer carrying ``granted``;
* names: the first overlay ``panel.props`` whose ``slots`` carry page 1's sound keys in the
  stored order (a props with the scan's order first, then a reshuffle, is reported as such);
* icons: the first overlay props naming every icon key of page 1 after that key's
  ``assets.put`` was answered ok.

Beside them, the bare SDK (``async with vxp.connect(): await anyio.sleep(...)``) under the same
``vrosdev run``, interleaved run by run: its hello. Targets (issue 23, goal 2): names within
500 ms of launch at 60 sounds and 600 ms at 2,000; icons within 900 ms. Timings are printed,
never asserted. ``--quick``: one run, 60 sounds only (a smoke test of the bench itself).
"""

from __future__ import annotations

import argparse
import compileall
import json
import os
import statistics
import subprocess
import sys
import tempfile
import wave
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
VROSDEV = Path(sys.executable).with_name("vrosdev")
NAMES_TARGET_MS = {60: 500.0, 2000: 600.0}
ICONS_TARGET_MS = 900.0
PAGE_SIZE = 12
LIBRARIES = {"60 sounds, 5 folders": (60, 5), "2,000 sounds, 40 folders": (2000, 40)}
NAMES = (
    "Hype Train Level {n}",
    "拍手と歓声 {n}",
    "🎉 Party Horn {n}",
    "A very long sound name that goes on and on {n}",
    "ボス戦のテーマ（ループ）{n}",
)
BARE_SDK = (
    "import anyio, vxp\n"
    "async def main():\n"
    "    async with vxp.connect():\n"
    "        await anyio.sleep(0.3)\n"
    "anyio.run(main)\n"
)
EXT_ID = "com.cueboard.soundboard"


def compile_sources() -> None:
    """Bytecode for the extension, the SDK and the host, as an installed extension has after its
    first start. PYTHONDONTWRITEBYTECODE (set on some machines, this one included) would
    otherwise have every launch compile each edited module again; compileall writes the .pyc
    files whatever that variable says (``bench_startup.py`` does the same)."""
    import cueboard
    import vrosdev
    import vxp

    for package in (vxp, cueboard, vrosdev):
        compileall.compile_dir(str(Path(package.__file__ or "").parent), quiet=1)


def make_gif(path: Path, seed: int) -> None:
    """A small animated GIF (8 frames, 64x64), as a user's icon might be."""
    from PIL import Image

    frames = [
        Image.new("RGB", (64, 64), ((seed * 37 + i * 30) % 256, (i * 50) % 256, 128))
        for i in range(8)
    ]
    frames[0].save(path, save_all=True, append_images=frames[1:], duration=80, loop=0)


def make_library(root: Path, sounds: int, folders: int, *, icons: bool = True) -> None:
    """Tiny silent WAVs (the scan sniffs headers); with ``icons``, the first folder's sounds
    carry an animated GIF each."""
    silence = b"\0\0" * 480
    for i in range(sounds):
        folder = root / f"Folder {i % folders + 1:02d}"
        folder.mkdir(parents=True, exist_ok=True)
        name = NAMES[i % len(NAMES)].format(n=i // len(NAMES) + 1)
        with wave.open(str(folder / f"{name}.wav"), "wb") as w:
            w.setnchannels(1)
            w.setsampwidth(2)
            w.setframerate(48000)
            w.writeframes(silence)
        if icons and i % folders == 0:
            make_gif(folder / f"{name}.gif", i)


def stored_order(root: Path) -> tuple[list[str], list[str]]:
    """(kv lines that reverse the first folder, page 1's rel paths in that order)."""
    from cueboard.core.prefs import key_for
    from cueboard.workers.scan import scan

    library = scan(root)
    first = library.pages()[0].sounds[0].rel_path.split("/")[0]
    folder = [s for s in library.sounds if s.rel_path.split("/")[0] == first]
    lines = [json.dumps({"k": "schema", "v": 1, "r": 1})]
    for n, sound in enumerate(folder):
        rec = {"o": len(folder) - n, "p": sound.rel_path}
        lines.append(json.dumps({"k": key_for(sound.rel_path), "v": rec, "r": n + 2}))
    page = [s.rel_path for s in reversed(folder)][:PAGE_SIZE]
    return lines, page


def run_vrosdev(work: Path, args: list[str], record: Path, state: Path, steps: str) -> None:
    record.unlink(missing_ok=True)
    script = work / "steps.txt"
    script.write_text(f"{steps}\nshutdown\n")
    env = {**os.environ, "XDG_RUNTIME_DIR": str(work), "CUEBOARD_LOG": "ERROR"}
    common = ["--state", str(state), "--record", str(record), "--script", str(script)]
    subprocess.run(
        [str(VROSDEV), "run", *args, *common, "--log-level", "ERROR"],
        cwd=REPO,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )


def cueboard_session(work: Path, content: Path, kv_lines: list[str], seconds: float) -> Path:
    record = work / "transcript.jsonl"
    state = work / "state"
    subprocess.run(["rm", "-rf", str(state)], check=True)
    (state / "kv").mkdir(parents=True)
    (state / "kv" / f"{EXT_ID}.jsonl").write_text("\n".join(kv_lines) + "\n")
    args = ["--manifest", str(REPO / "manifest.toml"), "--content-root", str(content)]
    # A busy machine can take longer than ``seconds`` to page 1: the session then lasts until
    # Cueboard has gone quiet, so a milestone is late rather than missing.
    run_vrosdev(work, args, record, state, f"sleep {seconds:g}\nsettle 0.5 60")
    return record


def bare_sdk_hello(work: Path) -> float:
    record = work / "bare.jsonl"
    script = work / "bare_sdk.py"
    script.write_text(BARE_SDK)
    command = f"{sys.executable} {script}"
    args = ["--command", command, "--id", "com.cueboard.bench"]
    run_vrosdev(work, args, record, work / "bare-state", "sleep 1")
    for entry in _entries(record):
        if entry.get("dir") == "ext>host":
            return entry["t"] * 1e3
    sys.exit(f"no hello from the bare SDK in {record}")


def _entries(record: Path) -> list[dict[str, Any]]:
    if not record.exists():
        sys.exit(f"no transcript at {record}")
    return [json.loads(line) for line in record.read_text().splitlines()]


def read_launch(record: Path, page: list[str]) -> dict[str, float]:
    """Milestones in ms from launch; ``reshuffled``: a props showed page 1 out of the stored
    order before the names milestone."""
    out: dict[str, float] = {}
    put_ids: dict[Any, str] = {}
    icons_ready: set[str] = set()
    keys: list[str] = []
    icons: list[str] = []
    for entry in _entries(record):
        frame = entry.get("frame")
        if not isinstance(frame, dict):
            continue
        ms = entry["t"] * 1e3
        params = frame.get("params") or {}
        if entry["dir"] != "ext>host":
            result = frame.get("result")
            if "welcome" not in out and isinstance(result, dict) and "granted" in result:
                out["welcome"] = ms
            key = put_ids.pop(frame.get("id"), None)
            if key is not None and "error" not in frame:
                icons_ready.add(key)
            continue
        out.setdefault("hello", ms)
        if (frame.get("method"), params.get("op")) == ("assets", "put"):
            put_ids[frame.get("id")] = params.get("key")
        to_overlay = (frame.get("method"), params.get("panel")) == ("panel", "overlay")
        if not (to_overlay and params.get("op") == "props"):
            continue
        for name, value in params.get("props") or []:
            if name == "slots":
                keys = [row[0]["v"] for row in value["v"]][:PAGE_SIZE]
            elif name == "slot-icons":
                icons = list(value["v"])[:PAGE_SIZE]
        if "names" not in out:
            if keys == page:
                out["names"] = ms
            elif sorted(keys) == sorted(page):
                out.setdefault("reshuffled", ms)
        shown = len(icons) == len(page) and all(
            icon in icons_ready and not icon.startswith("cb:") for icon in icons
        )
        if "names" in out and "icons" not in out and keys == page and shown:
            out["icons"] = ms
    return out


def _spread(ms: list[float]) -> str:
    return f"{statistics.median(ms):.0f} ({min(ms):.0f}-{max(ms):.0f})" if ms else "-"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--quick", action="store_true", help="one run at 60 sounds")
    args = parser.parse_args()
    runs = 1 if args.quick else args.runs
    libraries = dict(list(LIBRARIES.items())[:1]) if args.quick else LIBRARIES
    seconds = 2.0 if args.quick else 3.0
    figures: dict[tuple[str, str], list[float]] = {}
    reshuffles: dict[str, int] = {}
    bare: list[float] = []
    compile_sources()
    with tempfile.TemporaryDirectory(prefix="bench-launch-") as tmp:
        work = Path(tmp)
        setups: dict[str, tuple[Path, list[str], list[str]]] = {}
        for label, (sounds, folders) in libraries.items():
            content = work / f"content-{sounds}"
            make_library(content / "Cueboard" / "Sounds", sounds, folders)
            setups[label] = (content, *stored_order(content / "Cueboard" / "Sounds"))
        for _ in range(runs):
            bare.append(bare_sdk_hello(work))
            for label, (content, kv_lines, page) in setups.items():
                seen = read_launch(cueboard_session(work, content, kv_lines, seconds), page)
                if "names" not in seen:
                    sys.exit(f"{label}: no overlay props with page 1 in the stored order")
                for milestone in ("hello", "welcome", "names", "icons"):
                    if milestone in seen:
                        figures.setdefault((label, milestone), []).append(seen[milestone])
                reshuffles[label] = reshuffles.get(label, 0) + ("reshuffled" in seen)

    print(f"{sys.executable} (Python {sys.version.split()[0]}), median (min-max) of {runs}")
    header = (
        f"{'library':<26} {'hello ms':>14} {'welcome ms':>14} {'page 1 names ms':>16} "
        f"{'page 1 icons ms':>16} {'reshuffled':>10}"
    )
    print(f"bare SDK hello under vrosdev: {_spread(bare)} ms from launch")
    print(header)
    print("-" * len(header))
    verdicts: list[str] = []
    for label, (sounds, _) in libraries.items():
        row = [_spread(figures.get((label, m), [])) for m in ("hello", "welcome", "names", "icons")]
        print(
            f"{label:<26} {row[0]:>14} {row[1]:>14} {row[2]:>16} {row[3]:>16} "
            f"{reshuffles[label]:>7}/{runs}"
        )
        names = statistics.median(figures[label, "names"])
        icons = figures.get((label, "icons"), [])
        icons_ms = statistics.median(icons) if len(icons) == runs else float("inf")
        met = names <= NAMES_TARGET_MS[sounds] and icons_ms <= ICONS_TARGET_MS
        verdicts.append(
            f"{label}: names {names:.0f} <= {NAMES_TARGET_MS[sounds]:g} ms, icons "
            f"{icons_ms:.0f} <= {ICONS_TARGET_MS:g} ms, in order every run: "
            f"{'meets' if met and not reshuffles[label] else 'MISSES'}"
        )
    print("\ntargets (issue 23, goal 2), medians from launch:")
    for verdict in verdicts:
        print(f"  {verdict}")


if __name__ == "__main__":
    main()
