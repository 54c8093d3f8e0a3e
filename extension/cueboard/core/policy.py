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
for a while when a feature plans it again. A person asking again is always asked again: their
presses are bounded by pacing (:mod:`cueboard.core.pacing`), not refused from memory.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from enum import StrEnum
from random import Random

from cueboard.core.contract import StatusLevel
from cueboard.core.i18n import msgid

from .effects import HostFailure

__all__ = [
    "MAX_RETRIES",
    "PRESS_DEADLINE_S",
    "TABLE",
    "Action",
    "Rule",
    "backoff",
    "code_of",
    "load_verdict",
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
STRAIN_MEMORY_S = 30.0  # a kind's failures are forgotten once it has been quiet this long


class Action(StrEnum):
    """What a row decides, and what a feature is told: the one failure vocabulary.

    The tracker acts on ``RETRY`` itself; a feature receives every other one with the final
    outcome (:attr:`~cueboard.core.outcomes.Outcome.action`), and a ``RETRY`` whose retries
    ran out as ``LATER``.
    """

    DONE = "done"  # the host did it (an outcome's action on success; never a row's)
    RETRY = "retry"  # send again after a backoff, at most MAX_RETRIES times, within the deadline
    LATER = "later"  # not now (busy, gone, an answer not understood): nothing about what was
    # asked; the feature asks again on its next occasion, never replays it by itself
    RECONCILE = "reconcile"  # the host may have done it: learn the truth from what it reports
    FINAL = "final"  # failed for good: a notice if the user asked, a log line otherwise
    DENIED = "denied"  # not granted (-32001): failed for good, and the grant is missing
    UNSUPPORTED = "unsupported"  # the namespace does not work on this host (MED-2): stop asking
    MAKE_ROOM = "make_room"  # cache_full: unload the least recently played, load again once
    RELOAD = "reload"  # the host lost the sound: load it again, then play once
    LOST = "lost"  # the host lost what the request names (a media session): open it again


type Code = str | int


@dataclass(frozen=True, slots=True)
class Rule:
    action: Action
    notice: str | None = None  # the reason a person reads (a catalog key); None: only logged
    deadline_s: float | None = None  # no retry once this long has passed since the first send
    level: int = logging.INFO  # of the log line
    tone: StatusLevel = StatusLevel.ERROR  # of the notice
    told: bool = False  # the notice is shown even when no person asked
    params: Mapping[str, str] = field(default_factory=dict[str, str])  # fixed notice parameters
    # The namespace itself refused what was asked, with a code of its own: the failure is about
    # the thing asked for (a slot shows it; a session asked about is no longer held), not about
    # the exchange (not granted, not understood, no answer).
    refused: bool = False
    # The connection the request went out on is gone: nothing it asked can still happen there,
    # so an outcome left unknown is settled as not done (sessions end with their connection).
    gone: bool = False


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
GONE = Rule(Action.FINAL, None, level=logging.DEBUG, gone=True)
RECONCILE = Rule(Action.RECONCILE, None)

# The deck words its own notices, naming the slot ({title}; {code} for the generic one).
N_MEDIA = msgid("media.error.code")
N_RECONNECTING = msgid("status.reconnecting")
N_NOT_KEPT = msgid("media.reason.not_persistable")
M_FINAL = Rule(Action.FINAL, N_MEDIA, level=logging.WARNING)
M_REFUSED = Rule(Action.FINAL, N_MEDIA, level=logging.WARNING, refused=True)
M_RECONCILE = Rule(Action.RECONCILE, None)
LOST = Rule(Action.LOST, None, refused=True)

# Rows every request kind has: the JSON-RPC errors and the non-answers.
COMMON: Mapping[Code, Rule] = {
    -32001: Rule(Action.DENIED, N_DENIED, level=logging.WARNING),
    -32602: Rule(Action.FINAL, N_MISREAD, level=logging.WARNING),
    -32603: RETRY,
    "unreadable": Rule(Action.FINAL, N_MISREAD, level=logging.WARNING),
    "invalid": Rule(Action.FINAL, N_INVALID, level=logging.WARNING),
    "timeout": Rule(Action.FINAL, N_SILENT, level=logging.WARNING),
    "closed": GONE,  # the connection is gone: the next one starts over
    "*": FINAL,  # a code this table does not know (a newer host)
}

_MEDIA: Mapping[Code, Rule] = {
    -32001: Rule(Action.DENIED, N_MEDIA, level=logging.WARNING),
    -32603: Rule(Action.RETRY, N_MEDIA),
    -32602: M_FINAL,
    "unreadable": M_FINAL,
    "invalid": M_FINAL,
    "invalid:invalid_url": Rule(Action.FINAL, msgid("media.error.invalid_url")),
    "timeout": M_FINAL,
    "closed": Rule(
        Action.FINAL, N_RECONNECTING, level=logging.DEBUG, tone=StatusLevel.WARN, gone=True
    ),
    "invalid_url": Rule(Action.FINAL, msgid("media.error.invalid_url"), refused=True),
    "unsupported": Rule(
        Action.UNSUPPORTED, msgid("media.unsupported"), tone=StatusLevel.WARN, refused=True
    ),
    "*": M_REFUSED,  # a domain code this table does not know (a newer host's)
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
        "no_endpoint": Rule(
            Action.FINAL, msgid("status.no_endpoint"), tone=StatusLevel.WARN, told=True
        ),
        "unknown_channel": FINAL,
    },
    # What a load's answer says about the file itself (docs/protocol-notes.md#r14), or about the
    # request (not granted, not understood, refused before sending), is final: the tile shows
    # it. Anything else says nothing about the file: loaded again on the next occasion.
    "audio.load": {
        "internal": RETRY,
        "not_found": Rule(Action.FINAL, msgid("status.load_failed")),
        "too_long": Rule(Action.FINAL, msgid("status.load_failed")),
        "undecodable": Rule(Action.FINAL, msgid("status.load_failed")),
        "cache_full": Rule(Action.MAKE_ROOM, msgid("status.load_failed")),
        "timeout": Rule(Action.LATER, N_SILENT, level=logging.WARNING),
        "unreadable": Rule(Action.LATER, N_MISREAD, level=logging.WARNING),
        "closed": Rule(Action.LATER, None, level=logging.DEBUG, gone=True),
        "*": Rule(Action.LATER, N_ERROR, level=logging.WARNING),
    },
    "audio.unload": {"internal": QUIET, "unknown_sound": QUIET, -32603: QUIET},
    "audio.play": {
        "internal": PRESS,
        -32603: PRESS,
        "unknown_sound": Rule(Action.RELOAD, msgid("status.play_failed")),
        "sample_not_cached": Rule(Action.RELOAD, msgid("status.play_failed")),
        "no_valid_targets": Rule(Action.FINAL, msgid("status.no_valid_targets")),
        "no_endpoint": Rule(Action.FINAL, msgid("status.no_endpoint"), params={"channel": "mic"}),
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
        **_MEDIA,
        -32603: M_RECONCILE,
        "timeout": M_RECONCILE,
        "unreadable": M_RECONCILE,
        "closed": Rule(Action.RECONCILE, N_RECONNECTING, tone=StatusLevel.WARN, gone=True),
        "busy": Rule(Action.FINAL, msgid("media.error.busy"), tone=StatusLevel.WARN, refused=True),
        "too_many": Rule(
            Action.FINAL, msgid("media.error.too_many"), tone=StatusLevel.WARN, refused=True
        ),
    },
    "media.set": {**_MEDIA, "no_such_session": LOST},
    "media.reload": {
        **_MEDIA,
        -32603: M_RECONCILE,
        "timeout": M_RECONCILE,
        "unreadable": M_RECONCILE,
        "no_such_session": LOST,
    },
    "media.close": {
        **_MEDIA,
        "no_such_session": Rule(Action.LOST, None, level=logging.DEBUG, refused=True),
    },
    "media.status": {**_MEDIA, "no_such_session": LOST},
    "secrets.get": {"internal": RETRY, "not_persistable": QUIET},
    # what the deck says of a URL it could not keep
    "secrets.set": {
        -32001: Rule(Action.DENIED, msgid("media.reason.no_grant"), level=logging.DEBUG),
        "internal": Rule(Action.RETRY, N_NOT_KEPT),
        "not_persistable": Rule(Action.FINAL, N_NOT_KEPT, level=logging.DEBUG),
        "too_large": Rule(Action.FINAL, msgid("media.reason.too_long"), level=logging.DEBUG),
        "invalid:too_large": Rule(
            Action.FINAL, msgid("media.reason.too_long"), level=logging.DEBUG
        ),
        "*": Rule(Action.FINAL, N_NOT_KEPT, level=logging.WARNING),
    },
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
    """The row for this request kind and failure; never raises, whatever the host said. A
    request refused before sending may have a row of its own for the code the spec names
    (``invalid:<code>``)."""
    code = code_of(failure)
    if failure.kind == "invalid" and isinstance(failure.code, str):
        rule = TABLE.get((kind, f"invalid:{failure.code}"))
        if rule is not None:
            return rule
    rule = TABLE.get((kind, code))
    if rule is not None:
        return rule
    rule = TABLE.get((kind, "*")) or COMMON.get(code, COMMON["*"])
    if failure.kind != "domain" and rule.refused:
        # a JSON-RPC code no row names: the namespace never saw the request
        return replace(rule, refused=False)
    return rule


def load_verdict(code: str) -> Action:
    """What an ``audio_loaded`` failure with this code means: the ``audio.load`` row for it, as
    if the load itself had been answered so (one vocabulary for both answers)."""
    return rule_for("audio.load", HostFailure("domain", code)).action


def backoff(retry: int, rng: Random) -> float:
    """Seconds before retry number ``retry`` (1-based) of a request kind: capped exponential,
    with jitter. Growing fast on purpose: the third retry comes after a host's namespace has
    had seconds to recover (a restart, a burst of load), not within the same bad moment."""
    delay = min(MAX_DELAY_S, FIRST_DELAY_S * GROWTH ** (retry - 1))
    return delay * (1.0 - rng.uniform(0.0, JITTER))
