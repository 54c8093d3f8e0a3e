"""A face-tracking provider: one simulated source that publishes only while it is demanded.

Run it inside vrosdev beside examples/face_reader.py (README, "vrosdev"). It registers ``sim``,
reads the demand from every ``face_update`` (docs/face.md), publishes the demanded parts at
its rate while they are wanted and stops the moment they are not (FACE-20). When vrOS drops
the connection it says hello again; ``shutting_down`` ends it.
"""

from __future__ import annotations

import math

import anyio

import vxp
from vxp.models import Eyes, FaceSample, FaceSource, FaceUpdate, Mouth, ShuttingDown, Weight

SOURCE = FaceSource.model_validate(
    {
        "id": "sim",
        "name": "Simulated eyes + mouth",
        "device": "Demo",
        "transport": "VXP",
        "capabilities": {"combined_gaze": True, "eye_lids": True, "expressions": ["jaw_open"]},
        "max_rate_hz": 30,
    }
)


def measure(sequence: int, parts: set[str]) -> FaceSample:
    """Only what is asked for; a real source would send only what it measures (FACE-28)."""
    phase = sequence / 10
    eyes = mouth = None
    if "eyes" in parts:
        x = 0.2 * math.sin(phase)
        gaze = (x, 0.0, -math.sqrt(1 - x * x))
        eyes = Eyes(gaze=gaze, closed_left=0.1, closed_right=0.1)
    if "mouth" in parts:
        mouth = Mouth(weights=[Weight(expression="jaw_open", value=round(abs(math.sin(phase)), 3))])
    return FaceSample(sequence=sequence, age_ms=5.0, eyes=eyes, mouth=mouth)


async def serve(client: vxp.Client) -> bool:
    """One connection; True when vrOS asked us to stop."""
    try:
        generation = await client.face.register(SOURCE)
    except vxp.DomainError as exc:  # face_provide off: wait for shutdown or a new connection
        print(f"face_provider: cannot register: {exc.code}", flush=True)
        generation = None
    wanted: set[str] = set()
    sequence = 0

    async def publish() -> None:
        nonlocal sequence
        while True:
            await anyio.sleep(1 / SOURCE.max_rate_hz)
            if not wanted or generation is None:
                continue
            sequence += 1
            try:
                await client.face.publish("sim", generation, measure(sequence, set(wanted)))
            except vxp.DomainError as exc:  # the demand ended on the way, say: wait for it
                print(f"face_provider: publish {sequence}: {exc.code}", flush=True)
            except vxp.ConnectionClosed:
                return

    async with anyio.create_task_group() as tg:
        tg.start_soon(publish)
        try:
            async for event in client.events():
                if isinstance(event, FaceUpdate):
                    demand = next((d for d in event.state.demands if d.source_id == "sim"), None)
                    wanted.clear()
                    if demand is not None and demand.generation == generation:
                        wanted.update(p for p in ("eyes", "mouth") if getattr(demand, p))
                    print(f"face_provider: demanded {sorted(wanted)}", flush=True)
                elif isinstance(event, ShuttingDown):
                    tg.cancel_scope.cancel()
                    return True
        except vxp.ConnectionClosed:
            pass
        tg.cancel_scope.cancel()
    return False


async def main() -> None:
    while True:
        async with vxp.connect() as client:
            if await serve(client):
                return


if __name__ == "__main__":
    anyio.run(main)
