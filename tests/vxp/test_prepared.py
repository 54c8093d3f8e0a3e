"""A prepared request is the model's own JSON, byte for byte, however it was serialised: an
animated put's frames go one at a time (no single call holds the interpreter for the whole
2.6 MB while an event loop in another thread waits), the rest whole."""

from __future__ import annotations

import base64

from hypothesis import given
from hypothesis import strategies as st

from vxp.models.assets import AssetFrame, AssetPut
from vxp.models.audio import AudioPlay, PlayTarget
from vxp.prepared import prepare


def _put(frames: int, side: int, delay_ms: int, loop: int) -> AssetPut:
    rgba = bytes(range(256)) * (side * side * 4 // 256 + 1)
    made = [AssetFrame.from_rgba(rgba[: side * side * 4], delay_ms) for _ in range(frames)]
    return AssetPut(key="cb:icon:a", width=side, height=side, frames=made, loop=loop)


@given(
    frames=st.integers(1, 60),
    side=st.sampled_from([8, 16, 64]),
    delay_ms=st.integers(20, 1000),
    loop=st.integers(0, 5),
)
def test_a_put_prepared_frame_by_frame_is_its_model_json(
    frames: int, side: int, delay_ms: int, loop: int
) -> None:
    model = _put(frames, side, delay_ms, loop)
    assert prepare("assets", model).params_json == model.model_dump_json(exclude_none=True).encode()


def test_a_full_size_animated_put_and_a_play_with_two_targets_are_their_model_json() -> None:
    put = _put(30, 128, 40, 0)
    assert prepare("assets", put).params_json == put.model_dump_json().encode()
    assert base64.b64decode(put.frames[0].rgba_base64)[:4] == bytes(range(4))
    targets = [
        PlayTarget(channel="soundboard", gain_pct=80),
        PlayTarget(channel="mic", gain_pct=40),
    ]
    play = AudioPlay(sound="s-00000001", targets=targets)
    assert prepare("audio", play).params_json == play.model_dump_json(exclude_none=True).encode()
