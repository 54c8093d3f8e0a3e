"""vrosdev's log and transcript: every frame both ways, every violation, secrets redacted.

Transcript lines (``--record FILE``), one JSON object a line:
``{"t": seconds since launch, "dir": "ext>host" | "host>ext", "frame": parsed JSON or raw text}``,
``{"t": …, "violation": "<checklist id>: <what>"}``, ``{"t": …, "note": "<text>"}`` and
``{"t": …, "injected": {"kind": …, …}}`` (extension/vrosdev/README.md lists them all).
The launch token becomes ``"<token>"``, media URLs ``"<url>"`` and secret values
``"<secret>"`` (vrosdev.redact). An ``assets put``'s pixels longer than 96 characters become
``"<N base64 characters>"``: a full animated icon is 2.6 MB of base64, which would make the
transcript a pixel dump and cost the read loop 20 ms a put to write.
"""

from __future__ import annotations

import json
import logging
import time
from pathlib import Path
from typing import IO, Any

from vrosdev.redact import redact_frame, redact_text

log = logging.getLogger("vrosdev")

PIXELS_KEPT = 96  # base64 characters of a frame kept verbatim: small test images stay readable


def abbreviate_pixels(frame: Any) -> Any:
    """``frame`` with an assets put's long ``rgba_base64`` strings replaced by their length."""
    params = frame.get("params") if isinstance(frame, dict) else None
    if not (
        isinstance(params, dict)
        and frame.get("method") == "assets"
        and params.get("op") == "put"
        and isinstance(params.get("frames"), list)
    ):
        return frame
    frames: list[Any] = []
    for item in params["frames"]:
        text = item.get("rgba_base64") if isinstance(item, dict) else None
        if isinstance(text, str) and len(text) > PIXELS_KEPT:
            item = {**item, "rgba_base64": f"<{len(text)} base64 characters>"}
        frames.append(item)
    return {**frame, "params": {**params, "frames": frames}}


class Recorder:
    def __init__(self, token: str, path: Path | None = None) -> None:
        self._token = token
        self._start = time.monotonic()
        self._file: IO[str] | None = path.open("a", encoding="utf-8") if path else None
        self.violations: list[str] = []
        self.injections: list[Any] = []
        self.frames = 0
        self.last_frame_at = time.monotonic()

    def now(self) -> float:
        return round(time.monotonic() - self._start, 6)

    def frame(self, direction: str, frame: Any) -> None:
        self.frames += 1
        self.last_frame_at = time.monotonic()
        if self._file is None and not log.isEnabledFor(logging.DEBUG):
            return
        if isinstance(frame, str | bytes):
            text = frame.decode("utf-8", "replace") if isinstance(frame, bytes) else frame
            safe: Any = redact_text(text, self._token)
        else:
            safe = redact_frame(abbreviate_pixels(frame), self._token)
        if self._file is not None:
            self._write({"t": self.now(), "dir": direction, "frame": safe})
        if log.isEnabledFor(logging.DEBUG):
            log.debug("%s %s", direction, json.dumps(safe, ensure_ascii=False)[:2000])

    def violation(self, check_id: str, what: str) -> None:
        text = redact_text(f"{check_id}: {what}", self._token)
        self.violations.append(text)
        log.warning("VIOLATION %s", text)
        if self._file is not None:
            self._write({"t": self.now(), "violation": text})

    def injected(self, what: dict[str, Any]) -> None:
        """A fault or chaos injection (vrosdev.host.hook), so a reader can tell it from a bug."""
        safe = redact_frame(what, self._token)
        self.injections.append(safe)
        log.info("injected %s", json.dumps(safe, ensure_ascii=False)[:300])
        if self._file is not None:
            self._write({"t": self.now(), "injected": safe})

    def note(self, text: str) -> None:
        """A host-side event worth a line in the transcript (script steps, focus edges)."""
        safe = redact_text(text, self._token)
        log.info("%s", safe)
        if self._file is not None:
            self._write({"t": self.now(), "note": safe})

    def _write(self, obj: dict[str, Any]) -> None:
        assert self._file is not None
        self._file.write(json.dumps(obj, ensure_ascii=False, separators=(",", ":")) + "\n")
        self._file.flush()

    def close(self) -> None:
        if self._file is not None:
            self._file.close()
            self._file = None
