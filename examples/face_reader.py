"""A face-tracking reader: subscribes to the eyes and the mouth and prints what it reads.

Run it inside vrosdev beside examples/face_provider.py. Each ``face_update`` is a complete
snapshot (FACE-30); a sample is trusted only while its age, plus the time the event took to
arrive here, stays under 250 ms (FACE-31). When vrOS drops the connection it says hello again.
"""

from __future__ import annotations

import time

import anyio

import vxp
from vxp.models import EyesSample, FaceUpdate, MouthSample, ShuttingDown

MAX_AGE_MS = 250


def describe(part: object, received: float) -> str:
    if isinstance(part, EyesSample | MouthSample):
        age = part.age_ms + (time.monotonic() - received) * 1000
        fresh = "fresh" if age < MAX_AGE_MS else "too old"
        return f"{part.source_id} #{part.sequence} ({fresh})"
    return str(getattr(part, "kind", "?"))


async def serve(client: vxp.Client) -> bool:
    try:
        await client.face.subscribe(eyes=True, mouth=True)
    except vxp.DomainError as exc:  # face_read off
        print(f"face_reader: cannot subscribe: {exc.code}", flush=True)
    try:
        async for event in client.events():
            if isinstance(event, FaceUpdate):
                now = time.monotonic()
                state = event.state
                print(
                    f"face_reader: read={state.granted.read} eyes={describe(state.eyes, now)} "
                    f"mouth={describe(state.mouth, now)}",
                    flush=True,
                )
            elif isinstance(event, ShuttingDown):
                return True
    except vxp.ConnectionClosed:
        pass
    return False


async def main() -> None:
    while True:
        async with vxp.connect() as client:
            if await serve(client):
                return


if __name__ == "__main__":
    anyio.run(main)
