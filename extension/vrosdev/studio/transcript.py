"""The emulated Studio's JSONL transcript (``--record``), redacted as vrosdev's is.

One JSON object a line, ``t`` in seconds since launch:
``{"t", "dir": "ext>host" | "host>ext", "frame": parsed JSON}``, or ``"raw": text`` for a body
that is not JSON, or ``"attachment": {"id", "role", "bytes"}`` for a kind-1 frame (its bytes are
counted, not copied), or ``"kind": N`` for a frame of unknown kind; ``{"t", "note": text}``
and ``{"t", "violation": "<reading or rule>: <what>"}``. The launch token becomes
``"<token>"`` wherever it occurs (vrosdev.redact).
"""

from __future__ import annotations

import json
import logging
import time
from pathlib import Path
from typing import IO, Any, Final

from mxproto.framing import Attachment
from vrosdev.redact import redact_frame, redact_text

__all__ = ["Transcript"]

log = logging.getLogger("vrosdev.studio")
RAW_TEXT_LIMIT: Final = 4096


class Transcript:
    def __init__(self, token: str, path: Path | None = None) -> None:
        self._token = token
        self._start = time.monotonic()
        self._file: IO[str] | None = path.open("a", encoding="utf-8") if path else None
        self.violations: list[str] = []
        self.notes: list[str] = []

    def __repr__(self) -> str:
        return f"Transcript(violations={len(self.violations)})"

    def frame(self, direction: str, message: Any) -> None:
        safe = redact_frame(message, self._token)
        if log.isEnabledFor(logging.DEBUG):
            log.debug("%s %s", direction, json.dumps(safe, ensure_ascii=False)[:RAW_TEXT_LIMIT])
        self._write({"dir": direction, "frame": safe})

    def raw(self, direction: str, body: bytes) -> None:
        text = body[:RAW_TEXT_LIMIT].decode("utf-8", "replace")
        self._write({"dir": direction, "raw": redact_text(text, self._token)})

    def attachment(self, direction: str, attachment: Attachment) -> None:
        meta = {
            "id": redact_frame(attachment.id, self._token),
            "role": redact_text(attachment.role, self._token),
            "bytes": len(attachment.data),
        }
        self._write({"dir": direction, "attachment": meta})

    def unknown_kind(self, direction: str, kind: int, size: int) -> None:
        self._write({"dir": direction, "kind": kind, "bytes": size})

    def note(self, text: str) -> None:
        safe = redact_text(text, self._token)
        self.notes.append(safe)
        log.info("%s", safe)
        self._write({"note": safe})

    def violation(self, rule: str, what: str) -> None:
        safe = redact_text(f"{rule}: {what}", self._token)
        self.violations.append(safe)
        log.warning("VIOLATION %s", safe)
        self._write({"violation": safe})

    def _write(self, obj: dict[str, Any]) -> None:
        if self._file is None:
            return
        line = {"t": round(time.monotonic() - self._start, 6), **obj}
        self._file.write(json.dumps(line, ensure_ascii=False, separators=(",", ":")) + "\n")
        self._file.flush()

    def close(self) -> None:
        if self._file is not None:
            self._file.close()
            self._file = None
