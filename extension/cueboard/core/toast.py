"""The now-playing toast: a runtime panel (anchor ``hmd``) naming the sound just started.

It is defined on the first play it shows in a connection (runtime panels end with their
connection, docs/protocol-notes.md#r21), shown for :data:`SHOW_S`, then hidden. A host that
refuses the panel is asked once per connection, never again in between.
"""

from __future__ import annotations

import logging

from vxp.models import panel

from .effects import Effect, Log
from .overlay import icon_keys
from .props import PropsModel
from .tracker import Outcome, Tracker

__all__ = ["PANEL", "SHOW_S", "Toast"]

PANEL = "now-playing"
SHOW_S = 2.5


class Toast:
    def __init__(self, tracker: Tracker, props: PropsModel, source: str) -> None:
        self._tracker = tracker
        self._props = props
        self.source = source
        self.defined = False
        self.until = 0.0
        props.blocked.add(PANEL)

    def connected(self) -> None:
        self.defined = False
        self._props.blocked.add(PANEL)

    def show(
        self,
        name: str,
        now: float,
        *,
        channels: str = "",
        icon: str | None = None,
        blank: bool = True,
    ) -> list[Effect]:
        """Name the sound, where it plays and how loud, with its icon (or the blank asset, once
        its put answered `ok`: docs/protocol-notes.md#r33)."""
        self._props.update(
            PANEL,
            {
                "sound-name": name,
                "channels-text": channels,
                "sound-icon": icon_keys([icon], blank=blank),
                "has-icon": icon is not None,
                "showing": True,
            },
        )
        self.until = now + SHOW_S
        if self.defined or not self.source:
            return []
        self.defined = True
        return self._tracker.request(
            now, "panel", panel.PanelDefine, expect=panel.PanelDefined, done=self._defined,
            panel=PANEL, source=self.source, anchor="hmd",
        )  # fmt: skip

    def _defined(self, outcome: Outcome) -> list[Effect]:
        if not outcome.ok:
            return [Log(logging.INFO, f"toast: {outcome.code}")]
        self._props.blocked.discard(PANEL)
        self._props.resend_all(PANEL)
        self._props.panel_shown(PANEL)
        return []

    def expire(self, now: float) -> bool:
        """Hide the toast once its time is over; True while it still shows."""
        if self.until and now >= self.until:
            self.until = 0.0
            self._props.update(PANEL, {"showing": False})
        return bool(self.until)
