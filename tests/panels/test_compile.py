"""Cueboard's panels compile with the real Slint compiler against vrosdev's theme stub, and keep
the rules a panel lives by: the theme as the only import (docs/protocol-notes.md#r24, PAN-33), a
plain root (docs/protocol-notes.md#r29), the
focus contract wherever there is a text field (PAN-23..31), palette colours, density sizes and
motion tokens only, hit targets of at least hit-min, and no words of their own (i18n)."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
PANELS = REPO / "panels"
THEME_DIR = REPO / "extension" / "vrosdev" / "theme"
THEME_IMPORT = 'import { ExtTheme, ExtFocusRegion } from "@vros/theme.slint";'
SOURCES = sorted(PANELS.glob("*.slint"))
ANSI = re.compile(r"\x1b\[[0-9;]*m")


def _compiler() -> Path:
    binary = Path(sys.executable).parent / "slint-compiler"
    if not binary.exists():
        pytest.skip("slint-compiler is not installed in the venv (pip install slint-compiler)")
    return binary


def _code(source: str) -> str:
    """The source without comments (string literals kept)."""
    source = re.sub(r"/\*.*?\*/", "", source, flags=re.S)
    return re.sub(r"//[^\n]*", "", source)


def _text(path: Path) -> str:
    return path.read_text(encoding="utf-8")


def _ids(path: Path) -> list[str]:
    return [p.name for p in SOURCES]


def test_the_three_panels_exist() -> None:
    assert {p.name for p in SOURCES} == {"overlay.slint", "dash-tab.slint", "now-playing.slint"}


@pytest.mark.parametrize("path", SOURCES, ids=lambda p: p.name)
def test_panel_compiles_against_the_theme_stub(path: Path) -> None:
    done = subprocess.run(
        [str(_compiler()), "-L", f"vros={THEME_DIR}", str(path), "-o", "/dev/null"],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    report = ANSI.sub("", done.stderr)
    assert done.returncode == 0, report
    headlines = [line for line in report.splitlines() if re.match(r"^(error|warning)", line)]
    # The only warning a plain root (docs/protocol-notes.md#r29) gets from this compiler is the
    # deprecation notice.
    assert all("doesn't inherit Window" in line for line in headlines), report


@pytest.mark.parametrize("path", SOURCES, ids=lambda p: p.name)
def test_a_broken_panel_would_fail(path: Path, tmp_path: Path) -> None:
    """The compile test can fail: the same panel with a wrong colour name does not compile."""
    broken = tmp_path / path.name
    broken.write_text(_text(path).replace("ExtTheme.c.tx-hi", "ExtTheme.c.nope", 1))
    done = subprocess.run(
        [str(_compiler()), "-L", f"vros={THEME_DIR}", str(broken), "-o", "/dev/null"],
        capture_output=True,
        timeout=120,
        check=False,
    )
    assert done.returncode != 0


@pytest.mark.parametrize("path", SOURCES, ids=lambda p: p.name)
def test_the_theme_is_the_only_import(path: Path) -> None:
    code = _code(_text(path))
    imports = re.findall(r"^\s*(?:import|export\s*\{[^}]*\}\s*from)\b[^;]*;", code, flags=re.M)
    assert [i.strip() for i in imports] == [THEME_IMPORT]
    assert "@image-url" not in code
    assert "std-widgets" not in code


@pytest.mark.parametrize("path", SOURCES, ids=lambda p: p.name)
def test_root_is_a_plain_component(path: Path) -> None:
    exported = re.findall(
        r"export\s+component\s+([\w-]+)(\s+inherits\s+[\w-]+)?", _code(_text(path))
    )
    assert len(exported) == 1, "one exported component: the root"
    assert exported[0][1] == "", "docs/protocol-notes.md#r29: a panel root does not inherit Window"


@pytest.mark.parametrize("path", SOURCES, ids=lambda p: p.name)
def test_colours_sizes_and_motion_come_from_the_theme(path: Path) -> None:
    code = _code(_text(path))
    assert not re.search(r"#[0-9a-fA-F]{3,8}\b|\brgba?\(|\bhsv\(|\bColors\.", code)
    assert set(re.findall(r"\b\d+(?:\.\d+)?(?:px|phx|pt|rem|mm|cm|in)\b", code)) <= {"0px"}
    assert not re.search(r"\b\d+(?:\.\d+)?m?s\b", code), "durations only from motion tokens"
    for block in re.findall(r"animate [^{]*\{([^}]*)\}", code):
        assert re.search(r"duration:\s*ExtTheme\.motion-(?:press|expand);", block), block


@pytest.mark.parametrize("path", SOURCES, ids=lambda p: p.name)
def test_panels_hold_no_words(path: Path) -> None:
    """Every user-visible text is a prop (catalogs en-US/ja-JP); literals are symbols only."""
    literals = re.findall(r'"((?:[^"\\]|\\.)*)"', _code(_text(path)))
    words = [s for s in literals if s != "@vros/theme.slint" and re.search(r"[^\W\d_]", s)]
    assert words == []


def _components(code: str) -> dict[str, str]:
    """Component name -> its body."""
    bodies: dict[str, str] = {}
    for m in re.finditer(r"component\s+([\w-]+)[^{]*\{", code):
        depth, i = 1, m.end()
        while depth:
            depth += {"{": 1, "}": -1}.get(code[i], 0)
            i += 1
        bodies[m.group(1)] = code[m.end() : i - 1]
    return bodies


@pytest.mark.parametrize("path", SOURCES, ids=lambda p: p.name)
def test_touch_targets_are_at_least_hit_min(path: Path) -> None:
    components = _components(_code(_text(path)))
    with_touch = {n for n, body in components.items() if "TouchArea" in body}
    for name in with_touch:
        body = components[name]
        assert "min-height: ExtTheme.hit-min;" in body, f"{name}: a TouchArea below hit-min"
    if path.name != "now-playing.slint":
        assert with_touch, "no TouchArea found: the check would prove nothing"


# -- the focus contract (PAN-23..31) ------------------------------------------------------------


def _text_inputs(code: str) -> dict[str, str]:
    """id -> body of every `id := TextInput { ... }`."""
    found: dict[str, str] = {}
    for m in re.finditer(r"([\w-]+)\s*:=\s*TextInput\s*\{", code):
        depth, i = 1, m.end()
        while depth:
            depth += {"{": 1, "}": -1}.get(code[i], 0)
            i += 1
        found[m.group(1)] = code[m.end() : i - 1]
    return found


@pytest.mark.parametrize("path", SOURCES, ids=lambda p: p.name)
def test_focus_contract_wherever_there_is_a_text_field(path: Path) -> None:
    code = _code(_text(path))
    inputs = _text_inputs(code)
    assert len(re.findall(r"\bTextInput\b", code)) == len(inputs), "every TextInput has an id"
    if path.name == "now-playing.slint":
        assert inputs == {}
        return
    assert inputs, f"{path.name} was expected to have text fields"
    root = _components(code)[re.findall(r"export\s+component\s+([\w-]+)", code)[-1]]
    assert "callback field-focus(bool);" in root
    assert "in property <int> field-blur;" in root
    blur = re.search(r"changed field-blur\s*=>\s*\{([^}]*)\}", root)
    assert blur, "no `changed field-blur` handler on the root"
    for field_id, body in inputs.items():
        # PAN-24: every has-focus edge is reported.
        assert "changed has-focus => { root.field-focus(self.has-focus); }" in body, field_id
        # PAN-27: a change of field-blur takes its focus away.
        assert f"{field_id}.clear-focus();" in blur.group(1), field_id
        # PAN-31: an ExtFocusRegion in the same box, the size of the box, tracking the field.
        region = (
            r"ExtFocusRegion\s*\{\s*width:\s*parent\.width;\s*height:\s*parent\.height;\s*"
            rf"focused:\s*{re.escape(field_id)}\.has-focus;\s*\}}"
        )
        assert re.search(region, code), f"{field_id}: no ExtFocusRegion"
        # vrosdev's `focus PANEL ELEMENT` hook.
        hook = re.search(r"public function (focus-[\w-]+)\(\)\s*\{[^}]*" + re.escape(field_id)
                         + r"\.focus\(\);", root)  # fmt: skip
        assert hook, f"{field_id}: no public focus-<element>() hook"


def test_overlay_reports_focus_lost_before_hiding_a_field() -> None:
    """PAN-30: a tab switch or the deck going away reports field-focus(false) itself."""
    code = _code(_text(PANELS / "overlay.slint"))
    root = _components(code)["CueboardOverlay"]
    drop = re.search(r"function drop-media-focus\(\)\s*\{(.*?)\n    \}", root, flags=re.S)
    assert drop and "root.field-focus(false);" in drop.group(1)
    switch = re.search(r"function show-view\(next: int\)\s*\{(.*?)\n    \}", root, flags=re.S)
    assert switch and "root.field-focus(false);" in switch.group(1)
    assert "root.drop-media-focus();" in switch.group(1)
    media_mode = re.search(r"changed media-mode\s*=>\s*\{(.*?)\n    \}", root, flags=re.S)
    assert media_mode and "root.drop-media-focus();" in media_mode.group(1)
