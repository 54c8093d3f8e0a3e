"""The host's static rules for a panel source, applied before compiling.

- docs/protocol-notes.md#r24 / PAN-33: the only import is `@vros/theme.slint`; any other import
(std-widgets included,
  a font file, a re-export from another file) and any `@image-url(...)` fail with
  `compile_failed`, naming what was refused. Images reach panels only through `assets`.
- docs/protocol-notes.md#r25 / PAN-23: a text field without the focus contract on the root is legal
but gets a warning:
  it will receive no keyboard.
- docs/protocol-notes.md#r29: a panel root is a plain component; inheriting Window is a violation
(it still runs).
"""

import re
from dataclasses import dataclass

from vrosdev.panels.declarations import (
    FIELD_BLUR,
    FIELD_FOCUS,
    PanelInterface,
    find_components,
    find_root,
    parse_interface,
)
from vrosdev.panels.source_text import LineIndex, blank_comments_and_strings
from vrosdev.theme import THEME_IMPORT

_KW = r"(?<![A-Za-z0-9_-])"
_IMPORT_FROM = re.compile(
    rf"{_KW}(?:import\s*\{{[^}}]*\}}|export\s*(?:\{{[^}}]*\}}|\*))\s*from\s*\""
)
_IMPORT_FILE = re.compile(rf"{_KW}import\s*\"")
_IMAGE_URL = re.compile(r"@image-url\s*\(")
_TEXT_FIELD = re.compile(
    rf"(?:{_KW}inherits\s+|:=\s*|^|[\s{{;}}])(?P<kind>TextInput|LineEdit|TextEdit)\s*\{{", re.M
)
_FOCUS_REGION = re.compile(rf"{_KW}ExtFocusRegion\s*\{{")  # a use, not the import
_WINDOW_BASES = frozenset({"Window", "Dialog", "PopupWindow"})


@dataclass(frozen=True)
class PanelCheck:
    """The outcome of the static rules. `errors` make `define` fail with compile_failed."""

    root: str | None
    has_focus_contract: bool
    has_text_field: bool
    errors: tuple[str, ...]  # compile_failed messages ("line:col: ...")
    violations: tuple[str, ...]  # logged violations; the panel still runs
    warnings: tuple[str, ...]
    interface: PanelInterface
    has_focus_region: bool = False  # PAN-31; without one the whole panel is the field (PAN-32)

    @property
    def ok(self) -> bool:
        return not self.errors


def _string_at(source: str, quote_at: int) -> tuple[str, int]:
    """The literal starting at the `"` at quote_at, and the offset after its closing quote."""
    i = quote_at + 1
    chars: list[str] = []
    while i < len(source) and source[i] != '"':
        if source[i] == "\\" and i + 1 < len(source):
            i += 1
        chars.append(source[i])
        i += 1
    return "".join(chars), i + 1


def _import_errors(source: str, blanked: str, lines: LineIndex) -> list[str]:
    errors: list[str] = []
    hits = [(m.end() - 1, m.start()) for m in _IMPORT_FROM.finditer(blanked)]
    hits += [(m.end() - 1, m.start()) for m in _IMPORT_FILE.finditer(blanked)]
    for quote_at, start in sorted(hits):
        path, _ = _string_at(source, quote_at)
        if path != THEME_IMPORT:
            errors.append(
                f'{lines.label(start)}: import of "{path}" is not allowed: a panel may import '
                f'only "{THEME_IMPORT}" (docs/protocol-notes.md#r24, PAN-33)'
            )
    for m in _IMAGE_URL.finditer(blanked):
        paren = m.end() - 1
        rest = blanked[paren + 1 :].lstrip()
        target = ""
        if rest.startswith('"'):
            quote_at = len(blanked) - len(rest)
            target, _ = _string_at(source, quote_at)
        errors.append(
            f'{lines.label(m.start())}: @image-url("{target}") is not allowed: images reach '
            "panels only through the assets namespace and [image] props "
            "(docs/protocol-notes.md#r24)"
        )
    return errors


def check_source(source: str) -> PanelCheck:
    blanked = blank_comments_and_strings(source)
    lines = LineIndex.of(source)
    interface = parse_interface(source)
    errors = _import_errors(source, blanked, lines)
    violations: list[str] = []
    warnings: list[str] = [f"could not read a declaration: {p}" for p in interface.problems]

    root = find_root(find_components(blanked))
    if root is None:
        errors.append("1:1: no component found: a panel source must export its root component")
    elif root.base in _WINDOW_BASES:
        violations.append(
            f"{lines.label(root.offset)}: root component {root.name} inherits {root.base}: "
            "a panel root is a plain component, the host places it (docs/protocol-notes.md#r29)"
        )

    text_field = _TEXT_FIELD.search(blanked)
    has_contract = interface.has_focus_contract
    if text_field is not None and not has_contract:
        warnings.append(
            f"{lines.label(text_field.start('kind'))}: {text_field.group('kind')} without the "
            f"focus contract on the root (`callback {FIELD_FOCUS}(bool)` and "
            f"`in property <int> {FIELD_BLUR}`): this panel will receive no keyboard "
            "(docs/protocol-notes.md#r25, PAN-23)"
        )
    elif not has_contract and (
        FIELD_FOCUS in interface.callbacks or FIELD_BLUR in interface.properties
    ):
        warnings.append(
            f"incomplete focus contract: the root needs both `callback {FIELD_FOCUS}(bool)` and "
            f"`in property <int> {FIELD_BLUR}` (PAN-23)"
        )
    return PanelCheck(
        root=interface.root_name,
        has_focus_contract=has_contract,
        has_text_field=text_field is not None,
        errors=tuple(errors),
        violations=tuple(violations),
        warnings=tuple(warnings),
        interface=interface,
        has_focus_region=_FOCUS_REGION.search(blanked) is not None,
    )
