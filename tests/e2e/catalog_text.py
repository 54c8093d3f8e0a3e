"""The catalog's messages as the transcript shows them, to tell which notice a status line is."""

from __future__ import annotations

import functools
import json
import re
from pathlib import Path
from typing import Any

from vrosdev.redact import URL_PATTERN, URL_PLACEHOLDER

REPO = Path(__file__).resolve().parents[2]


@functools.cache
def catalog_patterns() -> dict[str, list[tuple[str, re.Pattern[str]]]]:
    """Each locale's messages as (key, pattern): literal text kept (redacted as the transcript
    is), ``{placeholders}`` any text.
    A message with fewer than 3 letters of its own (``{name}``) would match anything: left out."""
    out: dict[str, list[tuple[str, re.Pattern[str]]]] = {}
    for path in (REPO / "extension" / "cueboard" / "runtime" / "locales").glob("*.json"):
        patterns: list[tuple[str, re.Pattern[str]]] = []
        catalog: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
        for key, data in catalog.items():
            for value in _strings(data):
                # as the transcript shows it: a scheme in a message ("https://, rtmp://") is
                # redacted like a URL
                parts = [
                    URL_PATTERN.sub(URL_PLACEHOLDER, p) for p in re.split(r"\{[^{}]*\}", value)
                ]
                if sum(len(p.strip()) for p in parts) < 3:
                    continue
                pattern = re.compile(".+".join(re.escape(p) for p in parts), re.DOTALL)
                patterns.append((key, pattern))
        out[path.stem] = patterns
    return out


def _strings(data: Any) -> list[str]:
    if isinstance(data, str):
        return [data]
    if isinstance(data, dict):
        return [s for v in data.values() for s in _strings(v)]
    if isinstance(data, list):
        return [s for v in data for s in _strings(v)]
    return []
