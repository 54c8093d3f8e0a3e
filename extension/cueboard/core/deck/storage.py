"""What the deck keeps across runs: a record per slot in kv, the URL in ``secrets``.

kv holds a slot's title and options under ``deck:<n>`` and why its URL was not kept; the URL
itself goes only to the ``secrets`` slot ``deck-<n>``, when granted and short enough (SEC-7).
A failed kv or secrets request is logged by its code, never by the host's message (it may quote
what was sent), and never stops the deck.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any, cast

from cueboard.core.effects import Log
from cueboard.core.i18n import msgid
from cueboard.core.media_urls import CheckedUrl, DeckInputError
from cueboard.core.outcomes import Outcome
from vxp.secret import Secret

from .context import DeckState, Step, ask
from .notices import failure_code
from .slots import DeckOptions, SessionOptions, Slot, check_options

KV_OPTIONS_KEY = "deck:options"


def kv_slot_key(key: str) -> str:
    """``deck-2`` -> ``deck:2``: where the slot's title and options live (never its URL)."""
    return "deck:" + key.removeprefix("deck-")


def fields_of(value: Any, cls: type[SessionOptions] | type[DeckOptions]) -> dict[str, Any]:
    """The fields of a kv record that fit ``cls`` (an unknown or wrongly typed one is dropped)."""
    if not isinstance(value, dict):
        return {}
    source = cast(dict[str, object], value)
    out: dict[str, Any] = {}
    for name in cls.__dataclass_fields__:
        item = source.get(name)
        if item is None:
            continue
        try:
            check_options({name: item})
        except (DeckInputError, ValueError):
            continue
        out[name] = item
    return out


def as_record(options: SessionOptions | DeckOptions) -> dict[str, Any]:
    return {name: getattr(options, name) for name in type(options).__dataclass_fields__}


def slot_record(slot: Slot) -> dict[str, Any]:
    record = as_record(slot.options)
    record.update(
        title=slot.title, native_controls=slot.native_controls, url_reason=slot.url_reason
    )
    return record


# -- steps ---------------------------------------------------------------------------------


def kv_get(state: DeckState, key: str) -> Step[Any]:
    from vxp.models import kv

    got = yield from ask(state, "kv", lambda: kv.KvGet(key=key), kv.KvValue)
    if isinstance(got, Outcome):
        yield Log(logging.WARNING, f"kv get {key} failed ({failure_code(got)})")
        return None
    return got.value


def kv_set(state: DeckState, key: str, value: Any) -> Step[None]:
    from vxp.models import kv

    got = yield from ask(state, "kv", lambda: kv.KvSet(key=key, value=value), kv.KvWritten)
    if isinstance(got, Outcome):
        yield Log(logging.WARNING, f"kv set {key} failed ({failure_code(got)})")


def kv_delete(state: DeckState, key: str) -> Step[None]:
    from vxp.models import kv

    got = yield from ask(state, "kv", lambda: kv.KvDelete(key=key), kv.KvDeleted)
    if isinstance(got, Outcome):
        yield Log(logging.WARNING, f"kv delete {key} failed ({failure_code(got)})")


def save_slot(state: DeckState, slot: Slot) -> Step[None]:
    yield from kv_set(state, kv_slot_key(slot.key), slot_record(slot))


def secret_get(state: DeckState, key: str) -> Step[Secret | None]:
    from vxp.models import secrets

    if not state.secrets_granted():
        return None
    got = yield from ask(state, "secrets", lambda: secrets.SecretGet(slot=key), secrets.SecretValue)
    if isinstance(got, Outcome):
        yield Log(logging.INFO, f"secret {key} not read ({failure_code(got)})")
        return None
    return None if got.value is None else Secret(got.value)


def secret_delete(state: DeckState, key: str) -> Step[None]:
    from vxp.models import secrets

    got = yield from ask(state, "secrets", lambda: secrets.SecretDelete(slot=key), secrets.SecretOk)
    if isinstance(got, Outcome):
        yield Log(logging.INFO, f"secret {key} not deleted ({failure_code(got)})")


def _secret_set(state: DeckState, key: str, checked: CheckedUrl) -> Step[str | None]:
    """Why the URL was not kept (a catalog key), or None when it was."""
    from vxp.models import secrets

    got = yield from ask(
        state,
        "secrets",
        lambda: secrets.SecretSet(slot=key, value=checked.url.reveal()),
        secrets.SecretOk,
    )
    if not isinstance(got, Outcome):
        return None
    yield Log(logging.INFO, f"{key}: the URL was not kept ({failure_code(got)})")
    return got.reason or msgid("media.reason.not_persistable")


def keep_url(
    state: DeckState, slot: Slot, checked: CheckedUrl, still: Callable[[], bool] | None = None
) -> Step[None]:
    """The URL into ``secrets`` when it may go there; the slot's record into kv. ``still``
    says whether the slot is still the one to keep, for a step that runs beside user actions."""
    previously_kept = slot.url_reason is None
    reason: str | None = None
    if not state.secrets_granted():
        reason = msgid("media.reason.no_grant")
    elif not checked.fits_secret:
        reason = msgid("media.reason.too_long")
    else:
        reason = yield from _secret_set(state, slot.key, checked)
    if still is not None and not still():
        return
    if reason is not None and previously_kept and state.secrets_granted():
        yield from secret_delete(state, slot.key)  # an older URL must not come back next run
    slot.url_reason = reason
    yield from save_slot(state, slot)


def forget(state: DeckState, key: str, url_kept: bool) -> Step[None]:
    """A closed slot's record, and its URL if one was kept."""
    yield from kv_delete(state, kv_slot_key(key))
    if url_kept and state.secrets_granted():
        yield from secret_delete(state, key)


__all__ = [
    "KV_OPTIONS_KEY",
    "as_record",
    "fields_of",
    "forget",
    "keep_url",
    "kv_delete",
    "kv_get",
    "kv_set",
    "kv_slot_key",
    "save_slot",
    "secret_delete",
    "secret_get",
    "slot_record",
]
