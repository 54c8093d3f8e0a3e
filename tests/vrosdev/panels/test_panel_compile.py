"""Compiling with the real slint-compiler against the stub (PAN-14, docs/protocol-notes.md#r24)."""

from __future__ import annotations

import pytest

from vrosdev.panels import compile_source, compile_source_async
from vrosdev.panels.compile import parse_diagnostics

from .panel_samples import PROBE_PANEL, THEME_IMPORT


def test_a_good_panel_compiles_and_reports_its_declarations() -> None:
    result = compile_source(PROBE_PANEL)
    assert result.ok, result.message
    assert result.message == ""
    assert result.root == "Probe"
    assert result.warnings == ()  # the expected "doesn't inherit Window" warning is dropped
    assert result.properties == {
        "count": ("in", "int"),
        "level": ("in", "float"),
        "label": ("in", "string"),
        "names": ("in", "[string]"),
        "sounds": ("in", "[{c0: string, c1: int, c2: bool, c3: float}]"),
        "icons": ("in", "[image]"),
        "field-blur": ("in", "int"),
    }
    assert result.callbacks == {
        "play": ("int", "string"),
        "set-level": ("float", "bool"),
        "field-focus": ("bool",),
    }
    assert result.interface.public_functions == ("focus-search", "focus-other")


def test_compile_errors_come_back_as_line_col_messages() -> None:
    """PAN-14: compile_failed carries the compiler's message."""
    source = THEME_IMPORT + (
        "export component P {\n"
        '    Text { txt: "x"; }\n'
        '    in property <int> n: "abc";\n'
        "    Rectangle { background: ExtTheme.c.nope; }\n"
        "}\n"
    )
    result = compile_source(source)
    assert not result.ok
    assert result.message.splitlines() == [
        "3:12: Unknown property txt in Text",
        "4:26: Cannot convert string to int",
        "5:40: Cannot access the field 'nope'",
    ]


def test_a_syntax_error_is_reported_with_its_position() -> None:
    result = compile_source(THEME_IMPORT + "export component P {\n    in property <int> n\n}\n")
    assert not result.ok
    assert result.message.splitlines()[0].startswith("4:1: Syntax error")


def test_static_rules_fail_before_the_compiler_runs() -> None:
    """docs/protocol-notes.md#r24: std-widgets compiles fine with Slint, so the host must refuse it
    itself."""
    result = compile_source('import { Button } from "std-widgets.slint";\nexport component P { }\n')
    assert not result.ok
    assert "std-widgets.slint" in result.message
    assert result.seconds == 0.0


def test_a_window_root_compiles_with_its_violation_kept() -> None:
    result = compile_source(THEME_IMPORT + "export component P inherits Window { }\n")
    assert result.ok
    assert result.check.violations


def test_multi_line_compiler_messages_are_joined() -> None:
    report = (
        "\x1b[1m\x1b[33mwarning\x1b[0m\x1b[1m: Window elements as children do not create"
        " separate windows\x1b[0m\n"
        "         \x1b[1mConsider using a PopupWindow instead\x1b[0m\n"
        " \x1b[1m\x1b[94m--> \x1b[0m-:2:5\n  |\n"
    )
    (diagnostic,) = parse_diagnostics(report)
    assert (diagnostic.level, diagnostic.line, diagnostic.column) == ("warning", 2, 5)
    assert diagnostic.message.endswith("windows Consider using a PopupWindow instead")


@pytest.mark.anyio
async def test_the_async_route_gives_the_same_result() -> None:
    good = await compile_source_async(PROBE_PANEL)
    bad = await compile_source_async(THEME_IMPORT + 'export component P { Text { txt: "x"; } }\n')
    assert good.ok
    assert good.properties == compile_source(PROBE_PANEL).properties
    assert bad.message == "2:29: Unknown property txt in Text"
