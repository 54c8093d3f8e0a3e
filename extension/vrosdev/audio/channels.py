"""The emulated machine's audio outputs: which device each VXP channel plays to.

vrosdev pretends to be a PC with three outputs, one per channel, so that removing one device
(`no_device`) affects exactly one channel. `ui` follows the system default output (AUD-5), so
the default endpoint is the one `ui` plays to.
"""

from __future__ import annotations

from typing import Final

from vrosdev.audio.results import ChannelName, Endpoint

CHANNELS: Final[tuple[ChannelName, ...]] = ("soundboard", "mic", "ui")

CHANNEL_ENDPOINTS: Final[dict[ChannelName, Endpoint]] = {
    "soundboard": Endpoint(id="soundboard-out", name="Soundboard Output"),
    # AUD-4: a device that feeds the user's microphone, e.g. a virtual cable.
    "mic": Endpoint(id="cable-in", name="CABLE Input (virtual cable)"),
    # AUD-5: the system's default output.
    "ui": Endpoint(id="speakers", name="Speakers"),
}

DEFAULT_CHANNEL: Final[ChannelName] = "ui"


def as_channel(name: str) -> ChannelName | None:
    """The channel called `name`, or None when the spec has no such channel."""
    for channel in CHANNELS:
        if channel == name:
            return channel
    return None
