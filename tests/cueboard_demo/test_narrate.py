"""The demo's narration of vrosdev's transcript reads as the person's steps, credentials hidden."""

from __future__ import annotations

from cueboard_demo.__main__ import narrate
from vrosdev.script import parse_line, transcript_text


def test_a_media_open_click_is_narrated_as_valid_redacted_json() -> None:
    step = parse_line(
        'click overlay media-open ["https://media.example/s.m3u8?token=demo-secret", "Demo stream"]'
    )
    assert step is not None
    transcript = [{"t": 1.5, "note": f"script: {transcript_text(step)}"}]
    assert narrate(transcript) == [
        '  1.50s  you: click overlay media-open ["<url>", "Demo stream"]'
    ]
