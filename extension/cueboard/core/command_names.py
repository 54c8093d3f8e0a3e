"""Favourite command names that read in SteamVR's binding UI, whatever script a name is in.

A command name is ``fav-`` and a slug of ``[a-z0-9-]`` (command names follow the panel-name
rules: at most 64 bytes). A slug is the sound's name in Latin letters: Japanese is read with
pykakasi ("拍手" → ``hakushu``), every other script goes through anyascii ("Привет" →
``privet``, "你好" → ``ni-hao``, "👏" → ``clap``). pykakasi takes about half a second to load
its dictionary, so it is imported only when a name has kana or kanji in it.

A name given once is never changed, since users bind it: :func:`name_favourite` takes the slugs
already taken and only ever picks a new one. There are at most :data:`MAX_FAVOURITES`; the next
one gets a :class:`Refused` with the reason, for the panel to say.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Collection
from dataclasses import dataclass
from typing import Literal

from cueboard.core.commands import FAVOURITE_PREFIX, MAX_FAVOURITES

__all__ = [
    "FAVOURITE_PREFIX",
    "MAX_FAVOURITES",
    "MAX_SLUG",
    "Named",
    "Refused",
    "name_favourite",
    "readable",
    "slugify",
]

MAX_SLUG = 40  # "fav-" + slug + "-NN" stays far below the 64-byte limit
FALLBACK = "sound"

_KANA = re.compile(r"[\u3041-\u309f\u30a0-\u30ff\u31f0-\u31ff\uff66-\uff9f]")
_HAN = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\U00020000-\U0003134f]")
_NOT_SLUG = re.compile(r"[^a-z0-9]+")


@dataclass(frozen=True, slots=True)
class Named:
    slug: str

    @property
    def command(self) -> str:
        return FAVOURITE_PREFIX + self.slug


@dataclass(frozen=True, slots=True)
class Refused:
    """No command can be bound for a new favourite; ``reason`` keys a localized message."""

    reason: Literal["limit"]
    limit: int = MAX_FAVOURITES

    @property
    def message_key(self) -> str:
        """The catalog entry that tells the user, with ``{limit}`` to fill."""
        return "status.favourites_full"


def _japanese(name: str) -> str | None:
    """The Hepburn reading of a name with Japanese in it, words apart; None when pykakasi
    cannot read every kanji (a Chinese name, say), which anyascii then spells as Chinese."""
    if not _KANA.search(name) and not _HAN.search(name):
        return None
    import pykakasi  # loads its dictionaries: paid only for a name that needs it

    parts = pykakasi.kakasi().convert(name)
    if "".join(p["orig"] for p in parts) != name:
        return None  # it skipped characters it has no entry for (你好 loses 好)
    words: list[str] = []
    for part in parts:
        orig, reading = part["orig"], part["hepburn"]
        if _KANA.search(orig) or _HAN.search(orig):
            if not reading or _HAN.search(reading):
                if _KANA.search(name):
                    words.append(_spelled(orig))  # a kanji it lacks, in a Japanese name
                    continue
                return None
            words.append(reading)
        else:
            words.append(_spelled(orig))
    return " ".join(words)


def _spelled(text: str) -> str:
    """anyascii, with each Han character kept apart so Chinese syllables read as words."""
    from anyascii import anyascii

    return "".join(
        f" {anyascii(c)} " if _HAN.match(c) else anyascii(c)
        for c in unicodedata.normalize("NFC", text)
    )


def readable(name: str) -> str:
    """``name`` in ASCII letters, digits and spaces, as a reader of Latin script would say it;
    "" when nothing readable is left."""
    latin = _japanese(name)
    if latin is None:
        latin = _spelled(name)
    return " ".join(_NOT_SLUG.sub(" ", latin.casefold()).split())


def slugify(name: str, taken: Collection[str]) -> str:
    """A ``[a-z0-9-]`` slug for ``name`` that is not in ``taken``."""
    words = readable(name).split() or [FALLBACK]
    base = ""
    for word in words:
        longer = f"{base}-{word}" if base else word
        if len(longer) > MAX_SLUG:
            break
        base = longer
    base = base or words[0][:MAX_SLUG]
    slug, n = base, 2
    while slug in taken:
        slug = f"{base}-{n}"
        n += 1
    return slug


def name_favourite(name: str, taken: Collection[str]) -> Named | Refused:
    """The command a new favourite gets, or why it gets none. ``taken`` holds the slugs of the
    favourites there are; they keep theirs."""
    if len(taken) >= MAX_FAVOURITES:
        return Refused("limit")
    return Named(slugify(name, taken))
