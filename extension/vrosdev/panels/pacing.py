"""How often a panel's window takes its props (PAN-7), apart from the window and its clock.

Props that arrive while an application is due are merged into it (PAN-6: the last value wins),
so a panel takes its props at most once per interval however fast they come: about 30 times a
second. The clock is injected, so a test drives the pacing by moving a number.
"""

from __future__ import annotations

import time
from collections.abc import Callable

PROP_INTERVAL_MS = 33  # PAN-7: about 30 applications per second per panel


class PropPacing:
    def __init__(
        self, interval_s: float = PROP_INTERVAL_MS / 1000, clock: Callable[[], float] | None = None
    ) -> None:
        self._interval_s = interval_s
        self._clock = clock if clock is not None else time.monotonic
        self._last: float | None = None
        self._due = False

    def submitted(self) -> float | None:
        """Props arrived: the delay after which to apply them, or None when an application is
        already due (it takes these too)."""
        if self._due:
            return None
        self._due = True
        if self._last is None:
            return 0.0
        return max(0.0, self._last + self._interval_s - self._clock())

    def applied(self) -> None:
        """The window applied every pending prop, now."""
        self._due = False
        self._last = self._clock()
