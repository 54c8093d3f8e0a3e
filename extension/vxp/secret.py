"""A holder for credentials (the launch token, media URLs) that never shows its value."""

from __future__ import annotations

from typing import Final, final

__all__ = ["Secret"]


@final
class Secret:
    """``str()``, ``repr()``, ``format()`` and pickling all refuse to show the value (T-6).

    Only :meth:`reveal` gives it back, at the single place that must send it.
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
        return isinstance(other, Secret) and other._value == self._value

    def __hash__(self) -> int:
        return hash((Secret, self._value))

    def __bool__(self) -> bool:
        return bool(self._value)

    def __reduce__(self) -> str:
        raise TypeError("a Secret cannot be pickled")
