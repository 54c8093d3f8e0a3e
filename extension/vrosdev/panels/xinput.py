"""A real pointer and keyboard for a preview window: X input events through the XTEST extension.

Slint's Python API cannot inject input, so the preview worker plays the user at the X server:
the window is found by its unique title, raised and given the input focus, and the pointer
moves, clicks and types there as a mouse and a keyboard would. Winit (and Slint behind it)
cannot tell these events from a person's. A character with no key on the server's keyboard is
typed through a spare keycode mapped to it for the moment (xdotool's way), so any text can be
typed, Japanese included.
"""

from __future__ import annotations

from typing import Any

from Xlib import XK, X, display
from Xlib.ext import xtest

SHIFT_KEYSYM = XK.XK_Shift_L


class InputError(RuntimeError):
    """No such window, or the X server cannot fake input."""


class XInput:
    def __init__(self, title: str, display_name: str | None = None) -> None:
        try:
            self._display: Any = display.Display(display_name)
        except Exception as exc:  # python-xlib raises several types for "cannot connect"
            raise InputError(f"cannot open the X display: {exc}") from None
        if not self._display.has_extension("XTEST"):
            raise InputError("the X server has no XTEST extension")
        self._title = title
        self._window: Any = None
        self._borrowed: list[int] = []

    def close(self) -> None:
        self._display.close()

    def mapped(self) -> bool:
        """The window is on the display: a window just shown may not be there yet."""
        try:
            self._find()
        except InputError:
            return False
        return True

    def _find(self) -> Any:
        if self._window is not None:
            return self._window
        root = self._display.screen().root
        stack = [root]
        while stack:
            window = stack.pop()
            try:
                name = window.get_wm_name()
                children = window.query_tree().children
            except Exception:  # a window that went away while we walked the tree
                continue
            if name == self._title:
                self._window = window
                return window
            stack.extend(children)
        raise InputError(f"no window titled {self._title!r} on the display")

    def _origin(self, window: Any) -> tuple[int, int]:
        root = self._display.screen().root
        spot = window.translate_coords(root, 0, 0)
        return -spot.x, -spot.y

    def _front(self) -> Any:
        window = self._find()
        window.configure(stack_mode=X.Above)
        window.set_input_focus(X.RevertToParent, X.CurrentTime)
        return window

    def click(self, x: int, y: int) -> None:
        """Move to (x, y) in the window's logical pixels (scale factor 1) and click button 1."""
        window = self._front()
        left, top = self._origin(window)
        xtest.fake_input(self._display, X.MotionNotify, x=left + x, y=top + y)
        xtest.fake_input(self._display, X.ButtonPress, 1)
        xtest.fake_input(self._display, X.ButtonRelease, 1)
        self._display.sync()

    def prepare(self, text: str) -> list[tuple[int, bool]]:
        """The key taps that type ``text``, mapping each character the keyboard lacks to a
        spare keycode. Winit reloads its keymap on its own loop: let it run before `tap`."""
        taps: list[tuple[int, bool]] = []
        spares = iter(self._spare_keycodes())
        mapped: dict[int, int] = {}
        for char in text:
            keysym = _keysym(char)
            keycode, shifted = self._keycode(keysym)
            if not keycode:
                keycode = mapped.get(keysym, 0)
                if not keycode:
                    keycode = next(spares, 0)
                    if not keycode:
                        raise InputError("no spare keycode left to type this text")
                    self._display.change_keyboard_mapping(keycode, [(keysym, keysym)])
                    mapped[keysym] = keycode
                    self._borrowed.append(keycode)
            taps.append((keycode, shifted))
        self._display.sync()
        return taps

    def tap(self, taps: list[tuple[int, bool]]) -> None:
        self._front()
        for keycode, shifted in taps:
            self._tap(keycode, shifted)
        self._display.sync()

    def restore(self) -> None:
        """Give the borrowed keycodes back (no symbols)."""
        for keycode in self._borrowed:
            self._display.change_keyboard_mapping(keycode, [(X.NoSymbol, X.NoSymbol)])
        self._borrowed.clear()
        self._display.sync()

    def _keycode(self, keysym: int) -> tuple[int, bool]:
        for keycode, index in self._display.keysym_to_keycodes(keysym):
            if index in (0, 1):
                return keycode, index == 1
        return 0, False

    def _spare_keycodes(self) -> list[int]:
        first = self._display.display.info.min_keycode
        count = self._display.display.info.max_keycode - first + 1
        mapping = self._display.get_keyboard_mapping(first, count)
        return [first + i for i, syms in enumerate(mapping) if not any(syms)]

    def _tap(self, keycode: int, shifted: bool) -> None:
        shift = self._display.keysym_to_keycode(SHIFT_KEYSYM) if shifted else 0
        if shift:
            xtest.fake_input(self._display, X.KeyPress, shift)
        xtest.fake_input(self._display, X.KeyPress, keycode)
        xtest.fake_input(self._display, X.KeyRelease, keycode)
        if shift:
            xtest.fake_input(self._display, X.KeyRelease, shift)


def _keysym(char: str) -> int:
    """Latin-1 characters are their own keysyms; the rest are Unicode keysyms."""
    if char == "\n":
        return XK.XK_Return
    code = ord(char)
    if 0x20 <= code <= 0x7E or 0xA0 <= code <= 0xFF:
        return code
    return 0x01000000 | code
