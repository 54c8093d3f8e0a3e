"""A panel in a real Slint window, driven as the host drives it.

Runs in the process that owns the Slint event loop (its main thread): the preview worker. It
compiles the panel with its generated host window (host_window.py), applies typed props at most
about 30 times a second (PAN-7), turns callback calls into typed panel events, consumes the
focus contract itself (PAN-25, PAN-26, PAN-29) and animates `[image]` props on its own clock
(AST-18).

Focus hook convention: Slint's Python API cannot move keyboard focus, so a panel that wants
`focus PANEL ELEMENT` to work declares `public function focus-<element>()` on its root, e.g.
`public function focus-search() { search.focus(); }`.
"""

import datetime
import os
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from vrosdev.panels.assets import Asset, AssetLookup, finished, frame_images, frame_index
from vrosdev.panels.check import check_source
from vrosdev.panels.declarations import FIELD_BLUR, FIELD_FOCUS, PanelInterface
from vrosdev.panels.host_window import (
    FOCUS_FUNCTION_PREFIX,
    HOST_THEME,
    HOST_WINDOW,
    forwarded,
    host_window_source,
)
from vrosdev.panels.pacing import PropPacing
from vrosdev.panels.props import (
    AcceptedProp,
    WireValueError,
    accept_prop,
    args_from_wire,
    to_slint_value,
    wire_args,
)
from vrosdev.panels.screenshot import capture_window
from vrosdev.theme import THEME_DIR, THEME_LIBRARY
from vxp.limits import ASSET_MAX_ANIMATING_PER_PANEL

ANIMATION_TICK_MS = 10  # half the shortest frame delay (AST-11: 20 ms)
SCREENSHOT_SETTLE_MS = 150  # lets the renderer draw the last applied state before capture
# A first glyph from a large font (colour emoji, CJK) can take longer than one settle to load
# and draw, so a capture counts once the next one, a settle later, shows the same pixels.
SCREENSHOT_MAX_CAPTURES = 12

type PanelEvent = dict[str, Any]
type EventSink = Callable[[PanelEvent], None]


class PanelLoadError(RuntimeError):
    """The panel source failed the static rules or the compiler; message is compile_failed's."""


class PanelHookError(RuntimeError):
    """The panel lacks what a host action needs (a focus-<element>() function, the contract)."""


@dataclass(frozen=True)
class ThemeSettings:
    theme: str = "signal"
    reduced_motion: bool = False
    oled: bool = False
    is_desktop: bool = False
    density: float = 1.0


@dataclass
class _AssetBinding:
    keys: list[str]
    model: Any  # slint.ListModel[slint.Image]
    started: float
    shown: list[int] = field(default_factory=list[int])


def _ms(value: float) -> datetime.timedelta:
    return datetime.timedelta(milliseconds=value)


def _plain(value: Any) -> Any:
    if isinstance(value, bool | int | float | str) or value is None:
        return value
    if isinstance(value, dict):
        return {str(k): _plain(v) for k, v in value.items()}
    try:
        return [_plain(v) for v in value]
    except TypeError:
        return str(value)


def _format_compile_error(exc: Exception) -> str:
    diagnostics = getattr(exc, "diagnostics", [])
    lines = [
        f"{d.line_number}:{d.column_number}: {d.message}"
        for d in diagnostics
        if str(d.level).rsplit(".", 1)[-1] == "Error"
    ]
    return "\n".join(lines) or str(exc)


class PanelWindow:
    def __init__(
        self,
        source: str,
        *,
        name: str = "panel",
        width: int | None = None,
        height: int | None = None,
        theme: ThemeSettings | None = None,
        asset_lookup: AssetLookup | None = None,
        on_event: EventSink | None = None,
        margin: int = 0,
    ) -> None:
        import slint

        self._slint = slint
        check = check_source(source)
        if not check.ok:
            raise PanelLoadError("\n".join(check.errors))
        self.name = name
        self.interface: PanelInterface = check.interface
        self.warnings = (*check.violations, *check.warnings)
        self._lookup: AssetLookup = asset_lookup or (lambda _key: None)
        self._emit: EventSink = on_event or (lambda _event: None)
        generated = host_window_source(
            source,
            self.interface,
            title=f"vrosdev {name} {os.getpid()} {id(self):x}",
            width=width,
            height=height,
            margin=margin,
        )
        self.title = generated.title
        with tempfile.TemporaryDirectory(prefix="vrosdev-panel-") as folder:
            path = Path(folder) / f"{name}.slint"
            path.write_text(generated.source, encoding="utf-8")
            try:
                module = slint.load_file(path, quiet=True, library_paths={THEME_LIBRARY: THEME_DIR})
            except slint.CompileError as exc:
                raise PanelLoadError(_format_compile_error(exc)) from None
        self._window = getattr(module, HOST_WINDOW)()
        self._instance = self._window.__instance__

        self.field_focus_edges: list[bool] = []  # every edge the panel raised (PAN-24)
        self.field_focused = False  # after cancelling edges within a frame (PAN-29)
        self._focus_delta: int | None = None  # gains minus losses in the current turn
        self._pending: dict[str, AcceptedProp] = {}
        self._pacing = PropPacing()
        self._bindings: dict[str, _AssetBinding] = {}
        self._images: dict[str, tuple[Asset, tuple[Any, ...]]] = {}
        self._animation_timer: Any = None

        for callback in self.interface.callbacks:
            self._instance.set_callback(forwarded(callback), self._callback_handler(callback))
        self.set_theme(theme or ThemeSettings())
        from vrosdev.panels.window_input import PanelInput

        self.input = PanelInput(self, margin=margin, regions=check.has_focus_region)

    # -- for vrosdev.panels.window_input --------------------------------------------------

    @property
    def instance(self) -> Any:
        return self._instance

    @property
    def slint(self) -> Any:
        return self._slint

    def emit(self, event: PanelEvent) -> None:
        self._emit(event)

    def run_changed_handlers(self) -> None:
        self._run_changed_handlers()

    # -- window ---------------------------------------------------------------------------

    def show(self) -> None:
        self._window.show()

    def hide(self) -> None:
        self._window.hide()

    @property
    def size(self) -> tuple[int, int]:
        width = self._instance.get_property("vrosdev-width")
        height = self._instance.get_property("vrosdev-height")
        return round(width), round(height)

    def set_theme(self, settings: ThemeSettings) -> None:
        """PAN-34: the host fills the theme module from the user's settings."""
        values = {
            "current": settings.theme,
            "oled": settings.oled,
            "reduced-motion": settings.reduced_motion,
            "is-desktop": settings.is_desktop,
            "density": float(settings.density),
        }
        for prop, value in values.items():
            self._instance.set_global_property(HOST_THEME, prop, value)

    def theme_value(self, prop: str) -> Any:
        return self._instance.get_global_property(HOST_THEME, prop)

    # -- props ----------------------------------------------------------------------------

    def set_props(self, pairs: list[Any]) -> list[str]:
        """Queue `[name, tagged]` pairs (PAN-6: last value wins); returns the violations."""
        violations: list[str] = []
        for pair in pairs:
            if not (isinstance(pair, list | tuple) and len(pair) == 2 and isinstance(pair[0], str)):
                violations.append("PAN-6: a prop must be a [name, value] pair")
                continue
            accepted = accept_prop(self.interface, pair[0], pair[1])
            if isinstance(accepted, str):
                violations.append(accepted)
            else:
                self._pending[accepted.name] = accepted
        wait = self._pacing.submitted() if self._pending else None
        if wait is not None:
            self._slint.Timer.single_shot(_ms(wait * 1000), self.flush_props)
        return violations

    def flush_props(self) -> None:
        self._pacing.applied()
        pending, self._pending = self._pending, {}
        for prop in pending.values():
            try:
                if prop.tag == "assets":
                    self._bind_assets(prop.name, list(prop.value))
                else:
                    self._instance.set_property(forwarded(prop.name), to_slint_value(prop))
            except (ValueError, TypeError) as exc:
                self._emit({"event": "violation", "message": f"PAN-8: prop {prop.name!r}: {exc}"})

    def prop_value(self, name: str) -> Any:
        """A root property's current value, JSON-shaped (models become lists)."""
        decl = self.interface.properties.get(name)
        if decl is None or decl.access == "private":
            raise PanelHookError(f"panel {self.name} declares no public property {name!r}")
        return _plain(self._instance.get_property(forwarded(name)))

    # -- assets ---------------------------------------------------------------------------

    def _frames_for(self, key: str) -> tuple[Asset | None, tuple[Any, ...]]:
        asset = self._lookup(key)
        if asset is None:
            self._images.pop(key, None)
            return None, (self._slint.Image(),)
        cached = self._images.get(key)
        if cached is None or cached[0] is not asset:
            cached = (asset, tuple(frame_images(asset)))
            self._images[key] = cached
        return cached

    def _bind_assets(self, name: str, keys: list[str]) -> None:
        images: list[Any] = []
        for key in keys:
            asset, frames = self._frames_for(key)
            if asset is None:
                self._emit(
                    {
                        "event": "violation",
                        "message": f"AST-16: prop {name!r} names asset {key!r}, not uploaded",
                    }
                )
            images.append(frames[0])
        model = self._slint.ListModel(images)
        self._bindings[name] = _AssetBinding(keys, model, time.monotonic(), [0] * len(keys))
        self._instance.set_property(forwarded(name), model)
        self._update_animation_timer()

    def assets_changed(self, key: str | None = None) -> None:
        """Re-bind `[image]` props after an upload, removal or clear (key None: all)."""
        for name, binding in list(self._bindings.items()):
            if key is None or key in binding.keys:
                self._bind_assets(name, binding.keys)

    def _animating(self) -> bool:
        now = time.monotonic()
        for binding in self._bindings.values():
            for key in binding.keys:
                cached = self._images.get(key)
                if cached and not finished(cached[0], (now - binding.started) * 1000):
                    return True
        return False

    def _update_animation_timer(self) -> None:
        running = self._animation_timer is not None
        if self._animating() and not running:
            timer = self._slint.Timer()
            timer.start(self._slint.TimerMode.Repeated, _ms(ANIMATION_TICK_MS), self._tick)
            self._animation_timer = timer
        elif not self._animating() and running:
            self._animation_timer.stop()
            self._animation_timer = None

    def _tick(self) -> None:
        """Advance each animated image; past the first 24 a panel shows (in the order of its
        props and their keys), an image keeps its first frame (AST-14,
        docs/protocol-notes.md#r35)."""
        now = time.monotonic()
        moving = 0
        for binding in self._bindings.values():
            elapsed = (now - binding.started) * 1000
            for row, key in enumerate(binding.keys):
                cached = self._images.get(key)
                if cached is None:
                    continue
                if len(cached[1]) > 1:
                    moving += 1
                    if moving > ASSET_MAX_ANIMATING_PER_PANEL:
                        continue
                index = frame_index(cached[0], elapsed)
                if index != binding.shown[row]:
                    binding.shown[row] = index
                    binding.model[row] = cached[1][index]
        self._update_animation_timer()

    def shown_frames(self, name: str) -> list[int]:
        binding = self._bindings.get(name)
        return list(binding.shown) if binding else []

    # -- callbacks and focus --------------------------------------------------------------

    def _callback_handler(self, callback: str) -> Callable[..., None]:
        decl = self.interface.callbacks[callback]

        def handler(*args: Any) -> None:
            if callback == FIELD_FOCUS and self.interface.has_focus_contract:
                self._field_focus_edge(bool(args[0]))
                return
            try:
                typed = wire_args(decl, args)
            except WireValueError as exc:
                self._emit({"event": "violation", "message": f"panel_event {callback}: {exc}"})
                return
            self._emit({"event": "callback", "callback": callback, "args": typed})

        return handler

    def _field_focus_edge(self, focused: bool) -> None:
        """PAN-25: consumed here, never forwarded. PAN-29: edges within one event-loop turn
        cancel out, so moving between two fields (one gains, one loses, in either order)
        reads as continuous focus."""
        self.field_focus_edges.append(focused)
        if self._focus_delta is None:
            self._focus_delta = 0
            self._slint.Timer.single_shot(_ms(0), self._settle_focus)
        self._focus_delta += 1 if focused else -1

    def _settle_focus(self) -> None:
        delta, self._focus_delta = self._focus_delta or 0, None
        if delta == 0:
            return
        focused = delta > 0
        if focused != self.field_focused:
            self.field_focused = focused
            self._emit({"event": "field-focus", "focused": focused})
            self.input.focus_settled(focused)

    def _run_changed_handlers(self) -> None:
        """`changed` handlers are deferred to the next event-loop turn; a host action (focus,
        blur) runs them now so that the next action sees their effect, as a user's would.
        `_process_pending_events` is private in slint 1.18; without it the next turn does it."""
        process = getattr(self._instance, "_process_pending_events", None)
        if process is not None:
            process()

    def focus(self, element: str) -> None:
        function = FOCUS_FUNCTION_PREFIX + element
        if function not in self.interface.public_functions:
            raise PanelHookError(
                f"panel {self.name} declares no `public function {function}()` on its root"
            )
        self._instance.invoke(forwarded(function))
        self._run_changed_handlers()

    def blur(self) -> None:
        """PAN-26: advance field-blur; the panel's `changed field-blur` drops its focus on the
        next event-loop turn (changed handlers are deferred)."""
        if not self.interface.has_focus_contract:
            raise PanelHookError(f"panel {self.name} has no focus contract (PAN-23)")
        current = int(self._instance.get_property(forwarded(FIELD_BLUR)))
        self._instance.set_property(forwarded(FIELD_BLUR), current + 1)
        self._run_changed_handlers()

    def invoke(self, callback: str, tagged_args: Any) -> None:
        """Call a panel callback with typed wire args, as a click would (script `click`)."""
        decl = self.interface.callbacks.get(callback)
        if decl is None:
            raise PanelHookError(f"panel {self.name} declares no callback {callback!r}")
        self._instance.invoke(forwarded(callback), *args_from_wire(decl, tagged_args))

    # -- screenshots ----------------------------------------------------------------------

    def screenshot(self, out: Path, done: Callable[[str | None], None]) -> None:
        """Apply what is pending, let the renderer draw it, then capture exactly the window.
        Needs the event loop running; `done` gets None or an error message."""
        self.flush_props()

        last: bytes | None = None
        captures = 0

        def capture() -> None:
            nonlocal last, captures
            width, height = self.size
            try:
                capture_window(self.title, width, height, out, os.environ.get("DISPLAY"))
                pixels = out.read_bytes()
            except Exception as exc:
                done(str(exc))
                return
            captures += 1
            if pixels == last or captures >= SCREENSHOT_MAX_CAPTURES:
                done(None)
                return
            last = pixels
            self._slint.Timer.single_shot(_ms(SCREENSHOT_SETTLE_MS), capture)

        self._slint.Timer.single_shot(_ms(SCREENSHOT_SETTLE_MS), capture)
