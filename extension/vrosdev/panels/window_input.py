"""The user's pointer and the VR keyboard on a preview window (PAN-26, PAN-32).

Script steps and the mouse take the same road: `pointer` clicks the real window through the X
server (vrosdev.panels.xinput), `type` types into it, and the window's generated frame reports
a press that no element of the panel took and a press in the margin around it (a click away).
The keyboard's state is `VrKeyboard`'s; each change goes out as a `keyboard` event.
"""

import datetime
import os
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from vrosdev.panels.host_window import POINTER_AWAY, POINTER_PRESSED
from vrosdev.panels.keyboard import Transition, VrKeyboard

if TYPE_CHECKING:
    from vrosdev.panels.window import PanelWindow
    from vrosdev.panels.xinput import XInput

INPUT_SETTLE_MS = 80  # lets winit and Slint take in the X events before the host goes on
MAP_POLL_MS = 20  # a window just shown may reach the X server's tree a moment later
MAP_POLLS = 1500  # a bound for a window that never comes, far past a busy machine's delay

type Done = Callable[[str | None], None]


class PanelInput:
    def __init__(self, window: "PanelWindow", *, margin: int, regions: bool) -> None:
        self._window = window
        self.margin = margin
        self.keyboard = VrKeyboard(contract=window.interface.has_focus_contract, regions=regions)
        self._x: XInput | None = None
        instance: Any = window.instance
        instance.set_callback(POINTER_PRESSED, self._pressed)
        instance.set_callback(POINTER_AWAY, self.click_away)

    def _emit(self, transitions: list[Transition]) -> None:
        for shown, why in transitions:
            self._window.emit({"event": "keyboard", "shown": shown, "why": why})

    def _pressed(self) -> None:
        self._emit(self.keyboard.pointer_inside())

    def focus_settled(self, focused: bool) -> None:
        self._emit(self.keyboard.field_focus(focused))

    def click_away(self) -> None:
        blur, transitions = self.keyboard.click_away()
        if blur:
            self._window.blur()
        self._emit(transitions)

    def _input(self) -> "XInput":
        if self._x is None:
            from vrosdev.panels.xinput import XInput

            self._x = XInput(self._window.title, os.environ.get("DISPLAY"))
        return self._x

    def pointer(self, x: int, y: int, done: Done) -> None:
        """A click at (x, y) in the panel: into it, as far as the host is concerned."""
        width, height = self._window.size
        inner = (width - 2 * self.margin, height - 2 * self.margin)
        if not (0 <= x < inner[0] and 0 <= y < inner[1]):
            done(f"({x}, {y}) is outside the panel ({inner[0]}x{inner[1]})")
            return
        self._emit(self.keyboard.pointer_inside())
        self._when_mapped(lambda: self._click(self.margin + x, self.margin + y, done), done)

    def mouse(self, x: int, y: int, done: Done) -> None:
        """A bare click at window pixels, as a person's mouse: no host logic of its own, the
        window's frame tells a press into the panel from one in the margin."""
        self._when_mapped(lambda: self._click(x, y, done), done)

    def _click(self, x: int, y: int, done: Done) -> None:
        self._input().click(x, y)
        self._after_input(done)

    def _when_mapped(self, then: Callable[[], None], done: Done, polls: int = 0) -> None:
        """``then`` once the window is on the display (input sent before would find none)."""
        if self._input().mapped():
            then()
        elif polls >= MAP_POLLS:
            done(f"the window {self._window.title!r} never reached the display")
        else:
            delay = datetime.timedelta(milliseconds=MAP_POLL_MS)
            self._window.slint.Timer.single_shot(
                delay, lambda: self._when_mapped(then, done, polls + 1)
            )

    def type(self, text: str, done: Done) -> None:
        if not self.keyboard.shown:
            done("the VR keyboard is not up for this panel (click into a text field first)")
            return
        self._when_mapped(lambda: self._type(text, done), done)

    def _type(self, text: str, done: Done) -> None:
        xinput = self._input()
        taps = xinput.prepare(text)

        def typed(error: str | None) -> None:
            xinput.restore()
            done(error)

        def tap() -> None:
            xinput.tap(taps)
            self._after_input(typed)

        self._later(tap)

    def _later(self, then: Callable[[], None]) -> None:
        delay = datetime.timedelta(milliseconds=INPUT_SETTLE_MS)
        self._window.slint.Timer.single_shot(delay, then)

    def _after_input(self, done: Done) -> None:
        def settled() -> None:
            self._window.run_changed_handlers()
            done(None)

        self._later(settled)

    def close(self) -> None:
        if self._x is not None:
            self._x.close()
            self._x = None
