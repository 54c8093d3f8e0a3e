"""The fault matrix's scripted session, in memory: the same steps as the real process's baseline
(tests/e2e/fault_matrix.py ``session_script``), driven through the core with :mod:`fakehost`.

The cells of the matrix are enumerated as the real process's are (``fault_matrix.cases``: every
request kind of the session x its namespace's documented codes, -32603 and an unknown code x
``@1`` and ``@3s``), so the decisions are checked for every cell here, in memory, and the real
process runs a sample of the wiring. A fault is what vrosdev's ``--fault`` answers: a domain
error, a JSON-RPC error, or a result tag of a newer host.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from cueboard.core.commands import STATIC_COMMANDS
from cueboard.core.effects import HostFailure, Send
from cueboard.core.inputs import Failure, Reply
from cueboard_demo.content import BROKEN, ICONS, SOUNDS
from vxp.models import assets, audio, bus, commands, events, kv, media, panel, secrets, settings
from vxp.models.handshake import Granted

from .fakehost import Driver, FakeHost, library

WINDOW_S = 3.0  # the ``@3s`` mode (tests/e2e/matrix_checks.py)
URL = "https://media.example.test/live/matrix.m3u8?token=matrix-secret-1"
OTHER = "https://media.example.test/live/matrix.m3u8?token=matrix-secret-2"
DING = "Effects/Ding.wav"
STEP_S = 0.05  # a person's clicks follow each other, never in the same instant
# The demo library's names (tests/e2e/fault_matrix.py generates its files), in scan order.
NAMES = sorted([f"{folder}/{name}.wav" for name, folder, _, _ in SOUNDS] + ["/".join(BROKEN)])
ICONED = {f"{folder}/{name}.wav" for name, folder, _, _ in SOUNDS if name in ICONS}
# A result of a kind this SDK does not know, per namespace (``--fault NS.OP=result:TAG``).
UNKNOWN_RESULT: dict[str, type[Any]] = {
    "assets": assets.AssetUnknown,
    "audio": audio.AudioUnknown,
    "bus": bus.BusUnknown,
    "commands": commands.CommandUnknown,
    "kv": kv.KvUnknown,
    "media": media.MediaUnknown,
    "panel": panel.PanelUnknown,
    "secrets": secrets.SecretUnknown,
    "settings": settings.SettingsUnknown,
}


def failure(kind: str, code: str) -> HostFailure | Any:
    """What the core receives when vrosdev answers ``kind`` with ``code`` (its fault forms)."""
    if code.startswith("result:"):
        return UNKNOWN_RESULT[kind.split(".")[0]](result=code.removeprefix("result:"))
    if code.lstrip("-").isdigit():
        return HostFailure("protocol", int(code), "injected by vrosdev")
    return HostFailure("domain", code, "injected by vrosdev")


def granted() -> Granted:
    """The manifest's capabilities, as vrosdev grants them."""
    return Granted(audio=True, overlays=True, media=True, secrets=True, bus=["vr.lifecycle"])


@dataclass
class Host(FakeHost):
    """The in-memory host, keeping every answer with its moment (the transcript's replies)."""

    answered: list[tuple[float, Send, Reply | Failure]] = field(
        default_factory=list[tuple[float, Send, Reply | Failure]]
    )

    def answer(self, send: Send) -> tuple[Reply | Failure, list[Any]]:
        outcome, follow = super().answer(send)
        self.answered.append((self.clock(), send, outcome))
        return outcome, follow


@dataclass
class Run:
    driver: Driver
    steps: list[float]  # when each of a person's steps happened (virtual seconds)
    window_end: float  # the fault window is over: the tail's presses come after
    presses: dict[int, float]  # slot -> when the tail pressed it
    locale_at: float  # the person switched to ja-JP then

    host: Host


class _Person:
    """A person's steps, each noted with its moment (the transcript's ``script:`` notes)."""

    def __init__(self, d: Driver) -> None:
        self.d = d
        self.steps: list[float] = []

    def invoke(self, name: str, settle: float = 0.0) -> None:
        self.steps.append(self.d.now)
        self.d.invoke(name, settle)

    def click(self, panel_name: str, callback: str, *args: Any) -> None:
        self.steps.append(self.d.now)
        self.d.click(panel_name, callback, *args)
        self.d.advance(STEP_S)


def session(host: Host) -> Run:
    """The baseline session, then the tail: out of any fault window, slot 1, then 2, 3, 4."""
    d = Driver(host, library(*NAMES))
    p = _Person(d)
    d.connect(settle=0.5)
    d.event(events.PanelShown(event="panel_shown", panel="overlay"))
    d.event(events.PanelShown(event="panel_shown", panel="dash-tab"), settle=0.5)
    for spec in STATIC_COMMANDS:
        p.invoke(spec.name, settle=0.1)
    p.invoke("toggle-mic", settle=0.5)
    p.click("overlay", "play-sound", DING)
    d.advance(0.2)
    p.click("overlay", "stop-sound", DING)
    for step in ("stop-all", "page-next", "page-prev"):
        p.click("overlay", step)
    p.click("overlay", "search-changed", "Beep")
    p.click("overlay", "search-changed", "")
    p.click("overlay", "set-soundboard-gain", 70)
    p.click("overlay", "set-mic-gain", 30)
    p.click("overlay", "set-mic-enabled", False)
    p.click("overlay", "set-mic-enabled", True)
    p.click("overlay", "dismiss-status")
    p.click("overlay", "media-open", URL, "Matrix stream")
    d.advance(1.0)
    p.click("overlay", "media-set-paused", "deck-1", True)
    p.click("overlay", "media-set-volume", "deck-1", 50)
    p.click("overlay", "media-set-muted", "deck-1", True)
    p.click("overlay", "media-reload", "deck-1", OTHER, "Other stream")
    d.advance(0.5)
    p.click("dash-tab", "select-sound", DING)
    p.click("dash-tab", "set-sound-gain", DING, 60)
    p.click("dash-tab", "set-sound-mode", DING, 4)
    p.click("dash-tab", "set-sound-favourite", DING, True)
    p.click("dash-tab", "library-search", "Beep")
    p.click("dash-tab", "library-page-next")
    p.click("dash-tab", "library-page-prev")
    p.click("dash-tab", "library-search", "")
    p.click("dash-tab", "refresh-devices")
    p.click("dash-tab", "set-media-show-video", False)
    p.click("dash-tab", "set-media-max-fps", 24)
    p.click("dash-tab", "set-media-native-controls", True)
    p.click("dash-tab", "set-media-controls-on-player", True)
    p.click("dash-tab", "dismiss-status")
    p.click("dash-tab", "rescan")
    d.advance(0.5)
    d.locale, locale_at = "ja-JP", d.now
    d.event(events.LocaleChanged(event="locale_changed", locale="ja-JP"), settle=0.5)
    for key, value in (("soundboard_gain", 75), ("overlap", "stop_others")):
        d.event(events.SettingsChanged(event="settings_changed", key=key, value=value))
    d.core.toast.source = "export component NowPlaying {}"  # the runtime reads the file
    d.event(events.SettingsChanged(event="settings_changed", key="now_playing_toast", value=True))
    p.invoke("play-slot-3", settle=0.5)
    p.click("overlay", "media-close", "deck-1")
    d.advance(0.5)
    # The tail (fault_matrix.TAIL): past any fault window and the retries it left.
    d.advance(WINDOW_S + 5.0)
    window_end = d.now
    presses: dict[int, float] = {}
    for slot, settle in ((1, 0.5), (2, 0.3), (3, 0.3), (4, 0.3)):
        presses[slot] = d.now
        p.invoke(f"play-slot-{slot}", settle)
    return Run(d, p.steps, window_end, presses, locale_at, host)


def pairs(sent: list[Send]) -> list[tuple[str, str]]:
    """The request kinds of a session, in order of their first send (``Transcript.pairs``)."""
    seen: dict[tuple[str, str], None] = {}
    for s in sent:
        seen[(s.namespace, s.op)] = None
    return list(seen)


def healthy() -> Run:
    return session(Host(granted=granted()))
