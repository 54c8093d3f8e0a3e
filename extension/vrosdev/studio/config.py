"""What one emulated Studio launch is configured with."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Final, Literal

__all__ = [
    "DEFAULT_VMS",
    "SHUTDOWN_DEADLINE_S",
    "STATUS_DEADLINE_S",
    "EndAfter",
    "FramebufferOrder",
    "StudioConfig",
    "VmsFileError",
    "load_vms",
]

STATUS_DEADLINE_S: Final = 5.0  # seed: "You have 5 seconds" (docs/protocol-notes.md#m7)
# seed: "extension.v1.shutdown (2 second timeout)" (docs/protocol-notes.md#m7)
SHUTDOWN_DEADLINE_S: Final = 2.0

# Illustrative only: the seed's "runtime" page, which would define a VM entry, is not in the
# seed (docs/protocol-notes.md#m6), so the entries are opaque objects and this default merely shows
# one.
DEFAULT_VMS: Final[tuple[dict[str, Any], ...]] = (
    {"id": "vm-1", "name": "dev", "state": "running"},
)

type EndAfter = Literal["never", "status", "listVms"]
type FramebufferOrder = Literal["after", "before"]


class VmsFileError(Exception):
    pass


@dataclass(frozen=True)
class StudioConfig:
    extension_id: str
    token: str = field(repr=False)
    vms: list[dict[str, Any]] = field(default_factory=lambda: [dict(vm) for vm in DEFAULT_VMS])
    # None: listVms answers the list; otherwise an mxfb0001 result whose kind-1 attachment is
    # sent after (or before) the JSON response, to prove a client's correlation
    # (docs/protocol-notes.md#m5).
    framebuffer: FramebufferOrder | None = None
    end_after: EndAfter = "never"
    status_deadline_s: float = STATUS_DEADLINE_S
    shutdown_deadline_s: float = SHUTDOWN_DEADLINE_S


def load_vms(path: Path) -> list[dict[str, Any]]:
    """A JSON array of objects, or a one-line reason why not."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise VmsFileError(f"--vms {path}: {exc.strerror or exc}") from None
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise VmsFileError(f"--vms {path}: not JSON ({exc})") from None
    if not isinstance(data, list) or not all(isinstance(vm, dict) for vm in data):  # pyright: ignore[reportUnknownVariableType]
        raise VmsFileError(f"--vms {path}: must hold a JSON array of objects")
    return data  # pyright: ignore[reportUnknownVariableType]
