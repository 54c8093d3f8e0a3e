"""Cueboard end to end through vrosdev with its real mixer (issue 6)."""

from __future__ import annotations

import math
from pathlib import Path

import pytest

from cueboard.core.records import SoundPrefs, read_records
from vrosdev.host.namespaces.kv import KvStore
from vxp.manifest import load_manifest

from .harness import REPO, rms, run_cueboard, tone_library

pytestmark = pytest.mark.slow


def test_play_slot_1_reaches_soundboard_and_mic_at_the_gain_ratio(tmp_path: Path) -> None:
    """AUD-4, AUD-9, AUD-19, docs/protocol-notes.md#r28: soundboard at 80, mic at 40 (the manifest's
    defaults): 6.02 dB."""
    content = tone_library(tmp_path)
    run = run_cueboard(tmp_path, "settle\ninvoke play-slot-1\nsleep 1\n", content=content)
    assert run.code == 0
    plays = run.sent("audio", "play")
    assert len(plays) == 1
    assert plays[0]["params"]["targets"] == [
        {"channel": "soundboard", "gain_pct": 80},
        {"channel": "mic", "gain_pct": 40},
    ]
    sb, mic = rms(run.wav("soundboard")), rms(run.wav("mic"))
    assert sb > 0.01 and mic > 0.0
    assert abs(20 * math.log10(sb / mic) - 6.02) < 0.5
    assert run.token not in (tmp_path / "transcript.jsonl").read_text()


def test_start_up_order_and_no_play_before_loaded(tmp_path: Path) -> None:
    """First props, commands, pre-arm, then loads; every play after its audio_loaded (AUD-18)."""
    content = tone_library(tmp_path)
    run = run_cueboard(tmp_path, "settle\ninvoke play-slot-2\nsleep 0.5\n", content=content)
    order = [
        (x["frame"]["method"], (x["frame"].get("params") or {}).get("op"))
        for x in run.transcript
        if x.get("dir") == "ext>host" and isinstance(x.get("frame"), dict)
    ]
    first = {key: order.index(key) for key in reversed(order)}
    assert first[("hello", None)] == 0
    assert first[("panel", "props")] < first[("commands", "register")] < first[("audio", "pre_arm")]
    assert first[("audio", "pre_arm")] < first[("audio", "load")]
    registered = {f["params"]["name"] for f in run.sent("commands", "register")}
    assert {f"play-slot-{n}" for n in range(1, 13)} | {
        "stop-all",
        "rescan",
        "toggle-mic",
    } <= registered
    loaded = {e["sound"] for e in run.events("audio_loaded") if e["outcome"]["kind"] == "loaded"}
    assert {p["params"]["sound"] for p in run.sent("audio", "play")} <= loaded


def test_mic_disabled_keeps_mic_silent(tmp_path: Path) -> None:
    content = tone_library(tmp_path)
    run = run_cueboard(
        tmp_path,
        "settle\nsetting mic_enabled false\ninvoke play-slot-1\nsleep 1\n",
        content=content,
    )
    assert run.sent("audio", "play")[0]["params"]["targets"] == [
        {"channel": "soundboard", "gain_pct": 80}
    ]
    assert rms(run.wav("soundboard")) > 0.01
    assert rms(run.wav("mic")) == 0.0


def test_stop_others_and_toggle_policies(tmp_path: Path) -> None:
    content = tone_library(tmp_path)
    run = run_cueboard(
        tmp_path,
        'settle\nsetting overlap "stop_others"\ninvoke play-slot-1\ninvoke play-slot-2\nsleep 0.3\n'
        'setting overlap "toggle"\ninvoke play-slot-2\nsleep 0.2\n',
        content=content,
    )
    plays = run.sent("audio", "play")
    stops = run.sent("audio", "stop")
    assert len(plays) == 2  # the toggle press stopped slot 2 instead of replaying it
    assert stops[0]["params"]["sound"] == plays[0]["params"]["sound"]  # stop_others
    assert stops[-1]["params"]["sound"] == plays[1]["params"]["sound"]  # toggle


def test_a_failed_load_never_plays_and_shows_broken(tmp_path: Path) -> None:
    content = tone_library(tmp_path)
    bad = content / "Cueboard" / "Sounds" / "00 Broken.wav"
    bad.write_bytes(b"RIFF\x00\x00\x00\x00WAVEjunkjunkjunk" * 4)
    run = run_cueboard(tmp_path, "settle\ninvoke play-slot-1\nsleep 0.3\n", content=content)
    failed = [e for e in run.events("audio_loaded") if e["outcome"]["kind"] == "failed"]
    assert failed and failed[0]["outcome"]["code"] == "undecodable"
    assert all(p["params"]["sound"] != failed[0]["sound"] for p in run.sent("audio", "play"))
    props = [
        pair
        for f in run.sent("panel", "props")
        if f["params"]["panel"] == "overlay"
        for pair in f["params"]["props"]
        if pair[0] == "slots"
    ]
    last = props[-1][1]["v"]
    broken = [row for row in last if row[0]["v"] == "00 Broken.wav"]
    assert broken and broken[0][3]["v"] == 4  # SlotState.BROKEN


def test_kv_survives_a_kill_mid_session(tmp_path: Path) -> None:
    """Per-key records: everything the host answered ``written`` for is there after a kill -9."""
    content = tone_library(tmp_path)
    script = "\n".join(
        [
            "settle",
            'click dash-tab set-sound-gain ["01 Beep.wav", 55]',
            'click dash-tab set-sound-gain ["02 Boop.wav", 66]',
            'click dash-tab set-sound-mode ["Memes/Vine.wav", 4]',
            "settle 0.8",  # longer than the batching delay: the pages are written and answered
            'click dash-tab set-sound-gain ["01 Beep.wav", 77]',
            "kill",
            "sleep 0.3",
        ]
    )
    run = run_cueboard(tmp_path, script, content=content)
    assert run.code != 0  # killed
    store = KvStore(run.state / "kv" / "com.cueboard.soundboard.jsonl")
    written = {f["params"]["key"] for f in run.sent("kv", "set")}
    assert {"d0:", "d0:Memes"} <= written  # a page of each folder
    stored = read_records(store.values)
    assert stored["02 Boop.wav"] == SoundPrefs(gain=66)
    assert stored["Memes/Vine.wav"] == SoundPrefs(mode="loop")
    assert stored["01 Beep.wav"].gain in (55, 77)


def test_remote_control_over_the_bus(tmp_path: Path) -> None:
    content = tone_library(tmp_path)
    run = run_cueboard(
        tmp_path,
        "settle\n"
        'bus-publish ext.com.cueboard.soundboard.cmd.play {"path": "Memes/Vine.wav"}\n'
        "sleep 0.5\n",
        content=content,
    )
    plays = run.sent("audio", "play")
    assert len(plays) == 1
    published = run.sent("bus", "publish")
    assert published[0]["params"]["topic"] == "ext.com.cueboard.soundboard.played"
    assert published[0]["params"]["payload"] == {"name": "Vine", "path": "Memes/Vine.wav"}


def test_shutting_down_flushes_and_exits_zero_under_the_repository_manifest(
    tmp_path: Path,
) -> None:
    """EVT-1, docs/protocol-notes.md#r26: a kv write still waiting to be coalesced is sent after
    shutting_down, then
    the process exits 0 by itself (not killed); it said hello as the repository manifest's id."""
    content = tone_library(tmp_path)
    run = run_cueboard(
        tmp_path,
        'settle\nclick dash-tab set-sound-mode ["01 Beep.wav", 4]\n',
        content=content,
    )
    assert run.code == 0
    frames = [x for x in run.transcript if isinstance(x.get("frame"), dict)]
    shutdown_at = next(
        i
        for i, x in enumerate(frames)
        if x["dir"] == "host>ext" and x["frame"].get("params", {}).get("event") == "shutting_down"
    )
    flushed = [
        x["frame"]["params"]["value"]
        for x in frames[shutdown_at:]
        if x["dir"] == "ext>host"
        and x["frame"].get("method") == "kv"
        and x["frame"]["params"].get("key") == "d0:"
    ]
    assert [read_records({"d0:": v})["01 Beep.wav"] for v in flushed] == [SoundPrefs(mode="loop")]
    assert not [
        x
        for x in run.transcript
        if str(x.get("violation", "")).startswith("docs/protocol-notes.md#r26")
    ]
    (hello,) = run.sent("hello")
    assert hello["params"]["id"] == load_manifest(REPO / "manifest.toml").id


def test_reconnect_registers_again_and_plays(tmp_path: Path) -> None:
    """A drop without shutting_down: hello again, commands again, props again (issue 6)."""
    content = tone_library(tmp_path)
    run = run_cueboard(
        tmp_path, "settle\ndisconnect\nsettle\ninvoke play-slot-1\nsleep 0.5\n", content=content
    )
    assert run.code == 0
    hellos = [
        i
        for i, x in enumerate(run.transcript)
        if x.get("dir") == "ext>host" and x["frame"].get("method") == "hello"
    ]
    assert len(hellos) == 2
    after = run.transcript[hellos[1] :]
    methods = {
        (x["frame"].get("method"), (x["frame"].get("params") or {}).get("op"))
        for x in after
        if x.get("dir") == "ext>host"
    }
    assert {
        ("commands", "register"),
        ("panel", "props"),
        ("assets", "put"),
        ("audio", "play"),
    } <= methods


def test_unknown_sound_after_a_host_restart_reloads_and_plays(tmp_path: Path) -> None:
    """docs/protocol-notes.md#r21: a host that lost its sounds answers unknown_sound; Cueboard loads
    again, plays once."""
    content = tone_library(tmp_path)
    run = run_cueboard(
        tmp_path,
        "settle\ndisconnect forget-sounds\nsettle\ninvoke play-slot-1\nsleep 0.8\n",
        content=content,
    )
    plays = run.sent("audio", "play")
    assert len(plays) == 2
    assert plays[0]["params"]["sound"] != plays[1]["params"]["sound"]
    assert rms(run.wav("soundboard")) > 0.01


def test_lifecycle_quitting_flushes_and_detached_stops_loops(tmp_path: Path) -> None:
    content = tone_library(tmp_path)
    run = run_cueboard(
        tmp_path,
        "\n".join(
            [
                "settle",
                'click dash-tab set-sound-mode ["01 Beep.wav", 4]',
                "lifecycle quitting",
                "settle 0.2",
                "invoke play-slot-1",
                "wait-for audio.play 30",
                "lifecycle detached",
                "wait-for audio.stop 30",
            ]
        ),
        content=content,
    )
    kv_sets = [f for f in run.sent("kv", "set") if f["params"]["key"] == "d0:"]
    assert kv_sets
    assert read_records({"d0:": kv_sets[0]["params"]["value"]})["01 Beep.wav"].mode == "loop"
    play = run.sent("audio", "play")[0]
    assert play["params"]["looping"] is True
    assert run.sent("audio", "stop")[0]["params"]["sound"] == play["params"]["sound"]


def test_without_the_audio_grant_nothing_is_sent_and_the_overlay_says_so(tmp_path: Path) -> None:
    content = tone_library(tmp_path)
    manifest_grants = {"bus": ["vr.lifecycle"], "overlays": True, "media": True}
    run = run_cueboard(
        tmp_path,
        "settle\ninvoke play-slot-1\nsleep 0.3\n",
        content=content,
        granted=manifest_grants,
    )
    assert run.code == 0
    assert run.sent("audio") == []
    texts = [
        pair[1]["v"]
        for f in run.sent("panel", "props")
        for pair in f["params"]["props"]
        if pair[0] == "status-text"
    ]
    assert texts and "audio permission" in texts[-1]


def test_now_playing_toast_defines_a_runtime_panel(tmp_path: Path) -> None:
    content = tone_library(tmp_path)
    run = run_cueboard(
        tmp_path,
        "settle\nsetting now_playing_toast true\n"
        "invoke play-slot-1\ninvoke play-slot-2\n"
        'wait-for panel.props 60 \'["sound-name",{"t":"str","v":"02 Boop"}]\'\n',
        content=content,
    )
    defines = run.sent("panel", "define")
    assert len(defines) == 1 and defines[0]["params"]["panel"] == "now-playing"
    assert defines[0]["params"]["anchor"] == "hmd"
    toast_props = [f for f in run.sent("panel", "props") if f["params"]["panel"] == "now-playing"]
    names = [p[1]["v"] for f in toast_props for p in f["params"]["props"] if p[0] == "sound-name"]
    assert names[-1] == "02 Boop"
