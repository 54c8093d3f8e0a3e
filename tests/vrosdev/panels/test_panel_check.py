"""The host's static rules (docs/protocol-notes.md#r24, #r25, #r29; PAN-23, PAN-33)."""

from __future__ import annotations

import pytest

from vrosdev.panels import check_source

from .panel_samples import PROBE_PANEL, THEME_IMPORT

PLAIN = THEME_IMPORT + "export component P {\n    Rectangle { background: ExtTheme.c.bg0; }\n}\n"


def test_a_panel_importing_only_the_theme_passes() -> None:
    check = check_source(PLAIN)
    assert check.ok
    assert (check.root, check.errors, check.violations, check.warnings) == ("P", (), (), ())


@pytest.mark.parametrize(
    ("line", "named"),
    [
        ('import { Button } from "std-widgets.slint";', "std-widgets.slint"),
        ('import { Other } from "@other/lib.slint";', "@other/lib.slint"),
        ('import { Mine } from "./mine.slint";', "./mine.slint"),
        ('import "Inter.ttf";', "Inter.ttf"),
        ('export { Sneaky } from "other.slint";', "other.slint"),
    ],
)
def test_any_other_import_fails_naming_it(line: str, named: str) -> None:
    """docs/protocol-notes.md#r24 / PAN-33: compile_failed naming the import, std-widgets
    included."""
    check = check_source(THEME_IMPORT + line + "\nexport component P { }\n")
    assert not check.ok
    (error,) = check.errors
    assert error.startswith("2:1: ")
    assert f'"{named}"' in error
    assert "docs/protocol-notes.md#r24" in error


def test_image_url_fails_naming_the_file() -> None:
    """docs/protocol-notes.md#r24: images reach panels only through assets."""
    source = (
        THEME_IMPORT + 'export component P {\n    Image { source: @image-url("logo.png"); }\n}\n'
    )
    (error,) = check_source(source).errors
    assert error.startswith("3:21: ")
    assert '@image-url("logo.png")' in error


def test_keywords_in_comments_and_strings_do_not_count() -> None:
    source = (
        THEME_IMPORT
        + '// import { Button } from "std-widgets.slint";\n'
        + '/* @image-url("a.png") */\nexport component P {\n'
        + '    Text { text: "import \\"x.slint\\" @image-url(\\"b.png\\") TextInput {"; }\n}\n'
    )
    check = check_source(source)
    assert check.ok, check.errors
    assert not check.has_text_field


def test_a_window_root_is_a_violation_but_not_a_compile_failure() -> None:
    """docs/protocol-notes.md#r29: panel roots are plain components."""
    check = check_source(THEME_IMPORT + "export component P inherits Window { }\n")
    assert check.ok
    (violation,) = check.violations
    assert violation.startswith("2:18: ")
    assert "inherits Window" in violation
    assert "docs/protocol-notes.md#r29" in violation


def test_a_text_field_without_the_focus_contract_gets_a_warning() -> None:
    """docs/protocol-notes.md#r25 / PAN-23: legal, but it will receive no keyboard."""
    source = THEME_IMPORT + "export component P {\n    input := TextInput { }\n}\n"
    check = check_source(source)
    assert check.ok
    assert check.has_text_field
    assert not check.has_focus_contract
    (warning,) = check.warnings
    assert warning.startswith("3:14: TextInput")
    assert "no keyboard" in warning


def test_the_focus_contract_on_the_root_is_recognised() -> None:
    check = check_source(PROBE_PANEL)
    assert check.has_text_field
    assert check.has_focus_contract
    assert check.warnings == ()
    assert check.root == "Probe"


def test_a_contract_with_the_wrong_types_or_on_a_child_does_not_count() -> None:
    wrong = THEME_IMPORT + (
        "export component P {\n    callback field-focus(int);\n    in property <int> field-blur;\n"
        "    TextInput { }\n}\n"
    )
    nested = THEME_IMPORT + (
        "export component P {\n    Rectangle {\n        callback field-focus(bool);\n"
        "        in property <int> field-blur;\n    }\n    TextInput { }\n}\n"
    )
    for source in (wrong, nested):
        check = check_source(source)
        assert not check.has_focus_contract
        assert any("no keyboard" in w for w in check.warnings)


def test_a_panel_without_text_fields_needs_no_contract() -> None:
    """docs/protocol-notes.md#r25: the contract is optional without a text field."""
    assert check_source(PLAIN).warnings == ()


def test_the_root_is_the_last_exported_component() -> None:
    source = THEME_IMPORT + (
        "component Helper { }\nexport component First { }\nexport component Root {\n"
        "    in property <int> n;\n    Helper { }\n}\n"
    )
    check = check_source(source)
    assert check.root == "Root"
    assert list(check.interface.properties) == ["n"]


def test_a_source_without_a_component_fails() -> None:
    assert not check_source(THEME_IMPORT).ok
