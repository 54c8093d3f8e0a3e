"""The manifest's ``[[settings]]`` entries and the rules their values obey (VXP SET-4 … SET-13).

One set of rules serves three callers: the manifest loader checks each entry's ``default``, the host
checks a ``kv`` write to a declared key (SET-18, docs/protocol-notes.md#r9: err ``invalid_value``)
and the value in a ``settings_changed`` it is about to send, and stored ``text`` values are held to
the same 1 KiB as defaults (docs/protocol-notes.md#r13). So the per-kind checks are plain functions
returning a reason, and the entry models call the same functions on their defaults.

Where the page is silent (docs/protocol-notes.md#r13): ``min``/``max`` are inclusive and choice
labels obey the 200-byte label limit; ``select`` choice values are strings, as in the page's
example; ``number`` values are JSON integers (``80.0`` and ``true`` are not).
"""

from __future__ import annotations

from typing import Annotated, Any, Literal, cast

from pydantic import BaseModel, ConfigDict, Field, ValidationInfo, field_validator

from .limits import (
    SETTING_CHOICES_MAX,
    SETTING_CHOICES_MIN,
    SETTING_KEY_RE,
    SETTING_LABEL_MAX_BYTES,
    SETTING_NUMBER_ABS_MAX,
    SETTING_TEXT_MAX_BYTES,
    utf8_len,
)

__all__ = [
    "SETTING_KINDS",
    "NumberSetting",
    "SelectChoice",
    "SelectSetting",
    "Setting",
    "TextSetting",
    "ToggleSetting",
    "check_value",
    "describe_json",
]

SETTING_KINDS = ("text", "toggle", "number", "select")  # SET-4

_SHOW_MAX_CHARS = 40  # how much of a refused string a message quotes


def describe_json(value: object) -> str:
    """The JSON type of ``value`` in words, for messages that must not echo the value."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true/false"
    if isinstance(value, int):
        return "an integer"
    if isinstance(value, float):
        return "a number with a fraction"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, list | tuple):
        return "an array"
    if isinstance(value, dict):
        return "an object"
    return type(value).__name__


def _show(text: str) -> str:
    """A short quotation of ``text``: long or hostile input never floods a message."""
    if len(text) <= _SHOW_MAX_CHARS:
        return repr(text)
    return repr(text[:_SHOW_MAX_CHARS]) + "…"


def _show_int(value: int) -> str:
    # str() of an int over 4300 digits raises; such a number is only ever "out of range".
    return str(value) if abs(value) <= 10**18 else "a number that large"


# --- per-kind rules: a reason, or None ------------------------------------------------------


def key_problem(key: object) -> str | None:
    if not isinstance(key, str):
        return f"must be a string, not {describe_json(key)} (SET-12)"
    if not SETTING_KEY_RE.fullmatch(key):
        return f"{_show(key)} is not 1-64 bytes of [a-z0-9_-] (SET-12)"
    return None


def label_problem(label: object, rule: str = "SET-13") -> str | None:
    if not isinstance(label, str):
        return f"must be a string, not {describe_json(label)} ({rule})"
    size = utf8_len(label)
    if size > SETTING_LABEL_MAX_BYTES:
        return f"is {size} bytes; labels are at most {SETTING_LABEL_MAX_BYTES} bytes ({rule})"
    return None


def text_problem(value: object) -> str | None:
    if not isinstance(value, str):
        return f"must be a string, not {describe_json(value)} (SET-5)"
    size = utf8_len(value)
    if size > SETTING_TEXT_MAX_BYTES:
        return (
            f"is {size} bytes; text is at most {SETTING_TEXT_MAX_BYTES} bytes "
            "(SET-5, docs/protocol-notes.md#r13)"
        )
    return None


def toggle_problem(value: object) -> str | None:
    if not isinstance(value, bool):
        return f"must be true or false, not {describe_json(value)} (SET-6)"
    return None


def number_problem(value: object, minimum: int, maximum: int) -> str | None:
    if isinstance(value, bool) or not isinstance(value, int):
        return f"must be an integer, not {describe_json(value)} (SET-7)"
    if value < minimum:
        return (
            f"{_show_int(value)} is below min {minimum} "
            "(SET-7; min and max are inclusive, docs/protocol-notes.md#r13)"
        )
    if value > maximum:
        return (
            f"{_show_int(value)} is above max {maximum} "
            "(SET-7; min and max are inclusive, docs/protocol-notes.md#r13)"
        )
    return None


def bound_problem(value: object) -> str | None:
    """``min``/``max`` themselves: integers within ±1,000,000 (SET-8)."""
    if isinstance(value, bool) or not isinstance(value, int):
        return f"must be an integer, not {describe_json(value)} (SET-8)"
    if abs(value) > SETTING_NUMBER_ABS_MAX:
        return f"{_show_int(value)} is outside ±{SETTING_NUMBER_ABS_MAX:,} (SET-8)"
    return None


def select_problem(value: object, values: list[str]) -> str | None:
    if not isinstance(value, str):
        return f"must be one of the choices' values, not {describe_json(value)} (SET-9)"
    if value not in values:
        listed = ", ".join(_show(v) for v in values)
        return f"{_show(value)} is not one of the choices' values {listed} (SET-9)"
    return None


def list_length(value: object) -> int | None:
    """``len(value)`` when it is a JSON array, else None (for before-validators)."""
    return len(cast(list[object], value)) if isinstance(value, list) else None


def _raise_if(problem: str | None) -> None:
    if problem is not None:
        raise ValueError(problem)


# --- the entries ----------------------------------------------------------------------------


class _Entry(BaseModel):
    """Manifest content is authored by hand: no coercion, and no key a host does not know."""

    model_config = ConfigDict(extra="forbid", frozen=True, strict=True, defer_build=True)


class _SettingBase(_Entry):
    key: str
    label: str

    @field_validator("key", mode="before")
    @classmethod
    def _key_rule(cls, value: Any) -> Any:
        _raise_if(key_problem(value))
        return value

    @field_validator("label", mode="before")
    @classmethod
    def _label_rule(cls, value: Any) -> Any:
        _raise_if(label_problem(value))
        return value


class TextSetting(_SettingBase):
    kind: Literal["text"]
    placeholder: str | None = None
    default: str

    @field_validator("placeholder", mode="before")
    @classmethod
    def _placeholder_rule(cls, value: Any) -> Any:
        if value is not None and not isinstance(value, str):
            raise ValueError(f"must be a string, not {describe_json(value)} (SET-5)")
        return value

    @field_validator("default", mode="before")
    @classmethod
    def _default_rule(cls, value: Any) -> Any:
        _raise_if(text_problem(value))
        return value


class ToggleSetting(_SettingBase):
    kind: Literal["toggle"]
    default: bool

    @field_validator("default", mode="before")
    @classmethod
    def _default_rule(cls, value: Any) -> Any:
        _raise_if(toggle_problem(value))
        return value


class NumberSetting(_SettingBase):
    kind: Literal["number"]
    min: int
    max: int
    default: int

    @field_validator("min", mode="before")
    @classmethod
    def _min_rule(cls, value: Any) -> Any:
        _raise_if(bound_problem(value))
        return value

    @field_validator("max", mode="before")
    @classmethod
    def _max_rule(cls, value: Any, info: ValidationInfo) -> Any:
        _raise_if(bound_problem(value))
        minimum = info.data.get("min")
        if isinstance(minimum, int) and value <= minimum:
            raise ValueError(f"max {value} is not greater than min {minimum} (SET-8: min < max)")
        return value

    @field_validator("default", mode="before")
    @classmethod
    def _default_rule(cls, value: Any, info: ValidationInfo) -> Any:
        minimum, maximum = info.data.get("min"), info.data.get("max")
        if isinstance(minimum, int) and isinstance(maximum, int):
            _raise_if(number_problem(value, minimum, maximum))
        elif isinstance(value, bool) or not isinstance(value, int):
            # min or max is already reported; the default's own type is still worth saying.
            raise ValueError(f"must be an integer, not {describe_json(value)} (SET-7)")
        return value


class SelectChoice(_Entry):
    value: str
    label: str

    @field_validator("value", mode="before")
    @classmethod
    def _value_rule(cls, value: Any) -> Any:
        if not isinstance(value, str):
            raise ValueError(f"must be a string, not {describe_json(value)} (SET-10)")
        return value

    @field_validator("label", mode="before")
    @classmethod
    def _label_rule(cls, value: Any) -> Any:
        _raise_if(
            label_problem(value, rule="SET-13, docs/protocol-notes.md#r13: choice labels too")
        )
        return value


class SelectSetting(_SettingBase):
    kind: Literal["select"]
    choices: list[SelectChoice]
    default: str

    @field_validator("choices", mode="before")
    @classmethod
    def _count_rule(cls, value: Any) -> Any:
        count = list_length(value)
        if count is not None and not SETTING_CHOICES_MIN <= count <= SETTING_CHOICES_MAX:
            raise ValueError(
                f"has {count} choices; a select has "
                f"{SETTING_CHOICES_MIN}-{SETTING_CHOICES_MAX} (SET-10)"
            )
        return value

    @field_validator("choices")
    @classmethod
    def _unique_rule(cls, choices: list[SelectChoice]) -> list[SelectChoice]:
        seen: set[str] = set()
        for choice in choices:
            if choice.value in seen:
                raise ValueError(f"choice value {_show(choice.value)} appears twice (SET-10)")
            seen.add(choice.value)
        return choices

    @field_validator("default", mode="before")
    @classmethod
    def _default_rule(cls, value: Any, info: ValidationInfo) -> Any:
        choices = info.data.get("choices")
        if isinstance(choices, list):
            values = [c.value for c in choices if isinstance(c, SelectChoice)]  # pyright: ignore[reportUnknownVariableType]
            _raise_if(select_problem(value, values))
        elif not isinstance(value, str):
            raise ValueError(f"must be a string, not {describe_json(value)} (SET-9)")
        return value

    @property
    def choice_values(self) -> list[str]:
        return [c.value for c in self.choices]


Setting = Annotated[
    TextSetting | ToggleSetting | NumberSetting | SelectSetting,
    Field(discriminator="kind"),
]
"""One ``[[settings]]`` entry, told apart by ``kind`` (SET-4)."""


def check_value(setting: Setting, value: object) -> str | None:
    """Why ``value`` may not be stored under ``setting``'s key, or None when it may.

    For the host: a ``kv`` ``set`` to a declared key (answer err ``invalid_value`` with the reason,
    docs/protocol-notes.md#r9) and a value it is about to send in ``settings_changed``. The reason
    names the rule and never quotes more than a short prefix of the value; the caller adds the key.
    Never raises, whatever JSON value it is given.
    """
    match setting:
        case TextSetting():
            return text_problem(value)
        case ToggleSetting():
            return toggle_problem(value)
        case NumberSetting():
            return number_problem(value, setting.min, setting.max)
        case SelectSetting():
            return select_problem(value, setting.choice_values)
