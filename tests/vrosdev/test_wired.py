"""audio, media and panel as the host serves them on the wire (AUD-, MED-, PAN-), raw lines."""

from __future__ import annotations

import math
import wave
from pathlib import Path

import numpy as np
import pytest

from vrosdev.script import ScriptRunner, parse

from .rawhost import config, running_host

pytestmark = pytest.mark.anyio


def _tone(path: Path, seconds: float = 0.25, freq: float = 1000.0) -> Path:
    rate = 48000
    t = np.arange(int(rate * seconds)) / rate
    samples = (0.5 * np.sin(2 * math.pi * freq * t) * 32767).astype("<i2")
    with wave.open(str(path), "wb") as w:
        w.setnchannels(1)
        w.setsampwidth(2)
        w.setframerate(rate)
        w.writeframes(samples.tobytes())
    return path


async def _loaded(peer, rid: int, path: Path) -> str:
    got = await peer.result(rid, "audio", {"op": "load", "path": str(path), "normalize": False})
    assert got["result"] == "loading" and got["sound"].startswith("s-")
    event = await peer.event(timeout=10)
    assert event["event"] == "audio_loaded" and event["sound"] == got["sound"]
    assert event["outcome"]["kind"] == "loaded", event
    return got["sound"]


async def test_aud6_aud17_load_answers_then_audio_loaded(tmp_path: Path) -> None:
    """AUD-6, AUD-17, EVT-13: load answers loading, then audio_loaded with the outcome."""
    async with running_host() as h:
        p = await h.ready()
        sound = await _loaded(p, 2, _tone(tmp_path / "a.wav"))
        status = await p.result(3, "audio", {"op": "get_status"})
        assert status == {"result": "status", "playing": []}
        assert sound == "s-00000001"  # docs/protocol-notes.md#r22


async def test_aud16_the_host_gives_a_decode_30_seconds(tmp_path: Path) -> None:
    """AUD-16: the engine vrosdev serves audio with ends a decode after 30 s (the mechanism:
    test_vrosdev_audio_load.py's decode past the limit)."""
    async with running_host() as h:
        p = await h.ready()
        await _loaded(p, 2, _tone(tmp_path / "a.wav"))
        assert h.host.services["audio_engine"].decode_limit_s == 30.0


async def test_aud23_r14_load_errors(tmp_path: Path) -> None:
    """AUD-23: not_found at once, undecodable in audio_loaded, then sample_not_cached to play it."""
    async with running_host() as h:
        p = await h.ready()
        err = await p.result(
            2, "audio", {"op": "load", "path": str(tmp_path / "no.wav"), "normalize": False}
        )
        assert err["result"] == "err" and err["code"] == "not_found"
        bad = tmp_path / "bad.wav"
        bad.write_text("not audio")
        got = await p.result(3, "audio", {"op": "load", "path": str(bad), "normalize": False})
        event = await p.event(timeout=10)
        assert event["sound"] == got["sound"]
        assert event["outcome"]["kind"] == "failed" and event["outcome"]["code"] == "undecodable"
        err = await p.result(
            4,
            "audio",
            {
                "op": "play",
                "sound": got["sound"],
                "targets": [{"channel": "soundboard", "gain_pct": 50}],
                "looping": False,
            },
        )
        assert err["code"] == "sample_not_cached"


async def test_aud20_a_channel_the_host_lacks_is_skipped_not_refused(tmp_path: Path) -> None:
    """AUD-20, AUD-21: an unknown channel is a target that cannot play
    (docs/protocol-notes.md#r34): skipped beside a playable one; unknown_channel only when every
    target names a missing channel, no_valid_targets when a deviceless one is among them."""
    async with running_host(config(no_device=frozenset({"mic"}))) as h:
        p = await h.ready()
        sound = await _loaded(p, 2, _tone(tmp_path / "a.wav", seconds=5))
        play = '{"jsonrpc":"2.0","id":%d,"method":"audio","params":{"op":"play","sound":"%s",'
        await p.send(
            play % (3, sound) + '"targets":[{"channel":"headset","gain_pct":50},'
            '{"channel":"soundboard","gain_pct":70}],"looping":true}}'
        )
        assert (await p.reply())["result"] == {"result": "ok"}
        status = await p.result(4, "audio", {"op": "get_status"})
        assert status["playing"] == [
            {
                "sound": sound,
                "targets": [{"channel": "soundboard", "gain_pct": 70}],
                "looping": True,
            }
        ]
        await p.send(
            play % (5, sound) + '"targets":[{"channel":"headset","gain_pct":50},'
            '{"channel":"speakers","gain_pct":50}],"looping":false}}'
        )
        assert (await p.reply())["result"]["code"] == "unknown_channel"
        await p.send(
            play % (6, sound) + '"targets":[{"channel":"headset","gain_pct":50},'
            '{"channel":"mic","gain_pct":50}],"looping":false}}'
        )
        assert (await p.reply())["result"]["code"] == "no_valid_targets"
        after = await p.result(7, "audio", {"op": "get_status"})
        assert after["playing"] == status["playing"]  # a refused play changes nothing


async def test_aud9_aud20_aud21_play_skips_unplayable_targets(tmp_path: Path) -> None:
    """AUD-9, AUD-20, AUD-21: a play skips the targets that cannot play and plays the rest."""
    async with running_host(config(no_device=frozenset({"mic"}))) as h:
        p = await h.ready()
        sound = await _loaded(p, 2, _tone(tmp_path / "a.wav", seconds=5))
        ok = await p.result(
            3,
            "audio",
            {
                "op": "play",
                "sound": sound,
                "targets": [
                    {"channel": "soundboard", "gain_pct": 80},
                    {"channel": "mic", "gain_pct": 40},
                ],
                "looping": True,
            },
        )
        assert ok == {"result": "ok"}
        status = await p.result(4, "audio", {"op": "get_status"})
        assert status["playing"] == [
            {
                "sound": sound,
                "targets": [{"channel": "soundboard", "gain_pct": 80}],
                "looping": True,
            }
        ]
        err = await p.result(
            5,
            "audio",
            {
                "op": "play",
                "sound": sound,
                "targets": [{"channel": "mic", "gain_pct": 40}],
                "looping": False,
            },
        )
        assert err["code"] == "no_valid_targets"
        err = await p.result(6, "audio", {"op": "pre_arm", "channel": "mic"})
        assert err["code"] == "no_endpoint"
        err = await p.result(
            7, "audio", {"op": "play", "sound": "s-99999999", "targets": [], "looping": False}
        )
        assert err["code"] == "unknown_sound"
        assert await p.result(8, "audio", {"op": "stop_all"}) == {"result": "ok"}
        assert (await p.result(9, "audio", {"op": "get_status"}))["playing"] == []
        channels = await p.result(10, "audio", {"op": "list_channels"})
        assert {c["channel"] for c in channels["channels"]} == {"soundboard", "mic", "ui"}
        devices = await p.result(11, "audio", {"op": "list_devices"})
        assert devices["result"] == "devices" and devices["default_endpoint"]


# --- media ----------------------------------------------------------------------------------


async def test_med3_med17_open_and_snapshots_in_order() -> None:
    """EVT-14, MED-3, MED-17: open, and snapshots with granted and sessions, in order."""
    async with running_host() as h:
        p = await h.ready()
        opened = await p.result(
            2,
            "media",
            {"op": "open", "key": "deck-1", "url": "https://example.test/live", "title": "Live"},
        )
        assert opened["result"] == "opened" and opened["source_generation"] == 1
        snap = await p.event()
        assert snap["event"] == "media_snapshot" and snap["granted"] is True
        assert snap["sessions"][0]["key"] == "deck-1"
        states = [snap["sessions"][0]["playback"]["kind"]]
        while states[-1] != "playing":
            snap = await p.event(timeout=5)
            states.append(snap["sessions"][0]["playback"]["kind"])
        assert states[0] == "opening" and states[-1] == "playing"
    assert "https://example.test/live" not in h.transcript()
    assert '"url":"<url>"' in h.transcript()


async def test_med18_no_snapshots_for_a_1_3_client() -> None:
    """MED-18: a client that said hello with 1.3 gets no media_snapshot over the wire."""
    async with running_host() as h:
        p = await h.ready("1.3")
        opened = await p.result(
            2, "media", {"op": "open", "key": "deck-1", "url": "https://e.test/x"}
        )
        assert opened["result"] == "opened"
        await p.result(3, "kv", {"op": "list"})
        assert p.events == []


async def test_med22_media_control_from_script_to_a_1_6_client() -> None:
    """MED-22: a script's player control reaches a 1.6 client as media_control."""
    async with running_host() as h:
        p = await h.ready("1.6")
        opened = await p.result(
            2,
            "media",
            {"op": "open", "key": "deck-1", "url": "https://e.test/x", "native_controls": True},
        )
        await ScriptRunner(h.host).run(
            parse("media-pause deck-1\nmedia-control deck-1 set_volume 35 generation=7")
        )
        controls = []
        while len(controls) < 2:
            ev = await p.event()
            if ev["event"] == "media_control":
                controls.append(ev)
        assert controls[0]["action"] == {"kind": "set_paused", "paused": True}
        assert controls[0]["source_generation"] == opened["source_generation"]
        assert controls[1]["action"] == {"kind": "set_volume", "volume_pct": 35}
        assert controls[1]["source_generation"] == 7


async def test_med2_unsupported_mode() -> None:
    """MED-2: `--media unsupported` answers unsupported over the wire."""
    async with running_host(config(media_mode="unsupported")) as h:
        p = await h.ready()
        err = await p.result(2, "media", {"op": "open", "key": "deck-1", "url": "https://e.test/x"})
        assert err["code"] == "unsupported"


# --- panel ----------------------------------------------------------------------------------

TOAST = """import { ExtTheme } from "@vros/theme.slint";
export component Toast {
    in property <string> sound-name;
    in property <int> count;
    Rectangle {
        background: ExtTheme.c.bg1;
        Text { text: root.sound-name; color: ExtTheme.c.tx-hi; }
    }
}
"""


async def test_pan4_pan17_define_revision_and_props() -> None:
    """PAN-3, PAN-4, PAN-5, PAN-12, PAN-17, EVT-5, EVT-6: define, redefine, props, remove."""
    async with running_host() as h:
        p = await h.ready()
        got = await p.result(
            2, "panel", {"op": "define", "panel": "now-playing", "source": TOAST, "anchor": "hmd"}
        )
        assert got == {"result": "defined", "revision": 1}
        assert await p.event() == {"event": "panel_shown", "panel": "now-playing"}
        again = await p.result(
            3, "panel", {"op": "define", "panel": "now-playing", "source": TOAST}
        )
        assert again["revision"] == 2
        applied = await p.result(
            4,
            "panel",
            {
                "op": "props",
                "panel": "now-playing",
                "props": [
                    ["sound-name", {"t": "str", "v": "Airhorn"}],
                    ["count", {"t": "str", "v": "x"}],
                    ["nope", {"t": "i64", "v": 1}],
                ],
            },
        )
        assert applied == {"result": "applied"}
        from vrosdev.host.namespaces.panel import panels

        assert panels(h.host)["now-playing"].props == {"sound-name": {"t": "str", "v": "Airhorn"}}
        assert sum("docs/protocol-notes.md#r29" in v for v in h.host.recorder.violations) == 2
        assert await p.result(5, "panel", {"op": "remove", "panel": "now-playing"}) == {
            "result": "removed"
        }
        assert await p.event() == {"event": "panel_hidden", "panel": "now-playing"}


@pytest.mark.parametrize(
    ("params", "code"),
    [
        ({"op": "define", "panel": "Bad_Name", "source": TOAST}, "invalid_name"),
        ({"op": "define", "panel": "x", "source": "x" * (256 * 1024 + 1)}, "source_too_large"),
        (
            {"op": "define", "panel": "x", "source": "export component X { Text { txt: 1; } }"},
            "compile_failed",
        ),
        (
            {
                "op": "define",
                "panel": "x",
                "source": 'import { Button } from "std-widgets.slint";\n' + TOAST,
            },
            "compile_failed",
        ),
        ({"op": "props", "panel": "ghost", "props": []}, "no_such_panel"),
        ({"op": "remove", "panel": "ghost"}, "no_such_panel"),
    ],
)
async def test_pan14_pan20_pan21_pan22_r24_errors(params: dict, code: str) -> None:
    """PAN-14, PAN-20, PAN-21, PAN-22: each define or remove refusal and its code."""
    async with running_host() as h:
        p = await h.ready()
        got = await p.result(2, "panel", params)
        assert got["result"] == "err" and got["code"] == code, got
        if code == "compile_failed":
            assert got["message"]


async def test_pan13_r11_define_without_overlays_and_manifest_panel_rules() -> None:
    """PAN-13, PAN-19: define needs overlays; a manifest panel cannot be removed, only propped."""
    async with running_host(config(granted={"bus": []}, panels={"overlay": TOAST})) as h:
        p = await h.ready()
        got = await p.result(2, "panel", {"op": "define", "panel": "toast", "source": TOAST})
        assert got["code"] == "not_allowed"
        got = await p.result(3, "panel", {"op": "remove", "panel": "overlay"})
        assert got["code"] == "not_allowed"
        ok = await p.result(
            4,
            "panel",
            {"op": "props", "panel": "overlay", "props": [["count", {"t": "i64", "v": 3}]]},
        )
        assert ok == {"result": "applied"}


async def test_pan8_malformed_typed_value_is_32602() -> None:
    """PAN-8: a typed value that does not fit its type is -32602."""
    async with running_host(config(panels={"overlay": TOAST})) as h:
        p = await h.ready()
        got = await p.call(
            2,
            "panel",
            {"op": "props", "panel": "overlay", "props": [["count", {"t": "i64", "v": 2**53 + 1}]]},
        )
        assert got["error"]["code"] == -32602
        got = await p.call(
            3,
            "panel",
            {"op": "props", "panel": "overlay", "props": [["count", {"t": "color", "v": 1}]]},
        )
        assert got["error"]["code"] == -32602
