"""docs/face.md is the one statement of the face shapes: the SDK and vrosdev hold its list."""

from __future__ import annotations

import re
from pathlib import Path

from vrosdev.host.face_rules import EXPRESSIONS as HOST_EXPRESSIONS
from vxp.limits import FACE_EXPRESSIONS as SDK_EXPRESSIONS
from vxp.models import FaceState

DOC = Path(__file__).resolve().parents[2] / "docs" / "face.md"


def documented_expressions() -> list[str]:
    text = DOC.read_text(encoding="utf-8")
    block = text.split("<!-- face-expressions:begin -->")[1].split("<!-- face-expressions:end -->")
    return re.findall(r"`([a-z_]+)`", block[0])


def test_face15_the_sdk_and_vrosdev_hold_the_37_expressions_of_the_docs() -> None:
    names = documented_expressions()
    assert len(names) == 37
    assert len(set(names)) == 37
    assert set(names) == SDK_EXPRESSIONS == HOST_EXPRESSIONS
    assert {"jaw_open", "mouth_smile_left", "tongue_out"} <= set(names)


def test_face30_the_documented_face_update_parses_into_the_sdk_state() -> None:
    text = DOC.read_text(encoding="utf-8")
    example = text.split('{"event":"face_update","state":')[1].split("}}\n```")[0] + "}"
    state = FaceState.model_validate_json(re.sub(r"\s*\n\s*", "", example))
    assert state.granted.provide and state.granted.read
    assert state.eyes.kind == "sample"
    assert state.mouth.kind == "waiting"
    assert state.demands[0].generation == 1


def test_ver2_a_part_kind_from_a_newer_host_is_an_explicit_unknown() -> None:
    from vxp.models import PartUnknown

    state = FaceState.model_validate({"eyes": {"kind": "predicted", "source_id": "sim"}})
    assert isinstance(state.eyes, PartUnknown)
    assert state.mouth.kind == "off"
