"""Regenerate the README's command and settings tables from the code that declares them.

Run after changing cueboard/core/commands.py or manifest.toml; tests/test_readme.py fails until the
README matches (metadata is derived from the code, not kept by hand).
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "extension"))

from cueboard.core.commands import MAX_FAVOURITES, STATIC_COMMANDS  # noqa: E402
from vxp.manifest import load_manifest  # noqa: E402


def commands_table() -> str:
    rows = ["| command | what it does |", "|---|---|"]
    rows += [f"| `{c.name}` | {c.help} |" for c in STATIC_COMMANDS]
    rows.append(
        f"| `fav-<slug>` | play a favourite (one per favourite, at most {MAX_FAVOURITES}; "
        "the slug is the sound's name in Latin letters, 拍手 → `fav-hakushu`, given once "
        "when it is marked favourite and never changed) |"
    )
    return "\n".join(rows)


def settings_table() -> str:
    manifest = load_manifest(REPO / "manifest.toml")
    rows = ["| key | kind | default | label |", "|---|---|---|---|"]
    for s in manifest.settings:
        default = s.default if not isinstance(s.default, str) else f'"{s.default}"'
        kind = s.kind
        if s.kind == "number":
            kind = f"number {s.min}-{s.max}"  # type: ignore[union-attr]
        elif s.kind == "select":
            kind = "select: " + ", ".join(c.value for c in s.choices)  # type: ignore[union-attr]
        shown = str(default).lower() if isinstance(default, bool) else default
        rows.append(f"| `{s.key}` | {kind} | `{shown}` | {s.label} |")
    return "\n".join(rows)


SECTIONS = {"commands": commands_table, "settings": settings_table}


def render(text: str) -> str:
    for name, fn in SECTIONS.items():
        pattern = re.compile(rf"(<!-- {name}:begin -->\n)(?:.*?\n)?(<!-- {name}:end -->)", re.S)
        text = pattern.sub(lambda m, fn=fn: m.group(1) + fn() + "\n" + m.group(2), text)
    return text


def main() -> int:
    path = REPO / "README.md"
    path.write_text(render(path.read_text(encoding="utf-8")), encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
