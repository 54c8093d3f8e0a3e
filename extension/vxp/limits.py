"""The spec's limits, each a named constant with the checklist line it comes from."""

from __future__ import annotations

import json
import re
from typing import Any

MAX_FRAME_BYTES = 3 * 1024 * 1024  # T-9: a larger frame is corruption
KV_KEY_MAX_BYTES = 256  # KV-9
KV_VALUE_MAX_BYTES = 64 * 1024  # KV-10, measured as compact JSON UTF-8 (docs/protocol-notes.md#r8)
KV_SOFT_QUOTA_BYTES = 1024 * 1024  # KV-11, keys + values (docs/protocol-notes.md#r30)
SECRET_MAX_BYTES = 2048  # SEC-7
NAME_MAX_BYTES = 64  # panel, command, media key, face source id
NAME_RE = re.compile(r"^[a-z0-9-]{1,64}$")
PANEL_SOURCE_MAX_BYTES = 256 * 1024  # PAN-21
ASSET_KEY_RE = re.compile(r"^[A-Za-z0-9_.:/-]{1,128}$")
ASSET_MAX_SIDE = 128
ASSET_MAX_FRAMES = 60
ASSET_DELAY_MIN_MS = 20
ASSET_DELAY_MAX_MS = 1000
ASSET_MAX_DECODED_BYTES = 2 * 1024 * 1024
ASSET_TABLE_MAX_ENTRIES = 1024
ASSET_TABLE_MAX_BYTES = 32 * 1024 * 1024
ASSET_MAX_ANIMATING_PER_PANEL = 24
GAIN_MIN, GAIN_MAX = 0, 100
AUDIO_FILE_MAX_BYTES = 256 * 1024 * 1024
AUDIO_DECODE_MAX_SECONDS = 30
MEDIA_URL_MAX_BYTES = 8 * 1024
MEDIA_TITLE_MAX_BYTES = 256
MEDIA_FPS_MIN, MEDIA_FPS_MAX = 1, 120
MEDIA_MAX_SESSIONS = 4
FACE_TEXT_MAX_BYTES = 128
FACE_RATE_MIN, FACE_RATE_MAX = 1, 240
FACE_MAX_SOURCES_PER_EXT = 4
FACE_MAX_SOURCES_TOTAL = 16
FACE_MAX_AGE_MS = 250
SETTINGS_MAX = 16
SETTING_KEY_RE = re.compile(r"^[a-z0-9_-]{1,64}$")
SETTING_LABEL_MAX_BYTES = 200
SETTING_TEXT_MAX_BYTES = 1024
SETTING_NUMBER_ABS_MAX = 1_000_000
SETTING_CHOICES_MIN, SETTING_CHOICES_MAX = 2, 8
HELLO_DEADLINE_S = 5.0  # H-2


def utf8_len(text: str) -> int:
    return len(text.encode("utf-8", "surrogatepass"))


def json_size(value: Any) -> int:
    """Bytes of ``value`` as compact JSON in UTF-8 (docs/protocol-notes.md#r8)."""
    return len(json.dumps(value, separators=(",", ":"), ensure_ascii=False).encode("utf-8"))


def check_name(value: str, what: str = "name") -> str:
    """``[a-z0-9-]``, 1-64 bytes: panel names, command names, media keys, face source ids."""
    if not NAME_RE.fullmatch(value):
        raise ValueError(f"{what} {value!r} must be 1-64 characters of [a-z0-9-]")
    return value


I64_ABS_MAX = 2**53  # PAN-9: Slint int is exact up to 2^53
# A Slint identifier (docs/protocol-notes.md#r29).
PROP_NAME_RE = re.compile(r"^[A-Za-z_][A-Za-z0-9_-]*$")
VOLUME_MIN, VOLUME_MAX = 0, 100  # MED-13
FACE_EXPRESSION_RE = re.compile(r"^[a-z0-9_]{1,64}$")  # the 37 names are not listed (FACE-15)
