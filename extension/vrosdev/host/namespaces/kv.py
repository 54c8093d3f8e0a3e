"""kv (KV-1 … KV-14): last write wins, revisions only grow, 1 MiB soft quota, settings checked.

Persistence is an append-only JSON-lines log per extension under the state folder, flushed on
every write, so a value the host answered ``written`` for survives the extension being killed.
Revisions come from one counter per store, so a key deleted and written again still goes up.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING, Any

from vxp.limits import (
    KV_KEY_MAX_BYTES,
    KV_SOFT_QUOTA_BYTES,
    KV_VALUE_MAX_BYTES,
    json_size,
    utf8_len,
)
from vxp.settings_rules import check_value

from .. import shapes as S
from ..errors import DomainErr

if TYPE_CHECKING:
    from ..core import Connection, ExtensionHost


class KvStore:
    def __init__(self, path: Path | None) -> None:
        self.path = path
        self.values: dict[str, Any] = {}
        self.revisions: dict[str, int] = {}
        self.sizes: dict[str, int] = {}
        self.counter = 0
        self.bytes_used = 0
        if path is not None and path.exists():
            self._replay(path)
            self._compact()

    def _replay(self, path: Path) -> None:
        with path.open("r", encoding="utf-8") as f:
            for line in f:
                try:
                    rec = json.loads(line)
                except ValueError:
                    continue  # a torn last line from a crash of vrosdev itself
                self.counter = max(self.counter, int(rec.get("r", 0)))
                if rec.get("d"):
                    self._drop(rec["k"])
                else:
                    self._put(rec["k"], rec["v"], int(rec["r"]))

    def _compact(self) -> None:
        assert self.path is not None
        tmp = self.path.with_suffix(".tmp")
        with tmp.open("w", encoding="utf-8") as f:
            for key, value in self.values.items():
                f.write(_record({"k": key, "v": value, "r": self.revisions[key]}))
            f.write(_record({"k": "", "d": True, "r": self.counter}))
        tmp.replace(self.path)

    def _put(self, key: str, value: Any, revision: int) -> None:
        self._drop(key)
        size = utf8_len(key) + json_size(value)
        self.values[key] = value
        self.revisions[key] = revision
        self.sizes[key] = size
        self.bytes_used += size

    def _drop(self, key: str) -> None:
        if key in self.values:
            self.bytes_used -= self.sizes.pop(key)
            del self.values[key]
            del self.revisions[key]

    def _append(self, rec: dict[str, Any]) -> None:
        if self.path is None:
            return
        self.path.parent.mkdir(parents=True, exist_ok=True)
        with self.path.open("a", encoding="utf-8") as f:
            f.write(_record(rec))
            f.flush()

    def get(self, key: str) -> tuple[Any, int]:
        return self.values.get(key), self.revisions.get(key, 0)

    def set(self, key: str, value: Any) -> int:
        self.counter += 1
        self._put(key, value, self.counter)
        self._append({"k": key, "v": value, "r": self.counter})
        return self.counter

    def delete(self, key: str) -> None:
        if key in self.values:
            self.counter += 1
            self._drop(key)
            self._append({"k": key, "d": True, "r": self.counter})

    @property
    def over_quota(self) -> bool:
        return self.bytes_used > KV_SOFT_QUOTA_BYTES


def _record(rec: dict[str, Any]) -> str:
    return json.dumps(rec, ensure_ascii=False, separators=(",", ":")) + "\n"


def store_for(host: ExtensionHost) -> KvStore:
    store = host.services.get("kv")
    if store is None:
        state = host.config.state_dir
        path = state / "kv" / f"{host.config.ext_id}.jsonl" if state is not None else None
        store = host.services["kv"] = KvStore(path)
    return store


def _check_key(key: str) -> None:
    if utf8_len(key) > KV_KEY_MAX_BYTES:
        raise DomainErr("key_too_large", f"keys are at most {KV_KEY_MAX_BYTES} bytes")


def install(host: ExtensionHost) -> None:
    store = store_for(host)
    declared = {s.key: s for s in host.config.settings}

    async def handle(conn: Connection, req: Any) -> dict[str, Any]:
        match req:
            case S.KvGet(key=key):
                _check_key(key)
                value, revision = store.get(key)
                return {"result": "value", "value": value, "revision": revision}
            case S.KvSet(key=key, value=value):
                _check_key(key)
                size = json_size(value)
                if size > KV_VALUE_MAX_BYTES:
                    raise DomainErr("value_too_large", f"{size} bytes; values are at most 64 KiB")
                setting = declared.get(key)
                if setting is not None:
                    reason = check_value(setting, value)
                    if reason is not None:
                        host.violation("KV-13", f"kv set {key!r} breaks its setting: {reason}")
                        raise DomainErr("invalid_value", reason)
                was_over = store.over_quota
                revision = store.set(key, value)
                if store.over_quota and not was_over:
                    host.recorder.note(
                        f"kv over the 1 MiB soft quota ({store.bytes_used} bytes): badge shown"
                    )
                return {"result": "written", "revision": revision, "over_quota": store.over_quota}
            case S.KvDelete(key=key):
                _check_key(key)
                store.delete(key)
                return {"result": "deleted"}
            case _:
                return {"result": "keys", "keys": list(store.values)}

    host.register("kv", "1.0", None, handle)
