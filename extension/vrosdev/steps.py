"""The step language of vrosdev scripts: parsing a line into a :class:`Step`, and how a step is
written in the transcript. The verbs and what they do are listed in :mod:`vrosdev.script`, which
runs them."""

from __future__ import annotations

import json
import shlex
from dataclasses import dataclass
from typing import Any

from .redact import redact_frame

__all__ = [
    "INPUT_VERBS", "JSON_ARG", "VERBS", "ScriptError", "Step", "json_arg", "parse", "parse_line",
    "transcript_text", "typed_arg",
]  # fmt: skip


class ScriptError(Exception):
    """A step that cannot run: names the line and what is wrong."""


@dataclass(frozen=True)
class Step:
    line_no: int
    verb: str
    args: tuple[str, ...]
    text: str


VERBS = {
    "sleep": (1, 1),
    "wait-for": (1, 3),
    "settle": (0, 2),
    "invoke": (1, 1),
    "click": (2, 3),
    "show": (1, 1),
    "hide": (1, 1),
    "locale": (1, 1),
    "setting": (2, 2),
    "event": (1, 1),
    "bus-publish": (2, 2),
    "lifecycle": (1, 1),
    "media-pause": (1, 1),
    "media-volume": (2, 2),
    "media-stop": (1, 1),
    "media-control": (2, 4),
    "focus": (2, 2),
    "blur": (1, 1),
    "kill": (0, 0),
    "disconnect": (0, 1),
    "fault": (2, 3),
    "unfault": (0, 1),
    "delay": (2, 2),
    "fail-load": (1, 2),
    "fail-media": (1, 2),
    "chaos-end": (0, 0),
    "shutdown": (0, 0),
}
# face-select, face-grant, face-wait, drop: vrosdev.face_steps
FACE_VERBS = {"face-select": (2, 2), "face-grant": (3, 3), "face-wait": (2, 3), "drop": (1, 1)}
VERBS.update(FACE_VERBS)
# the user's hand on a panel (PAN-32): needs the panel renderer
INPUT_VERBS = {"pointer": (3, 3), "click-away": (1, 1), "type": (2, 2)}
VERBS.update(INPUT_VERBS)


def parse_line(text: str, line_no: int = 0) -> Step | None:
    stripped = text.strip()
    if not stripped or stripped.startswith("#"):
        return None
    verb, _, rest = stripped.partition(" ")
    rest = rest.strip()
    if verb not in VERBS:
        raise ScriptError(f"line {line_no}: unknown step {verb!r}")
    lo, hi = VERBS[verb]
    if verb in ("event",):
        args: tuple[str, ...] = (rest,) if rest else ()
    elif verb in ("setting", "bus-publish", "type"):  # the value runs to the end of the line
        name, _, value = rest.partition(" ")
        args = tuple(a for a in (name, value.strip()) if a)
    elif verb == "click":
        parts = rest.split(" ", 2)
        args = tuple(p for p in parts if p)
    else:
        try:
            args = tuple(shlex.split(rest))
        except ValueError as exc:
            raise ScriptError(f"line {line_no}: {exc}") from None
    if not lo <= len(args) <= hi:
        raise ScriptError(f"line {line_no}: {verb} takes {lo}-{hi} arguments, got {len(args)}")
    return Step(line_no, verb, args, stripped)


# The argument of these steps that is JSON text, by position.
JSON_ARG = {"click": 2, "setting": 1, "event": 0, "bus-publish": 1}


def transcript_text(step: Step) -> str:
    """The step as the transcript notes it, with a JSON argument redacted value by value.

    Redacting the line as text would end a URL at the next space and take the closing quote
    and comma with it; redacting the parsed value turns a URL string into ``"<url>"`` and
    leaves valid JSON around it.
    """
    index = JSON_ARG.get(step.verb)
    if index is None or index >= len(step.args):
        return step.text
    try:
        value = json.loads(step.args[index])
    except ValueError:
        return step.text
    args = list(step.args)
    args[index] = json.dumps(redact_frame(value, None), ensure_ascii=False)
    return " ".join([step.verb, *args])


def parse(text: str) -> list[Step]:
    steps: list[Step] = []
    for i, line in enumerate(text.splitlines(), 1):
        step = parse_line(line, i)
        if step is not None:
            steps.append(step)
    return steps


def typed_arg(value: Any) -> dict[str, Any]:
    if isinstance(value, dict) and "t" in value and "v" in value:
        return value
    if isinstance(value, bool):
        return {"t": "bool", "v": value}
    if isinstance(value, int):
        return {"t": "i64", "v": value}
    if isinstance(value, float):
        return {"t": "f64", "v": value}
    if isinstance(value, str):
        return {"t": "str", "v": value}
    raise ScriptError(f"click args are bool, int, float or string, got {type(value).__name__}")


def json_arg(text: str, line_no: int) -> Any:
    try:
        return json.loads(text)
    except ValueError:
        raise ScriptError(f"line {line_no}: not JSON: {text[:40]}") from None
