"""What a panel's root component declares: its props, callbacks and public functions.

The root is the last `export component` in the file (the last `component` when nothing is
exported), which is the component Slint itself treats as the file's main one. Only declarations
directly in the root's body count: properties of child elements are not part of the panel's
wire surface (docs/protocol-notes.md#r29: wire names are the Slint names as declared).
"""

import re
from dataclasses import dataclass, field

from vrosdev.panels.slint_types import (
    ListOf,
    Scalar,
    SlintType,
    SlintTypeError,
    StructOf,
    parse_fields,
    parse_parameter_list,
    parse_type,
)
from vrosdev.panels.source_text import blank_comments_and_strings, depth_at, matching_brace

_IDENT = r"[A-Za-z_][A-Za-z0-9_-]*"
# A keyword starts where no identifier character (`-` included) precedes it.
_KW = r"(?<![A-Za-z0-9_-])"
_COMPONENT = re.compile(
    rf"(?P<export>{_KW}export\s+)?{_KW}component\s+(?P<name>{_IDENT})"
    rf"(?:\s+inherits\s+(?P<base>{_IDENT}))?\s*\{{"
)
_STRUCT = re.compile(rf"{_KW}struct\s+(?P<name>{_IDENT})\s*\{{")
_PROPERTY = re.compile(
    rf"(?:{_KW}(?P<access>in-out|in|out|private)\s+)?{_KW}property\s*(?:<(?P<type>[^>]*)>)?\s*"
    rf"(?P<name>{_IDENT})"
)
_CALLBACK = re.compile(
    rf"{_KW}callback\s+(?P<name>{_IDENT})\s*(?:\((?P<params>[^)]*)\))?\s*(?:->\s*(?P<ret>[^;{{]+))?"
)
_FUNCTION = re.compile(
    rf"(?:{_KW}(?P<visibility>public|protected)\s+)?(?:{_KW}pure\s+)?{_KW}function\s+(?P<name>{_IDENT})"
    r"\s*\((?P<params>[^)]*)\)"
)

# The focus contract of VXP 1.7 (PAN-23).
FIELD_FOCUS = "field-focus"
FIELD_BLUR = "field-blur"


@dataclass(frozen=True)
class PropertyDecl:
    name: str
    access: str  # "in", "in-out", "out" or "private"
    type: SlintType | None  # None: written without a type (`in property x <=> a.b;`)
    type_text: str
    offset: int

    @property
    def settable(self) -> bool:
        return self.access in ("in", "in-out")


@dataclass(frozen=True)
class CallbackDecl:
    name: str
    params: tuple[SlintType, ...]
    params_text: str
    returns: str | None
    offset: int


@dataclass(frozen=True)
class ComponentDecl:
    name: str
    base: str | None
    exported: bool
    offset: int
    body_start: int  # offset of its `{`
    body_end: int  # offset of its `}`


@dataclass(frozen=True)
class PanelInterface:
    """The root component's surface, as the host sees it."""

    root: ComponentDecl | None
    properties: dict[str, PropertyDecl] = field(default_factory=dict[str, PropertyDecl])
    callbacks: dict[str, CallbackDecl] = field(default_factory=dict[str, CallbackDecl])
    public_functions: tuple[str, ...] = ()  # only those without parameters: the host's hooks
    structs: dict[str, StructOf] = field(default_factory=dict[str, StructOf])
    problems: tuple[str, ...] = ()  # declarations the parser could not read

    @property
    def root_name(self) -> str | None:
        return self.root.name if self.root else None

    @property
    def has_focus_contract(self) -> bool:
        """PAN-23: `callback field-focus(bool)` and `in property <int> field-blur` on the root."""
        focus = self.callbacks.get(FIELD_FOCUS)
        blur = self.properties.get(FIELD_BLUR)
        return (
            focus is not None
            and focus.params == (Scalar("bool"),)
            and blur is not None
            and blur.settable
            and blur.type == Scalar("int")
        )


def find_components(blanked: str) -> list[ComponentDecl]:
    found: list[ComponentDecl] = []
    for m in _COMPONENT.finditer(blanked):
        if depth_at(blanked, 0, m.start()) != 0:
            continue
        open_at = m.end() - 1
        found.append(
            ComponentDecl(
                name=m.group("name"),
                base=m.group("base"),
                exported=m.group("export") is not None,
                offset=m.start("name"),
                body_start=open_at,
                body_end=matching_brace(blanked, open_at),
            )
        )
    return found


def find_root(components: list[ComponentDecl]) -> ComponentDecl | None:
    exported = [c for c in components if c.exported]
    pool = exported or components
    return pool[-1] if pool else None


def _find_structs(blanked: str, problems: list[str]) -> dict[str, StructOf]:
    structs: dict[str, StructOf] = {}
    for m in _STRUCT.finditer(blanked):
        if depth_at(blanked, 0, m.start()) != 0:
            continue
        open_at = m.end() - 1
        body = blanked[open_at + 1 : matching_brace(blanked, open_at)]
        try:
            structs[m.group("name")] = StructOf(m.group("name"), parse_fields(body, structs))
        except SlintTypeError as exc:
            problems.append(f"struct {m.group('name')}: {exc}")
    return structs


def parse_interface(source: str) -> PanelInterface:
    blanked = blank_comments_and_strings(source)
    problems: list[str] = []
    structs = _find_structs(blanked, problems)
    root = find_root(find_components(blanked))
    if root is None:
        return PanelInterface(root=None, structs=structs, problems=tuple(problems))
    body_start, body_end = root.body_start + 1, root.body_end

    def at_top(offset: int) -> bool:
        return depth_at(blanked, body_start, offset) == 0

    properties: dict[str, PropertyDecl] = {}
    for m in _PROPERTY.finditer(blanked, body_start, body_end):
        if not at_top(m.start()):
            continue
        type_text = (m.group("type") or "").strip()
        prop_type: SlintType | None = None
        if type_text:
            try:
                prop_type = parse_type(type_text, structs)
            except SlintTypeError as exc:
                problems.append(f"property {m.group('name')}: {exc}")
        properties[m.group("name")] = PropertyDecl(
            name=m.group("name"),
            access=m.group("access") or "private",
            type=prop_type,
            type_text=type_text,
            offset=m.start(),
        )

    callbacks: dict[str, CallbackDecl] = {}
    for m in _CALLBACK.finditer(blanked, body_start, body_end):
        if not at_top(m.start()):
            continue
        params_text = (m.group("params") or "").strip()
        try:
            params = parse_parameter_list(params_text, structs)
        except SlintTypeError as exc:
            problems.append(f"callback {m.group('name')}: {exc}")
            params = ()
        ret = m.group("ret")
        callbacks[m.group("name")] = CallbackDecl(
            name=m.group("name"),
            params=params,
            params_text=params_text,
            returns=ret.strip() if ret else None,
            offset=m.start(),
        )

    functions = tuple(
        m.group("name")
        for m in _FUNCTION.finditer(blanked, body_start, body_end)
        if at_top(m.start()) and m.group("visibility") == "public" and not m.group("params").strip()
    )
    return PanelInterface(
        root=root,
        properties=properties,
        callbacks=callbacks,
        public_functions=functions,
        structs=structs,
        problems=tuple(problems),
    )


def describe_type(slint_type: SlintType | None) -> str:
    return "(untyped)" if slint_type is None else str(slint_type)


__all__ = [
    "FIELD_BLUR",
    "FIELD_FOCUS",
    "CallbackDecl",
    "ComponentDecl",
    "ListOf",
    "PanelInterface",
    "PropertyDecl",
    "Scalar",
    "StructOf",
    "describe_type",
    "parse_interface",
]
