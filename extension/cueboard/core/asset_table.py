"""The extension's side of vrOS's asset table: what the host holds, what each panel shows.

Theory of operation. vrOS keeps up to 1024 assets or 32 MiB per extension and silently evicts
the least recently used to make room (AST-13). An icon that vanished that way would show as
nothing, with no error, so the extension never lets the host evict: `AssetTable` mirrors the
host's table (keys, decoded sizes, use order) and every plan removes what must go, least
recently used first and never a key a panel still shows, before it puts anything new.

- Keys are content hashes (`Thumbnail.content_key()`): an icon already in the table is not put
  again, whichever sound it belongs to.
- At most 24 animations run per panel (AST-14); an icon past the 24th is shown by its still
  variant, a one-frame asset of its first frame.
- The table lasts as long as the connection (AST-17): after `connection_lost()` the table is
  empty, so the next plan of each panel puts back what it shows.
- `budget_full` means the host is busy (AST-19): the put is retried by the request tracker, as
  the policy table says (`cueboard.core.policy`); `cueboard.core.icons` sends the plans.

Sans-IO: plain state, fed results, asked for plans.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

MIB = 1024 * 1024
TABLE_MAX_ENTRIES = 1024  # AST-13
TABLE_MAX_BYTES = 32 * MIB  # AST-13
MAX_ANIMATED_PER_PANEL = 24  # AST-14


@dataclass(frozen=True, slots=True)
class AssetRef:
    """One asset as the table counts it: key, decoded bytes (width*height*4*frames)."""

    key: str
    nbytes: int
    frames: int

    @property
    def animated(self) -> bool:
        return self.frames > 1


@dataclass(frozen=True, slots=True)
class Icon:
    """An icon and its still variant (the same ref for a one-frame icon)."""

    animated: AssetRef
    still: AssetRef


@dataclass(frozen=True, slots=True)
class PanelPlan:
    """What to send for one panel: remove `remove` (in order), then put `put`, then show `keys`
    (one per icon asked for; None where the table has no room for it)."""

    panel: str
    keys: tuple[str | None, ...]
    remove: tuple[str, ...]
    put: tuple[AssetRef, ...]
    shown: tuple[AssetRef, ...]


class AssetTableFull(Exception):
    """The assets a single plan needs do not fit the host's table even when empty."""


class AssetTable:
    def __init__(
        self,
        *,
        max_entries: int = TABLE_MAX_ENTRIES,
        max_bytes: int = TABLE_MAX_BYTES,
        max_animated_per_panel: int = MAX_ANIMATED_PER_PANEL,
    ) -> None:
        self.max_entries = max_entries
        self.max_bytes = max_bytes
        self.max_animated_per_panel = max_animated_per_panel
        self._entries: OrderedDict[str, int] = OrderedDict()  # least recently used first
        self._bytes = 0
        self._panels: dict[str, tuple[AssetRef, ...]] = {}

    # --- the mirror of the host's table -------------------------------------------------

    def __contains__(self, key: object) -> bool:
        return key in self._entries

    def __len__(self) -> int:
        return len(self._entries)

    @property
    def used_bytes(self) -> int:
        return self._bytes

    def keys_by_age(self) -> list[str]:
        """Keys from least to most recently used."""
        return list(self._entries)

    def record_put(self, ref: AssetRef) -> None:
        """A put sent (one that fails is :meth:`record_removed` again): the asset is in, most
        recently used, and a plan meanwhile counts it."""
        if ref.key in self._entries:
            self._bytes -= self._entries[ref.key]
        self._entries[ref.key] = ref.nbytes
        self._entries.move_to_end(ref.key)
        self._bytes += ref.nbytes
        if len(self._entries) > self.max_entries or self._bytes > self.max_bytes:
            raise AssertionError("a put outside a plan would make the host evict silently")

    def record_removed(self, key: str) -> None:
        nbytes = self._entries.pop(key, None)
        if nbytes is not None:
            self._bytes -= nbytes

    def touch(self, keys: Sequence[str]) -> None:
        for key in keys:
            if key in self._entries:
                self._entries.move_to_end(key)

    def connection_lost(self) -> None:
        """The host's table died with the connection (AST-17); panels keep their icons."""
        self._entries.clear()
        self._bytes = 0

    # --- panels --------------------------------------------------------------------------

    def shown(self, panel: str) -> tuple[AssetRef, ...]:
        return self._panels.get(panel, ())

    def panel_closed(self, panel: str) -> None:
        """Its icons may now be evicted (they stay in the table until room is needed)."""
        self._panels.pop(panel, None)

    def plan_panel(self, panel: str, icons: Sequence[Icon]) -> PanelPlan:
        """The removes and puts that let `panel` show `icons`, never evicting a shown key."""
        others = {r.key: r for name, refs in self._panels.items() if name != panel for r in refs}
        choice = self._choose_variants(icons)
        while True:
            wanted = {r.key: r for r in choice if r is not None}
            pinned = others | wanted
            if self._fits(pinned.values()):
                break
            if not self._degrade(choice, icons):
                raise AssetTableFull(
                    f"panel {panel!r} needs more than the host's {self.max_entries} assets "
                    f"or {self.max_bytes} bytes even with other panels' icons kept"
                )
        to_put = tuple(r for r in wanted.values() if r.key not in self._entries)
        remove = self._evictions(to_put, pinned)
        return PanelPlan(
            panel=panel,
            keys=tuple(r.key if r is not None else None for r in choice),
            remove=remove,
            put=to_put,
            shown=tuple(wanted.values()),
        )

    def commit_panel(self, plan: PanelPlan, failed: frozenset[str] = frozenset()) -> None:
        """The plan was sent; keys whose put failed are not shown."""
        shown = tuple(r for r in plan.shown if r.key not in failed and r.key in self._entries)
        self._panels[plan.panel] = shown
        self.touch([r.key for r in shown])

    def _choose_variants(self, icons: Sequence[Icon]) -> list[AssetRef | None]:
        choice: list[AssetRef | None] = []
        animated = 0
        for icon in icons:
            if icon.animated.animated and animated < self.max_animated_per_panel:
                animated += 1
                choice.append(icon.animated)
            else:
                choice.append(icon.still)
        return choice

    def _degrade(self, choice: list[AssetRef | None], icons: Sequence[Icon]) -> bool:
        """Make the last animated icon still, or failing that drop the last icon."""
        for index in range(len(choice) - 1, -1, -1):
            ref = choice[index]
            if ref is not None and ref.animated and ref != icons[index].still:
                choice[index] = icons[index].still
                return True
        for index in range(len(choice) - 1, -1, -1):
            if choice[index] is not None:
                choice[index] = None
                return True
        return False

    def _fits(self, refs: Iterable[AssetRef]) -> bool:
        refs = list(refs)
        return len(refs) <= self.max_entries and sum(r.nbytes for r in refs) <= self.max_bytes

    def _evictions(
        self, to_put: Sequence[AssetRef], pinned: Mapping[str, AssetRef]
    ) -> tuple[str, ...]:
        entries = len(self._entries) + len(to_put)
        nbytes = self._bytes + sum(r.nbytes for r in to_put)
        remove: list[str] = []
        for key, size in self._entries.items():  # least recently used first
            if entries <= self.max_entries and nbytes <= self.max_bytes:
                break
            if key in pinned:
                continue
            remove.append(key)
            entries -= 1
            nbytes -= size
        return tuple(remove)
