"""What each panel should show, and the props frames that get it there.

Features write the desired state (:meth:`PropsModel.set`, :meth:`~PropsModel.update`,
:meth:`~PropsModel.set_texts`) as often as they like; nothing is sent from there.
:meth:`PropsModel.due` compares, per panel, the desired props with the props last sent and
sends only the difference, as one frame, at most :data:`MAX_FRAMES_PER_SECOND` times a second
per panel: a change inside the interval waits for the panel's next slot (a :class:`Wake`),
merged with whatever else changed meanwhile. The final state is always sent, intermediate ones
may never be. A hidden panel gets nothing; ``panel_shown`` sends everything it missed at once.

Values are checked against :mod:`cueboard.core.contract` when they are set, so a wrong name or type
is our bug, raised where it happens (docs/protocol-notes.md#r29). Lists are bounded by their
contract ``max_rows``, which keeps every frame far under :data:`MAX_PROPS_FRAME_BYTES`.
"""

from __future__ import annotations

import json
import logging
import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from cueboard.core.contract import PANELS, PanelContract, WireError, WireValue
from cueboard.core.i18n import Catalog
from vxp.models import panel as vp

from .effects import Effect, Log, Wake
from .tracker import Outcome, Tracker

__all__ = [
    "MAX_FRAMES_PER_SECOND",
    "MAX_PROPS_FRAME_BYTES",
    "PropPairs",
    "PropsModel",
    "split_frames",
]

# PAN-7: the host coalesces props to about 30 per second per panel; sending faster only queues.
MAX_FRAMES_PER_SECOND = 30.0
# A props frame is kept under 64 KiB, far below the 3 MiB frame limit (T-9), so that no single
# UI update can hold the connection's writer for long.
MAX_PROPS_FRAME_BYTES = 64 * 1024
_ENVELOPE_BYTES = 256  # the JSON-RPC envelope around the props list, generously counted
WAKE = "props"

type PropPairs = list[tuple[str, WireValue]]


# One encoder for every measure: json.dumps builds a new one per call when given separators.
_COMPACT = json.JSONEncoder(separators=(",", ":"))


def _pair_bytes(name: str, value: WireValue) -> int:
    # ensure_ascii over-counts non-ASCII text (6 bytes per \\uXXXX against 3 in UTF-8): the
    # estimate stays an upper bound whatever encoder the SDK uses.
    return len(_COMPACT.encode([name, value])) + 1


def split_frames(
    pairs: PropPairs, limit: int = MAX_PROPS_FRAME_BYTES, sizes: Mapping[str, int] | None = None
) -> list[PropPairs]:
    """Pack pairs into as few frames as fit under limit (most changes fit in one).

    ``sizes``: each pair's measure, where the caller already took it for these very values.
    """
    frames: list[PropPairs] = []
    current: PropPairs = []
    size = _ENVELOPE_BYTES
    for name, value in pairs:
        pair_size = sizes[name] if sizes is not None else _pair_bytes(name, value)
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
    open: bool = False  # the host said panel_shown, and no panel_hidden since
    # the value :meth:`PropsModel.update` (a Python value) or :meth:`PropsModel.set_wire` (a
    # tagged dict) last stored per prop: a refresh repeats most values, and comparing one is
    # cheaper than tagging and checking it again
    given: dict[str, Any] = field(default_factory=dict[str, Any])
    # each desired value's measure in a frame, taken when it was stored
    sizes: dict[str, int] = field(default_factory=dict[str, int])


class PropsModel:
    """Desired and sent props per panel; the differences go out as tracked requests."""

    def __init__(
        self,
        tracker: Tracker | None,
        *,
        contracts: Mapping[str, PanelContract] = PANELS,
        max_frames_per_second: float = MAX_FRAMES_PER_SECOND,
        start_hidden: Iterable[str] = (),
    ) -> None:
        hidden = frozenset(start_hidden)
        self._tracker = tracker
        self._interval = 1.0 / max_frames_per_second
        self._panels = {
            name: _PanelState(contract, {}, {}, visible=name not in hidden)
            for name, contract in contracts.items()
        }
        self.blocked: set[str] = set()  # panels the host does not have (yet): nothing is sent
        self._wake_at: float | None = None

    # -- desired state --------------------------------------------------------------------

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
        """Desire a prop from an already tagged value ``{"t": ..., "v": ...}``; one equal to the
        value this stored last is not checked again (a refresh repeats most of them)."""
        state = self._panel(panel)
        given = state.given
        if name in given and given[name] == tagged:
            return
        self._store(state, name, state.contract.prop(name).check(tagged))
        given[name] = tagged

    def update(self, panel: str, values: Mapping[str, Any]) -> None:
        """Several props at once, from Python values; nothing is stored if one is invalid."""
        state = self._panel(panel)
        given = state.given
        checked = {
            name: state.contract.prop(name).wire_value(v)
            for name, v in values.items()
            if name not in given or given[name] != v
        }
        for name, value in checked.items():
            self._store(state, name, value)
            given[name] = values[name]

    def set_texts(self, catalog: Catalog) -> None:
        """Every static label of every panel in catalog's language (start-up, locale change)."""
        for state in self._panels.values():
            for prop in state.contract.text_props:
                assert prop.text_key is not None
                self._store(state, prop.name, prop.wire_value(catalog.t(prop.text_key)))

    def _store(self, state: _PanelState, name: str, value: WireValue) -> None:
        state.given.pop(name, None)
        # Most props of a refresh are unchanged: compare before measuring (a json.dumps).
        if state.desired.get(name) == value:
            return
        size = _pair_bytes(name, value)
        if size + _ENVELOPE_BYTES > MAX_PROPS_FRAME_BYTES:
            raise WireError(f"{state.contract.name}.{name} alone exceeds a props frame: page it")
        state.desired[name] = value
        state.sizes[name] = size
        if state.sent.get(name) != value:
            state.dirty = True

    def desired(self, panel: str) -> Mapping[str, WireValue]:
        return dict(self._panel(panel).desired)

    def sent(self, panel: str) -> Mapping[str, WireValue]:
        return dict(self._panel(panel).sent)

    def pending(self, panel: str) -> PropPairs:
        """The props that differ from what the panel was last sent, in the order they were set."""
        state = self._panel(panel)
        return [(n, v) for n, v in state.desired.items() if state.sent.get(n) != v]

    # -- visibility and connection --------------------------------------------------------

    @property
    def waiting(self) -> bool:
        """Some visible panel has changes that no :class:`Wake` is due to send."""
        if self._wake_at is not None:
            return False
        return any(p.dirty and p.visible for p in self._panels.values())

    def is_visible(self, panel: str) -> bool:
        return self._panel(panel).visible

    def is_open(self, panel: str) -> bool:
        """Someone can see it: the host said so (``panel_shown``). A manifest panel gets props
        before that, so it is ready when opened, but it is not open until told."""
        return self._panel(panel).open

    def panel_shown(self, panel: str) -> bool:
        state = self._panels.get(panel)
        if state is None:
            return False  # a panel outside the contract
        state.visible = state.open = True
        state.dirty = True
        return True

    def panel_hidden(self, panel: str) -> bool:
        state = self._panels.get(panel)
        if state is None:
            return False
        state.visible = state.open = False
        return True

    def resend_all(self, panel: str | None = None) -> None:
        """Forget what was sent, and that the panel was open (the host says it again): after a
        reconnect, or after a runtime panel is defined again."""
        for state in self._select(panel):
            state.sent.clear()
            state.open = False
            state.last_frame_at = -math.inf
            if state.desired:
                state.dirty = True

    def _select(self, panel: str | None) -> list[_PanelState]:
        return list(self._panels.values()) if panel is None else [self._panel(panel)]

    # -- sending --------------------------------------------------------------------------

    def flush(self, now: float, panel: str | None = None) -> list[Effect]:
        """Send what is pending to visible panels now, whatever the pace (the first props at
        start-up, the last before exiting)."""
        out: list[Effect] = []
        for state in self._select(panel):
            if state.visible and state.dirty:
                out += self._send_panel(state, now)
        return out

    def due(self, now: float) -> list[Effect]:
        """Send every panel whose slot has come; a :class:`Wake` for the next slot, if any."""
        out: list[Effect] = []
        next_at: float | None = None
        for state in self._panels.values():
            if not (state.visible and state.dirty):
                continue
            at = state.last_frame_at + self._interval
            if at <= now:
                out += self._send_panel(state, now)
            else:
                next_at = at if next_at is None else min(next_at, at)
        if next_at is not None and next_at != self._wake_at:
            self._wake_at = next_at
            out.append(Wake(WAKE, next_at))
        elif next_at is None:
            self._wake_at = None
        return out

    def _send_panel(self, state: _PanelState, now: float) -> list[Effect]:
        name = state.contract.name
        pairs = [(n, v) for n, v in state.desired.items() if state.sent.get(n) != v]
        state.dirty = False
        if not pairs or self._tracker is None or name in self.blocked:
            return []
        state.last_frame_at = now
        out: list[Effect] = []
        for frame in split_frames(pairs, sizes=state.sizes):
            for prop, value in frame:  # sent unless the host says otherwise
                state.sent[prop] = value
            out += self._tracker.request(
                now, "panel", vp.PanelProps, expect=vp.PanelApplied,
                done=self._answered(state, frame), panel=name, props=frame,
            )  # fmt: skip
        return out

    def _answered(self, state: _PanelState, frame: PropPairs) -> Any:
        def done(outcome: Outcome) -> list[Effect]:
            if outcome.ok:
                return []
            # Not sent again now: the next change, panel_shown or resend_all() sends the whole
            # difference, so a failing host cannot cause a retry storm.
            for prop, value in frame:
                if state.sent.get(prop) == value:
                    del state.sent[prop]
            return [
                Log(
                    logging.INFO,
                    f"props for {state.contract.name} not delivered ({outcome.code}): "
                    "sent again with the next change",
                )
            ]

        return done
