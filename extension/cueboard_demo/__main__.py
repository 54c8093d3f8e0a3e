"""``make demo``: generate demo content, run Cueboard in vrosdev on a scripted session, and
print what a person would have seen and heard, one line per user-visible event."""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sys
from dataclasses import fields
from pathlib import Path
from typing import Any

from cueboard.core.settings import Settings

from . import content

HERE = Path(__file__).resolve().parent
# The user's settings (the manifest's [[settings]]); other kv keys are Cueboard's own records.
SETTING_KEYS = frozenset(f.name for f in fields(Settings))
REPO = HERE.parents[1]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m cueboard_demo", description=__doc__)
    parser.add_argument("--out", type=Path, default=REPO / "demo-out")
    parser.add_argument("--preview", action="store_true", help="open the live preview instead")
    parser.add_argument(
        "--screenshots",
        type=Path,
        metavar="DIR",
        help="only render the panels' scenes, each in 2 languages x 2 themes",
    )
    args = parser.parse_args(argv)
    out: Path = args.out
    os.environ.setdefault("CUEBOARD_LOG", "WARNING")  # the narration below is the demo's log
    out.mkdir(parents=True, exist_ok=True)
    sounds = content.generate(out / "content")
    print(f"demo content: {sum(1 for _ in sounds.rglob('*.wav'))} sounds in {sounds}")
    if args.screenshots is not None:
        variants = [(loc, theme) for theme in ("signal", "daylight") for loc in ("en-US", "ja-JP")]
        shots = screenshots(out, args.screenshots, variants)
        for shot in shots:
            print(f"screenshot: {shot}")
        return 0 if len(shots) == len(variants) * len(SCENES) else 1
    shutil.rmtree(out / "state", ignore_errors=True)  # each demo starts as a first run
    record = out / "transcript.jsonl"
    record.unlink(missing_ok=True)
    common = [
        "--manifest",
        str(REPO / "manifest.toml"),
        "--content-root",
        str(out / "content"),
        "--state",
        str(out / "state"),
        "--audio-out",
        str(out),
        "--record",
        str(record),
        "--log-level",
        "WARNING",
    ]
    from vrosdev.cli import main as vrosdev

    if args.preview or (os.environ.get("DISPLAY") and sys.stdin.isatty()):
        print("a display is available: opening the live preview (close vrosdev with 'shutdown')")
        return vrosdev(["run", *common, "--preview"])
    code = vrosdev(["run", *common, "--script", str(HERE / "script.txt")])
    print()
    for line in narrate([json.loads(x) for x in record.read_text().splitlines()]):
        print(line)
    print()
    for channel in ("soundboard", "mic", "ui"):
        print(describe_wav(out / f"{channel}.wav"))
    shots = screenshots(out, out, [("en-US", "signal"), ("ja-JP", "daylight")], scenes=1)
    for shot in shots:
        print(f"screenshot: {shot}")
    print(f"transcript: {record}")
    return code


def narrate(transcript: list[dict[str, Any]]) -> list[str]:
    """One readable line per user-visible event, from vrosdev's transcript."""
    lines: list[str] = []
    load_paths: dict[int, str] = {}
    names: dict[str, str] = {}
    pending: dict[int, dict[str, Any]] = {}
    last_playback: dict[str, str] = {}
    for entry in transcript:
        t = f"{entry.get('t', 0):6.2f}s"
        if "note" in entry and entry["note"].startswith("script: "):
            step = entry["note"].removeprefix("script: ")
            if not step.startswith(("settle", "sleep", "show")):
                lines.append(f"{t}  you: {step}")
            continue
        if "violation" in entry:
            lines.append(f"{t}  vrOS would refuse: {entry['violation']}")
            continue
        frame = entry.get("frame")
        if not isinstance(frame, dict):
            continue
        if entry["dir"] == "ext>host" and "method" in frame:
            params = frame.get("params") or {}
            rid = frame.get("id")
            method, op = frame["method"], params.get("op")
            if (method, op) == ("audio", "load"):
                load_paths[rid] = Path(params["path"]).stem
            elif (method, op) == ("audio", "play"):
                gains = ", ".join(f"{x['channel']} {x['gain_pct']}%" for x in params["targets"])
                loop = " (looping)" if params.get("looping") else ""
                lines.append(
                    f"{t}  ♪ {names.get(params['sound'], params['sound'])} → {gains}{loop}"
                )
            elif (method, op) == ("audio", "stop_all"):
                lines.append(f"{t}  ■ every sound stopped")
            elif (method, op) == ("audio", "stop"):
                lines.append(f"{t}  ■ {names.get(params['sound'], params['sound'])} stopped")
            elif method == "media":
                pending[rid] = params
            elif (method, op) == ("bus", "publish"):
                lines.append(f"{t}  bus: {params['topic']} {json.dumps(params['payload'])}")
            elif (method, op) == ("kv", "set") and params.get("key") in SETTING_KEYS:
                lines.append(f"{t}  setting {params['key']} = {json.dumps(params['value'])}")
        elif entry["dir"] == "host>ext":
            result = frame.get("result")
            if isinstance(result, dict) and result.get("result") == "loading":
                names[result["sound"]] = load_paths.get(frame.get("id"), result["sound"])
            if frame.get("id") in pending:
                params = pending.pop(frame["id"])
                what = params.get("op")
                outcome = result.get("result") if isinstance(result, dict) else "error"
                detail = f" {result.get('code')}" if outcome == "err" else ""
                title = f" '{params['title']}'" if params.get("title") else ""
                opts = {
                    k: v
                    for k, v in params.items()
                    if k not in ("op", "key", "url", "title", "session")
                }
                lines.append(
                    f"{t}  media deck: {what}{title} {opts or ''} → {outcome}{detail}".replace(
                        "  →", " →"
                    )
                )
            params = frame.get("params") if frame.get("method") == "event" else None
            if isinstance(params, dict):
                ev = params.get("event")
                if ev == "audio_loaded" and params["outcome"]["kind"] == "failed":
                    code = params["outcome"]["code"]
                    lines.append(f"{t}  ✗ {names.get(params['sound'])} cannot load: {code}")
                elif ev == "media_snapshot":
                    for s in params.get("sessions", []):
                        state = s["playback"]["kind"] + f", video {s['video']}"
                        if last_playback.get(s["key"]) != state:
                            last_playback[s["key"]] = state
                            lines.append(f"{t}  media {s['key']} '{s.get('title', '')}': {state}")
                elif ev == "media_control":
                    action, gen = params["action"]["kind"], params["source_generation"]
                    lines.append(f"{t}  player control on {params['key']}: {action} (gen {gen})")
    return lines


def describe_wav(path: Path) -> str:
    try:
        import numpy as np
        import soundfile

        data, rate = soundfile.read(str(path), dtype="float32")
    except Exception as exc:  # a missing file says so in the line
        return f"{path.name}: not written ({exc})"
    peak = float(np.abs(data).max()) if data.size else 0.0
    return f"{path}: {len(data) / rate:.1f} s at {rate} Hz, peak {peak:.2f}"


EDITED = "Twitch Alerts/ドラムロール（長め）.wav"  # a 5 s roll: its waveform has a shape to see
# name, panel, the steps before the capture. Each is rendered in every variant asked for.
SCENES: list[tuple[str, str, str]] = [
    ("overlay", "overlay", ""),
    ("search", "overlay", 'click overlay search-changed ["boss"]\nsleep 0.6\n'),
    # Long, Japanese and emoji names, a tile that cannot load, a favourite naming its command,
    # two sounds with a play mode of their own (the legend under the grid says what their
    # marks mean), and four sounds playing (looped for this press, so that they still play
    # when the window is captured).
    (
        "library",
        "overlay",
        'click overlay open-folder ["c:Twitch Alerts"]\nsleep 1.5\n'
        'click overlay set-favourite ["Twitch Alerts/Boss Defeated Fanfare.wav", true]\n'
        'click dash-tab set-sound-mode ["Twitch Alerts/Hype Train Level 5.wav", 4]\n'
        'click dash-tab set-sound-mode ["Twitch Alerts/Boss Defeated Fanfare.wav", 3]\n'
        'click overlay open-folder ["c:Twitch Alerts"]\nsleep 0.5\n'
        + "".join(
            f"bus-publish ext.com.cueboard.soundboard.cmd.play "
            f'{{"path": "Twitch Alerts/{name}.wav", "mode": "loop"}}\nsleep 0.3\n'
            for name in ("Hype Train Level 1", "拍手", "🐸 Frog Croak", "Boss Music Intro")
        )
        + "invoke play-slot-7\nsleep 0.5\n",  # the last pressed tile is named in full
    ),
    (
        "dash-tab",
        "dash-tab",
        'click dash-tab open-folder ["c:Twitch Alerts"]\n'
        'click dash-tab select-sound ["Twitch Alerts/Hype Train Level 5.wav"]\nsleep 0.6\n',
    ),
    # The editor's trim page: a sound trimmed at both ends with fades, its waveform drawn by
    # the worker with the trimmed parts dimmed (scripted edits go through the panel's own
    # callbacks, as a touch or a +/- press does).
    (
        "editor",
        "dash-tab",
        'settle\nclick dash-tab open-folder ["c:Twitch Alerts"]\n'
        f'click dash-tab select-sound ["{EDITED}"]\nsettle\n'
        "click dash-tab show-editor-page [1]\nsettle\n"  # the waveform: the file's length
        + "".join(
            f'click dash-tab set-sound-edit ["{EDITED}", {field}, {ms}]\n'
            for field, ms in ((1, 4200), (0, 600), (2, 400), (3, 800))
        )
        + "settle\n",
    ),
    # The now-playing toast, a runtime panel that exists only once a sound is pressed: the user
    # turns it on, presses a slot, and the picture is taken as it opens (it shows for 2.5 s).
    (
        "toast",
        "now-playing",
        "settle\nsetting now_playing_toast true\nsettle\ninvoke play-slot-1\n"
        "wait-for panel.define\n",
    ),
]
# Scenes captured once the props settle after their last step, not after a fixed wait.
AT_LAST_STEP = frozenset({"editor", "toast"})


def screenshots(
    out: Path, target_dir: Path, variants: list[tuple[str, str]], scenes: int = len(SCENES)
) -> list[Path]:
    """The first ``scenes`` scenes in each (locale, theme), when vrosdev can render panels."""
    try:
        from vrosdev.cli import main as vrosdev
    except ImportError:
        return []
    shots: list[Path] = []
    target_dir.mkdir(parents=True, exist_ok=True)
    shutil.rmtree(out / "screenshot-state", ignore_errors=True)  # every scene from a first run
    for name, panel, steps in SCENES[:scenes]:
        script = out / f"scene-{name}.txt"
        script.write_text(steps, encoding="utf-8")
        for locale, theme in variants:
            target = target_dir / f"{name}-{locale}-{theme}.png"
            argv = [
                "screenshot",
                "--manifest",
                str(REPO / "manifest.toml"),
                "--panel",
                panel,
                "--out",
                str(target),
                "--locale",
                locale,
                "--theme",
                theme,
                "--content-root",
                str(out / "content"),
                "--state",
                str(out / "screenshot-state"),
                "--log-level",
                "ERROR",
                *(["--script", str(script)] if steps else []),
            ]
            if name in AT_LAST_STEP:
                argv += ["--capture-after", str(len(steps.splitlines()))]
            else:
                argv += ["--wait", "3"]  # icons decode in a worker process after the first props
            try:
                if vrosdev(argv) == 0 and target.exists():
                    shots.append(target)
            except SystemExit as exc:
                print(f"screenshot {name} {locale}: {exc}")
    return shots


if __name__ == "__main__":
    raise SystemExit(main())
