"""Cueboard's own text catalogs as values: a merged catalog and its lookups.

vrOS's `strings` namespace carries no keys of a third-party extension (STR-3), so every word the
user sees comes from here. A catalog is a flat JSON object, key -> text, with `{name}`
placeholders, read from disk by :mod:`cueboard.runtime.catalogs`. Lookups never fail: a key
missing from the chosen locale falls back along the locale chain and finally to en-US, and a key
missing everywhere shows as itself (and is logged), so a gap is visible in the panel rather than
a crash in the event loop.

msgid() marks a key that is looked up indirectly (from a table); it returns the key unchanged.
String literals passed to t() or msgid(), and the contract's `text_key` values, are the keys the
catalog test requires in every locale.
"""

import logging
import re
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from functools import lru_cache
from typing import cast

log = logging.getLogger(__name__)

DEFAULT_LOCALE = "en-US"
PLACEHOLDER = re.compile(r"\{([a-z_][a-z0-9_]*)\}")


def msgid(key: str) -> str:
    """Mark a catalog key used indirectly, so the catalog test can find it."""
    return key


def placeholders(text: str) -> frozenset[str]:
    return frozenset(PLACEHOLDER.findall(text))


@lru_cache(maxsize=4096)
def _parts(text: str) -> tuple[str, ...]:
    """Text, placeholder name, text, ...: a catalog's texts are few, and views fill them on
    every refresh."""
    return tuple(PLACEHOLDER.split(text))


def _fill(text: str, params: Mapping[str, object]) -> str:
    parts = _parts(text)
    out = [parts[0]]
    for i in range(1, len(parts), 2):
        name = parts[i]
        out.append(str(params[name]) if name in params else f"{{{name}}}")
        out.append(parts[i + 1])
    return "".join(out)


@dataclass(frozen=True)
class Catalog:
    """The text of one UI locale, with the locale chain already merged."""

    locale: str  # the shipped locale that answers first (what the user gets)
    requested: str
    entries: Mapping[str, str]
    _derived: dict[object, object] = field(
        default_factory=dict[object, object], init=False, repr=False, compare=False
    )

    def t(self, key: str, /, **params: object) -> str:
        """The text for key with {name} placeholders filled (unknown ones left as they are)."""
        text = self.entries.get(key)
        if text is None:
            log.debug("catalog %s has no key %r", self.locale, key)
            return key
        return _fill(text, params) if params else text

    def derived[T](self, make: Callable[["Catalog"], T]) -> T:
        """What ``make`` builds from this catalog alone, built on first use: a catalog never
        changes, and views ask for the same texts on every refresh."""
        try:
            return cast(T, self._derived[make])
        except KeyError:
            built = self._derived[make] = make(self)
            return built

    def __contains__(self, key: object) -> bool:
        return key in self.entries

    def __iter__(self) -> Iterator[str]:
        return iter(self.entries)


__all__ = ["DEFAULT_LOCALE", "Catalog", "msgid", "placeholders"]
