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
from collections.abc import Callable, Mapping
from dataclasses import replace
from typing import Annotated, Any, Literal, Protocol

from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from vxp.models import bus

from .backup import EDIT_MS_MAX, PLAYS_MAX, UNIX_MAX, Backup, edit_problem
from .effects import CountTasks, Effect, Log
from .library import Library
from .link import HostLink
from .prefs import SoundPrefs
from .sound_state import PressOptions, SoundState
from .tracker import Tracker

__all__ = ["LIST_PAGE_SIZE", "BusApi"]

LIST_PAGE_SIZE = 100

type Pct = Annotated[int, Field(ge=0, le=100, strict=True)]
type Mode = Literal["mix", "toggle", "stop_others", "loop"]
type Ms = Annotated[int, Field(ge=0, le=EDIT_MS_MAX, strict=True)]
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
    ``mic_gain: null`` links the mic gain to ``gain`` again, ``trim_end_ms: null`` plays to
    the sound's end, ``plays: 0`` with ``last_played: null`` resets the count."""

    path: str
    gain: Pct | None = None
    mic_gain: Pct | None = None
    mode: Mode | Literal["default"] | None = None
    targets: Literal["both", "me", "mic"] | None = None
    trim_start_ms: Ms | None = None
    trim_end_ms: Ms | None = None
    fade_in_ms: Ms | None = None
    fade_out_ms: Ms | None = None
    plays: Annotated[int, Field(ge=0, le=PLAYS_MAX, strict=True)] | None = None
    last_played: Annotated[int, Field(ge=0, le=UNIX_MAX, strict=True)] | None = None


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


class BusBoard(Protocol):
    """What the bus API reads and calls of the soundboard."""

    @property
    def states(self) -> Mapping[str, SoundState]: ...

    @property
    def library(self) -> Library: ...

    @property
    def published(self) -> list[tuple[str, dict[str, Any]]]: ...

    def press(self, rel: str, now: float, once: PressOptions | None = None) -> list[Effect]: ...

    def stop(
        self, rel: str, now: float, *, request_id: str | int | None = None
    ) -> list[Effect]: ...

    def stop_all(self, now: float) -> list[Effect]: ...

    def mode_of(self, rel: str, once: PressOptions | None = None) -> str: ...


class BusPrefs(Protocol):
    """What the bus API reads and writes of the per-sound preferences."""

    def favourites(self) -> dict[str, str]: ...

    def get(self, rel_path: str) -> SoundPrefs: ...

    def update(self, rel_path: str, now: float, **changes: Any) -> list[Effect]: ...


class BusApi:
    """A feature object: the bus in both directions. Its context is the tracker (to publish),
    the soundboard and preferences a command acts on, the backup, the connection's facts, and
    the views' ``changed``."""

    def __init__(
        self,
        tracker: Tracker,
        board: BusBoard,
        prefs: BusPrefs,
        backup: Backup,
        link: HostLink,
        *,
        changed: Callable[[], None],
    ) -> None:
        self._tracker = tracker
        self._board = board
        self._prefs = prefs
        self._backup = backup
        self._link = link
        self._changed = changed
        self._verbs: dict[str, Callable[[Any, float], list[Effect]]] = {
            "play": self._play,
            "stop": self._stop,
            "stop-all": lambda request, now: self._board.stop_all(now),
            "debug": lambda request, now: [CountTasks()],
            "set": self._set,
            "list": self._list,
            "export": lambda request, now: self._backup.export(request.request_id),
            "import": lambda request, now: self._backup.restore(request.request_id),
        }

    def on_message(self, topic: str, payload: Any, now: float) -> list[Effect]:
        prefix = f"ext.{self._link.ext_id}.cmd."
        if not topic.startswith(prefix):
            return []
        verb = topic.removeprefix(prefix)
        request_id = _request_id(payload)
        model = MODELS.get(verb)
        if model is None:
            return self._refuse(verb, request_id, "unknown_command", f"no command {verb!r}")
        if model is AnyRequest and not isinstance(payload, dict):
            payload = {}
        try:
            request = model.model_validate(payload)
        except ValidationError as exc:
            return self._refuse(verb, request_id, "invalid", _reason(exc))
        return self._verbs[verb](request, now)

    # -- outbound -------------------------------------------------------------------------

    def publish(self, published: list[tuple[str, dict[str, Any]]], now: float) -> list[Effect]:
        """What happened, on ``ext.<id>.<kind>``, for other extensions."""
        out: list[Effect] = []
        if not self._link.connected:
            return out
        for kind, payload in published:
            out += self._tracker.request(
                now, "bus", bus.BusPublish, expect=bus.BusOk,
                topic=f"ext.{self._link.ext_id}.{kind}", payload=payload,
            )  # fmt: skip
        return out

    def publish_debug(self, tasks: int, timers: int, now: float) -> list[Effect]:
        """``cmd.debug``'s answer on ``ext.<id>.debug``: what the runtime is running, so that a
        soak can compare two idle moments from outside the process."""
        return self.publish([("debug", {"tasks": tasks, "timers": timers})], now)

    # -- the verbs ------------------------------------------------------------------------

    def _play(self, request: Any, now: float) -> list[Effect]:
        req: PlayRequest = request
        rel = self._sound(req)
        if rel is None:
            return self._refuse("play", req.request_id, "not_found", "no such sound")
        once = PressOptions(req.mode, req.gain, req.mic_gain, req.request_id)
        return self._board.press(rel, now, once)

    def _stop(self, request: Any, now: float) -> list[Effect]:
        req: StopRequest = request
        rel = self._sound(req)
        if rel is None:
            return self._refuse("stop", req.request_id, "not_found", "no such sound")
        return self._board.stop(rel, now, request_id=req.request_id)

    def _set(self, request: Any, now: float) -> list[Effect]:
        req: SetRequest = request
        board, prefs = self._board, self._prefs
        if req.path not in board.states:
            return self._refuse("set", req.request_id, "not_found", "no such sound")
        given = req.model_fields_set
        changes: dict[str, Any] = {}
        if "gain" in given and req.gain is not None:
            changes["gain"] = req.gain
        if "mic_gain" in given:
            changes["mic_gain"] = req.mic_gain
        if "mode" in given and req.mode is not None:
            changes["mode"] = None if req.mode == "default" else req.mode
        for name in _NULLABLE:  # null means "none": the sound's end, never played
            if name in given:
                changes[name] = getattr(req, name)
        for name in _GIVEN_ONLY:
            if name in given and getattr(req, name) is not None:
                changes[name] = getattr(req, name)
        if changes.keys() & _EDIT:  # the trim and fades as they would be, checked whole
            edited = replace(prefs.get(req.path), **changes)
            problem = edit_problem(edited, board.states[req.path].duration_ms)
            if problem is not None:
                return self._refuse("set", req.request_id, "invalid", problem)
        out = prefs.update(req.path, now, **changes) if changes else []
        self._changed()
        board.published.append(("sound", _with_id(self._sound_row(req.path), req.request_id)))
        return out

    def _sound_row(self, rel: str) -> dict[str, Any]:
        """A sound's own settings, as ``sound`` and ``sounds`` report them."""
        own = self._prefs.get(rel)
        row: dict[str, Any] = {"path": rel, "gain": own.gain, "mic_gain": own.own_mic_gain}
        row |= {"linked": own.mic_gain is None, "mode": self._board.mode_of(rel)}
        row |= {
            "targets": own.targets,
            "trim_start_ms": own.trim_start_ms,
            "trim_end_ms": own.trim_end_ms,
            "fade_in_ms": own.fade_in_ms,
            "fade_out_ms": own.fade_out_ms,
            "plays": own.plays,
            "last_played": own.last_played,
        }
        return row

    def _list(self, request: Any, now: float) -> list[Effect]:
        req: ListRequest = request
        board = self._board
        sounds = board.library.sounds
        pages = max(1, -(-len(sounds) // LIST_PAGE_SIZE))
        start = req.page * LIST_PAGE_SIZE
        favourite_of = {rel: slug for slug, rel in self._prefs.favourites().items()}
        rows: list[dict[str, Any]] = []
        for sound in sounds[start : start + LIST_PAGE_SIZE]:
            st = board.states.get(sound.rel_path)
            rows.append(
                {
                    "name": sound.name,
                    "folder": sound.category,
                    "duration_ms": st.duration_ms if st is not None else None,
                    "favourite": favourite_of.get(sound.rel_path),
                }
                | self._sound_row(sound.rel_path)
            )
        reply = {"page": req.page, "pages": pages, "total": len(sounds), "sounds": rows}
        board.published.append(("sounds", _with_id(reply, req.request_id)))
        return []

    def _sound(self, req: _OneSound) -> str | None:
        favourite = req.favourite
        rel = req.path if favourite is None else self._prefs.favourites().get(favourite)
        return rel if rel is not None and rel in self._board.states else None

    def _refuse(
        self, verb: str, request_id: str | int | None, code: str, reason: str
    ) -> list[Effect]:
        reply = _with_id({"topic": f"cmd.{verb}", "code": code, "reason": reason}, request_id)
        self._board.published.append(("error", reply))
        self._changed()
        return [Log(logging.INFO, f"bus cmd.{verb} refused: {code}")]


_EDIT = frozenset({"trim_start_ms", "trim_end_ms", "fade_in_ms", "fade_out_ms"})
_NULLABLE = ("trim_end_ms", "last_played")
_GIVEN_ONLY = ("targets", "trim_start_ms", "fade_in_ms", "fade_out_ms", "plays")


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
