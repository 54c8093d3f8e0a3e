"""The overlay model: what each panel should show, and the props frames that get it there.

Theory of operation. Features write the desired state (`set`, `update`, `set_texts`) as often as
they like; nothing is sent from there. One task (`run`) compares, per panel, the desired props
with the props last sent and sends only the difference, as one frame, at most
MAX_FRAMES_PER_SECOND times a second per panel. A change that arrives inside the interval waits
for the next slot, where it is merged with whatever else changed meanwhile: the final state is
always sent, intermediate ones may never be (DESIGN: props are a model, not a stream of calls).
A hidden panel (panel_hidden) gets nothing; panel_shown sends everything it missed at once.

Values are checked against cueboard.contract when they are set, so a wrong name or type is our
bug, raised where it happens, not a violation logged by the host later (readings R29). Lists are
bounded by their contract `max_rows`, which keeps every frame far under MAX_PROPS_FRAME_BYTES:
the grid only ever carries the visible page (12 tiles), whatever the library's size.

PanelEvents is the other direction: panel_event callbacks are checked against the contract and
handed, as Python values, to the handler registered for them.
"""

import inspect
import json
import logging
import math
from collections.abc import Awaitable, Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import anyio

from cueboard.contract import (
    PANELS,
    SLOTS_PER_PAGE,
    Callback,
    PanelContract,
    SlotState,
    WireError,
    WireValue,
)
from cueboard.i18n import Catalog

log = logging.getLogger(__name__)

# PAN-7: the host coalesces props to about 30 per second per panel; sending faster only queues.
MAX_FRAMES_PER_SECOND = 30.0
# A props frame is kept under 64 KiB (issue 7), far below the 3 MiB frame limit (T-9), so that
# no single UI update can hold the connection's writer for long.
MAX_PROPS_FRAME_BYTES = 64 * 1024
# What the JSON-RPC envelope around the props list costs at most, generously counted.
_ENVELOPE_BYTES = 256

# Tiles without an icon name this asset: an [image] prop has one entry per tile, and only keys
# uploaded with `assets` are valid (AST-16). Upload blank_icon_asset() once per connection.
BLANK_ICON_KEY = "cb:blank"

type PropPairs = list[tuple[str, WireValue]]
type SendProps = Callable[[str, PropPairs], Awaitable[None]]


def _pair_bytes(name: str, value: WireValue) -> int:
    # ensure_ascii over-counts non-ASCII text (6 bytes per \\uXXXX against 3 in UTF-8): the
    # estimate stays an upper bound whatever encoder the SDK uses.
    return len(json.dumps([name, value], separators=(",", ":"))) + 1


def split_frames(pairs: PropPairs, limit: int = MAX_PROPS_FRAME_BYTES) -> list[PropPairs]:
    """Pack pairs into as few frames as fit under limit (most changes fit in one)."""
    frames: list[PropPairs] = []
    current: PropPairs = []
    size = _ENVELOPE_BYTES
    for name, value in pairs:
        pair_size = _pair_bytes(name, value)
        if current and size + pair_size > limit:
            frames.append(current)
            current, size = [], _ENVELOPE_BYTES
        current.append((name, value))
        size += pair_size
    if current:
        frames.append(current)
    return frames


@dataclass
class _PanelState:
    contract: PanelContract
    desired: dict[str, WireValue]
    sent: dict[str, WireValue]
    visible: bool
    last_frame_at: float = -math.inf
    dirty: bool = False


class OverlayModel:
    """Desired and sent props per panel; sends differences through `send`, rate limited."""

    def __init__(
        self,
        send: SendProps,
        *,
        contracts: Mapping[str, PanelContract] = PANELS,
        max_frames_per_second: float = MAX_FRAMES_PER_SECOND,
        start_hidden: Iterable[str] = (),
    ) -> None:
        hidden = frozenset(start_hidden)
        self._send = send
        self._interval = 1.0 / max_frames_per_second
        self._panels = {
            name: _PanelState(contract, {}, {}, visible=name not in hidden)
            for name, contract in contracts.items()
        }
        self._wake: anyio.Event | None = None
        self._send_lock: anyio.Lock | None = None
        self.frames_sent = 0

    # -- desired state ----------------------------------------------------------------------

    def _panel(self, panel: str) -> _PanelState:
        try:
            return self._panels[panel]
        except KeyError:
            raise KeyError(f"no panel {panel!r} in the contract") from None

    def set(self, panel: str, name: str, value: Any) -> None:
        """Desire a prop from a Python value (rows: a sequence of cell sequences)."""
        state = self._panel(panel)
        self._store(state, name, state.contract.prop(name).wire_value(value))

    def set_wire(self, panel: str, name: str, tagged: Any) -> None:
        """Desire a prop from an already tagged value `{"t": ..., "v": ...}`."""
        state = self._panel(panel)
        self._store(state, name, state.contract.prop(name).check(tagged))

    def update(self, panel: str, values: Mapping[str, Any]) -> None:
        """Several props at once, from Python values; nothing is stored if one is invalid."""
        state = self._panel(panel)
        checked = {name: state.contract.prop(name).wire_value(v) for name, v in values.items()}
        for name, value in checked.items():
            self._store(state, name, value)

    def set_texts(self, catalog: Catalog) -> None:
        """Every static label of every panel in catalog's language (start-up, locale_changed)."""
        for state in self._panels.values():
            for prop in state.contract.text_props:
                assert prop.text_key is not None
                self._store(state, prop.name, prop.wire_value(catalog.t(prop.text_key)))

    def _store(self, state: _PanelState, name: str, value: WireValue) -> None:
        # Every refresh stores every prop and most are unchanged: compare before measuring
        # (the measure is a json.dumps, a fifth of a refresh when it ran first).
        if state.desired.get(name) == value:
            return
        if _pair_bytes(name, value) + _ENVELOPE_BYTES > MAX_PROPS_FRAME_BYTES:
            raise WireError(f"{state.contract.name}.{name} alone exceeds a props frame: page it")
        state.desired[name] = value
        if state.sent.get(name) != value:
            self._mark_dirty(state)

    def _mark_dirty(self, state: _PanelState) -> None:
        state.dirty = True
        if self._wake is not None:
            self._wake.set()

    def desired(self, panel: str) -> Mapping[str, WireValue]:
        return dict(self._panel(panel).desired)

    def sent(self, panel: str) -> Mapping[str, WireValue]:
        return dict(self._panel(panel).sent)

    def pending(self, panel: str) -> PropPairs:
        """The props that differ from what the panel was last sent, in the order they were set."""
        state = self._panel(panel)
        return [(n, v) for n, v in state.desired.items() if state.sent.get(n) != v]

    # -- visibility and connection --------------------------------------------------------------

    def is_visible(self, panel: str) -> bool:
        return self._panel(panel).visible

    def panel_shown(self, panel: str) -> None:
        state = self._panels.get(panel)
        if state is None:
            log.debug("panel_shown for a panel outside the contract: %r", panel)
            return
        state.visible = True
        self._mark_dirty(state)

    def panel_hidden(self, panel: str) -> None:
        state = self._panels.get(panel)
        if state is None:
            log.debug("panel_hidden for a panel outside the contract: %r", panel)
            return
        state.visible = False

    def resend_all(self, panel: str | None = None) -> None:
        """Forget what was sent: after a reconnect, or after a runtime panel is defined again."""
        for state in self._select(panel):
            state.sent.clear()
            if state.desired:
                self._mark_dirty(state)

    def _select(self, panel: str | None) -> list[_PanelState]:
        return list(self._panels.values()) if panel is None else [self._panel(panel)]

    # -- sending ------------------------------------------------------------------------------

    async def flush(self, panel: str | None = None) -> None:
        """Send what is pending to visible panels now, without waiting for the rate limit
        (the first props at start-up, and before shutting down)."""
        for state in self._select(panel):
            if state.visible and state.dirty:
                await self._send_panel(state, anyio.current_time())

    async def run(self) -> None:
        """The sending task; the app starts it in its task group and cancels it to stop."""
        while True:
            self._wake = anyio.Event()  # fresh before the scan: a set() during it wakes us
            delay = await self._send_due()
            if delay is None:
                await self._wake.wait()
            else:
                await anyio.sleep(delay)

    async def _send_due(self) -> float | None:
        """Send every panel whose slot has come; the seconds until the next one, or None."""
        next_delay: float | None = None
        for state in self._panels.values():
            if not (state.visible and state.dirty):
                continue
            now = anyio.current_time()
            wait = state.last_frame_at + self._interval - now
            if wait <= 0:
                await self._send_panel(state, now)
            else:
                next_delay = wait if next_delay is None else min(next_delay, wait)
        return next_delay

    async def _send_panel(self, state: _PanelState, now: float) -> None:
        if self._send_lock is None:
            self._send_lock = anyio.Lock()
        async with self._send_lock:
            pairs = [(n, v) for n, v in state.desired.items() if state.sent.get(n) != v]
            state.dirty = False
            if not pairs:
                return
            state.last_frame_at = now
            for frame in split_frames(pairs):
                try:
                    await self._send(state.contract.name, frame)
                except Exception as exc:
                    # Not retried here: the next change, panel_shown or resend_all() sends the
                    # whole difference again, so a dead connection cannot cause a retry storm.
                    log.warning(
                        "props for %s not delivered (%s): will resend on the next change",
                        state.contract.name,
                        type(exc).__name__,
                    )
                    return
                self.frames_sent += 1
                for name, value in frame:
                    state.sent[name] = value


# -- panel_event dispatch -----------------------------------------------------------------------

type Handler = Callable[..., Awaitable[None] | None]


class PanelEvents:
    """Callback name -> handler, registered with a decorator and checked against the contract:

    events = PanelEvents()

    @events.on("overlay", "play-sound")
    async def play_sound(key: str) -> None: ...
    """

    def __init__(self, contracts: Mapping[str, PanelContract] = PANELS) -> None:
        self._contracts = contracts
        self._handlers: dict[tuple[str, str], Handler] = {}
        self.ignored = 0

    def on(self, panel: str, callback: str) -> Callable[[Handler], Handler]:
        contract = self._contracts.get(panel)
        declared = contract.callback(callback) if contract else None
        if declared is None:
            raise KeyError(f"{panel}.{callback} is not a callback in the contract")

        def register(handler: Handler) -> Handler:
            try:
                inspect.signature(handler).bind(*(None for _ in declared.args))
            except TypeError:
                raise TypeError(
                    f"handler for {panel}.{callback} must take {len(declared.args)} arguments"
                ) from None
            self._handlers[(panel, callback)] = handler
            return handler

        return register

    def decode(self, panel: str, callback: str, args: Any) -> tuple[Callback, tuple[Any, ...]]:
        """The declared callback and its arguments as Python values, or WireError."""
        contract = self._contracts.get(panel)
        declared = contract.callback(callback) if contract else None
        if declared is None:
            raise WireError("not a callback in the contract")
        return declared, declared.decode(args)

    async def dispatch(self, panel: str, callback: str, args: Any) -> bool:
        """Run the handler of a panel_event; False when it was ignored. Argument values are
        never logged: media-open carries a URL, which is a credential."""
        try:
            _, values = self.decode(panel, callback, args)
        except WireError as exc:
            self.ignored += 1
            log.debug("panel_event %s.%s ignored: %s", panel, callback, exc)
            return False
        handler = self._handlers.get((panel, callback))
        if handler is None:
            self.ignored += 1
            log.debug("panel_event %s.%s ignored: no handler", panel, callback)
            return False
        result = handler(*values)
        if inspect.isawaitable(result):
            await result
        return True

    def unhandled(self) -> list[tuple[str, str]]:
        """Contract callbacks with no handler yet (a test of the app should keep this empty)."""
        return [
            (name, cb.name)
            for name, contract in self._contracts.items()
            for cb in contract.callbacks
            if (name, cb.name) not in self._handlers
        ]


# -- what the grid shows ------------------------------------------------------------------------


@dataclass(frozen=True)
class Page[T]:
    items: Sequence[T]
    index: int  # clamped into range
    count: int  # at least 1


def page_of[T](items: Sequence[T], index: int, size: int = SLOTS_PER_PAGE) -> Page[T]:
    """One page of a list (the library, a category, search results); index is clamped."""
    count = max(1, math.ceil(len(items) / size))
    index = min(max(index, 0), count - 1)
    return Page(items[index * size : (index + 1) * size], index, count)


@dataclass(frozen=True)
class Tile:
    """A sound as its grid tile shows it."""

    key: str
    name: str
    duration_s: float | None = None
    state: SlotState = SlotState.READY
    detail: str = ""  # localised, for LOADING and BROKEN
    favourite: bool = False
    icon_key: str | None = None


def format_duration(seconds: float | None) -> str:
    if seconds is None or not math.isfinite(seconds) or seconds < 0:
        return ""
    whole = math.ceil(seconds)
    minutes, secs = divmod(whole, 60)
    return f"{minutes}:{secs:02d}"


def grid_values(tiles: Sequence[Tile]) -> dict[str, Any]:
    """`slots` and `slot-icons` for one page of tiles (at most SLOTS_PER_PAGE)."""
    rows = [
        (
            t.key,
            t.name,
            format_duration(t.duration_s),
            int(t.state),
            t.detail,
            t.favourite,
            t.icon_key is not None,
        )
        for t in tiles
    ]
    icons = [t.icon_key or BLANK_ICON_KEY for t in tiles]
    return {"slots": rows, "slot-icons": icons}


def blank_icon_asset() -> dict[str, Any]:
    """The `assets put` fields of BLANK_ICON_KEY: one transparent pixel."""
    frame = {"rgba_base64": "AAAAAA==", "delay_ms": 100}
    return {"key": BLANK_ICON_KEY, "width": 1, "height": 1, "frames": [frame], "loop": 0}


def channels_text(catalog: Catalog, soundboard_pct: int, mic_pct: int | None) -> str:
    """Where a sound plays and how loud: `Soundboard 80% · Mic 40%`."""
    if mic_pct is None:
        return catalog.t("play.targets_soundboard", soundboard=soundboard_pct)
    return catalog.t("play.targets_both", soundboard=soundboard_pct, mic=mic_pct)


__all__ = [
    "BLANK_ICON_KEY",
    "MAX_FRAMES_PER_SECOND",
    "MAX_PROPS_FRAME_BYTES",
    "OverlayModel",
    "Page",
    "PanelEvents",
    "SendProps",
    "Tile",
    "blank_icon_asset",
    "channels_text",
    "format_duration",
    "grid_values",
    "page_of",
    "split_frames",
]
