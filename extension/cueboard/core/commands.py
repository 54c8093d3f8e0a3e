"""The commands users bind to SteamVR actions, declared once.

Names are stable (CMD-8 rules): ``play-slot-1`` … ``play-slot-12`` play the visible page's
slots, and one ``fav-<slug>`` per favourite (at most 16). Paging and the folder commands move
the overlay's place; with the overlay closed a toast says where they landed. The README's
command table and the registration both come from :data:`STATIC_COMMANDS` and
:func:`favourite_command`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from .browse import FOLDER_JUMP
from .i18n import Catalog, msgid
from .library import SLOTS_PER_PAGE

MAX_FAVOURITES = 16
SLUG_RE = re.compile(r"^[a-z0-9-]{1,60}$")


@dataclass(frozen=True, slots=True)
class CommandSpec:
    name: str
    help: str


STATIC_COMMANDS: tuple[CommandSpec, ...] = (
    *(
        CommandSpec(
            f"play-slot-{n}",
            f"play slot {n} of the page the overlay shows (a folder page or search results)",
        )
        for n in range(1, SLOTS_PER_PAGE + 1)
    ),
    CommandSpec("stop-all", "stop every sound"),
    CommandSpec("page-next", "the overlay's next page, on into the next folder, wrapping"),
    CommandSpec("page-prev", "the overlay's previous page, the same way back"),
    CommandSpec("folder-next", "the next place of the overlay's folder strip, wrapping"),
    CommandSpec("folder-prev", "the previous place of the overlay's folder strip, wrapping"),
    CommandSpec(
        "folder-jump-next", f"{FOLDER_JUMP} places on along the overlay's folder strip, wrapping"
    ),
    CommandSpec("folder-jump-prev", f"{FOLDER_JUMP} places back along the folder strip, wrapping"),
    CommandSpec("open-favourites", "the favourites; pressed on them, back to the page left"),
    CommandSpec("play-random", "play a random sound of the page the overlay shows"),
    CommandSpec("toggle-mic", "send sounds into the microphone, or stop sending them"),
    CommandSpec("rescan", "scan the sounds folder again"),
)
FAVOURITE_PREFIX = "fav-"
FOLDER_STEPS = {
    "folder-next": 1,
    "folder-prev": -1,
    "folder-jump-next": FOLDER_JUMP,
    "folder-jump-prev": -FOLDER_JUMP,
}  # places along the folder strip; each lands on a place's first page


def favourite_command(slug: str) -> str:
    return FAVOURITE_PREFIX + slug


def slot_of(command: str) -> int | None:
    """1-based slot of a ``play-slot-N`` command."""
    if command.startswith("play-slot-"):
        tail = command.removeprefix("play-slot-")
        if tail.isdigit() and 1 <= int(tail) <= SLOTS_PER_PAGE:
            return int(tail)
    return None


def command_rows(cat: Catalog) -> tuple[tuple[str, str], ...]:
    """Each built-in command with what it does, in the catalog's language."""
    meanings = {
        "stop-all": "command.stop_all",
        "page-next": "command.page_next",
        "page-prev": "command.page_prev",
        "play-random": "command.play_random",
        "toggle-mic": "command.toggle_mic",
        "rescan": "command.rescan",
        "folder-next": msgid("command.folder_next"),
        "folder-prev": msgid("command.folder_prev"),
        "folder-jump-next": msgid("command.folder_jump_next"),
        "folder-jump-prev": msgid("command.folder_jump_prev"),
        "open-favourites": msgid("command.open_favourites"),
    }
    rows: list[tuple[str, str]] = []
    for spec in STATIC_COMMANDS:
        slot = slot_of(spec.name)
        if slot is not None:
            rows.append((spec.name, cat.t("command.play_slot", n=slot)))
        else:
            rows.append((spec.name, cat.t(meanings[spec.name], n=FOLDER_JUMP)))
    return tuple(rows)
