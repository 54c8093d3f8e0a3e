# pyright: strict
"""A holder for the launch token that never shows its value in logs, reprs or tracebacks."""

from __future__ import annotations

import hmac
from typing import Final, final

__all__ = ["Secret"]


@final
class Secret:
    """``str()``, ``repr()`` and ``format()`` print ``Secret(<redacted>)``; pickling is refused.

    :meth:`reveal` is called at the one place that must send the value: the hello params.
    """

    __slots__ = ("_value",)

    def __init__(self, value: str) -> None:
        self._value: Final = value

    def reveal(self) -> str:
        return self._value

    def __repr__(self) -> str:
        return "Secret(<redacted>)"

    __str__ = __repr__

    def __format__(self, spec: str) -> str:
        return repr(self)

    def __eq__(self, other: object) -> bool:
        # Constant-time, so that comparing a presented token leaks nothing through timing.
        return isinstance(other, Secret) and hmac.compare_digest(
            other._value.encode(), self._value.encode()
        )

    def __hash__(self) -> int:
        return hash((Secret, self._value))

    def __reduce__(self) -> str:
        raise TypeError("a Secret cannot be pickled")
