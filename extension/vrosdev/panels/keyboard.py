"""When vrOS would show and hide its VR keyboard for a panel: the host's side of the focus
contract (PAN-23 … PAN-32), free of Slint and of any window.

- A panel without the focus contract never gets the keyboard (PAN-23, docs/protocol-notes.md#r25).
- With the contract, the keyboard is up while the panel reports a focused field (its settled
  `field-focus` edges, PAN-24, PAN-29).
- A panel that keeps the contract but declares no `ExtFocusRegion` is one text field to the
  host (PAN-32): a click anywhere into it brings the keyboard up, whatever the click landed on.
- Clicking away from a panel whose keyboard is up advances its `field-blur` (PAN-26) and puts
  the keyboard away.

Every method returns the transitions it caused, as `(shown, why)` pairs, for the transcript.
"""

from dataclasses import dataclass, field

type Transition = tuple[bool, str]


@dataclass
class VrKeyboard:
    contract: bool
    regions: bool
    shown: bool = False
    field_focused: bool = False
    log: list[Transition] = field(default_factory=list[Transition])

    @property
    def whole_panel_is_field(self) -> bool:
        return self.contract and not self.regions

    def _set(self, shown: bool, why: str) -> list[Transition]:
        if shown == self.shown:
            return []
        self.shown = shown
        self.log.append((shown, why))
        return [(shown, why)]

    def pointer_inside(self) -> list[Transition]:
        """A click into the panel (the script's `pointer`, or the preview's mouse)."""
        if self.whole_panel_is_field:
            return self._set(True, "a click into a panel without ExtFocusRegion (PAN-32)")
        return []

    def field_focus(self, focused: bool) -> list[Transition]:
        """A settled edge of the panel's field-focus (after cancelling within a frame)."""
        self.field_focused = focused
        if not self.contract:
            return []
        if focused:
            return self._set(True, "a field of the panel took the focus")
        return self._set(False, "the panel's field lost the focus")

    def click_away(self) -> tuple[bool, list[Transition]]:
        """A click outside the panel: (whether to advance field-blur, transitions)."""
        if not self.contract or not (self.shown or self.field_focused):
            return False, []
        return True, self._set(False, "a click away from the panel: field-blur advanced (PAN-26)")
