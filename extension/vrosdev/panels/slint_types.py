"""The Slint types a panel declares, parsed from their source text.

Slint's Python introspection only knows coarse kinds (Number, Model, ...): it cannot tell an
`int` from a `float` or `[string]` from `[image]`. The host must check wire values against the
declared type, so it reads the declaration text itself.
"""

from dataclasses import dataclass

type SlintType = Scalar | ListOf | StructOf


@dataclass(frozen=True)
class Scalar:
    """A builtin (`int`, `string`, `image`, ...) or a name the parser cannot resolve (an enum)."""

    name: str

    def __str__(self) -> str:
        return self.name


@dataclass(frozen=True)
class ListOf:
    element: SlintType

    def __str__(self) -> str:
        return f"[{self.element}]"


@dataclass(frozen=True)
class StructOf:
    """A struct; `name` is None for an anonymous struct `{c0: string, c1: int}`."""

    name: str | None
    fields: tuple[tuple[str, SlintType], ...]

    def __str__(self) -> str:
        if self.name is not None:
            return self.name
        return "{" + ", ".join(f"{k}: {v}" for k, v in self.fields) + "}"


class SlintTypeError(ValueError):
    """The type text is not one the parser understands."""


def _split_top_level(text: str, sep: str = ",") -> list[str]:
    parts: list[str] = []
    depth, start = 0, 0
    for i, ch in enumerate(text):
        if ch in "[{(":
            depth += 1
        elif ch in "]})":
            depth -= 1
        elif ch == sep and depth == 0:
            parts.append(text[start:i])
            start = i + 1
    parts.append(text[start:])
    return [p.strip() for p in parts if p.strip()]


def parse_type(text: str, structs: dict[str, StructOf] | None = None) -> SlintType:
    """Parse `int`, `[string]`, `[{c0: string, c1: int}]`, `[Row]`, ... (named structs resolved)."""
    text = text.strip()
    known = structs or {}
    if text.startswith("[") and text.endswith("]"):
        return ListOf(parse_type(text[1:-1], known))
    if text.startswith("{") and text.endswith("}"):
        return StructOf(None, parse_fields(text[1:-1], known))
    if not text or any(ch in text for ch in "[]{}(),:<> "):
        raise SlintTypeError(f"cannot read the type {text!r}")
    return known.get(text, Scalar(text))


def parse_fields(text: str, structs: dict[str, StructOf]) -> tuple[tuple[str, SlintType], ...]:
    fields: list[tuple[str, SlintType]] = []
    for part in _split_top_level(text):
        name, colon, type_text = part.partition(":")
        if not colon:
            raise SlintTypeError(f"cannot read the struct field {part!r}")
        fields.append((name.strip(), parse_type(type_text, structs)))
    return tuple(fields)


def parse_parameter_list(text: str, structs: dict[str, StructOf]) -> tuple[SlintType, ...]:
    """Callback parameters: `int, string` or named `id: int, name: string`."""
    types: list[SlintType] = []
    for part in _split_top_level(text):
        head, colon, tail = part.partition(":")
        is_named = colon and not head.strip().startswith(("[", "{"))
        types.append(parse_type(tail if is_named else part, structs))
    return tuple(types)
