"""The deck's shared state and the one way its steps ask the host for something.

A step is a generator: it yields effects, and an :class:`Ask` suspends it until the request's
final outcome comes back through the tracker, like every other feature's (:func:`ask` returns
the result model, or the failed :class:`~cueboard.core.outcomes.Outcome` with the policy
table's decision). Steps read as the sequence they are (open, then keep the URL, then save the
record) while the core stays free of I/O.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Generator
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from cueboard.core.contract import DECK_SLOTS
from cueboard.core.effects import Effect
from cueboard.core.outcomes import Outcome
from vxp.version import Version

from .slots import DeckOptions, Observed, Slot

if TYPE_CHECKING:
    from pydantic import BaseModel

DECK_KEYS = tuple(f"deck-{n}" for n in range(1, DECK_SLOTS + 1))
MEDIA_SINCE = "1.4"  # the media namespace and media_snapshot
NATIVE_CONTROLS_SINCE = "1.6"  # native_controls and media_control
CONTROLS_ON_PLAYER_SINCE = "1.7"
RELOAD_TITLE_SINCE = "1.6"

type Step[T] = Generator[Effect | Ask, Any, T]


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
    host: HostFacts | None = None
    slots: dict[str, Slot] = field(default_factory=lambda: {k: Slot(k) for k in DECK_KEYS})
    options: DeckOptions = field(default_factory=DeckOptions)
    unsupported: bool = False
    denied: bool = False
    restored: bool = False
    last_rows: dict[str, Observed] = field(default_factory=dict[str, Observed])
    closing: set[str] = field(default_factory=set[str])  # sessions no slot wants, being closed
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


@dataclass(frozen=True, slots=True)
class Ask:
    """What a step yields to ask the host: the runner hands it to the tracker, and the step
    goes on with the answer (the result model, or the failed :class:`Outcome` with the policy
    table's decision)."""

    namespace: str
    params: Callable[[], BaseModel]
    expect: type
    user_asked: bool = False

    def __repr__(self) -> str:  # params may build a URL: never in a repr
        return f"Ask({self.namespace})"


def ask[T](
    state: DeckState,
    namespace: str,
    params: Callable[[], BaseModel],
    expect: type[T],
    *,
    user_asked: bool = False,
) -> Step[T | Outcome]:
    """One request through the tracker: its result model, or its failed outcome. A request
    the models refuse is an ``invalid`` failure, never an exception."""
    got: T | Outcome = yield Ask(namespace, params, expect, user_asked)
    return got


__all__ = [
    "CONTROLS_ON_PLAYER_SINCE",
    "DECK_KEYS",
    "MEDIA_SINCE",
    "NATIVE_CONTROLS_SINCE",
    "RELOAD_TITLE_SINCE",
    "Ask",
    "DeckState",
    "HostFacts",
    "Outcome",
    "Step",
    "ask",
]
