"""The shape of the per-sound records in kv: a folder's sounds in a few keys, each sound a string.

A sound's settings are one packed string (:func:`pack`): its fields in a fixed order, separated
by commas, numbers in base 36, a field at its default left empty and the empty fields at the end
dropped. A sound at every default has no record. A folder's records share keys, its "pages"
(``d<n>:<folder>``; a folder whose key would pass kv's key limit is named by a hash of it,
``x<n>:<sha1>``, and carries its path under ``/``): a page's value maps the sound's file name to
its string. A folder's sounds are spread over as many pages as keep each one near
:data:`PAGE_BYTES` (by a hash of the name), so a page stays far under kv's value limit whatever
the folder holds, and a write of a changed record costs one page, whatever else changed in it
meanwhile: play counts go in batches.

The first schema's records (``s:<rel path>`` and ``h:<sha1>``, a JSON object each) are still
read (:meth:`SoundPrefs.from_record`) so that a board from before is kept, and written again in
pages.

The format is described in docs/prefs-format.md.
"""

from __future__ import annotations

import hashlib
import math
import re
import zlib
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from vxp.limits import KV_KEY_MAX_BYTES, KV_VALUE_MAX_BYTES, json_size, utf8_len

__all__ = [
    "MODES",
    "TARGETS",
    "SoundPrefs",
    "folder_of",
    "key_for",
    "kv_bytes_of",
    "pack",
    "page_key",
    "pages_for",
    "parse_page_key",
    "read_page",
    "read_records",
    "rel_of",
    "unpack",
]

DEFAULT_GAIN = 100
PATH_PREFIX = "s:"  # the first schema's keys
HASH_PREFIX = "h:"
PAGE_BYTES = 8 * 1024  # a page's aim: a write stays small; kv takes up to KV_VALUE_MAX_BYTES
FOLDER_FIELD = "/"  # in a hashed page: the folder's path (no file name holds a slash)
_PAGE_KEY = re.compile(r"([dx])([0-9]+):(.*)", re.DOTALL)

MODES = ("mix", "toggle", "stop_others", "loop")
"""A sound's play mode; a sound without one follows the global ``overlap`` setting."""

TARGETS = ("both", "me", "mic")
"""Where a sound plays: the soundboard channel and the mic, the soundboard channel alone, or the
mic alone."""


@dataclass(frozen=True, slots=True)
class SoundPrefs:
    gain: int = DEFAULT_GAIN  # the sound's own gain, multiplied with the channel's setting
    mode: str | None = None  # one of MODES; None follows the global overlap setting
    mic_gain: int | None = None  # the sound's own gain into the mic; None: linked to gain
    favourite: str | None = None  # the slug of its fav-<slug> command
    order: float | None = None  # its place in its folder (core/ordering.py); None: the scan's
    targets: str = "both"  # one of TARGETS
    trim_start_ms: int = 0
    trim_end_ms: int | None = None  # None: the sound's end
    fade_in_ms: int = 0
    fade_out_ms: int = 0
    plays: int = 0
    last_played: int | None = None  # seconds since the Unix epoch

    @property
    def is_default(self) -> bool:
        return self == NO_PREFS

    @property
    def own_mic_gain(self) -> int:
        return self.gain if self.mic_gain is None else self.mic_gain

    def to_record(self, rel_path: str | None = None) -> dict[str, Any]:
        """The first schema's record of the fields it had (the bench's figure of that format)."""
        rec: dict[str, Any] = {}
        if self.gain != DEFAULT_GAIN:
            rec["g"] = self.gain
        if self.mode is not None:
            rec["m"] = MODES.index(self.mode)
        if self.mic_gain is not None:
            rec["k"] = self.mic_gain
        if self.favourite is not None:
            rec["f"] = self.favourite
        if self.order is not None:
            rec["o"] = int(self.order) if self.order.is_integer() else self.order
        if rel_path is not None:
            rec["p"] = rel_path
        return rec

    @classmethod
    def from_record(cls, rec: Any) -> SoundPrefs:
        """A first-schema record: a field out of range or of the wrong type is its default. Its
        earliest loop flag (``l``) reads as loop mode."""
        if not isinstance(rec, dict):
            return cls()
        data: dict[str, Any] = rec  # pyright: ignore[reportUnknownVariableType]
        gain = data.get("g", DEFAULT_GAIN)
        mic = data.get("k")
        mode = data.get("m")
        fav = data.get("f")
        if type(mode) is int and 0 <= mode < len(MODES):
            own_mode: str | None = MODES[mode]
        else:
            own_mode = "loop" if data.get("l") else None
        return cls(
            gain=gain if _is_pct(gain) else DEFAULT_GAIN,
            mode=own_mode,
            mic_gain=mic if _is_pct(mic) else None,
            favourite=fav if isinstance(fav, str) else None,
            order=_number(data.get("o")),
        )


NO_PREFS = SoundPrefs()
"""A sound nobody changed: what a lookup of one with no record gives (frozen, so shared)."""


def _number(value: Any) -> float | None:
    if type(value) in (int, float) and math.isfinite(value):
        return float(value)
    return None


def _is_pct(value: Any) -> bool:
    return type(value) is int and 0 <= value <= 100


def key_for(rel_path: str) -> str:
    """The first schema's key of a sound."""
    key = PATH_PREFIX + rel_path
    if utf8_len(key) <= KV_KEY_MAX_BYTES:
        return key
    return HASH_PREFIX + hashlib.sha1(rel_path.encode("utf-8")).hexdigest()


# -- one sound: a packed string --------------------------------------------------------------

_DIGITS = "0123456789abcdefghijklmnopqrstuvwxyz"
_ESCAPED = re.compile("%(25|2C)")
_ORDER_SCALE = 10**6  # positions keep six decimals (core/ordering.py)


def _b36(n: int) -> str:
    if n < 0:
        return "-" + _b36(-n)
    out = ""
    while True:
        n, d = divmod(n, 36)
        out = _DIGITS[d] + out
        if not n:
            return out


def _int(text: str, low: int = 0, high: int | None = None) -> int | None:
    """A base-36 field, or None when it is empty, malformed or out of range."""
    if not text or text.lstrip("-").strip(_DIGITS):
        return None
    n = int(text, 36)
    return n if n >= low and (high is None or n <= high) else None


def _order(text: str) -> float | None:
    """A whole position in base 36, or one with decimals as millionths followed by a dot."""
    scaled = text.endswith(".")
    n = _int(text.removesuffix("."), low=-(36**12))
    if n is None:
        return None
    return n / _ORDER_SCALE if scaled else float(n)


def _pack_order(order: float) -> str:
    if order.is_integer():
        return _b36(int(order))
    return _b36(round(order * _ORDER_SCALE)) + "."


def _opt(n: int | None) -> str:
    return "" if n is None else _b36(n)


def pack(p: SoundPrefs) -> str:
    """Fields in order: gain, mode, mic gain, order, targets, trim start, trim end, fade in, fade
    out, plays, last played, favourite (its ``%`` and ``,`` escaped as ``%25`` and ``%2C``).
    Fields to come go after these, so that a reader of these ignores them."""
    fields = [
        "" if p.gain == DEFAULT_GAIN else _b36(p.gain),
        "" if p.mode is None else str(MODES.index(p.mode)),
        _opt(p.mic_gain),
        "" if p.order is None else _pack_order(p.order),
        "" if p.targets == "both" else str(TARGETS.index(p.targets)),
        _opt(p.trim_start_ms or None),
        _opt(p.trim_end_ms),
        _opt(p.fade_in_ms or None),
        _opt(p.fade_out_ms or None),
        _opt(p.plays or None),
        _opt(p.last_played),
        (p.favourite or "").replace("%", "%25").replace(",", "%2C"),
    ]
    while fields and not fields[-1]:
        fields.pop()
    return ",".join(fields)


def unpack(text: Any) -> SoundPrefs:
    """Anything kv holds gives a record: a field out of range or malformed is its default."""
    if not isinstance(text, str):
        return NO_PREFS
    f = text.split(",") + [""] * 11
    gain = _int(f[0], high=100)
    mode, target = _int(f[1], high=len(MODES) - 1), _int(f[4], high=len(TARGETS) - 1)
    return SoundPrefs(
        gain=DEFAULT_GAIN if gain is None else gain,
        mode=None if mode is None else MODES[mode],
        mic_gain=_int(f[2], high=100),
        order=_order(f[3]),
        targets="both" if target is None else TARGETS[target],
        trim_start_ms=_int(f[5]) or 0,
        trim_end_ms=_int(f[6]),
        fade_in_ms=_int(f[7]) or 0,
        fade_out_ms=_int(f[8]) or 0,
        plays=_int(f[9]) or 0,
        last_played=_int(f[10]),
        favourite=_ESCAPED.sub(lambda m: "%" if m[1] == "25" else ",", f[11]) or None,
    )


# -- a folder: pages ---------------------------------------------------------------------------


def folder_of(rel_path: str) -> tuple[str, str]:
    """(folder, file name); the library's top level is the folder ``""``."""
    folder, _, name = rel_path.rpartition("/")
    return folder, name


def page_key(folder: str, page: int) -> str:
    key = f"d{page}:{folder}"
    if utf8_len(key) <= KV_KEY_MAX_BYTES:
        return key
    return f"x{page}:" + hashlib.sha1(folder.encode("utf-8")).hexdigest()


def parse_page_key(key: str) -> tuple[str | None, int] | None:
    """(folder, page) of a page's key; the folder is None for a hashed key (it is in the
    value). None for any other key."""
    m = _PAGE_KEY.fullmatch(key)
    if m is None:
        return None
    return (m[3] if m[1] == "d" else None), int(m[2])


def pages_for(folder: str, records: Mapping[str, SoundPrefs]) -> list[dict[str, str]]:
    """A folder's non-default records (file name -> prefs) as page values, page 0 first."""
    packed = {name: pack(p) for name, p in sorted(records.items()) if not p.is_default}
    hashed = page_key(folder, 0).startswith("x")
    size = sum(utf8_len(n) + utf8_len(v) + 6 for n, v in packed.items())
    count = max(1, -(-size // PAGE_BYTES))
    while True:
        pages: list[dict[str, str]] = [{} for _ in range(count)]
        for name, value in packed.items():
            pages[zlib.crc32(name.encode("utf-8")) % count][name] = value
        if hashed:
            for page in pages:
                page[FOLDER_FIELD] = folder
        if all(json_size(page) <= KV_VALUE_MAX_BYTES for page in pages):
            return pages if packed else []
        count *= 2


def read_page(folder: str | None, value: Any) -> tuple[str, dict[str, SoundPrefs]] | None:
    """(folder, file name -> prefs) of a stored page, or None when it cannot be read."""
    if not isinstance(value, dict):
        return None
    data: dict[str, Any] = value  # pyright: ignore[reportUnknownVariableType]
    if folder is None:
        folder = data.get(FOLDER_FIELD)
        if not isinstance(folder, str):
            return None
    return folder, {n: unpack(v) for n, v in data.items() if n != FOLDER_FIELD and n}


def rel_of(folder: str, name: str) -> str:
    return f"{folder}/{name}" if folder else name


def read_records(stored: Mapping[str, Any]) -> dict[str, SoundPrefs]:
    """Every sound's prefs in a snapshot of kv (key -> value), in either schema; a page's record
    wins over a first-schema one of the same sound."""
    out: dict[str, SoundPrefs] = {}
    pages: list[tuple[str, Any]] = []
    for key, value in stored.items():
        parsed = parse_page_key(key)
        if parsed is not None:
            pages.append((key, value))
        elif key.startswith(PATH_PREFIX):
            out[key[len(PATH_PREFIX) :]] = SoundPrefs.from_record(value)
        elif key.startswith(HASH_PREFIX) and isinstance(value, dict):
            path = value.get("p")  # pyright: ignore[reportUnknownMemberType, reportUnknownVariableType]
            if isinstance(path, str):
                out[path] = SoundPrefs.from_record(value)
    for key, value in pages:
        parsed = parse_page_key(key)
        assert parsed is not None
        page = read_page(parsed[0], value)
        if page is not None:
            folder, records = page
            out.update((rel_of(folder, n), p) for n, p in records.items())
    return out


def kv_bytes_of(records: Iterable[tuple[str, SoundPrefs]]) -> dict[str, int]:
    """What each folder's records take in kv, keys and values, measured as the host does
    (docs/protocol-notes.md#r30)."""
    folders: dict[str, dict[str, SoundPrefs]] = {}
    for rel, p in records:
        folder, name = folder_of(rel)
        folders.setdefault(folder, {})[name] = p
    return {
        folder: sum(
            utf8_len(page_key(folder, n)) + json_size(page)
            for n, page in enumerate(pages_for(folder, recs))
        )
        for folder, recs in folders.items()
    }
