"""vrOS's media player as vrosdev simulates it: host-wide, sans-IO, on an injected clock.

The caller owns the sockets and the timers. It tells the host about connections
(:meth:`MediaHost.connection_opened` / :meth:`~MediaHost.connection_closed`), passes each
``media`` request's ``params`` to :meth:`~MediaHost.handle` and sends back the result object
it returns, wakes at :meth:`~MediaHost.next_deadline` to call :meth:`~MediaHost.tick`, and
after either asks :meth:`~MediaHost.take_snapshot` for each connection in
:meth:`~MediaHost.due_connections`. Snapshots are complete (every live session of the
connection) and coalesced (one per call, however many changes came before it) (MED-17), and
exist only for clients that announced 1.4 or later (MED-18).

The session table is shared by all connections: four sessions in total (MED-14), while keys,
session ids and snapshots belong to the connection that opened them. Sessions end with their
connection (docs/protocol-notes.md#r21).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Hashable, Mapping
from dataclasses import dataclass
from typing import Any, Literal

from .behaviour import behaviour_for
from .controls import ControlEvent, ControlRefused, build_action
from .errors import MediaDomainError, MediaParamsError
from .rules import (
    MAX_SESSIONS,
    check_key,
    check_options,
    check_title,
    check_url,
    optional_str,
    read_options,
    required_str,
)
from .session import MediaOptions, MediaSession, MediaTimings
from .versions import (
    RELOAD_TITLE_SINCE,
    ClientVersion,
    control_allowed,
    parse_version,
    snapshot_allowed,
)

__all__ = ["MediaHost", "MediaMode"]

MediaMode = Literal["simulate", "unsupported"]


@dataclass(slots=True)
class _Connection:
    version: ClientVersion
    granted: bool


def _short(text: str) -> str:
    return repr(text if len(text) <= 80 else text[:77] + "...")


class MediaHost:
    """``unsupported`` answers every request with err ``unsupported`` (vrOS off Windows, MED-2);
    ``simulate`` behaves as vrOS on Windows, with sources driven by URL markers (see
    :mod:`vrosdev.media.behaviour`)."""

    def __init__(
        self,
        mode: MediaMode = "simulate",
        *,
        clock: Callable[[], float] = time.monotonic,
        timings: MediaTimings | None = None,
    ) -> None:
        if mode not in ("simulate", "unsupported"):
            raise ValueError(f"media mode must be 'simulate' or 'unsupported', not {mode!r}")
        self.mode: MediaMode = mode
        self.timings = timings or MediaTimings()
        self._clock = clock
        self._connections: dict[Hashable, _Connection] = {}
        self._sessions: dict[str, MediaSession] = {}  # by session id, in open order
        self._dirty: set[Hashable] = set()
        self._last_id = 0

    def __repr__(self) -> str:
        return (
            f"MediaHost(mode={self.mode!r}, connections={len(self._connections)}, "
            f"sessions={len(self._sessions)})"
        )

    # -- connections -------------------------------------------------------------------

    def connection_opened(
        self, conn: Hashable, vxp_version: str | tuple[int, int], *, granted: bool = True
    ) -> None:
        """Register a connection after its welcome, with the version its hello announced."""
        if conn in self._connections:
            raise ValueError(f"connection {conn!r} is already registered")
        self._connections[conn] = _Connection(parse_version(vxp_version), granted)

    def connection_closed(self, conn: Hashable) -> list[str]:
        """End the connection's sessions (docs/protocol-notes.md#r21); returns their ids, for the
        log."""
        self._connections.pop(conn, None)
        self._dirty.discard(conn)
        ended = [sid for sid, s in self._sessions.items() if s.owner == conn]
        for sid in ended:
            del self._sessions[sid]
        return ended

    # -- requests ----------------------------------------------------------------------

    def handle(self, conn: Hashable, params: Mapping[str, Any]) -> dict[str, Any]:
        """Answer one ``media`` request: the response's ``result`` object.

        ``params`` is the request object as it came off the wire (absent options must be
        absent, not filled with defaults). Raises :class:`MediaParamsError` when it fits no
        request shape (answer -32602); every domain refusal is returned as an ``err`` result.
        """
        connection = self._connection(conn)
        op = params.get("op")
        handlers = {
            "open": self._open,
            "set": self._set,
            "reload": self._reload,
            "close": self._close,
            "status": self._status,
        }
        handler = handlers.get(op) if isinstance(op, str) else None
        if handler is None:
            raise MediaParamsError(f"media: unknown op {op!r}")  # docs/protocol-notes.md#r4
        now = self._clock()
        self._advance(now)
        try:
            return handler(conn, connection.version, params, now)
        except MediaDomainError as err:
            return err.to_result()

    def _connection(self, conn: Hashable) -> _Connection:
        try:
            return self._connections[conn]
        except KeyError:
            raise ValueError(f"connection {conn!r} was never registered") from None

    def _refuse_if_unsupported(self) -> None:
        if self.mode == "unsupported":
            raise MediaDomainError("unsupported", "media playback is not supported on this host")

    def _owned(self, conn: Hashable, params: Mapping[str, Any]) -> MediaSession:
        sid = required_str(params, "session")
        self._refuse_if_unsupported()
        session = self._sessions.get(sid)
        if session is None or session.owner != conn:
            raise MediaDomainError("no_such_session", f"no media session {_short(sid)}")
        return session

    def _open(
        self, conn: Hashable, version: ClientVersion, params: Mapping[str, Any], now: float
    ) -> dict[str, Any]:
        key = required_str(params, "key")
        url = required_str(params, "url")
        # docs/protocol-notes.md#r15: optional, empty by default
        title = optional_str(params, "title") or ""
        found = read_options(params, version)
        self._refuse_if_unsupported()
        check_key(key)
        check_url(url)
        check_title(title)
        check_options(found, for_set=False)
        if any(s.owner == conn and s.key == key for s in self._sessions.values()):
            # docs/protocol-notes.md#r15
            raise MediaDomainError("busy", f"key {key!r} already has a session")
        if len(self._sessions) >= MAX_SESSIONS:
            raise MediaDomainError(
                "too_many", f"vrOS runs at most {MAX_SESSIONS} media sessions at once"
            )
        behaviour = behaviour_for(url)
        if behaviour.refusal is not None:
            raise MediaDomainError(*behaviour.refusal)
        self._last_id += 1
        session = MediaSession(
            session_id=f"m-{self._last_id:08d}",  # docs/protocol-notes.md#r22
            key=key,
            owner=conn,
            title=title,
            options=MediaOptions().updated(found),
            behaviour=behaviour,
        )
        session.start_source(behaviour, now, self.timings)
        self._sessions[session.session_id] = session
        self._mark(conn)
        return {
            "result": "opened",
            "session": session.session_id,
            "source_generation": session.source_generation,
        }

    def _set(
        self, conn: Hashable, version: ClientVersion, params: Mapping[str, Any], now: float
    ) -> dict[str, Any]:
        found = read_options(params, version)
        session = self._owned(conn, params)
        check_options(found, for_set=True)
        before = session.snapshot_json()
        session.apply_options(session.options.updated(found), now, self.timings)
        self._mark_if_changed(session, before)
        return {"result": "applied", "source_generation": session.source_generation}

    def _reload(
        self, conn: Hashable, version: ClientVersion, params: Mapping[str, Any], now: float
    ) -> dict[str, Any]:
        url = required_str(params, "url")
        title = optional_str(params, "title") if version >= RELOAD_TITLE_SINCE else None
        session = self._owned(conn, params)
        check_url(url)
        if title is not None:
            check_title(title)
        behaviour = behaviour_for(url)
        if behaviour.refusal is not None:
            raise MediaDomainError(*behaviour.refusal)
        if title is not None:
            session.title = title
        session.source_generation += 1  # MED-16: only reload raises it
        session.start_source(behaviour, now, self.timings)
        self._mark(conn)
        return {"result": "applied", "source_generation": session.source_generation}

    def _close(
        self, conn: Hashable, version: ClientVersion, params: Mapping[str, Any], now: float
    ) -> dict[str, Any]:
        session = self._owned(conn, params)
        del self._sessions[session.session_id]
        self._mark(conn)
        return {"result": "closed"}

    def _status(
        self, conn: Hashable, version: ClientVersion, params: Mapping[str, Any], now: float
    ) -> dict[str, Any]:
        session = self._owned(conn, params)
        return {"result": "status", **session.snapshot_json()}

    # -- time and snapshots ------------------------------------------------------------

    def _mark(self, conn: Hashable) -> None:
        connection = self._connections.get(conn)
        if connection is not None and snapshot_allowed(connection.version):
            self._dirty.add(conn)

    def _mark_if_changed(self, session: MediaSession, before: dict[str, Any]) -> None:
        if session.snapshot_json() != before:
            self._mark(session.owner)

    def _advance(self, now: float) -> None:
        for session in self._sessions.values():
            deadline = session.next_deadline()
            if deadline is not None and deadline <= now:
                before = session.snapshot_json()
                session.advance(now, self.timings)
                self._mark_if_changed(session, before)

    def tick(self, now: float | None = None) -> frozenset[Hashable]:
        """Fire every due transition; returns the connections a snapshot is due for."""
        self._advance(self._clock() if now is None else now)
        return self.due_connections()

    def next_deadline(self) -> float | None:
        """When the next timed transition happens (clock time), or None: sleep until then."""
        return min(
            (d for s in self._sessions.values() if (d := s.next_deadline()) is not None),
            default=None,
        )

    def due_connections(self) -> frozenset[Hashable]:
        return frozenset(self._dirty)

    def take_snapshot(self, conn: Hashable) -> dict[str, Any] | None:
        """The ``media_snapshot`` event params due for ``conn``, once, or None if none is due."""
        if conn not in self._dirty:
            return None
        self._dirty.discard(conn)
        return self.snapshot_json(conn)

    def snapshot_json(self, conn: Hashable) -> dict[str, Any]:
        """The connection's complete ``media_snapshot`` params as of now (no bookkeeping)."""
        return {
            "event": "media_snapshot",
            "granted": self._connection(conn).granted,
            "sessions": [s.snapshot_json() for s in self._sessions.values() if s.owner == conn],
        }

    def sessions(self, conn: Hashable | None = None) -> list[MediaSession]:
        """Live sessions (of one connection, or all), in open order; for vrosdev's UI/log."""
        return [s for s in self._sessions.values() if conn is None or s.owner == conn]

    def fail(self, key: str, code: str) -> str | None:
        """``key``'s session fails now with ``code`` (the ``fail-media`` script step), so the
        next snapshot carries it; returns why it could not, or None."""
        matches = [s for s in self._sessions.values() if s.key == key]
        if len(matches) != 1:
            return f"{len(matches)} media sessions have key {key!r}"
        session = matches[0]
        before = session.snapshot_json()
        session.fail(code)
        self._mark_if_changed(session, before)
        return None

    # -- native controls ---------------------------------------------------------------

    def control(
        self,
        key: str,
        action: str,
        value: object = None,
        generation: int | None = None,
        *,
        conn: Hashable | None = None,
    ) -> ControlEvent | ControlRefused:
        """The user used the player's controls on ``key``'s session (MED-22).

        ``generation`` defaults to the session's current ``source_generation``; give another
        to send a stale one. The session itself is not changed (MED-23): the extension
        applies the action with its own ``set``/``close``.
        """
        if self.mode == "unsupported":
            return ControlRefused("media is unsupported on this host: there is no player")
        matches = [
            s for s in self._sessions.values() if s.key == key and (conn is None or s.owner == conn)
        ]
        if not matches:
            return ControlRefused(f"no media session has key {key!r}")
        if len(matches) > 1:
            return ControlRefused(f"several connections have a session {key!r}: name one")
        session = matches[0]
        if not session.options.native_controls:
            return ControlRefused(f"session {key!r} was opened without native_controls")
        version = self._connections[session.owner].version
        if not control_allowed(version):
            return ControlRefused(f"the client announced {version}; media_control needs 1.6")
        built = build_action(action, value)
        if isinstance(built, ControlRefused):
            return built
        return ControlEvent(
            connection=session.owner,
            params={
                "event": "media_control",
                "key": session.key,
                "session": session.session_id,
                "source_generation": (
                    session.source_generation if generation is None else generation
                ),
                "action": built,
            },
        )
