"""The panel renderer (issue 4, live preview): a real host on a real socket, a raw peer sending
literal lines, and real Slint windows under a private Xvfb; then `vrosdev screenshot` end to
end against a stand-in extension written with the SDK."""

from __future__ import annotations

import base64
import json
import os
import shutil
import subprocess
import sys
import textwrap
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager
from pathlib import Path

import anyio
import pytest
from PIL import Image

from vrosdev.host.renderer import PanelRenderer
from vrosdev.panels.xvfb import VirtualDisplay
from vrosdev.script import ScriptError, ScriptRunner, parse_line
from vrosdev.theme import hex_to_rgb, palette

from .panels.panel_samples import PROBE_PANEL
from .rawhost import RawPeer, RunningHost, config, running_host

pytestmark = pytest.mark.display

ICON_AT = (5, 105)  # PROBE_PANEL's first [image]
BG0_AT = (5, 90)
RED_2X2 = base64.b64encode(bytes([255, 0, 0, 255]) * 4).decode()
BLUE_2X2 = base64.b64encode(bytes([0, 0, 255, 255]) * 4).decode()


def _tools_or_skip() -> None:
    if shutil.which("Xvfb") is None:
        pytest.skip("Xvfb is not installed: run `make sysdeps` (apt-get install xvfb)")
    if shutil.which("import") is None and shutil.which("import-im6.q16") is None:
        pytest.skip("ImageMagick's import is not installed: run `make sysdeps`")


@pytest.fixture(scope="module")
def x_display() -> Iterator[str]:
    """A private Xvfb for the windows (never the developer's own screen)."""
    _tools_or_skip()
    server = VirtualDisplay()
    display = server.start()
    try:
        yield display
    finally:
        server.stop()


@asynccontextmanager
async def rendered(
    display: str, **overrides: object
) -> AsyncIterator[tuple[RunningHost, PanelRenderer]]:
    cfg = config(panels={"overlay": PROBE_PANEL}, **overrides)
    async with running_host(cfg) as running:
        renderer = PanelRenderer(running.host, display=display)
        async with anyio.create_task_group() as tasks:
            tasks.start_soon(renderer.run)
            await renderer.running.wait()
            yield running, renderer
            tasks.cancel_scope.cancel()


async def _step(running: RunningHost, text: str) -> None:
    step = parse_line(text)
    assert step is not None
    await ScriptRunner(running.host).run_step(step)


async def _request(peer: RawPeer, line: str) -> dict[str, object]:
    await peer.send(line)
    answer = await peer.reply()
    assert "result" in answer, answer
    return answer["result"]


def _pixel(path: Path, at: tuple[int, int]) -> tuple[int, int, int]:
    with Image.open(path) as image:
        r, g, b, *_ = image.convert("RGB").getpixel(at)  # type: ignore[misc]
    return r, g, b


@pytest.mark.anyio
async def test_props_and_asset_frames_reach_the_window(x_display: str, tmp_path: Path) -> None:
    """PAN-6 (merged, last value wins) and PAN-11, AST-8: an `[image]` prop shows the frames
    the extension uploaded; a panel opens only once `show` made it visible."""
    async with rendered(x_display) as (running, renderer):
        peer = await running.ready()
        assert not renderer.is_open("overlay")
        await _step(running, "show overlay")
        assert await peer.event() == {"event": "panel_shown", "panel": "overlay"}
        put = (
            '{"jsonrpc":"2.0","id":2,"method":"assets","params":{"op":"put","key":"e:icon:1",'
            '"width":2,"height":2,"frames":[{"rgba_base64":"' + RED_2X2 + '","delay_ms":100}],'
            '"loop":0}}'
        )
        assert (await _request(peer, put))["result"] == "ok"
        props = (
            '{"jsonrpc":"2.0","id":3,"method":"panel","params":{"op":"props","panel":"overlay",'
            '"props":[["label",{"t":"str","v":"first"}],["count",{"t":"i64","v":7}],'
            '["icons",{"t":"assets","v":["e:icon:1"]}],["label",{"t":"str","v":"ライブ"}]]}}'
        )
        assert (await _request(peer, props))["result"] == "applied"
        client = await renderer.sync("overlay")
        assert await client.get("seen") == "ライブ|7|0|-"
        assert await client.get("icon-width") == 2
        shot = tmp_path / "overlay.png"
        assert await renderer.screenshot("overlay", shot) == (160, 120)
        assert _pixel(shot, ICON_AT) == (255, 0, 0)
        assert _pixel(shot, BG0_AT) == hex_to_rgb(palette("signal")["bg0"])

        blue = put.replace('"id":2', '"id":4').replace(RED_2X2, BLUE_2X2)
        assert (await _request(peer, blue))["result"] == "ok"
        await renderer.screenshot("overlay", shot)  # a re-put of the key reaches the window
        assert _pixel(shot, ICON_AT) == (0, 0, 255)

        await _step(running, "hide overlay")
        assert await peer.event() == {"event": "panel_hidden", "panel": "overlay"}
        assert not renderer.is_open("overlay")


@pytest.mark.anyio
async def test_clicks_reach_the_extension_and_focus_edges_stay_in_the_host(
    x_display: str,
) -> None:
    """EVT-8: a callback reaches the extension as panel_event {panel, callback, args}, args typed
    as props are; PAN-25: field-focus edges are consumed by the host (transcript notes, never
    panel_events); PAN-26: `blur` advances field-blur."""
    async with rendered(x_display) as (running, renderer):
        peer = await running.ready()
        await _step(running, "show overlay")
        assert (await peer.event())["event"] == "panel_shown"
        await _step(running, "focus overlay search")
        with anyio.fail_after(5):
            assert await renderer.wait_focus_edges("overlay", 1) == [True]
        client = renderer.client("overlay")
        assert client is not None
        await client.invoke("play", [{"t": "i64", "v": 2**40}, {"t": "str", "v": "horn"}])
        # The click is the next frame the extension gets: the focus edge never reached it.
        assert await peer.event() == {
            "event": "panel_event",
            "panel": "overlay",
            "callback": "play",
            "args": [{"t": "i64", "v": 2**40}, {"t": "str", "v": "horn"}],
        }
        await _step(running, "blur overlay")
        with anyio.fail_after(5):
            assert await renderer.wait_focus_edges("overlay", 2) == [True, False]
        assert await client.get("blur-count") == 1
        with pytest.raises(ScriptError, match="focus-nowhere"):
            await _step(running, "focus overlay nowhere")
    notes = [json.loads(line) for line in running.transcript().splitlines()]
    consumed = [n["note"] for n in notes if "field-focus(" in n.get("note", "")]
    assert consumed == [
        "panel overlay: field-focus(true) consumed by the host",
        "panel overlay: field-focus(false) consumed by the host",
    ]
    sent = [n["frame"] for n in notes if n.get("dir") == "host>ext"]
    callbacks = [f["params"].get("callback") for f in sent if f.get("method") == "event"]
    assert "field-focus" not in callbacks


@pytest.mark.anyio
async def test_preview_on_a_desktop_shows_manifest_panels_at_once(x_display: str) -> None:
    """`vrosdev run --preview` with a display: the overlay's window opens at start and the
    extension hears panel_shown once welcomed (EVT-7 pairing starts there)."""
    cfg = config(panels={"overlay": PROBE_PANEL})
    async with running_host(cfg) as running:
        renderer = PanelRenderer(running.host, display=x_display, show_manifest_panels=True)
        async with anyio.create_task_group() as tasks:
            tasks.start_soon(renderer.run)
            await renderer.running.wait()
            peer = await running.ready()
            assert await peer.event() == {"event": "panel_shown", "panel": "overlay"}
            client = await renderer.sync("overlay")
            assert (client.width, client.height) == (160, 120)
            tasks.cancel_scope.cancel()
        assert not renderer.is_open("overlay")  # the renderer closes its windows on the way out


RUNTIME_PANEL = """import { ExtTheme } from "@vros/theme.slint";
export component Toast {
    in property <string> text;
    out property <string> version: "%s:" + text;
    Rectangle { background: ExtTheme.c.accent; }
}
"""


def _define(rid: int, version: str) -> str:
    params = {
        "op": "define",
        "panel": "toast",
        "source": RUNTIME_PANEL % version,
        "width": 100,
        "height": 64,
    }
    return json.dumps({"jsonrpc": "2.0", "id": rid, "method": "panel", "params": params})


@pytest.mark.anyio
async def test_runtime_panels_open_when_defined_reload_on_redefine_close_on_remove(
    x_display: str,
) -> None:
    """PAN-4, PAN-17: define opens the window at the host's size, a redefine reloads it with
    the new source, remove closes it."""
    async with rendered(x_display) as (running, renderer):
        peer = await running.ready()
        assert (await _request(peer, _define(2, "v1")))["revision"] == 1
        props = (
            '{"jsonrpc":"2.0","id":3,"method":"panel","params":{"op":"props","panel":"toast",'
            '"props":[["text",{"t":"str","v":"hi"}]]}}'
        )
        await _request(peer, props)
        client = await renderer.sync("toast")
        assert (client.width, client.height) == (100, 64)
        assert await client.get("version") == "v1:hi"
        assert (await _request(peer, _define(4, "v2")))["revision"] == 2
        client = await renderer.sync("toast")
        assert await client.get("version") == "v2:"  # the host starts a redefined panel afresh
        await _request(peer, props.replace('"id":3', '"id":6').replace('"hi"', '"again"'))
        client = await renderer.sync("toast")
        assert await client.get("version") == "v2:again"
        remove = (
            '{"jsonrpc":"2.0","id":5,"method":"panel","params":{"op":"remove","panel":"toast"}}'
        )
        assert (await _request(peer, remove))["result"] == "removed"
        assert not renderer.is_open("toast")


# -- vrosdev screenshot -----------------------------------------------------------------------

STAND_IN = """
import sys
import anyio
import vxp

TOAST = '''export component Toast {
    preferred-width: 60px;
    preferred-height: 40px;
    in property <int> n;
    Rectangle { background: n == 2 ? #2060c0 : red; }
}'''

async def main() -> None:
    async with vxp.connect() as client:
        if "--no-props" in sys.argv:
            sys.exit(4)
        async for event in client.events():
            if getattr(event, "event", None) == "panel_shown":
                await client.panel.props(
                    "overlay", [("fill", {"t": "str", "v": "#10a040"}), ("n", {"t": "i64", "v": 3})]
                )
            if getattr(event, "event", None) == "panel_event":
                await client.panel.define("toast", TOAST, width=100, height=64)
                await client.panel.props("toast", [("n", {"t": "i64", "v": 2})])
            if getattr(event, "event", None) == "shutting_down":
                return

anyio.run(main)
"""

SHOT_PANEL = """import { ExtTheme } from "@vros/theme.slint";
export component Overlay {
    preferred-width: 90px;
    preferred-height: 50px;
    in property <string> fill;
    in property <int> n;
    Rectangle { background: ExtTheme.c.bg0; }
    Rectangle { x: 0; y: 0; width: 30px * n; height: 20px; background: fill == "" ? red : #10a040; }
}
"""


def _stand_in(folder: Path, *args: str) -> Path:
    (folder / "panels").mkdir()
    (folder / "panels" / "overlay.slint").write_text(SHOT_PANEL, encoding="utf-8")
    (folder / "ext.py").write_text(textwrap.dedent(STAND_IN), encoding="utf-8")
    (folder / "run.sh").write_text(f'exec "{sys.executable}" ext.py {" ".join(args)}\n')
    manifest = folder / "manifest.toml"
    manifest.write_text(
        textwrap.dedent(
            """\
            id = "com.example.shot"
            name = "Shot"
            version = "0.1.0"
            vxp_version = "1.7"
            command = ["sh", "run.sh"]

            [capabilities]
            bus = []
            overlays = true

            [panels]
            overlay = "panels/overlay.slint"
            """
        ),
        encoding="utf-8",
    )
    return manifest


def _vrosdev(tmp_path: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k != "DISPLAY"}  # headless: its own Xvfb
    env["XDG_RUNTIME_DIR"] = str(tmp_path)
    command = [sys.executable, "-m", "vrosdev.cli", "screenshot", *args]
    command += ["--state", str(tmp_path / "state"), "--log-level", "WARNING"]
    return subprocess.run(command, env=env, capture_output=True, text=True, timeout=60, check=False)


def test_vrosdev_screenshot_writes_the_panel_as_the_extension_left_it(tmp_path: Path) -> None:
    """`vrosdev screenshot`: headless, shown, settled props, then a PNG of the panel."""
    _tools_or_skip()
    manifest = _stand_in(tmp_path)
    out = tmp_path / "overlay.png"
    done = _vrosdev(
        tmp_path, "--manifest", str(manifest), "--panel", "overlay", "--out", str(out),
        "--theme", "daylight",
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    with Image.open(out) as image:
        assert image.size == (90, 50)
    assert _pixel(out, (85, 5)) == (0x10, 0xA0, 0x40)  # n=3: the bar spans all 90 px
    assert _pixel(out, (5, 40)) == hex_to_rgb(palette("daylight")["bg0"])


def test_vrosdev_screenshot_captures_a_panel_a_script_step_opens(tmp_path: Path) -> None:
    """`vrosdev screenshot --capture-after LINE`: a runtime panel that exists only once a step
    has run (a toast a press opens) is captured when its props settle after that step."""
    _tools_or_skip()
    manifest = _stand_in(tmp_path)
    script = tmp_path / "press.txt"
    script.write_text("# open the toast\nsettle\nclick overlay press\nwait-for panel.define\n")
    out = tmp_path / "toast.png"
    done = _vrosdev(
        tmp_path, "--manifest", str(manifest), "--panel", "toast", "--out", str(out),
        "--script", str(script), "--capture-after", "4",
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    with Image.open(out) as image:
        assert image.size == (100, 64)
    assert _pixel(out, (50, 32)) == (0x20, 0x60, 0xC0)  # the props sent after the define
    wrong = _vrosdev(
        tmp_path, "--manifest", str(manifest), "--panel", "toast", "--out", str(out),
        "--script", str(script), "--capture-after", "1",
    )  # fmt: skip
    assert wrong.returncode != 0
    assert "--capture-after 1: no step on that line" in wrong.stderr


def test_vrosdev_screenshot_fails_in_one_line_without_props(tmp_path: Path) -> None:
    _tools_or_skip()
    manifest = _stand_in(tmp_path, "--no-props")
    out = tmp_path / "overlay.png"
    done = _vrosdev(tmp_path, "--manifest", str(manifest), "--out", str(out))
    assert done.returncode == 1
    assert done.stderr.strip().splitlines()[-1] == (
        "vrosdev screenshot: the extension exited (code 4) before overlay was captured"
    )
    assert "Traceback" not in done.stderr
    assert not out.exists()
