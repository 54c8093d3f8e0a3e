"""Cueboard's own text catalogs (en-US and ja-JP, shipped in locales/).

vrOS's `strings` namespace carries no keys of a third-party extension (STR-3), so every word the
user sees comes from here. A catalog is a flat JSON object, key -> text, with `{name}`
placeholders. Lookups never fail: a key missing from the chosen locale falls back along the
locale chain and finally to en-US, and a key missing everywhere shows as itself (and is logged),
so a gap is visible in the panel rather than a crash in the event loop.

msgid() marks a key that is looked up indirectly (from a table); it returns the key unchanged.
String literals passed to t() or msgid(), and the contract's `text_key` values, are the keys the
catalog test requires in every locale.
"""

import json
import logging
import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from functools import cache
from pathlib import Path

log = logging.getLogger(__name__)

LOCALES_DIR = Path(__file__).with_name("locales")
DEFAULT_LOCALE = "en-US"
PLACEHOLDER = re.compile(r"\{([a-z_][a-z0-9_]*)\}")
_LOCALE_TAG = re.compile(r"^[A-Za-z]{2,8}(?:[-_][A-Za-z0-9]{1,8})*$")


class CatalogError(ValueError):
    """A shipped catalog is unreadable or malformed (a packaging mistake)."""


def msgid(key: str) -> str:
    """Mark a catalog key used indirectly, so the catalog test can find it."""
    return key


def available_locales() -> tuple[str, ...]:
    return tuple(sorted(p.stem for p in LOCALES_DIR.glob("*.json")))


def locale_chain(locale: str) -> tuple[str, ...]:
    """The shipped locales to consult, best first, always ending in en-US.

    `ja-JP` -> ja-JP; `ja` or `ja-Kana` -> the shipped locales of that language; `en-GB` ->
    en-US; an unknown or malformed tag -> en-US.
    """
    shipped = available_locales()
    chain: list[str] = []
    tag = locale.replace("_", "-") if _LOCALE_TAG.match(locale or "") else ""
    parts = tag.split("-") if tag else []
    # Exact, then ever shorter prefixes (ja-Hira-JP -> ja-Hira -> ja).
    for end in range(len(parts), 0, -1):
        candidate = "-".join(parts[:end]).lower()
        chain += [s for s in shipped if s.lower() == candidate]
    if parts:
        language = parts[0].lower()
        chain += [s for s in shipped if s.split("-")[0].lower() == language]
    chain.append(DEFAULT_LOCALE)
    return tuple(dict.fromkeys(chain))


@cache
def load_entries(locale: str) -> Mapping[str, str]:
    """One shipped catalog file (cached: catalogs are read-only data)."""
    path = LOCALES_DIR / f"{locale}.json"
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise CatalogError(f"cannot read the {locale} catalog: {exc}") from None
    if not isinstance(data, dict) or not all(
        isinstance(k, str) and isinstance(v, str)
        for k, v in data.items()  # pyright: ignore[reportUnknownVariableType]
    ):
        raise CatalogError(f"the {locale} catalog must map keys to strings")
    return dict(data)  # pyright: ignore[reportUnknownArgumentType]


def placeholders(text: str) -> frozenset[str]:
    return frozenset(PLACEHOLDER.findall(text))


def _fill(text: str, params: Mapping[str, object]) -> str:
    return PLACEHOLDER.sub(
        lambda m: str(params[m.group(1)]) if m.group(1) in params else m.group(0), text
    )


@dataclass(frozen=True)
class Catalog:
    """The text of one UI locale, with the locale chain already merged."""

    locale: str  # the shipped locale that answers first (what the user gets)
    requested: str
    entries: Mapping[str, str]

    @classmethod
    def load(cls, locale: str) -> "Catalog":
        chain = locale_chain(locale)
        merged: dict[str, str] = {}
        for name in reversed(chain):
            merged.update(load_entries(name))
        return cls(locale=chain[0], requested=locale, entries=merged)

    def t(self, key: str, /, **params: object) -> str:
        """The text for key with {name} placeholders filled (unknown ones left as they are)."""
        text = self.entries.get(key)
        if text is None:
            log.debug("catalog %s has no key %r", self.locale, key)
            return key
        return _fill(text, params) if params else text

    def __contains__(self, key: object) -> bool:
        return key in self.entries

    def __iter__(self) -> Iterator[str]:
        return iter(self.entries)


__all__ = [
    "DEFAULT_LOCALE",
    "Catalog",
    "CatalogError",
    "available_locales",
    "load_entries",
    "locale_chain",
    "msgid",
    "placeholders",
]
