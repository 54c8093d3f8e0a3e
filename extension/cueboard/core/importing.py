"""An import from a link, from the press to vrOS's verdict on the file.

One import at a time. The download is the runtime's (:class:`FetchSound`); the file it puts in
the folder is then scanned and loaded like any other sound, and vrOS's ``audio_loaded`` decides
whether it is one: a file vrOS refuses for good is removed again (:class:`DiscardSound`) and the
user told why. The link is never kept: it lives in the effect until the download ends.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Protocol

from cueboard.core.contract import StatusLevel

from .effects import Effect, Notice, Tickets
from .link import HostLink
from .link_import import (
    REASON_KEYS,
    CancelFetch,
    DiscardSound,
    FetchFailed,
    FetchProgress,
    LinkImportError,
    SoundFetched,
    start_import,
)
from .policy import Action, load_verdict
from .sound_state import SoundState

__all__ = ["Importer"]


class ImporterBoard(Protocol):
    """What an import reads and calls of the soundboard: a fetched sound is loaded once the
    library lists it."""

    @property
    def states(self) -> Mapping[str, SoundState]: ...

    def ensure_loaded(self, rel: str, now: float) -> list[Effect]: ...


class Importer:
    """A feature object: its context is the tickets, the connection's facts, the soundboard
    that loads what came in, and the folder's ``rescan`` and the views' ``changed``."""

    def __init__(
        self,
        tickets: Tickets,
        link: HostLink,
        board: ImporterBoard,
        *,
        rescan: Callable[[str], list[Effect]],
        changed: Callable[[], None],
    ) -> None:
        self._tickets = tickets
        self._link = link
        self._board = board
        self._rescan = rescan
        self._changed = changed
        self.ticket: int | None = None  # the download in flight
        self.received = 0
        self.total: int | None = None
        self.waiting: dict[str, str] = {}  # rel -> name, to be loaded

    @property
    def busy(self) -> bool:
        return self.ticket is not None

    def start(self, link: str, category: str) -> list[Effect]:
        if self.ticket is not None:
            return [Notice("import.busy", StatusLevel.WARN)]
        ticket = self._tickets()
        started = start_import(
            link, granted_network=self._link.network, category=category, ticket=ticket
        )
        if isinstance(started, LinkImportError):
            return [_notice(started)]
        self.ticket, self.received, self.total = ticket, 0, None
        self._changed()
        return [started]

    def cancel(self, now: float = 0.0) -> list[Effect]:
        if self.ticket is None:
            return []
        ticket, self.ticket = self.ticket, None
        self._changed()
        return [CancelFetch(ticket)]

    def on_input(self, item: FetchProgress | SoundFetched | FetchFailed) -> list[Effect]:
        if item.ticket != self.ticket:
            return []  # a cancelled download's last word
        self._changed()
        match item:
            case FetchProgress(received=received, total=total):
                self.received, self.total = received, total
                return []
            case SoundFetched(rel_path=rel):
                self.ticket = None
                self.waiting[rel] = rel.rsplit("/", 1)[-1]
                return self._rescan("imported")
            case FetchFailed(error=error):
                self.ticket = None
                return [_notice(error)]

    def connection_lost(self) -> None:
        self.ticket = None  # the download ended with the connection's tasks

    def after_scan(self, now: float) -> list[Effect]:
        """The imported file is in the library: load it, so vrOS says whether it decodes."""
        out: list[Effect] = []
        for rel in self.waiting:
            if rel in self._board.states:
                out += self._board.ensure_loaded(rel, now)
        return out

    def after_load(self) -> list[Effect]:
        out: list[Effect] = []
        for rel, name in list(self.waiting.items()):
            st = self._board.states.get(rel)
            if st is None or st.status in ("idle", "loading"):
                continue
            del self.waiting[rel]
            if st.status == "loaded":
                out.append(Notice("import.done", StatusLevel.INFO, {"name": st.sound.name}))
            elif st.status in ("too_large", "unloadable") or _refused_for_good(st.code):
                notice = Notice(REASON_KEYS["undecodable"], params={"name": name})
                out += [DiscardSound(rel), notice, *self._rescan("import removed")]
        return out

    def progress_text(self) -> str:
        catalog = self._link.catalog
        if self.ticket is None or catalog is None:
            return ""
        received = _size(self.received)
        if self.total is None:
            return catalog.t("import.progress_unknown", received=received)
        return catalog.t("import.progress", received=received, total=_size(self.total))


def _refused_for_good(code: str | None) -> bool:
    return code is not None and load_verdict(code) is Action.FINAL


def _notice(error: LinkImportError) -> Notice:
    return Notice(REASON_KEYS[error.reason], StatusLevel.ERROR, error.notice_params())


def _size(count: int) -> str:
    if count < 1024 * 1024:
        return f"{count / 1024:.0f} KiB"
    return f"{count / (1024 * 1024):.1f} MiB"
