"""audio: vrosdev's real decoder and mixer (vrosdev.audio) behind the wire (AUD-1 … AUD-23).

The engine decodes on worker threads; each outcome crosses into the event loop through a
memory stream and goes out as ``audio_loaded`` only after the ``loading`` response of the same
sound has been written, so the order on the wire is always response first (AUD-6).
Sounds live as long as vrosdev, across reconnects (docs/protocol-notes.md#r21).
"""

from __future__ import annotations

import dataclasses
import logging
from typing import TYPE_CHECKING, Any

import anyio
import anyio.from_thread
import anyio.lowlevel

from vxp.limits import GAIN_MAX, GAIN_MIN

from .. import shapes as S
from ..errors import DomainErr

if TYPE_CHECKING:
    from vrosdev.audio import AudioEngine

    from ..core import Connection, ExtensionHost

log = logging.getLogger("vrosdev")


def install(host: ExtensionHost) -> None:
    state: dict[str, Any] = {"engine": None}
    gates: dict[str, anyio.Event] = {}
    pending: set[str] = host.services.setdefault("audio_pending", set())  # loads not yet reported
    loaded: set[str] = set()
    paths: dict[str, str] = {}  # sound id -> file, for a fail-load step naming a file

    def forget() -> None:
        """A host restart that loses every decoded sound (the script's disconnect forget-sounds)."""
        eng = state["engine"]
        if eng is not None:
            for sound in list(loaded):
                eng.unload(sound)
        loaded.clear()

    host.services["audio_forget"] = forget
    send, receive = anyio.create_memory_object_stream[tuple[str, Any]](1024)

    def engine() -> AudioEngine:
        if state["engine"] is None:
            from vrosdev.audio import AudioEngine

            token = anyio.lowlevel.current_token()

            def on_loaded(sound: str, outcome: Any) -> None:
                try:
                    anyio.from_thread.run_sync(send.send_nowait, (sound, outcome), token=token)
                except (RuntimeError, anyio.ClosedResourceError, anyio.WouldBlock):
                    log.warning("audio: an outcome for %s arrived after the host stopped", sound)

            state["engine"] = AudioEngine(
                on_loaded,
                cache_mib=host.config.audio_cache_mib,
                no_device=host.config.no_device,
            )
            host.services["audio_engine"] = state["engine"]
        return state["engine"]

    async def pump() -> None:
        async with receive:
            async for sound, outcome in receive:
                gate = gates.pop(sound, None)
                if gate is not None:
                    with anyio.move_on_after(5):
                        await gate.wait()
                pending.discard(sound)
                outcome = _injected_failure(host, sound, paths.pop(sound, ""), outcome)
                event = {"event": "audio_loaded", "sound": sound, "outcome": _wire(outcome)}
                if not await host.emit(event):
                    log.info("audio_loaded %s not delivered: no connection", sound)

    async def handle(conn: Connection, req: Any) -> dict[str, Any]:
        eng = engine()
        match req:
            case S.AudioLoad(path=path, normalize=normalize):
                started = eng.load(path, normalize)
                if hasattr(started, "code"):
                    raise DomainErr(started.code, started.message)  # type: ignore[union-attr]
                loaded.add(started.sound)  # type: ignore[union-attr]
                paths[started.sound] = path  # type: ignore[union-attr]
                gate = anyio.Event()
                gates[started.sound] = gate  # type: ignore[union-attr]
                pending.add(started.sound)  # type: ignore[union-attr]
                conn.after_reply.append(_opener(gate))
                return {"result": "loading", "sound": started.sound}  # type: ignore[union-attr]
            case S.AudioPlay(sound=sound, targets=targets, looping=looping):
                for t in targets:
                    if not GAIN_MIN <= t.gain_pct <= GAIN_MAX:
                        host.violation("AUD-19", f"gain_pct {t.gain_pct} outside 0-100: skipped")
                played = eng.play(sound, [(t.channel, t.gain_pct) for t in targets], looping)
                _raise_if_error(played)
                for skipped in getattr(played, "skipped", ()):
                    host.recorder.note(
                        f"audio play {sound}: {skipped.channel} skipped ({skipped.reason})"
                    )
                return {"result": "ok"}
            case S.AudioUnload(sound=sound):
                _raise_if_error(eng.unload(sound))
            case S.AudioPreArm(channel=channel):
                _raise_if_error(eng.pre_arm(channel))
            case S.AudioStop(sound=sound):
                _raise_if_error(eng.stop(sound))
            case S.AudioStopAll():
                eng.stop_all()
            case S.AudioGetStatus():
                return {"result": "status", "playing": [_asdict(r) for r in eng.status()]}
            case S.AudioListChannels():
                return {"result": "channels", "channels": [_asdict(c) for c in eng.list_channels()]}
            case S.AudioListDevices():
                devices = _asdict(eng.list_devices())
                return {"result": "devices", **devices}
            case _:
                raise DomainErr("internal")
        return {"result": "ok"}

    async def finish() -> None:
        eng = state["engine"]
        if eng is None:
            if host.config.audio_out is not None:
                engine()  # write silent files all the same: the reader expects them
                eng = state["engine"]
            else:
                return
        if host.config.audio_out is not None:
            out = host.config.audio_out
            paths = await anyio.to_thread.run_sync(eng.write_wavs, out)
            log.info("audio: wrote %s", ", ".join(str(p) for p in paths.values()))
        await anyio.to_thread.run_sync(eng.close)
        send.close()

    host.background.append(pump)
    host.services.setdefault("on_exit", []).append(finish)
    host.register("audio", "1.2", "audio", handle)


def _injected_failure(host: ExtensionHost, sound: str, path: str, outcome: Any) -> Any:
    """A ``fail-load`` step armed for this sound: the load ends ``failed`` with its code."""
    code = host.hook.plan.take_load_failure(sound, path)
    if code is None:
        return outcome
    from vrosdev.audio.results import LoadFailed

    engine = host.services.get("audio_engine")
    if engine is not None:
        engine.fail(sound)
    host.hook.injected("fail_load", sound=sound, code=code)
    return LoadFailed(code, "injected by vrosdev")  # type: ignore[arg-type]


def _opener(gate: anyio.Event) -> Any:
    async def open_gate() -> None:
        gate.set()

    return open_gate


def _raise_if_error(result: Any) -> None:
    if result is not None and hasattr(result, "code") and hasattr(result, "message"):
        raise DomainErr(result.code, result.message)


def _asdict(obj: Any) -> dict[str, Any]:
    return dataclasses.asdict(obj)


def _wire(outcome: Any) -> dict[str, Any]:
    return dataclasses.asdict(outcome)
