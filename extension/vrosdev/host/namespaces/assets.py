"""assets (AST-1 … AST-20): every limit checked; the table is per connection (AST-17), holds
1024 assets or 32 MiB and evicts the least recently used (AST-13). ``--budget-full-every N``
answers every Nth put with ``budget_full`` so extensions can prove their retry (AST-19).

A put is checked in full before it is answered (alphabet, padding and decoded length of every
frame, by ``vxp.models.assets.base64_size``, the SDK's own rule) but its frames stay base64
until something draws them: decoding 2 MiB on the read loop would hold up every request
queued behind the put (bench/bench_latency.py), and the preview worker takes base64 anyway."""

from __future__ import annotations

import binascii
from collections import OrderedDict
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from vxp.limits import (
    ASSET_DELAY_MAX_MS,
    ASSET_DELAY_MIN_MS,
    ASSET_KEY_RE,
    ASSET_MAX_DECODED_BYTES,
    ASSET_MAX_FRAMES,
    ASSET_MAX_SIDE,
    ASSET_TABLE_MAX_BYTES,
    ASSET_TABLE_MAX_ENTRIES,
)
from vxp.models.assets import base64_size

from .. import shapes as S
from ..errors import DomainErr

if TYPE_CHECKING:
    from ..core import Connection, ExtensionHost


@dataclass(frozen=True)
class Asset:
    width: int
    height: int
    frames: tuple[tuple[str, int], ...]  # (checked base64 of straight RGBA8, delay_ms)
    loop: int

    def rgba(self, index: int) -> bytes:
        """Frame ``index``'s pixels (width x height x 4 bytes, by the check at put)."""
        return binascii.a2b_base64(self.frames[index][0])

    @property
    def nbytes(self) -> int:
        return self.width * self.height * 4 * len(self.frames)

    @property
    def animated(self) -> bool:
        return len(self.frames) > 1


class AssetTable:
    def __init__(self) -> None:
        self.entries: OrderedDict[str, Asset] = OrderedDict()
        self.bytes = 0
        self.evicted: list[str] = []

    def put(self, key: str, asset: Asset) -> None:
        self.remove(key)
        self.entries[key] = asset
        self.bytes += asset.nbytes
        while len(self.entries) > ASSET_TABLE_MAX_ENTRIES or self.bytes > ASSET_TABLE_MAX_BYTES:
            old, dropped = self.entries.popitem(last=False)
            self.bytes -= dropped.nbytes
            self.evicted.append(old)

    def remove(self, key: str) -> None:
        asset = self.entries.pop(key, None)
        if asset is not None:
            self.bytes -= asset.nbytes

    def touch(self, key: str) -> Asset | None:
        asset = self.entries.get(key)
        if asset is not None:
            self.entries.move_to_end(key)
        return asset

    def clear(self) -> None:
        self.entries.clear()
        self.bytes = 0


def table(conn: Connection) -> AssetTable:
    return conn.data.setdefault("assets", AssetTable())


def decode_put(req: S.AssetPut) -> Asset:
    """Validate a put completely before it touches the table (docs/protocol-notes.md#r18 for the
    codes)."""
    if not ASSET_KEY_RE.fullmatch(req.key):
        raise DomainErr("bad_key", "keys are 1-128 bytes of letters, digits and - _ . : /")
    w, h = req.width, req.height
    if w <= 0 or h <= 0:
        raise DomainErr("bad_pixels", f"{w}x{h}: width and height must be at least 1")
    if w > ASSET_MAX_SIDE or h > ASSET_MAX_SIDE:
        raise DomainErr("too_large", f"{w}x{h}: assets are at most 128x128")
    if not req.frames:
        raise DomainErr("bad_pixels", "an asset needs at least one frame")
    if len(req.frames) > ASSET_MAX_FRAMES:
        raise DomainErr("too_many_frames", f"{len(req.frames)} frames; at most {ASSET_MAX_FRAMES}")
    if w * h * 4 * len(req.frames) > ASSET_MAX_DECODED_BYTES:
        raise DomainErr("too_large", "over 2 MiB decoded")
    if req.loop < 0:
        raise DomainErr("bad_pixels", "loop is a play count: 0 (forever) or more")
    expected = w * h * 4
    for i, frame in enumerate(req.frames):
        if not ASSET_DELAY_MIN_MS <= frame.delay_ms <= ASSET_DELAY_MAX_MS:
            raise DomainErr(
                "bad_pixels", f"frame {i}: delay_ms {frame.delay_ms} is outside 20-1000"
            )
        size = base64_size(frame.rgba_base64)
        if size is None:
            raise DomainErr("bad_pixels", f"frame {i}: rgba_base64 is not valid base64")
        if size != expected:
            raise DomainErr(
                "bad_pixels", f"frame {i}: {size} bytes, expected {w}x{h}x4 = {expected}"
            )
    return Asset(w, h, tuple((f.rgba_base64, f.delay_ms) for f in req.frames), req.loop)


async def _tell_renderer(host: ExtensionHost, keys: list[str]) -> None:
    renderer = host.services.get("renderer")
    if renderer is not None:
        for key in keys:
            await renderer.asset_changed(key)


def install(host: ExtensionHost) -> None:
    every = host.config.budget_full_every
    counter = {"puts": 0}

    async def handle(conn: Connection, req: Any) -> dict[str, Any]:
        t = table(conn)
        match req:
            case S.AssetPut():
                asset = decode_put(req)
                counter["puts"] += 1
                if every and counter["puts"] % every == 0:
                    raise DomainErr("budget_full", "the host is busy: retry")
                t.put(req.key, asset)
                for key in t.evicted:
                    host.recorder.note(f"asset {key} evicted (least recently used, AST-13)")
                t.evicted.clear()
                renderer = host.services.get("renderer")
                if renderer is not None:
                    await renderer.asset_changed(req.key)
                return {"result": "ok"}
            case S.AssetRemove(key=key):
                if not ASSET_KEY_RE.fullmatch(key):
                    raise DomainErr(
                        "bad_key", "keys are 1-128 bytes of letters, digits and - _ . : /"
                    )
                t.remove(key)
                await _tell_renderer(host, [key])
                return {"result": "ok"}
            case _:
                keys = list(t.entries)
                t.clear()
                await _tell_renderer(host, keys)
                return {"result": "ok"}

    host.register("assets", "1.3", None, handle)
