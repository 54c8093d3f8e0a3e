"""What one vrosdev launch is configured with (from the manifest and the command line)."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

HOST_VERSIONS = ("1.0", "1.1", "1.2", "1.3", "1.4", "1.5", "1.6", "1.7")
CAPABILITY_FLAGS = (
    "overlays",
    "capture",
    "audio",
    "media",
    "osc",
    "network",
    "secrets",
    "face_provide",
    "face_read",
)


@dataclass
class HostConfig:
    ext_id: str
    token: str
    host_version: str = "1.7"
    granted: dict[str, Any] = field(default_factory=lambda: {"bus": []})
    locale: str = "en-US"
    content_root: str | None = None
    state_dir: Path | None = None
    settings: list[Any] = field(default_factory=list[Any])  # vxp.manifest setting models
    panels: dict[str, str] = field(default_factory=dict[str, str])  # role -> .slint source text
    secrets_mode: str = "unsupported"  # "unsupported" (Linux: not_persistable) or "memory"
    budget_full_every: int = 0
    hello_deadline_s: float = 5.0
    strict: bool = True
    media_mode: str = "simulate"
    audio_out: Path | None = None
    audio_cache_mib: int = 512
    no_device: frozenset[str] = frozenset()
    theme: str = "signal"
    reduced_motion: bool = False
    # Injections (vrosdev.host.hook): --fault/--delay specs, --reject, --chaos, --endpoint-delay.
    faults: list[str] = field(default_factory=list[str])
    delays: list[str] = field(default_factory=list[str])
    reject: str | None = None
    chaos_seed: int | None = None
    endpoint_delay_s: float = 0.0

    def welcome_granted(self) -> dict[str, Any]:
        """The grant in the manifest's shape; face_* only when true (H-10)."""
        out: dict[str, Any] = {"bus": list(self.granted.get("bus", []))}
        for name in CAPABILITY_FLAGS:
            value = bool(self.granted.get(name, False))
            if name.startswith("face_") and not value:
                continue
            out[name] = value
        return out
