"""The README's generated tables match the code, and it opens with the two commands."""

from __future__ import annotations

import importlib.util
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]


def test_readme_tables_are_generated_from_the_code() -> None:
    spec = importlib.util.spec_from_file_location("gen", REPO / "tools" / "gen_readme_tables.py")
    assert spec is not None and spec.loader is not None
    gen = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(gen)
    text = (REPO / "README.md").read_text(encoding="utf-8")
    assert gen.render(text) == text, "run: .venv/bin/python tools/gen_readme_tables.py"
    assert "`play-slot-12`" in text and "`mic_gain`" in text


def test_readme_opens_with_the_two_commands() -> None:
    head = (REPO / "README.md").read_text(encoding="utf-8").splitlines()[:6]
    assert any(line.startswith("make demo") for line in head)
    assert any(line.startswith("make test") for line in head)
