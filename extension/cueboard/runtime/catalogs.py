"""Cueboard's text catalogs read from disk (en-US and ja-JP, shipped in locales/).

A catalog is a flat JSON object, key -> text; :func:`load_catalog` merges the requested
locale's chain into one :class:`~cueboard.core.i18n.Catalog` for the core.
"""

import json
import re
from collections.abc import Mapping
from functools import cache
from pathlib import Path

from cueboard.core.i18n import DEFAULT_LOCALE, Catalog

LOCALES_DIR = Path(__file__).with_name("locales")
_LOCALE_TAG = re.compile(r"^[A-Za-z]{2,8}(?:[-_][A-Za-z0-9]{1,8})*$")


class CatalogError(ValueError):
    """A shipped catalog is unreadable or malformed (a packaging mistake)."""


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


def load_catalog(locale: str) -> Catalog:
    """The catalog for ``locale``, its chain merged (best first wins)."""
    chain = locale_chain(locale)
    merged: dict[str, str] = {}
    for name in reversed(chain):
        merged.update(load_entries(name))
    return Catalog(locale=chain[0], requested=locale, entries=merged)


__all__ = [
    "LOCALES_DIR",
    "CatalogError",
    "available_locales",
    "load_catalog",
    "load_entries",
    "locale_chain",
]
