"""Panel callbacks: checked against the contract, handed as Python values to their handler.

    events = PanelEvents()

    @events.on("overlay", "play-sound")
    def play_sound(key: str, now: float) -> list[Effect]: ...

A handler takes the callback's arguments, then the clock value of the input. The router
(:mod:`cueboard.core.app`) declares the one table of handlers; this module checks it against
the contract and decodes what a panel sends.

A callback the contract does not declare, or with arguments of the wrong types, is ignored and
counted (a host newer than this contract, or a bug in a panel), never raised. Argument values
are never logged: ``media-open`` carries a URL, which is a credential.
"""

from __future__ import annotations

import inspect
import logging
from collections.abc import Callable, Mapping
from typing import Any

from cueboard.core.contract import PANELS, Callback, PanelContract, WireError

from .effects import Effect, Log

__all__ = ["Handler", "PanelEvents"]

type Handler = Callable[..., list[Effect]]


class PanelEvents:
    """Callback name -> handler, registered with a decorator and checked against the contract."""

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
                inspect.signature(handler).bind(*(None for _ in declared.args), 0.0)
            except TypeError:
                raise TypeError(
                    f"handler for {panel}.{callback} must take {len(declared.args)} arguments"
                    " and the clock"
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

    def dispatch(self, panel: str, callback: str, args: Any, now: float) -> list[Effect]:
        """The effects of a panel_event's handler; a log line when it was ignored."""
        try:
            _, values = self.decode(panel, callback, args)
        except WireError as exc:
            self.ignored += 1
            return [Log(logging.DEBUG, f"panel_event {panel}.{callback} ignored: {exc}")]
        handler = self._handlers.get((panel, callback))
        if handler is None:
            self.ignored += 1
            return [Log(logging.DEBUG, f"panel_event {panel}.{callback} ignored: no handler")]
        return handler(*values, now)

    def unhandled(self) -> list[tuple[str, str]]:
        """Contract callbacks with no handler yet (a test of the core keeps this empty)."""
        return [
            (name, cb.name)
            for name, contract in self._contracts.items()
            for cb in contract.callbacks
            if (name, cb.name) not in self._handlers
        ]
