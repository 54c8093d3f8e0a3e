"""The VR keyboard and panels without focus regions (PAN-32), with real Slint windows under a
private Xvfb and real X input: clicks and keys reach the window as a person's would."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import anyio
import pytest

from vrosdev.panels import PreviewClient
from vrosdev.panels.keyboard import VrKeyboard

from .panel_samples import PROBE_PANEL, THEME_IMPORT

pytestmark = [pytest.mark.display]

# One text field in the top band, no ExtFocusRegion anywhere, the focus contract kept.
NOTE_PANEL = (
    THEME_IMPORT
    + """
export component Note {
    preferred-width: 200px;
    preferred-height: 100px;
    callback field-focus(bool);
    in property <int> field-blur;
    out property <string> typed: input.text;
    out property <int> blurs;
    changed field-blur => { input.clear-focus(); root.blurs += 1; }
    Rectangle { background: ExtTheme.c.bg0; }
    input := TextInput {
        x: 10px; y: 10px; width: 180px; height: 30px;
        changed has-focus => { root.field-focus(self.has-focus); }
    }
}
"""
)
NO_CONTRACT_PANEL = NOTE_PANEL.replace("callback field-focus(bool);", "").replace(
    "root.field-focus(self.has-focus);", ""
)
FIELD = (60, 20)  # inside the text field
BLANK = (60, 80)  # on the panel, on no field


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"  # one backend is enough for a window test; the model is pure


# --- the host's keyboard model, without windows --------------------------------------------


def test_pan32_a_click_anywhere_into_a_panel_without_regions_brings_the_keyboard() -> None:
    """PAN-32: without an ExtFocusRegion the whole panel is the field."""
    keyboard = VrKeyboard(contract=True, regions=False)
    assert keyboard.pointer_inside() == [
        (True, "a click into a panel without ExtFocusRegion (PAN-32)")
    ]
    assert keyboard.pointer_inside() == []  # already up
    blur, changes = keyboard.click_away()
    assert blur is True
    assert [shown for shown, _ in changes] == [False]


def test_pan24_with_regions_the_keyboard_follows_the_fields_focus() -> None:
    """PAN-24: with regions the keyboard follows the field-focus the panel reports."""
    keyboard = VrKeyboard(contract=True, regions=True)
    assert keyboard.pointer_inside() == []
    assert keyboard.field_focus(True) == [(True, "a field of the panel took the focus")]
    assert keyboard.field_focus(False) == [(False, "the panel's field lost the focus")]
    assert keyboard.click_away() == (False, [])  # nothing focused: nothing to blur


def test_pan23_r25_a_panel_without_the_contract_never_gets_the_keyboard() -> None:
    """PAN-23: no focus contract, no keyboard (docs/protocol-notes.md#r25)."""
    keyboard = VrKeyboard(contract=False, regions=False)
    assert keyboard.pointer_inside() == []
    assert keyboard.field_focus(True) == []
    assert keyboard.click_away() == (False, [])
    assert keyboard.shown is False


# --- real windows ----------------------------------------------------------------------------


class Events(list[dict[str, Any]]):
    """The preview's events as they come (the host must keep draining them)."""

    def __init__(self) -> None:
        super().__init__()
        self.arrived = anyio.Event()

    def add(self, event: dict[str, Any]) -> None:
        self.append(event)
        self.arrived.set()
        self.arrived = anyio.Event()


@asynccontextmanager
async def preview(
    source: str, display: str, margin: int = 0
) -> AsyncIterator[tuple[PreviewClient, Events]]:
    events = Events()
    async with PreviewClient.open(source, name="note", display=display, margin=margin) as client:

        async def drain() -> None:
            async for event in client.events:
                events.add(event)

        async with anyio.create_task_group() as tasks:
            tasks.start_soon(drain)
            yield client, events
            tasks.cancel_scope.cancel()


async def until(events: Events, kind: str, count: int) -> list[dict[str, Any]]:
    with anyio.fail_after(10):
        while len(found := [e for e in events if e["event"] == kind]) < count:
            await events.arrived.wait()
    return found


@pytest.mark.anyio
async def test_pan32_pointer_type_and_click_away_on_a_panel_without_regions(
    x_display: str,
) -> None:
    """PAN-32, PAN-26: a real click into the panel, real keys, a click away."""
    async with preview(NOTE_PANEL, x_display) as (client, events):
        await client.pointer(*FIELD)
        shown = (await until(events, "keyboard", 1))[0]
        assert shown["shown"] is True
        assert "PAN-32" in shown["why"]
        assert (await until(events, "field-focus", 1))[0]["focused"] is True

        await client.type_text("héllo 日本語")
        assert await client.get("typed") == "héllo 日本語"

        await client.click_away()
        hidden = (await until(events, "keyboard", 2))[1]
        assert hidden["shown"] is False
        assert (await until(events, "field-focus", 2))[1]["focused"] is False
        assert await client.get("blurs") == 1  # field-blur advanced (PAN-26)

        # The whole panel is the field: a click on no field still brings the keyboard.
        await client.pointer(*BLANK)
        assert (await until(events, "keyboard", 3))[2]["shown"] is True
        state = await client.state()
        assert state["keyboard"] is True
        assert state["field_focused"] is False


@pytest.mark.anyio
async def test_on_a_panel_with_regions_a_click_on_no_field_brings_no_keyboard(
    x_display: str,
) -> None:
    """With regions, only a click that focuses a field brings the keyboard."""
    async with preview(PROBE_PANEL, x_display) as (client, events):
        await client.pointer(20, 90)  # bg0, no field
        assert (await client.state())["keyboard"] is False
        await client.pointer(120, 10)  # the search field, inside its ExtFocusRegion
        assert (await until(events, "keyboard", 1))[0]["shown"] is True
        with pytest.raises(Exception, match="outside the panel"):
            await client.pointer(500, 10)


@pytest.mark.anyio
async def test_r25_type_needs_the_keyboard_up(x_display: str) -> None:
    """PAN-23: keys reach a panel only while its keyboard is up (docs/protocol-notes.md#r25)."""
    from vrosdev.panels import PanelHookError

    async with preview(NO_CONTRACT_PANEL, x_display) as (client, events):
        await client.pointer(*FIELD)
        with pytest.raises(PanelHookError, match="keyboard is not up"):
            await client.type_text("x")
        assert [e for e in events if e["event"] == "keyboard"] == []


@pytest.mark.anyio
async def test_pan32_the_preview_window_does_the_same_with_the_mouse(x_display: str) -> None:
    """The live preview has a margin of "world" round the panel: a bare mouse click on the
    panel brings the keyboard, one in the margin is a click away."""
    margin = 20
    async with preview(NOTE_PANEL, x_display, margin=margin) as (client, events):
        assert (client.width, client.height) == (200 + 2 * margin, 100 + 2 * margin)
        await client.mouse(margin + BLANK[0], margin + BLANK[1])
        assert (await until(events, "keyboard", 1))[0]["shown"] is True
        await client.mouse(margin + FIELD[0], margin + FIELD[1])
        assert (await until(events, "field-focus", 1))[0]["focused"] is True
        await client.mouse(5, 5)  # the margin
        assert (await until(events, "keyboard", 2))[1]["shown"] is False
        assert (await until(events, "field-focus", 2))[1]["focused"] is False
        assert await client.get("blurs") == 1


# --- the host: script steps and the transcript ------------------------------------------------


@pytest.mark.anyio
async def test_pan32_script_steps_note_when_the_keyboard_shows_and_hides(x_display: str) -> None:
    """PAN-32, PAN-25: the steps as a script plays them; the keyboard in the transcript."""
    import json

    from vrosdev.host.renderer import PanelRenderer
    from vrosdev.script import ScriptError, ScriptRunner, parse

    from ..rawhost import config, running_host

    async with running_host(config(panels={"overlay": NOTE_PANEL})) as running:
        renderer = PanelRenderer(running.host, display=x_display)
        async with anyio.create_task_group() as tasks:
            tasks.start_soon(renderer.run)
            await renderer.running.wait()
            peer = await running.ready()
            runner = ScriptRunner(running.host)
            await runner.run(parse("show overlay"))
            with pytest.raises(ScriptError, match="keyboard is not up"):
                await runner.run(parse("type overlay too early"))
            await runner.run(
                parse(f"pointer overlay {BLANK[0]} {BLANK[1]}\nclick-away overlay")
                + parse(f"pointer overlay {FIELD[0]} {FIELD[1]}\ntype overlay こんにちは 世界")
            )
            client = await renderer.sync("overlay")
            assert await client.get("typed") == "こんにちは 世界"
            await runner.run(parse("click-away overlay"))
            with anyio.fail_after(10):
                assert await renderer.wait_focus_edges("overlay", 2) == [True, False]
            assert await peer.event() == {"event": "panel_shown", "panel": "overlay"}
            assert peer.events == []  # field-focus never reaches the extension (PAN-25)
            tasks.cancel_scope.cancel()
    notes = [json.loads(line).get("note", "") for line in running.transcript().splitlines()]
    keyboard = [n.removeprefix("panel overlay: VR keyboard ") for n in notes if "keyboard" in n]
    assert keyboard == [
        "shown: a click into a panel without ExtFocusRegion (PAN-32)",
        "hidden: a click away from the panel: field-blur advanced (PAN-26)",
        "shown: a click into a panel without ExtFocusRegion (PAN-32)",
        "hidden: a click away from the panel: field-blur advanced (PAN-26)",
    ]
