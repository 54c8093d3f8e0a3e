"""What a simulated source does, decided once from its URL so the URL itself need not be kept.

Tests reach every error and failure of the media namespace by putting a marker in the URL
(anywhere: host, path or query). The URL is a credential (MED-12), so a session stores only
the :class:`SourceBehaviour` derived from it, never the URL.

==========================  =====================================================================
marker in the URL           effect
==========================  =====================================================================
``endpoint-unavailable``    ``open``/``reload`` answer err ``endpoint_unavailable``
``dimension-limit``         ``open``/``reload`` answer err ``dimension_limit``
``busy-player``             ``open``/``reload`` answer err ``busy``
``fail-open``               ``open``/``reload`` answer err ``open_failed``
``playback-failed``         ``open``/``reload`` answer err ``playback_failed``
``fail-play``               accepted; after buffering, playback ``failed`` with code ``network``
                            and video ``recovering``
``fail-video``              accepted; when playback starts, video goes ``recovering`` (and stays
                            there until a reload) while playback stays ``playing`` (MED-20)
``end-soon``                accepted; playback ``ended`` after ``MediaTimings.play_s`` of
                            unpaused playing
==========================  =====================================================================

The refusing markers are checked in the order of the table; the first present wins. The
accepted markers combine. A refused ``reload`` leaves the session on its old source.
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["PLAYBACK_FAILURE_CODE", "REFUSALS", "SourceBehaviour", "behaviour_for"]

# (marker, err code, message): the message is what the err result carries.
REFUSALS: tuple[tuple[str, str, str], ...] = (
    ("endpoint-unavailable", "endpoint_unavailable", "no audio endpoint is available"),
    ("dimension-limit", "dimension_limit", "the video is larger than the player allows"),
    ("busy-player", "busy", "the player is busy"),
    ("fail-open", "open_failed", "the player could not open the source"),
    ("playback-failed", "playback_failed", "the player could not start playback"),
)

PLAYBACK_FAILURE_CODE = "network"


@dataclass(frozen=True, slots=True)
class SourceBehaviour:
    refusal: tuple[str, str] | None = None  # (code, message) answered at open/reload
    playback_failure: str | None = None  # code of a failure after buffering
    video_fails: bool = False
    ends: bool = False


def behaviour_for(url: str) -> SourceBehaviour:
    refusal = next(((code, msg) for marker, code, msg in REFUSALS if marker in url), None)
    return SourceBehaviour(
        refusal=refusal,
        playback_failure=PLAYBACK_FAILURE_CODE if "fail-play" in url else None,
        video_fails="fail-video" in url,
        ends="end-soon" in url,
    )
