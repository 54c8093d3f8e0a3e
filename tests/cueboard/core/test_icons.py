"""Icons in the grid: decoded by a worker, put into the host's table removes first, a put that
the host refuses for good not shown, everything put again after a reconnect (AST-13, AST-17)."""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

from cueboard.core.asset_table import AssetRef, AssetTable
from cueboard.core.effects import Effect, Failure, HostFailure, Reply, Send, Tickets, Wake
from cueboard.core.icons import (
    MAX_KNOWN,
    MAX_PREPARED_BYTES,
    Decoded,
    DecodeIcons,
    IconsDecoded,
    IconsModel,
)
from cueboard.core.library import Sound
from cueboard.core.policy import MAX_RETRIES
from cueboard.core.tracker import Tracker
from vxp.models import assets
from vxp.prepared import Prepared

ROOT = Path("/lib")


def _sounds(n: int, first: int = 0) -> list[Sound]:
    return [Sound(f"{i}.wav", str(i), "", 1, 1, icon=f"{i}.gif") for i in range(first, first + n)]


def _decoded(rel: str, pixels: int = 0) -> Decoded:
    """The worker's result; ``pixels`` bytes of base64 make the put as large as a real one."""
    key = f"cb:icon:{rel}"
    put = {"op": "put", "key": key, "frames": [{"rgba_base64": "A" * pixels}]}
    body = json.dumps(put, separators=(",", ":")).encode()
    return (AssetRef(key, 64 * 64 * 4, 1), Prepared("assets", body)), None


class Host:
    """Answers puts and removes; ``refuse`` fails the puts of these keys with these codes."""

    def __init__(self, model: IconsModel, tracker: Tracker) -> None:
        self.model, self.tracker = model, tracker
        self.log: list[tuple[str, str]] = []
        self.refuse: dict[str, list[str]] = {}
        self.now = 0.0
        self.wakes: dict[str, float] = {}
        self.decodes: list[str] = []
        self.pixels = 0

    def carry(self, effects: list[Effect]) -> None:
        queue = list(effects)
        while queue:
            e = queue.pop(0)
            if isinstance(e, DecodeIcons):
                self.decodes += [rel for rel, _ in e.items]
                decoded = IconsDecoded(
                    tuple((rel, _decoded(rel, self.pixels)) for rel, _ in e.items)
                )
                queue += self.model.on_decoded(decoded, self.now)
            elif isinstance(e, Wake):
                self.wakes[e.key] = e.at
            elif isinstance(e, Send):
                queue += self._answer(e)

    def _answer(self, send: Send) -> list[Effect]:
        p: Any = send.params
        key = json.loads(p.params_json)["key"] if isinstance(p, Prepared) else p.key
        self.log.append((send.op, key))
        codes = self.refuse.get(key)
        if codes:
            failure = Failure(send.ticket, HostFailure("domain", codes.pop(0)))
            return self.tracker.on_failure(failure, self.now)
        return self.tracker.on_reply(Reply(send.ticket, assets.AssetOk(result="ok")), self.now)

    def run_timers(self) -> None:
        from cueboard.core.effects import Tick

        while self.wakes:
            key, at = min(self.wakes.items(), key=lambda kv: kv[1])
            del self.wakes[key]
            self.now = max(self.now, at)
            self.carry(self.tracker.on_tick(Tick(key, self.now)))


def _setup(table: AssetTable | None = None) -> tuple[IconsModel, Host]:
    tracker = Tracker(Tickets(), random.Random(0))
    model = IconsModel(tracker)
    if table is not None:
        model.table = table
    return model, Host(model, tracker)


def test_a_page_of_icons_is_decoded_once_put_and_shown() -> None:
    model, host = _setup()
    host.carry(model.want(ROOT, _sounds(3), 0.0))
    assert [op for op, _ in host.log] == ["put"] * 3
    assert model.shown == {f"{i}.wav": f"cb:icon:{i}.wav" for i in range(3)}
    host.log.clear()
    host.carry(model.want(ROOT, _sounds(3), 1.0))
    assert host.log == []  # decoded and in the table already


def test_the_table_removes_the_least_recently_used_before_it_puts() -> None:
    model, host = _setup(AssetTable(max_entries=3))
    host.carry(model.want(ROOT, _sounds(3), 0.0))
    host.log.clear()
    host.carry(model.want(ROOT, [Sound("9.wav", "9", "", 1, 1, icon="9.gif")], 1.0))
    assert host.log[0][0] == "remove" and host.log[-1] == ("put", "cb:icon:9.wav")
    assert len(model.table) <= 3


def test_budget_full_is_retried_by_the_policy_and_a_refused_put_is_not_shown() -> None:
    model, host = _setup()
    host.refuse = {"cb:icon:0.wav": ["budget_full"] * 2, "cb:icon:1.wav": ["too_large"]}
    host.carry(model.want(ROOT, _sounds(2), 0.0))
    host.run_timers()
    puts = [key for op, key in host.log if op == "put"]
    assert puts.count("cb:icon:0.wav") == 3 and puts.count("cb:icon:1.wav") == 1
    assert model.shown == {"0.wav": "cb:icon:0.wav"}


def test_budget_full_for_ever_gives_up_after_three_retries() -> None:
    model, host = _setup()
    host.refuse = {"cb:icon:0.wav": ["budget_full"] * 50}
    host.carry(model.want(ROOT, _sounds(1), 0.0))
    host.run_timers()
    assert [op for op, _ in host.log].count("put") == 1 + MAX_RETRIES
    assert model.shown == {}


def test_after_a_reconnect_the_icons_are_put_again() -> None:
    model, host = _setup()
    host.carry(model.want(ROOT, _sounds(2), 0.0))
    model.connection_lost()
    host.log.clear()
    host.carry(model.want(ROOT, _sounds(2), 1.0))
    assert sorted(host.log) == [("put", "cb:icon:0.wav"), ("put", "cb:icon:1.wav")]
    assert len(model.shown) == 2


PAGE = 12
PUT_BYTES = 111_000  # a 128x128 icon's put


def _page(n: int) -> list[Sound]:
    return _sounds(PAGE, first=n * PAGE)


def test_paging_through_many_icons_keeps_the_prepared_puts_bounded() -> None:
    model, host = _setup()
    host.pixels = PUT_BYTES
    for n in range(60):  # 720 icons, about 80 MB of puts
        host.carry(model.want(ROOT, _page(n), float(n)))
    assert len(host.decodes) == 60 * PAGE
    assert model.prepared_bytes <= MAX_PREPARED_BYTES + PAGE * (PUT_BYTES + 200)
    assert model.prepared_bytes == sum(
        len(p.params_json) for puts in model.prepared.values() for p in puts.values()
    )
    assert {f"{i}.wav" for i in range(59 * PAGE, 60 * PAGE)} <= set(model.prepared)


def test_a_page_whose_icons_the_host_still_holds_is_shown_without_decoding_again() -> None:
    model, host = _setup()
    host.pixels = PUT_BYTES
    for n in range(60):
        host.carry(model.want(ROOT, _page(n), float(n)))
    assert "0.wav" not in model.prepared  # dropped long ago; the host's table has the icon
    host.log.clear()
    host.decodes.clear()
    host.carry(model.want(ROOT, _page(0), 100.0))
    assert host.decodes == [] and host.log == []
    assert len(model.shown) == PAGE


def test_an_icon_dropped_here_and_gone_from_the_host_is_decoded_and_put_again() -> None:
    model, host = _setup(AssetTable(max_entries=2 * PAGE))
    host.pixels = PUT_BYTES
    for n in range(60):
        host.carry(model.want(ROOT, _page(n), float(n)))
    host.decodes.clear()
    host.log.clear()
    host.carry(model.want(ROOT, _page(0), 100.0))
    assert sorted(host.decodes) == sorted(s.rel_path for s in _page(0))
    assert sorted(key for op, key in host.log if op == "put") == sorted(
        f"cb:icon:{s.rel_path}" for s in _page(0)
    )
    assert len(model.shown) == PAGE


def test_after_a_reconnect_icons_whose_puts_were_dropped_are_decoded_and_put_again() -> None:
    model, host = _setup()
    host.pixels = PUT_BYTES
    for n in range(60):
        host.carry(model.want(ROOT, _page(n), float(n)))
    host.carry(model.want(ROOT, _page(0), 100.0))  # in the host's table: shown, not decoded
    model.connection_lost()
    host.decodes.clear()
    host.log.clear()
    host.carry(model.want(ROOT, _page(0), 101.0))
    assert sorted(host.decodes) == sorted(s.rel_path for s in _page(0))
    assert len([1 for op, _ in host.log if op == "put"]) == PAGE
    assert len(model.shown) == PAGE


def test_the_refs_kept_are_bounded_by_the_host_table_size() -> None:
    model, host = _setup()
    for n in range(2 * MAX_KNOWN // PAGE):
        host.carry(model.want(ROOT, _page(n), float(n)))
    assert len(model.decoded) <= MAX_KNOWN


def test_a_reconnect_while_decoding_decodes_again_what_it_no_longer_has_to_put() -> None:
    model, host = _setup()
    host.pixels = PUT_BYTES
    for n in range(60):
        host.carry(model.want(ROOT, _page(n), float(n)))
    page = [*_page(0)[:-1], *_sounds(1, first=1000)]  # one icon not decoded yet
    pending = model.want(ROOT, page, 100.0)
    assert [type(e) for e in pending] == [DecodeIcons]
    model.connection_lost()  # the host's table is gone before the decode comes back
    host.decodes.clear()
    host.log.clear()
    host.carry(pending)
    assert sorted(host.decodes) == sorted(s.rel_path for s in page)
    assert len([1 for op, _ in host.log if op == "put"]) == PAGE
    assert len(model.shown) == PAGE
