"""How the wire layer receives audio_loaded: the documented bridge into an anyio loop works."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import anyio
import anyio.from_thread
import anyio.lowlevel
import anyio.to_thread
import pytest

from vrosdev.audio import AudioEngine, Loaded, LoadOutcome, LoadStarted

type Frame = tuple[str, str, LoadOutcome | None]


@pytest.mark.anyio
async def test_loading_always_precedes_audio_loaded(write_tone: Callable[..., Path]) -> None:
    """AUD-6, AUD-17: queue `loading` before yielding; the bridged event can only come after."""
    send, receive = anyio.create_memory_object_stream[Frame](64)
    token = anyio.lowlevel.current_token()

    def on_loaded(sound: str, outcome: LoadOutcome) -> None:
        anyio.from_thread.run_sync(send.send_nowait, ("audio_loaded", sound, outcome), token=token)

    path = str(write_tone("tiny.wav", seconds=0.01))
    engine = AudioEngine(on_loaded)
    try:
        for _ in range(8):
            started = engine.load(path, False)
            assert isinstance(started, LoadStarted)
            send.send_nowait(("loading", started.sound, None))
        frames: list[Frame] = []
        with anyio.fail_after(60):
            while len(frames) < 16:
                frames.append(await receive.receive())
    finally:
        await anyio.to_thread.run_sync(engine.close)
    for kind, sound, outcome in frames:
        position = frames.index((kind, sound, outcome))
        if kind == "audio_loaded":
            assert ("loading", sound, None) in frames[:position]
            assert isinstance(outcome, Loaded)
    assert sum(kind == "audio_loaded" for kind, _, _ in frames) == 8
