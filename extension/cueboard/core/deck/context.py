"""The deck's shared state and the one way its steps ask the host for something.

A step is a generator: it yields effects, and a :class:`~cueboard.core.effects.Send` suspends
it until the runtime feeds back that ticket's outcome (:func:`ask` returns the result model or
the final :class:`~cueboard.core.effects.HostFailure`). Steps read as the sequence they are
(open, then keep the URL, then save the record) while the core stays free of I/O.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Generator
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from cueboard.contract import DECK_SLOTS
from cueboard.core.effects import Effect, Failure, HostFailure, Reply, Send, Tickets
from vxp.version import Version

from .slots import DeckOptions, Observed, Slot

if TYPE_CHECKING:
    from pydantic import BaseModel

DECK_KEYS = tuple(f"deck-{n}" for n in range(1, DECK_SLOTS + 1))
MEDIA_SINCE = "1.4"  # the media namespace and media_snapshot
NATIVE_CONTROLS_SINCE = "1.6"  # native_controls and media_control
CONTROLS_ON_PLAYER_SINCE = "1.7"
RELOAD_TITLE_SINCE = "1.6"

type Outcome = Reply | Failure
type Step[T] = Generator[Effect, Outcome | None, T]


@dataclass(frozen=True, slots=True)
class HostFacts:
    """What the deck needs from a welcome: the host's version, the grants, and the clock
    value at the welcome (the deck sets no timers of its own yet)."""

    version: Version
    media: bool
    secrets: bool
    now: float = 0.0


@dataclass
class DeckState:
    tickets: Tickets
    host: HostFacts | None = None
    slots: dict[str, Slot] = field(default_factory=lambda: {k: Slot(k) for k in DECK_KEYS})
    options: DeckOptions = field(default_factory=DeckOptions)
    unsupported: bool = False
    denied: bool = False
    restored: bool = False
    last_rows: dict[str, Observed] = field(default_factory=dict[str, Observed])
    url_clear: int = 0
    controls_applied: int = 0
    controls_dropped: Counter[str] = field(default_factory=Counter[str])

    def __repr__(self) -> str:
        live = sum(1 for s in self.slots.values() if s.session is not None)
        return f"DeckState(live={live})"

    def media_available(self) -> bool:
        host = self.host
        if host is None or self.denied or not host.media:
            return False
        return host.version.at_least(MEDIA_SINCE)

    def sendable(self) -> bool:
        return self.media_available() and not self.unsupported

    def host_at_least(self, version: str) -> bool:
        return self.host is not None and self.host.version.at_least(version)

    def secrets_granted(self) -> bool:
        return self.host is not None and self.host.secrets


def ask[T](
    state: DeckState,
    namespace: str,
    params: Callable[[], BaseModel],
    expect: type[T],
    *,
    user_asked: bool = False,
) -> Step[T | HostFailure]:
    """One request: its result model, or why there is none. A request the models refuse is
    an ``invalid`` failure, never an exception (its message is the code only: the values may
    hold a URL)."""
    from pydantic import ValidationError

    try:
        built = params()
    except ValidationError as exc:
        from vxp.models.registry import domain_error_of

        coded = domain_error_of(exc)
        return HostFailure("invalid", coded[0] if coded else None)
    got = yield Send(state.tickets(), namespace, built, user_asked)
    if isinstance(got, Failure):
        return got.failure
    result: Any = got.result if isinstance(got, Reply) else None
    if isinstance(result, expect):
        return result
    return HostFailure("unreadable", message=f"{namespace}: not a {expect.__name__}")


__all__ = [
    "CONTROLS_ON_PLAYER_SINCE",
    "DECK_KEYS",
    "MEDIA_SINCE",
    "NATIVE_CONTROLS_SINCE",
    "RELOAD_TITLE_SINCE",
    "DeckState",
    "HostFacts",
    "Outcome",
    "Step",
    "ask",
]
