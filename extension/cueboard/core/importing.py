"""An import from a link, from the press to vrOS's verdict on the file.

One import at a time. The download is the runtime's (:class:`FetchSound`); the file it puts in
the folder is then scanned and loaded like any other sound, and vrOS's ``audio_loaded`` decides
whether it is one: a file vrOS refuses for good is removed again (:class:`DiscardSound`) and the
user told why. The link is never kept: it lives in the effect until the download ends.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from cueboard.core.contract import StatusLevel

from .effects import Effect, Notice
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
from .policy import TABLE, Action

if TYPE_CHECKING:
    from .app import CueboardCore

__all__ = ["Importer"]


@dataclass
class Importer:
    ticket: int | None = None  # the download in flight
    received: int = 0
    total: int | None = None
    waiting: dict[str, str] = field(default_factory=dict[str, str])  # rel -> name, to be loaded

    @property
    def busy(self) -> bool:
        return self.ticket is not None

    def start(self, core: CueboardCore, link: str, category: str) -> list[Effect]:
        if self.ticket is not None:
            return [Notice("import.busy", StatusLevel.WARN)]
        ticket = core.tickets()
        started = start_import(
            link, granted_network=core.granted_network, category=category, ticket=ticket
        )
        if isinstance(started, LinkImportError):
            return [_notice(started)]
        self.ticket, self.received, self.total = ticket, 0, None
        core.changed()
        return [started]

    def cancel(self, core: CueboardCore) -> list[Effect]:
        if self.ticket is None:
            return []
        ticket, self.ticket = self.ticket, None
        core.changed()
        return [CancelFetch(ticket)]

    def on_input(
        self, core: CueboardCore, item: FetchProgress | SoundFetched | FetchFailed
    ) -> list[Effect]:
        if item.ticket != self.ticket:
            return []  # a cancelled download's last word
        core.changed()
        match item:
            case FetchProgress(received=received, total=total):
                self.received, self.total = received, total
                return []
            case SoundFetched(rel_path=rel):
                self.ticket = None
                self.waiting[rel] = rel.rsplit("/", 1)[-1]
                return core.rescan("imported")
            case FetchFailed(error=error):
                self.ticket = None
                return [_notice(error)]

    def after_scan(self, core: CueboardCore, now: float) -> list[Effect]:
        """The imported file is in the library: load it, so vrOS says whether it decodes."""
        out: list[Effect] = []
        for rel in self.waiting:
            if rel in core.board.states:
                out += core.board.ensure_loaded(rel, now)
        return out

    def after_load(self, core: CueboardCore) -> list[Effect]:
        out: list[Effect] = []
        for rel, name in list(self.waiting.items()):
            st = core.board.states.get(rel)
            if st is None or st.status in ("idle", "loading"):
                continue
            del self.waiting[rel]
            if st.status == "loaded":
                out.append(Notice("import.done", StatusLevel.INFO, {"name": st.sound.name}))
            elif st.status in ("too_large", "unloadable") or _refused_for_good(st.code):
                notice = Notice(REASON_KEYS["undecodable"], params={"name": name})
                out += [DiscardSound(rel), notice, *core.rescan("import removed")]
        return out

    def progress_text(self, core: CueboardCore) -> str:
        if self.ticket is None or core.catalog is None:
            return ""
        received = _size(self.received)
        if self.total is None:
            return core.catalog.t("import.progress_unknown", received=received)
        return core.catalog.t("import.progress", received=received, total=_size(self.total))


def _refused_for_good(code: str | None) -> bool:
    rule = TABLE.get(("audio.load", code)) if code is not None else None
    return rule is not None and rule.action is Action.FINAL


def _notice(error: LinkImportError) -> Notice:
    return Notice(REASON_KEYS[error.reason], StatusLevel.ERROR, error.notice_params())


def _size(count: int) -> str:
    if count < 1024 * 1024:
        return f"{count / 1024:.0f} KiB"
    return f"{count / (1024 * 1024):.1f} MiB"
