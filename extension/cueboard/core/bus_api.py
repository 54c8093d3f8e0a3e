"""Remote control over the bus: what another extension may ask, checked before it is done.

Every ``ext.<id>.cmd.<verb>`` payload is validated against the verb's model; a bad one, an
unknown verb or a sound that is not in the library is answered on ``ext.<id>.error`` with the
verb and the reason. The bus has no reply-to, so a request may carry a ``request_id`` (a string
or an integer), echoed in whatever answers it: ``played``/``stopped`` for play and stop,
``sound`` for set, ``sounds`` for list, ``exported``/``imported`` for a backup and a restore,
``error`` for a refusal. Reasons name the field and the
rule it broke, never the value sent (another extension's payload may carry anything).
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import TYPE_CHECKING, Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from . import backup
from .effects import CountTasks, Effect, Log
from .soundboard import PressOptions

if TYPE_CHECKING:
    from .app import CueboardCore

__all__ = ["LIST_PAGE_SIZE", "on_bus"]

LIST_PAGE_SIZE = 100

type Pct = Annotated[int, Field(ge=0, le=100, strict=True)]
type Mode = Literal["mix", "toggle", "stop_others", "loop"]
type RequestId = Annotated[str, Field(max_length=128)] | Annotated[int, Field(strict=True)]


class _Request(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    request_id: RequestId | None = None


class _OneSound(_Request):
    path: str | None = None
    favourite: str | None = None

    @model_validator(mode="after")
    def _exactly_one(self) -> _OneSound:
        if (self.path is None) == (self.favourite is None):
            raise ValueError("give exactly one of path and favourite")
        return self


class PlayRequest(_OneSound):
    mode: Mode | None = None
    gain: Pct | None = None
    mic_gain: Pct | None = None


class StopRequest(_OneSound):
    pass


class AnyRequest(_Request):
    """A command that takes anything (only a request_id is read)."""

    model_config = ConfigDict(extra="ignore", frozen=True)


class SetRequest(_Request):
    """Only the fields given change: ``mode: "default"`` follows the global setting again,
    ``mic_gain: null`` links the mic gain to ``gain`` again."""

    path: str
    gain: Pct | None = None
    mic_gain: Pct | None = None
    mode: Mode | Literal["default"] | None = None


class BackupRequest(_Request):
    """A backup or a restore: of the one backup file, never a path given here."""


class ListRequest(_Request):
    page: Annotated[int, Field(ge=0, strict=True)] = 0


MODELS: dict[str, type[_Request]] = {
    "play": PlayRequest,
    "stop": StopRequest,
    "stop-all": AnyRequest,
    "debug": AnyRequest,
    "set": SetRequest,
    "list": ListRequest,
    "export": BackupRequest,
    "import": BackupRequest,
}


def on_bus(core: CueboardCore, topic: str, payload: Any, now: float) -> list[Effect]:
    prefix = f"ext.{core.ext_id}.cmd."
    if not topic.startswith(prefix):
        return []
    verb = topic.removeprefix(prefix)
    request_id = _request_id(payload)
    model = MODELS.get(verb)
    if model is None:
        return _refuse(core, verb, request_id, "unknown_command", f"no command {verb!r}")
    if model is AnyRequest and not isinstance(payload, dict):
        payload = {}
    try:
        request = model.model_validate(payload)
    except ValidationError as exc:
        return _refuse(core, verb, request_id, "invalid", _reason(exc))
    return DISPATCH[verb](core, request, now)


def _play(core: CueboardCore, request: Any, now: float) -> list[Effect]:
    req: PlayRequest = request
    rel = _sound(core, req)
    if rel is None:
        return _refuse(core, "play", req.request_id, "not_found", "no such sound")
    once = PressOptions(req.mode, req.gain, req.mic_gain, req.request_id)
    return core.board.press(rel, now, once)


def _stop(core: CueboardCore, request: Any, now: float) -> list[Effect]:
    req: StopRequest = request
    rel = _sound(core, req)
    if rel is None:
        return _refuse(core, "stop", req.request_id, "not_found", "no such sound")
    return core.board.stop(rel, now, request_id=req.request_id)


def _stop_all(core: CueboardCore, request: Any, now: float) -> list[Effect]:
    return core.board.stop_all(now)


def _set(core: CueboardCore, request: Any, now: float) -> list[Effect]:
    req: SetRequest = request
    if req.path not in core.board.states:
        return _refuse(core, "set", req.request_id, "not_found", "no such sound")
    given = req.model_fields_set
    changes: dict[str, Any] = {}
    if "gain" in given and req.gain is not None:
        changes["gain"] = req.gain
    if "mic_gain" in given:
        changes["mic_gain"] = req.mic_gain
    if "mode" in given and req.mode is not None:
        changes["mode"] = None if req.mode == "default" else req.mode
    out = core.prefs.update(req.path, now, **changes) if changes else []
    core.changed()
    prefs = core.prefs.get(req.path)
    reply = {"path": req.path, "gain": prefs.gain, "mic_gain": prefs.own_mic_gain}
    reply |= {"linked": prefs.mic_gain is None, "mode": core.board.mode_of(req.path)}
    core.board.published.append(("sound", _with_id(reply, req.request_id)))
    return out


def _list(core: CueboardCore, request: Any, now: float) -> list[Effect]:
    req: ListRequest = request
    sounds = core.board.library.sounds
    pages = max(1, -(-len(sounds) // LIST_PAGE_SIZE))
    start = req.page * LIST_PAGE_SIZE
    favourite_of = {rel: slug for slug, rel in core.prefs.favourites().items()}
    rows: list[dict[str, Any]] = []
    for sound in sounds[start : start + LIST_PAGE_SIZE]:
        st = core.board.states.get(sound.rel_path)
        rows.append(
            {
                "path": sound.rel_path,
                "name": sound.name,
                "folder": sound.category,
                "duration_ms": st.duration_ms if st is not None else None,
                "favourite": favourite_of.get(sound.rel_path),
            }
        )
    reply = {"page": req.page, "pages": pages, "total": len(sounds), "sounds": rows}
    core.board.published.append(("sounds", _with_id(reply, req.request_id)))
    return []


DISPATCH: dict[str, Callable[[CueboardCore, Any, float], list[Effect]]] = {
    "play": _play,
    "stop": _stop,
    "stop-all": _stop_all,
    "debug": lambda core, request, now: [CountTasks()],
    "set": _set,
    "list": _list,
    "export": lambda core, request, now: backup.export_board(core, request.request_id),
    "import": lambda core, request, now: backup.import_board(core, request.request_id),
}


def _sound(core: CueboardCore, req: _OneSound) -> str | None:
    rel = req.path if req.favourite is None else core.prefs.favourites().get(req.favourite)
    return rel if rel is not None and rel in core.board.states else None


def _refuse(
    core: CueboardCore, verb: str, request_id: str | int | None, code: str, reason: str
) -> list[Effect]:
    reply = _with_id({"topic": f"cmd.{verb}", "code": code, "reason": reason}, request_id)
    core.board.published.append(("error", reply))
    core.changed()
    return [Log(logging.INFO, f"bus cmd.{verb} refused: {code}")]


def _with_id(reply: dict[str, Any], request_id: str | int | None) -> dict[str, Any]:
    return reply if request_id is None else {**reply, "request_id": request_id}


def _request_id(payload: Any) -> str | int | None:
    """The id to echo even when the rest of the payload is refused (if it is one)."""
    if not isinstance(payload, dict):
        return None
    data: dict[str, Any] = payload  # pyright: ignore[reportUnknownVariableType]
    value = data.get("request_id")
    if isinstance(value, bool):
        return None
    if isinstance(value, int) or (isinstance(value, str) and len(value) <= 128):
        return value
    return None


def _reason(exc: ValidationError) -> str:
    parts: list[str] = []
    for error in exc.errors(include_url=False, include_input=False):
        where = ".".join(str(p) for p in error["loc"]) or "payload"
        parts.append(f"{where}: {error['msg']}")
    return "; ".join(parts[:3])
