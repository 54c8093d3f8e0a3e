"""The asset table manager: content keys put once, the host's limits and LRU order mirrored so
the host never evicts silently (AST-13), 24 animations per panel (AST-14), re-put after a
reconnect (AST-17). (Sending plans and retrying budget_full: tests/cueboard/core/test_icons.py.)"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Mapping
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from cueboard.core.asset_table import (
    MAX_ANIMATED_PER_PANEL,
    TABLE_MAX_BYTES,
    AssetRef,
    AssetTable,
    Icon,
    PanelPlan,
)

MIB = 1024 * 1024


def icon(name: str, nbytes: int = 1000, frames: int = 1) -> Icon:
    animated = AssetRef(f"thumb:{name}", nbytes, frames)
    still = AssetRef(f"thumb:{name}-still", nbytes // frames, 1) if frames > 1 else animated
    return Icon(animated, still)


class StrictHost:
    """vrOS's table as the spec describes it, that fails the test if it ever has to evict."""

    def __init__(self, max_entries: int, max_bytes: int) -> None:
        self.max_entries, self.max_bytes = max_entries, max_bytes
        self.table: OrderedDict[str, int] = OrderedDict()
        self.puts: list[str] = []

    def put(self, params: Mapping[str, Any]) -> str:
        key, nbytes = params["key"], params["nbytes"]
        self.table[key] = nbytes
        self.table.move_to_end(key)
        self.puts.append(key)
        assert len(self.table) <= self.max_entries, "the host had to evict silently"
        assert sum(self.table.values()) <= self.max_bytes, "the host had to evict silently"
        return "ok"

    def remove(self, key: str) -> str:
        self.table.pop(key, None)
        return "ok"


def params_for(ref: AssetRef) -> Mapping[str, Any]:
    return {"key": ref.key, "nbytes": ref.nbytes}


def apply(table: AssetTable, plan: PanelPlan, host: StrictHost) -> None:
    """Carry a plan out as the core does: removes first, then puts, then the panel shows it."""
    for key in plan.remove:
        host.remove(key)
        table.record_removed(key)
    for ref in plan.put:
        assert host.put(params_for(ref)) == "ok"
        table.record_put(ref)
    table.commit_panel(plan)


def test_same_image_is_put_once_across_panels() -> None:
    table = AssetTable()
    first = table.plan_panel("overlay", [icon("a"), icon("a")])
    assert [r.key for r in first.put] == ["thumb:a"]
    assert first.keys == ("thumb:a", "thumb:a")
    table.record_put(first.put[0])
    table.commit_panel(first)
    again = table.plan_panel("dash", [icon("a")])
    assert again.put == () and again.remove == ()


def test_least_recently_used_unshown_keys_are_removed_first() -> None:
    table = AssetTable(max_entries=3)
    for name in "abc":
        plan = table.plan_panel("overlay", [icon(name)])
        table.record_put(plan.put[0])
        table.commit_panel(plan)
    table.touch(["thumb:a"])  # a used again: b is now the oldest
    plan = table.plan_panel("overlay", [icon("d")])
    assert plan.remove == ("thumb:b",)


def test_keys_a_panel_shows_are_never_removed() -> None:
    table = AssetTable(max_entries=2)
    shown = table.plan_panel("dash", [icon("a")])
    table.record_put(shown.put[0])
    table.commit_panel(shown)
    other = table.plan_panel("overlay", [icon("b")])
    table.record_put(other.put[0])
    table.commit_panel(other)
    plan = table.plan_panel("overlay", [icon("c")])
    assert plan.remove == ("thumb:b",)  # not a: the dash panel still shows it


def test_byte_budget_is_mirrored() -> None:
    table = AssetTable()
    big = [icon(f"i{n}", nbytes=2 * MIB) for n in range(16)]  # exactly 32 MiB
    plan = table.plan_panel("p", big)
    for ref in plan.put:
        table.record_put(ref)
    table.panel_closed("p")
    plan = table.plan_panel("p", [icon("new", nbytes=1)])
    assert plan.remove == ("thumb:i0",)
    assert table.used_bytes == TABLE_MAX_BYTES


def test_at_most_24_animations_per_panel() -> None:
    """AST-14: past the 24th animated icon, the still (first-frame) variant is shown."""
    icons = [icon(f"anim{n}", nbytes=40 * 1000, frames=10) for n in range(30)]
    plan = AssetTable().plan_panel("overlay", icons)
    assert plan.keys[:MAX_ANIMATED_PER_PANEL] == tuple(i.animated.key for i in icons[:24])
    assert plan.keys[24:] == tuple(i.still.key for i in icons[24:])


def test_animations_degrade_to_stills_when_bytes_run_out() -> None:
    """24 animations of 2 MiB cannot fit 32 MiB: the last ones become stills."""
    icons = [icon(f"big{n}", nbytes=2 * MIB, frames=32) for n in range(24)]
    plan = AssetTable().plan_panel("overlay", icons)
    animated = [k for k, i in zip(plan.keys, icons, strict=True) if k == i.animated.key]
    assert 10 <= len(animated) < 16
    assert plan.keys[: len(animated)] == tuple(i.animated.key for i in icons[: len(animated)])
    assert sum(r.nbytes for r in plan.shown) <= TABLE_MAX_BYTES


def test_reconnect_puts_back_what_panels_show() -> None:
    """After a reconnect the host's table is empty: the panels' next plans put every icon again,
    each once."""
    table = AssetTable()
    host = StrictHost(1024, TABLE_MAX_BYTES)
    panels = (("overlay", "ab"), ("dash", "bc"))
    for panel, names in panels:
        apply(table, table.plan_panel(panel, [icon(n) for n in names]), host)
    assert host.puts == ["thumb:a", "thumb:b", "thumb:c"]
    table.connection_lost()
    fresh = StrictHost(1024, TABLE_MAX_BYTES)
    for panel, names in panels:
        apply(table, table.plan_panel(panel, [icon(n) for n in names]), fresh)
    assert fresh.puts == ["thumb:a", "thumb:b", "thumb:c"]
    assert len(table) == 3


@settings(max_examples=60, deadline=None)
@given(
    st.lists(
        st.tuples(
            st.sampled_from(["overlay", "dash", "tab"]),
            st.lists(st.tuples(st.integers(0, 40), st.sampled_from([1, 8, 32])), max_size=30),
        ),
        min_size=1,
        max_size=12,
    )
)
def test_the_host_never_has_to_evict(steps: list[tuple[str, list[tuple[int, int]]]]) -> None:
    """Property: whatever panels show, in any order, the strict host never overflows."""
    table = AssetTable(max_entries=48, max_bytes=4 * MIB)
    host = StrictHost(48, 4 * MIB)
    for panel, wanted in steps:
        icons = [icon(f"{n}x{f}", nbytes=f * 64 * 1024 // 2, frames=f) for n, f in wanted]
        apply(table, table.plan_panel(panel, icons), host)
        assert set(host.table) == set(table.keys_by_age())
        for ref in table.shown(panel):
            assert ref.key in host.table
