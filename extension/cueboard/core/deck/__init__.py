"""The media deck's decisions, without I/O (see :mod:`.state` for the theory of operation).

``state`` holds :class:`DeckCore`; ``sessions`` its steps on the media namespace; ``storage``
what is kept in kv and secrets; ``notices`` what the user is told; ``views`` the deck props.
"""

from .callbacks import DECK_CALLBACKS
from .context import DECK_KEYS, HostFacts
from .notices import FALLBACK_TEXT, notice_text
from .slots import DeckOptions, SessionOptions, check_options
from .state import DeckCore
from .storage import KV_OPTIONS_KEY, kv_slot_key
from .views import DeckView, SlotView, dash_deck_props, deck_props, overlay_deck_props

__all__ = [
    "DECK_CALLBACKS",
    "DECK_KEYS",
    "FALLBACK_TEXT",
    "KV_OPTIONS_KEY",
    "DeckCore",
    "DeckOptions",
    "DeckView",
    "HostFacts",
    "SessionOptions",
    "SlotView",
    "check_options",
    "dash_deck_props",
    "deck_props",
    "kv_slot_key",
    "notice_text",
    "overlay_deck_props",
]
