"""A manifest's validation errors, each as the one line :class:`vxp.manifest.ManifestError`
lists (SET-14): the key path as the author wrote it, the reason, and the rule it breaks."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, cast

from pydantic_core import ErrorDetails

from .limits import SETTING_KEY_RE
from .settings_rules import SETTING_KINDS, describe_json

__all__ = ["PANEL_ROLES", "RULE_R27", "describe"]

PANEL_ROLES = ("overlay", "dash-tab")  # PAN-2
RULE_R27 = "docs/protocol-notes.md#r27: a host refuses keys it does not know"


def _clean_loc(loc: tuple[int | str, ...]) -> tuple[int | str, ...]:
    # A discriminated union puts the tag in the path: ('settings', 0, 'number', 'min').
    if (
        len(loc) >= 3
        and loc[0] == "settings"
        and isinstance(loc[1], int)
        and loc[2] in SETTING_KINDS
    ):
        return loc[:2] + loc[3:]
    return loc


def _render(loc: Sequence[int | str]) -> str:
    out = ""
    for part in loc:
        out += f"[{part}]" if isinstance(part, int) else (f".{part}" if out else part)
    return out or "(top level)"


def _setting_key(data: Mapping[str, Any], loc: Sequence[int | str]) -> str | None:
    if len(loc) < 2 or loc[0] != "settings" or not isinstance(loc[1], int):
        return None
    raw: object = data.get("settings")
    if not isinstance(raw, list):
        return None
    settings = cast(list[object], raw)
    if loc[1] >= len(settings):
        return None
    entry = settings[loc[1]]
    if isinstance(entry, dict):
        key: object = entry.get("key")  # pyright: ignore[reportUnknownMemberType,reportUnknownVariableType]
        if isinstance(key, str) and SETTING_KEY_RE.fullmatch(key):
            return key
    return None


def _missing_rule(loc: Sequence[int | str]) -> str:
    if loc and loc[0] == "settings":
        field = loc[-1]
        if field in ("min", "max"):
            return "SET-8: a number setting has min and max"
        if field == "choices":
            return "SET-10: a select setting has choices"
        if "choices" in loc:
            return "SET-10: each choice is a table { value, label }"
        return "SET-4: every setting has key, kind, label and default"
    return "see docs/manifest.md"


_TYPE_WORDS = {
    "string_type": "must be a string",
    "bool_type": "must be true or false",
    "int_type": "must be an integer",
    "list_type": "must be an array",
    "dict_type": "must be a table",
    "model_type": "must be a table",
    "model_attributes_type": "must be a table",
}


def describe(error: ErrorDetails, data: Mapping[str, Any]) -> str:
    """One problem as ``<key path>: <reason (rule)>``."""
    loc = _clean_loc(error["loc"])
    kind = error["type"]
    ctx: dict[str, Any] = dict(error.get("ctx") or {})
    if kind == "value_error":
        reason = str(ctx.get("error", error["msg"]))
    elif kind == "extra_forbidden":
        name = loc[-1] if loc else "?"
        if tuple(loc[:-1]) == ("panels",):
            roles = " and ".join(PANEL_ROLES)
            reason = (
                f"unknown key {name!r}: panel roles are {roles} (PAN-2, docs/protocol-notes.md#r27)"
            )
        else:
            reason = f"unknown key {name!r} ({RULE_R27})"
    elif kind == "missing":
        reason = f"required key is missing ({_missing_rule(loc)})"
    elif kind == "union_tag_not_found":
        loc = (*loc, "kind")
        reason = "required key is missing (SET-4: kind is one of text, toggle, number, select)"
    elif kind == "union_tag_invalid":
        loc = (*loc, "kind")
        given: object = ctx.get("tag")
        entry: object = error.get("input")
        if isinstance(entry, dict):
            given = cast(dict[str, object], entry).get("kind", given)
        shown = repr(given)[:40] if isinstance(given, str) else describe_json(given)
        reason = f"{shown} is not one of text, toggle, number, select (SET-4)"
    elif kind in _TYPE_WORDS:
        reason = f"{_TYPE_WORDS[kind]}, not {describe_json(error.get('input'))}"
        if loc == ("settings",):
            reason += " (write each setting as a [[settings]] table)"
        elif loc and loc[0] == "settings":
            reason += f" ({_missing_rule(loc)})"
    else:
        reason = error["msg"]
    path = _render(loc)
    key = _setting_key(data, loc)
    if key is not None:
        path += f" (setting {key!r})"
    return f"{path}: {reason}"
