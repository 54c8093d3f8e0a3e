"""Several extensions in one emulated vrOS, each on its own real socket, spoken to in raw lines.

Face tracking needs a provider and a reader side by side: these hosts share one ``shared``
dict (and so one face hub), as the extensions of one ``vrosdev run`` do.
"""

from __future__ import annotations

import tempfile
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import anyio

from vrosdev.host.config import HostConfig
from vrosdev.host.core import ExtensionHost
from vrosdev.host.log import Recorder

from .rawhost import RawPeer

SIM = {
    "id": "sim",
    "name": "Simulated eyes + mouth",
    "device": "Demo",
    "transport": "VXP",
    "capabilities": {"combined_gaze": True, "eye_lids": True, "expressions": ["jaw_open"]},
    "max_rate_hz": 30,
}


@dataclass
class Ext:
    host: ExtensionHost
    path: str
    peers: list[RawPeer] = field(default_factory=list[RawPeer])

    @property
    def ext_id(self) -> str:
        return self.host.config.ext_id

    async def again(self, peer: RawPeer) -> RawPeer:
        """Close ``peer`` and say hello anew once the host has seen it go."""
        await peer.stream.aclose()
        with anyio.fail_after(5):
            while self.host.connection is not None:  # noqa: ASYNC110 - the host has no event for it
                await anyio.sleep(0.01)
        return await self.ready()

    async def ready(self, version: str = "1.7") -> RawPeer:
        """A raw peer past its hello; the welcome is kept as ``peer.welcome``."""
        stream = await anyio.connect_unix(self.path)
        peer = RawPeer(stream)
        self.peers.append(peer)
        token = self.host.config.token
        await peer.send(
            f'{{"jsonrpc":"2.0","id":1,"method":"hello","params":{{"id":"{self.ext_id}",'
            f'"vxp_version":"{version}","token":"{token}"}}}}'
        )
        answer = await peer.reply()
        assert answer["result"]["result"] == "welcome", answer
        peer.welcome = answer["result"]  # type: ignore[attr-defined]
        return peer


@asynccontextmanager
async def face_hosts(*grants: dict[str, Any]) -> AsyncIterator[list[Ext]]:
    """One extension per ``grants`` (``com.example.face-0``, ``-1``, …), sharing a face hub."""
    shared: dict[str, Any] = {}
    with tempfile.TemporaryDirectory(prefix="vrosdev-face-") as tmp:
        exts: list[Ext] = []
        listeners: list[Any] = []
        async with anyio.create_task_group() as tg:
            for n, granted in enumerate(grants):
                cfg = HostConfig(
                    ext_id=f"com.example.face-{n}",
                    token=f"token-{n}-secret",
                    granted={"bus": [], **granted},
                    state_dir=Path(tmp) / f"state-{n}",
                )
                host = ExtensionHost(cfg, Recorder(cfg.token), shared)
                path = str(Path(tmp) / f"ext-{n}.sock")
                listener = await anyio.create_unix_listener(path)
                listeners.append(listener)
                tg.start_soon(host.serve, listener)
                exts.append(Ext(host, path))
            try:
                yield exts
            finally:
                for ext in exts:
                    for peer in ext.peers:
                        await peer.stream.aclose()
                for listener in listeners:
                    await listener.aclose()
                tg.cancel_scope.cancel()
