"""Progress while wheels are gathered and the bundle is written.

A rich progress bar when stderr is a terminal, plain lines otherwise (CI logs, ``make`` piped
into a file), so the log of a build says what happened without control characters.
"""

from __future__ import annotations

import sys
from types import TracebackType
from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from rich.progress import TaskID


class Progress(Protocol):
    def note(self, line: str) -> None: ...
    def start(self, label: str, total: int | None) -> None: ...
    def update(self, detail: str) -> None: ...
    def advance(self, detail: str = "") -> None: ...
    def __enter__(self) -> Progress: ...
    def __exit__(
        self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None: ...


class PlainProgress:
    """Lines on stderr: every step of a short task, every tenth of a long one (a bundle has
    thousands of files); ``update`` details are not printed (pip's are many)."""

    LONG_TASK = 20

    def __init__(self) -> None:
        self._label = ""
        self._total: int | None = None
        self._done = 0

    def note(self, line: str) -> None:
        print(line, file=sys.stderr, flush=True)

    def start(self, label: str, total: int | None) -> None:
        self._label, self._total, self._done = label, total, 0

    def update(self, detail: str) -> None:
        pass

    def advance(self, detail: str = "") -> None:
        self._done += 1
        total = self._total
        tenth = (self._done * 10 // total, (self._done - 1) * 10 // total) if total else (1, 0)
        if total is not None and total > self.LONG_TASK and tenth[0] == tenth[1]:
            return
        suffix = f": {detail}" if detail else ""
        self.note(f"{self._label} [{self._done}/{total if total is not None else '?'}]{suffix}")

    def __enter__(self) -> PlainProgress:
        return self

    def __exit__(
        self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        pass


class RichProgress:
    def __init__(self) -> None:
        from rich.console import Console
        from rich.progress import BarColumn, MofNCompleteColumn, TextColumn, TimeElapsedColumn
        from rich.progress import Progress as Bar

        self._bar = Bar(
            TextColumn("{task.description}"),
            BarColumn(),
            MofNCompleteColumn(),
            TimeElapsedColumn(),
            TextColumn("{task.fields[detail]}"),
            console=Console(stderr=True),
            transient=False,
        )
        self._task: TaskID | None = None

    def note(self, line: str) -> None:
        self._bar.console.print(line, markup=False, highlight=False)

    def start(self, label: str, total: int | None) -> None:
        self._task = self._bar.add_task(label, total=total, detail="")

    def update(self, detail: str) -> None:
        if self._task is not None:
            self._bar.update(self._task, detail=detail)

    def advance(self, detail: str = "") -> None:
        if self._task is not None:
            self._bar.update(self._task, advance=1, detail=detail)

    def __enter__(self) -> RichProgress:
        self._bar.start()
        return self

    def __exit__(
        self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self._bar.stop()


def make_progress(plain: bool = False) -> Progress:
    if not plain and sys.stderr.isatty():
        try:
            return RichProgress()
        except ImportError:
            pass
    return PlainProgress()
