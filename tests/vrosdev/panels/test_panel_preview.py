"""The live preview in a real Slint window under Xvfb (issue 4; PAN-7, PAN-23 … PAN-29, AST-18)."""

from __future__ import annotations

import base64
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import anyio
import pytest
from PIL import Image

from vrosdev.panels import (
    PanelHookError,
    PanelLoadError,
    PreviewClient,
    PreviewError,
    screenshot_panel,
)
from vrosdev.panels.window import ThemeSettings
from vrosdev.theme import hex_to_rgb, palette

from .panel_samples import PROBE_PANEL, THEME_IMPORT

pytestmark = [pytest.mark.display, pytest.mark.anyio]

ACCENT_AT = (5, 5)
BG0_AT = (5, 90)
ICON_AT = (5, 105)


def _pixel(path: Path, at: tuple[int, int]) -> tuple[int, int, int]:
    with Image.open(path) as image:
        r, g, b, *_ = image.convert("RGB").getpixel(at)  # type: ignore[misc]
    return r, g, b


async def test_screenshots_show_the_stub_palette_of_the_current_theme(
    x_display: str, tmp_path: Path
) -> None:
    """PAN-34: the host fills the theme module from the current settings (theme, OLED); the
    PNG is exactly the panel."""
    async with PreviewClient.open(PROBE_PANEL, name="overlay", display=x_display) as preview:
        assert (preview.width, preview.height) == (160, 120)  # the root's preferred size
        for settings in (
            ThemeSettings(theme="signal"),
            ThemeSettings(theme="daylight"),
            ThemeSettings(theme="signal", oled=True),
        ):
            await preview.set_theme(settings)
            shot = tmp_path / f"{settings.theme}-{settings.oled}.png"
            assert await preview.screenshot(shot) == (160, 120)
            with Image.open(shot) as image:
                assert image.size == (160, 120)
            colours = palette(settings.theme, oled=settings.oled)
            assert _pixel(shot, ACCENT_AT) == hex_to_rgb(colours["accent"])
            assert _pixel(shot, BG0_AT) == hex_to_rgb(colours["bg0"])
    assert palette("signal")["accent"] != palette("daylight")["accent"]


async def test_the_host_chooses_the_panel_size(x_display: str, tmp_path: Path) -> None:
    """PAN-15: width and height in logical pixels, as the host clamps them."""
    async with PreviewClient.open(PROBE_PANEL, width=200, height=90, display=x_display) as preview:
        assert await preview.screenshot(tmp_path / "sized.png") == (200, 90)


async def test_field_focus_is_consumed_and_field_blur_clears_it(x_display: str) -> None:
    """PAN-25: field-focus never becomes a panel_event; PAN-26: blur advances field-blur;
    PAN-28: the probe's two fields share one field-focus callback;
    PAN-29: moving between two fields in one turn reads as continuous focus."""
    async with PreviewClient.open(PROBE_PANEL, display=x_display) as preview:
        await preview.focus("search")
        with anyio.fail_after(5):
            assert await preview.next_event("field-focus") == {
                "event": "field-focus",
                "focused": True,
            }
        await preview.focus("other")  # search loses, other gains: cancelled out
        await preview.blur()
        with anyio.fail_after(5):
            event = await preview.next_event("field-focus")
        assert event["focused"] is False
        state = await preview.state()
        edges = state["field_focus_edges"]
        assert sorted(edges[1:3]) == [False, True]  # the move: one loss, one gain
        assert (edges[0], edges[3:]) == (True, [False])
        assert state["field_focused"] is False
        assert preview.field_focus_edges == [True, False]
        assert await preview.get("blur-count") == 1
        with pytest.raises(PanelHookError, match="focus-nowhere"):
            await preview.focus("nowhere")
        await preview.invoke("play", [{"t": "i64", "v": 1}, {"t": "str", "v": "x"}])
        with anyio.fail_after(5):
            seen = [e async for e in _until_callback(preview)]
        assert all(e["event"] != "callback" or e["callback"] != "field-focus" for e in seen)


async def _until_callback(preview: PreviewClient) -> AsyncIterator[dict[str, Any]]:
    async for event in preview.events:
        yield event
        if event["event"] == "callback":
            return


async def test_callbacks_arrive_as_typed_events(x_display: str) -> None:
    """Spec Events: panel_event args are typed values, the same as props."""
    async with PreviewClient.open(PROBE_PANEL, display=x_display) as preview:
        await preview.invoke("play", [{"t": "i64", "v": 2**40}, {"t": "str", "v": "horn 🎺"}])
        await preview.invoke("set-level", [{"t": "f64", "v": 0.25}, {"t": "bool", "v": True}])
        with anyio.fail_after(5):
            first = await preview.next_event("callback")
            second = await preview.next_event("callback")
        assert first == {
            "event": "callback",
            "callback": "play",
            "args": [{"t": "i64", "v": 2**40}, {"t": "str", "v": "horn 🎺"}],
        }
        assert second["args"] == [{"t": "f64", "v": 0.25}, {"t": "bool", "v": True}]
        with pytest.raises(PreviewError, match="does not fit"):
            await preview.invoke("play", [{"t": "str", "v": "2"}, {"t": "str", "v": "x"}])


async def test_props_of_every_type_reach_the_panel(x_display: str) -> None:
    """PAN-6, PAN-8, PAN-9, PAN-10 and docs/protocol-notes.md#r29 (violations ignored), through
    Slint 1.18.1b1 itself."""
    async with PreviewClient.open(PROBE_PANEL, display=x_display) as preview:
        row = [
            {"t": "str", "v": "Airhorn"},
            {"t": "i64", "v": -7},
            {"t": "bool", "v": True},
            {"t": "f64", "v": 0.5},
        ]
        violations = await preview.set_props(
            [
                ["label", {"t": "str", "v": "first"}],
                ["count", {"t": "i64", "v": 1}],
                ["names", {"t": "str_list", "v": ["a", "b", "c"]}],
                ["sounds", {"t": "rows", "v": [row]}],
                ["label", {"t": "str", "v": "last"}],  # PAN-6: the last value wins
                ["count", {"t": "str", "v": "2"}],  # wrong type: ignored
                ["volume", {"t": "i64", "v": 3}],  # unknown: ignored
            ]
        )
        assert len(violations) == 2
        with anyio.fail_after(5):
            assert "count" in (await preview.next_event("violation"))["message"]
        await preview.flush()
        assert await preview.get("seen") == "last|1|3|Airhorn,-7,yes,0.5"
        assert await preview.get("sounds") == [{"c0": "Airhorn", "c1": -7, "c2": True, "c3": 0.5}]


async def test_assets_show_and_animate(x_display: str, tmp_path: Path) -> None:
    """PAN-11: assets -> [image]; AST-8, AST-18: frames advance on the renderer's clock."""
    red = base64.b64encode(bytes([255, 0, 0, 255]) * 4).decode()
    blue = base64.b64encode(bytes([0, 0, 255, 255]) * 4).decode()
    async with PreviewClient.open(PROBE_PANEL, display=x_display) as preview:
        assert not await preview.set_props([["icons", {"t": "assets", "v": ["e:icon:1"]}]])
        with anyio.fail_after(5):
            assert "not uploaded" in (await preview.next_event("violation"))["message"]
        await preview.put_asset(
            {
                "key": "e:icon:1",
                "width": 2,
                "height": 2,
                "frames": [{"rgba_base64": red, "delay_ms": 20}],
                "loop": 0,
            }
        )
        assert await preview.get("icon-width") == 2
        shot = tmp_path / "icon.png"
        await preview.screenshot(shot)
        assert _pixel(shot, ICON_AT) == (255, 0, 0)

        await preview.put_asset(
            {
                "key": "e:icon:1",
                "width": 2,
                "height": 2,
                "frames": [
                    {"rgba_base64": red, "delay_ms": 20},
                    {"rgba_base64": blue, "delay_ms": 20},
                ],
                "loop": 1,
            }
        )
        with anyio.fail_after(5):
            # The worker has no frame event: poll its state (a remote read, not a busy wait).
            while (await preview.state())["frames"]["icons"] != [1]:  # noqa: ASYNC110
                await anyio.sleep(0.02)
        await preview.screenshot(shot)
        assert _pixel(shot, ICON_AT) == (0, 0, 255)


async def test_a_panel_that_does_not_compile_fails_to_open(x_display: str) -> None:
    source = THEME_IMPORT + 'export component P { Text { txt: "x"; } }\n'
    with pytest.raises(PanelLoadError, match=r"^2:29: Unknown property txt in Text$"):
        async with PreviewClient.open(source, display=x_display):
            pass


async def test_without_a_display_the_preview_starts_its_own_xvfb(
    no_display: None, tmp_path: Path
) -> None:
    async with PreviewClient.open(PROBE_PANEL, theme=ThemeSettings(theme="daylight")) as preview:
        await preview.screenshot(tmp_path / "headless.png")
    assert _pixel(tmp_path / "headless.png", BG0_AT) == hex_to_rgb(palette("daylight")["bg0"])


async def test_screenshot_panel_applies_props_and_assets_first(
    x_display: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("DISPLAY", x_display)
    green = base64.b64encode(bytes([0, 255, 0, 255])).decode()
    size, violations = await screenshot_panel(
        PROBE_PANEL,
        tmp_path / "state.png",
        assets=[
            {
                "key": "g",
                "width": 1,
                "height": 1,
                "frames": [{"rgba_base64": green, "delay_ms": 100}],
                "loop": 0,
            }
        ],
        props=[["icons", {"t": "assets", "v": ["g"]}], ["nope", {"t": "i64", "v": 1}]],
        theme=ThemeSettings(theme="hc-light"),
    )
    assert size == (160, 120)
    assert len(violations) == 1
    assert _pixel(tmp_path / "state.png", ICON_AT) == (0, 255, 0)
    assert _pixel(tmp_path / "state.png", BG0_AT) == hex_to_rgb(palette("hc-light")["bg0"])


async def test_past_24_animations_a_panel_shows_the_rest_keep_their_first_frame(
    x_display: str,
) -> None:
    """AST-14: 25 animated images in one panel: the first 24 move, the 25th stays on its first
    frame (docs/protocol-notes.md#r35)."""
    red = base64.b64encode(bytes([255, 0, 0, 255]) * 4).decode()
    blue = base64.b64encode(bytes([0, 0, 255, 255]) * 4).decode()
    async with PreviewClient.open(PROBE_PANEL, display=x_display) as preview:
        await preview.put_asset(
            {
                "key": "e:blink",
                "width": 2,
                "height": 2,
                "frames": [
                    {"rgba_base64": red, "delay_ms": 20},
                    {"rgba_base64": blue, "delay_ms": 1000},
                ],
                "loop": 1,
            }
        )
        icons = {"t": "assets", "v": ["e:blink"] * 25}
        assert not await preview.set_props([["icons", icons]])
        with anyio.fail_after(5):
            # The worker has no frame event: poll its state (a remote read, not a busy wait).
            while (await preview.state())["frames"]["icons"][:24] != [1] * 24:  # noqa: ASYNC110
                await anyio.sleep(0.02)
        assert (await preview.state())["frames"]["icons"][24] == 0
