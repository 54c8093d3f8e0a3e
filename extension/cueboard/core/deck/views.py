"""The deck as the overlay and the dash tab show it: titles and states, never a URL.

``deck_props`` turns a :class:`DeckView` into typed wire values of the panel contract
(cueboard.core.contract OVERLAY and DASH_TAB); the localised state words live here because only the
deck shows them.
"""

from __future__ import annotations

from dataclasses import dataclass

from cueboard.core.contract import DASH_TAB, OVERLAY, MediaMode, Playback, Video, WireValue
from cueboard.core.i18n import Catalog, msgid

from .slots import DeckOptions, Slot


@dataclass(frozen=True, slots=True)
class SlotView:
    """A slot in use, as the overlay shows it (the title, never the URL)."""

    key: str
    title: str
    playback: Playback
    failure_code: str
    video: Video
    paused: bool
    volume_pct: int
    muted: bool
    needs_url: bool
    source_generation: int | None  # None: no session


@dataclass(frozen=True, slots=True)
class DeckView:
    mode: MediaMode
    slots: tuple[SlotView, ...]
    options: DeckOptions
    native_controls_shown: bool  # host 1.6 or later
    controls_on_player_shown: bool  # host 1.7 or later
    url_clear: int  # advanced after each successful open or reload from the fields


def slot_view(slot: Slot) -> SlotView:
    seen = slot.observed
    if slot.session is not None and seen is not None:
        playback, code, video = seen.playback, seen.code, seen.video
        paused, volume, muted = seen.paused, seen.volume_pct, seen.muted
    else:
        opts = slot.options
        paused, volume, muted = opts.paused, opts.volume_pct, opts.muted
        if slot.session is not None:
            playback, code = Playback.OPENING, ""
            video = Video.WARMING if opts.show_video else Video.DISABLED
        elif slot.error_code:
            playback, code, video = Playback.FAILED, slot.error_code, Video.DISABLED
        else:
            playback = Playback.ENDED if slot.ended else Playback.NO_SESSION
            code, video = "", Video.DISABLED
    return SlotView(
        key=slot.key,
        title=slot.title,
        playback=playback,
        failure_code=code,
        video=video,
        paused=paused,
        volume_pct=volume,
        muted=muted,
        needs_url=slot.session is None and slot.url is None,
        source_generation=slot.generation if slot.session is not None else None,
    )


# -- localised state words --------------------------------------------------------------------

_PLAYBACK_KEYS = {
    Playback.OPENING: msgid("media.playback.opening"),
    Playback.BUFFERING: msgid("media.playback.buffering"),
    Playback.PLAYING: msgid("media.playback.playing"),
    Playback.PAUSED: msgid("media.playback.paused"),
    Playback.ENDED: msgid("media.playback.ended"),
    Playback.FAILED: msgid("media.playback.failed"),
    Playback.NO_SESSION: msgid("media.playback.no_session"),
}
_VIDEO_KEYS = {
    Video.DISABLED: msgid("media.video.disabled"),
    Video.WARMING: msgid("media.video.warming"),
    Video.READY: msgid("media.video.ready"),
    Video.RECOVERING: msgid("media.video.recovering"),
}


def playback_text(catalog: Catalog, playback: Playback, code: str = "") -> str:
    return catalog.t(_PLAYBACK_KEYS[playback], code=code)


def video_text(catalog: Catalog, video: Video) -> str:
    return catalog.t(_VIDEO_KEYS[video])


# -- props -------------------------------------------------------------------------------------


def overlay_deck_props(view: DeckView, catalog: Catalog) -> dict[str, WireValue]:
    """The overlay's deck props (cueboard.core.contract OVERLAY): media-mode, deck, url-clear."""
    rows = [
        (
            s.key,
            s.title,
            playback_text(catalog, s.playback, s.failure_code),
            int(s.playback),
            video_text(catalog, s.video),
            int(s.video),
            s.paused,
            s.volume_pct,
            s.muted,
            s.needs_url,
        )
        for s in view.slots
    ]
    return {
        "media-mode": OVERLAY.prop("media-mode").wire_value(int(view.mode)),
        "deck": OVERLAY.prop("deck").wire_value(rows),
        "url-clear": OVERLAY.prop("url-clear").wire_value(view.url_clear),
    }


def dash_deck_props(view: DeckView) -> dict[str, WireValue]:
    """The dash tab's media options (cueboard.core.contract DASH_TAB)."""
    o = view.options
    values: dict[str, object] = {
        "media-mode": int(view.mode),
        "media-show-video": o.show_video,
        "media-max-fps": o.max_fps,
        "media-native-controls": o.native_controls,
        "media-native-controls-shown": view.native_controls_shown,
        "media-controls-on-player": o.controls_on_player,
        "media-controls-on-player-shown": view.controls_on_player_shown,
    }
    return {name: DASH_TAB.prop(name).wire_value(value) for name, value in values.items()}


def deck_props(view: DeckView, catalog: Catalog) -> dict[str, dict[str, WireValue]]:
    """Both panels' deck props, by panel name, as typed wire values."""
    return {
        OVERLAY.name: overlay_deck_props(view, catalog),
        DASH_TAB.name: dash_deck_props(view),
    }


__all__ = [
    "DeckView",
    "SlotView",
    "dash_deck_props",
    "deck_props",
    "overlay_deck_props",
    "playback_text",
    "slot_view",
    "video_text",
]
