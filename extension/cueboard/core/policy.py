"""The one table that says what Cueboard does when the host does not give what was asked.

One row per (request kind, code): ``namespace.op`` and either a namespace's domain code (a
string), a JSON-RPC error code (an int), or one of the non-answers (``unreadable``,
``timeout``, ``closed``, ``invalid``). Codes the table does not name fall to the request
kind's ``*`` row: a host newer than this table may answer codes it does not know, and those are
skipped, never raised (docs/protocol-notes.md#r4).

How the codes were classed:

* ``budget_full`` (assets) is the host saying it is busy: retry. ``internal`` and -32603 are
  worth a retry for anything that may be sent twice without harm: a put, a register, a
  subscribe, a kv write of a whole record, a read. A protocol error means the request never
  reached the namespace.
* A press is not replayed late: ``audio.play``, ``audio.stop`` and ``audio.stop_all`` are
  retried only within :data:`PRESS_DEADLINE_S` of the press.
* ``busy`` exists only in ``media`` and means the key already has a session
  (docs/protocol-notes.md#r15): it is final, not transient. A ``media.open`` whose outcome is
  unknown (-32603, no answer, an unreadable answer) is reconciled from the next
  ``media_snapshot``, never sent again.
* ``cache_full`` asks for room (unload the least recently played sound, load again once);
  ``unknown_sound`` and ``sample_not_cached`` ask for the sound to be loaded again
  (docs/protocol-notes.md#r21). The feature that sent the request does that.
* -32001 means the capability is not granted; -32602 that the host reads the request
  differently (a version difference): both final.

A final failure of something the user asked for becomes a notice (``notice``: a catalog key
whose ``{what}`` names the request and ``{code}`` the answer); any other is logged.

How retries are paced (the tracker applies it): one request per failing kind retries at a
time, ``backoff`` grows with that kind's retries so that the last one comes after a host's bad
seconds rather than within them, what a person asked for is retried only within
:data:`USER_WAIT_S` (then they are told), and a request that failed for good is not sent again
for a while when it is planned or asked again.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from dataclasses import dataclass
from enum import StrEnum
from random import Random

from cueboard.i18n import msgid

from .effects import HostFailure

__all__ = [
    "MAX_RETRIES",
    "PRESS_DEADLINE_S",
    "TABLE",
    "Action",
    "Rule",
    "backoff",
    "code_of",
    "rule_for",
]

MAX_RETRIES = 3
PRESS_DEADLINE_S = 0.3
USER_WAIT_S = 1.5  # what a person asked for is retried only this long; then they are told
FIRST_DELAY_S = 0.25
GROWTH = 4  # each retry of a kind waits this many times longer than the one before
MAX_DELAY_S = 4.0
JITTER = 0.25  # each delay is shortened by up to this fraction, so extensions do not retry in step
GIVE_UP_MEMORY_S = 10.0  # a request that failed for good is not planned again for this long
ASK_AGAIN_S = 3.0  # nor sent again when a person asks again within this long
STRAIN_MEMORY_S = 30.0  # a kind's failures are forgotten once it has been quiet this long


class Action(StrEnum):
    RETRY = "retry"  # send again after a backoff, at most MAX_RETRIES times, within the deadline
    RECONCILE = "reconcile"  # the host may have done it: learn the truth from what it reports
    FINAL = "final"  # permanent: a notice if the user asked, a log line otherwise
    MAKE_ROOM = "make_room"  # cache_full: unload the least recently played, load again once
    RELOAD = "reload"  # the host lost the sound: load it again, then play once


type Code = str | int


@dataclass(frozen=True, slots=True)
class Rule:
    action: Action
    notice: str | None = None  # catalog key shown when the user asked; None: only logged
    deadline_s: float | None = None  # no retry once this long has passed since the first send
    level: int = logging.INFO


# Notices: what failed ({what}, a catalog key given as a ref) and what to do.
N_BUSY = msgid("notice.host_busy")
N_ERROR = msgid("notice.host_error")
N_DENIED = msgid("notice.not_permitted")
N_MISREAD = msgid("notice.not_understood")
N_SILENT = msgid("notice.no_answer")
N_INVALID = msgid("notice.refused")

RETRY = Rule(Action.RETRY, N_ERROR)
RETRY_BUSY = Rule(Action.RETRY, N_BUSY)
PRESS = Rule(Action.RETRY, N_ERROR, deadline_s=PRESS_DEADLINE_S)
FINAL = Rule(Action.FINAL, N_ERROR, level=logging.WARNING)
QUIET = Rule(Action.FINAL, None, level=logging.DEBUG)
RECONCILE = Rule(Action.RECONCILE, None)

# Rows every request kind has: the JSON-RPC errors and the non-answers.
COMMON: Mapping[Code, Rule] = {
    -32001: Rule(Action.FINAL, N_DENIED, level=logging.WARNING),
    -32602: Rule(Action.FINAL, N_MISREAD, level=logging.WARNING),
    -32603: RETRY,
    "unreadable": Rule(Action.FINAL, N_MISREAD, level=logging.WARNING),
    "invalid": Rule(Action.FINAL, N_INVALID, level=logging.WARNING),
    "timeout": Rule(Action.FINAL, N_SILENT, level=logging.WARNING),
    "closed": QUIET,  # the connection is gone: the next one starts over
    "*": FINAL,  # a code this table does not know (a newer host)
}

# A request sent twice does no harm: an answer this version cannot read, or a code it does not
# know (a newer host's), is worth another try.
_TWICE: Mapping[Code, Rule] = {"internal": RETRY, "unreadable": RETRY, "*": RETRY}

_ROWS: dict[str, dict[Code, Rule]] = {
    # kv: whole records, so a write sent twice is harmless
    "kv.get": {**_TWICE},
    "kv.list": {**_TWICE},
    "kv.set": {
        **_TWICE,
        "key_too_large": FINAL,
        "value_too_large": FINAL,
        "invalid_value": FINAL,  # docs/protocol-notes.md#r9
    },
    "kv.delete": {**_TWICE, "key_too_large": FINAL},
    "settings.list": {**_TWICE, "no_schema": QUIET, "no_such_key": QUIET},
    "commands.register": {**_TWICE, "invalid_name": FINAL},
    "commands.unregister": {**_TWICE, "invalid_name": FINAL},
    "bus.subscribe": {**_TWICE, "not_allowed": FINAL},
    "bus.publish": {"internal": QUIET, "not_allowed": QUIET, -32603: QUIET},
    # props: a frame sent again could land after a newer one; the next change resends instead
    "panel.props": {"no_such_panel": QUIET, "internal": QUIET, -32603: QUIET},
    "panel.define": {
        **_TWICE,
        "not_allowed": FINAL,
        "compile_failed": FINAL,
        "source_too_large": FINAL,
        "invalid_name": FINAL,
    },
    "assets.put": {
        "unreadable": RETRY,
        "budget_full": RETRY_BUSY,
        "too_large": FINAL,
        "too_many_frames": FINAL,
        "bad_key": FINAL,
        "bad_pixels": FINAL,
    },
    "assets.remove": {"bad_key": QUIET},
    "audio.pre_arm": {
        **_TWICE,
        "no_endpoint": Rule(Action.FINAL, msgid("status.no_endpoint")),
        "unknown_channel": FINAL,
    },
    "audio.load": {
        "internal": RETRY,
        "not_found": Rule(Action.FINAL, msgid("status.load_failed")),
        "too_long": Rule(Action.FINAL, msgid("status.load_failed")),
        "undecodable": Rule(Action.FINAL, msgid("status.load_failed")),
        "cache_full": Rule(Action.MAKE_ROOM, msgid("status.load_failed")),
    },
    "audio.unload": {"internal": QUIET, "unknown_sound": QUIET, -32603: QUIET},
    "audio.play": {
        "internal": PRESS,
        -32603: PRESS,
        "unknown_sound": Rule(Action.RELOAD, msgid("status.play_failed")),
        "sample_not_cached": Rule(Action.RELOAD, msgid("status.play_failed")),
        "no_valid_targets": Rule(Action.FINAL, msgid("status.no_valid_targets")),
        "no_endpoint": Rule(Action.FINAL, msgid("status.no_endpoint")),
        "unknown_channel": Rule(Action.FINAL, msgid("status.play_failed")),
        "unreadable": RECONCILE,  # it may be playing: the status rows will say
        "timeout": RECONCILE,
        "*": Rule(Action.FINAL, msgid("status.play_failed"), level=logging.WARNING),
    },
    "audio.stop": {"internal": PRESS, -32603: PRESS, "unknown_sound": QUIET},
    "audio.stop_all": {"internal": PRESS, -32603: PRESS},
    "audio.get_status": {"internal": QUIET, -32603: QUIET},  # asked again within a second
    "audio.list_channels": {**_TWICE},
    "audio.list_devices": {**_TWICE},
    # media: busy is not transient (docs/protocol-notes.md#r15); an open is never sent twice
    "media.open": {
        -32603: RECONCILE,
        "closed": RECONCILE,  # it may have happened: the session ended with the connection
        "timeout": RECONCILE,
        "unreadable": RECONCILE,
        "busy": FINAL,
        "too_many": FINAL,
        "invalid_url": FINAL,
        "invalid_key": FINAL,
        "invalid_value": FINAL,
        "unsupported": FINAL,
        "endpoint_unavailable": FINAL,
        "open_failed": FINAL,
        "dimension_limit": FINAL,
    },
    "media.set": {"no_such_session": RECONCILE, "invalid_value": FINAL, "unsupported": FINAL},
    "media.reload": {
        -32603: RECONCILE,
        "timeout": RECONCILE,
        "unreadable": RECONCILE,
        "no_such_session": RECONCILE,
        "invalid_url": FINAL,
        "unsupported": FINAL,
        "open_failed": FINAL,
    },
    "media.close": {"no_such_session": QUIET, "unsupported": QUIET},
    "media.status": {"no_such_session": RECONCILE, "unsupported": QUIET},
    "secrets.get": {"internal": RETRY, "not_persistable": QUIET},
    "secrets.set": {"internal": RETRY, "not_persistable": QUIET, "too_large": QUIET},
    "secrets.delete": {"internal": RETRY, "not_persistable": QUIET},
}

TABLE: Mapping[tuple[str, Code], Rule] = {
    (kind, code): rule for kind, rows in _ROWS.items() for code, rule in {**COMMON, **rows}.items()
}
"""Every row: (``namespace.op``, code) -> rule. ``*`` is the row for a code not listed."""

KINDS: tuple[str, ...] = tuple(_ROWS)


def code_of(failure: HostFailure) -> Code:
    """The table's column for a failure: the host's code, or the kind of non-answer."""
    if failure.kind in ("domain", "protocol") and failure.code is not None:
        return failure.code
    return failure.kind


def rule_for(kind: str, failure: HostFailure) -> Rule:
    """The row for this request kind and failure; never raises, whatever the host said."""
    code = code_of(failure)
    rule = TABLE.get((kind, code))
    if rule is not None:
        return rule
    rule = TABLE.get((kind, "*"))
    if rule is not None:
        return rule
    return COMMON.get(code, COMMON["*"])


def backoff(retry: int, rng: Random) -> float:
    """Seconds before retry number ``retry`` (1-based) of a request kind: capped exponential,
    with jitter. Growing fast on purpose: the third retry comes after a host's namespace has
    had seconds to recover (a restart, a burst of load), not within the same bad moment."""
    delay = min(MAX_DELAY_S, FIRST_DELAY_S * GROWTH ** (retry - 1))
    return delay * (1.0 - rng.uniform(0.0, JITTER))
