"""A host in memory for Cueboard's core: answers every request with the SDK's result models,
delivers ``audio_loaded`` after a load, fails requests on demand, and runs the core's timers on
a virtual clock. No event loop, no socket: the core is driven exactly as the runtime drives it.
"""

from __future__ import annotations

import hashlib
import json
import random
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, assert_never

from cueboard.core.app import CueboardCore
from cueboard.core.asset_table import AssetRef
from cueboard.core.effects import (
    CancelFetch,
    CountTasks,
    DecodeIcons,
    DiscardSound,
    DrawWaveform,
    DropRenders,
    Effect,
    Exit,
    FetchSound,
    LoadCatalog,
    Log,
    Notice,
    ReadFile,
    RenderSound,
    Scan,
    Send,
    TouchRender,
    Wake,
    Watch,
    WriteFile,
)
from cueboard.core.inputs import (
    CatalogLoaded,
    Connected,
    Decoded,
    Failure,
    FileRead,
    FileWritten,
    HostEvent,
    HostFailure,
    IconsDecoded,
    Input,
    Reply,
    Scanned,
    TaskCounts,
    Tick,
    WaveformDrawn,
)
from cueboard.core.library import Library, Sound
from cueboard.core.render import SoundRendered
from cueboard.runtime.catalogs import load_catalog
from cueboard.workers.waveform import draw_waveform
from vxp.models import assets, audio, bus, commands, events, kv, media, panel, secrets, settings
from vxp.models.handshake import Granted, Welcome
from vxp.prepared import Prepared
from vxp.version import Version

EXT_ID = "com.cueboard.soundboard"
ROOT = Path("/content/Cueboard/Sounds")
UNIX_AT_START = 1_780_000_000.0  # the wall clock when the virtual clock reads 0


def library(*names: str, root: Path = ROOT, icons: bool = False) -> Library:
    """Sounds named ``Category/name.wav`` (or ``name.wav``), in this order, with an icon each
    when ``icons``."""
    sounds: list[Sound] = []
    for rel in names:
        category, _, file = rel.rpartition("/")
        icon = rel.rsplit(".", 1)[0] + ".gif" if icons else None
        sounds.append(Sound(rel, file.rsplit(".", 1)[0], category, 1000, 1, icon=icon))
    return Library(root, sounds)


def rendered(job: RenderSound, error: str | None = None) -> SoundRendered:
    """What the runtime reports for a render: a file in the cache (or why not)."""
    path = None if error else Path("/data/renders") / f"{job.rel}.{job.edit.token()}.flac"
    return SoundRendered(job.rel, job.edit, job.fingerprint, path, error)


def icon_of(rel: str) -> Decoded:
    """What the icon worker gives back for a sound's icon: its put, prepared (one frame)."""
    key = f"cb:icon:{hashlib.sha1(rel.encode()).hexdigest()[:12]}"  # keys are content hashes
    body = json.dumps({"op": "put", "key": key}, separators=(",", ":")).encode()
    return (AssetRef(key, 64 * 64 * 4, 1), Prepared("assets", body)), None


def _ok(namespace: str) -> Any:
    model = {
        "audio": audio.AudioOk,
        "bus": bus.BusOk,
        "commands": commands.CommandOk,
        "assets": assets.AssetOk,
    }[namespace]
    return model(result="ok")


@dataclass
class FakeHost:
    """Answers the core's requests; ``faults`` fail the next requests of a kind, in order."""

    granted: Granted = field(default_factory=lambda: Granted(audio=True, bus=["vr.lifecycle"]))
    kv: dict[str, Any] = field(default_factory=dict[str, Any])
    faults: dict[str, list[HostFailure | Any]] = field(default_factory=dict[str, list[Any]])
    load_outcomes: dict[str, list[Any]] = field(default_factory=dict[str, list[Any]])
    sounds: dict[str, str] = field(default_factory=dict[str, str])  # id -> path
    playing: set[str] = field(default_factory=set[str])
    cache: set[str] = field(default_factory=set[str])  # loaded sound ids
    reported_loaded: set[str] = field(default_factory=set[str])  # every id audio_loaded said so
    sent: list[Send] = field(default_factory=list[Send])
    next_id: int = 0
    sessions: dict[str, dict[str, Any]] = field(default_factory=dict[str, dict[str, Any]])
    secret_slots: dict[str, str] = field(default_factory=dict[str, str])
    # kind -> (failure, seconds): every request of that kind fails for that long from its first
    windows: dict[str, tuple[HostFailure | Any, float]] = field(default_factory=dict[str, Any])
    window_start: dict[str, float] = field(default_factory=dict[str, float])
    clock: Callable[[], float] = lambda: 0.0
    sent_at: list[tuple[float, Send]] = field(default_factory=list[tuple[float, Send]])
    put_ok: set[str] = field(default_factory=set[str])  # asset keys put, on this connection
    named_unput: list[str] = field(default_factory=list[str])  # named in props before that

    def kinds(self) -> Counter[str]:
        return Counter(s.kind for s in self.sent)

    def of(self, kind: str) -> list[Any]:
        return [s.params for s in self.sent if s.kind == kind]

    def answer(self, send: Send) -> tuple[Reply | Failure, list[Any]]:
        """The outcome of one request, and the events it leads to; asset keys named before
        their put answered ok on this connection are noted (docs/protocol-notes.md#r33)."""
        outcome, follow = self._answer(send)
        if send.kind == "assets.put" and isinstance(outcome, Reply):
            p: Any = send.params
            key = json.loads(p.params_json)["key"] if isinstance(p, Prepared) else p.key
            self.put_ok.add(key)
        elif send.kind == "panel.props":
            props: Any = getattr(send.params, "props", [])
            for _, value in props:
                if value.t == "assets":  # the typed value's own fields: no dump of every prop
                    keys: list[str] = value.v
                    self.named_unput += [k for k in keys if k not in self.put_ok]
        return outcome, follow

    def _answer(self, send: Send) -> tuple[Reply | Failure, list[Any]]:
        self.sent.append(send)
        now = self.clock()
        self.sent_at.append((now, send))
        window = self.windows.get(send.kind)
        if window is not None and now <= self.window_start.setdefault(send.kind, now) + window[1]:
            fault = window[0]
            if isinstance(fault, HostFailure):
                return Failure(send.ticket, fault), []
            return Reply(send.ticket, fault), []
        queue = self.faults.get(send.kind)
        if queue:
            fault = queue.pop(0)
            if isinstance(fault, HostFailure):
                return Failure(send.ticket, fault), []
            return Reply(send.ticket, fault), []  # a result model of another kind
        return self._serve(send)

    def _serve(self, send: Send) -> tuple[Reply | Failure, list[Any]]:
        p: Any = send.params
        ns, op, ticket = send.namespace, send.op, send.ticket
        if ns == "audio" and op == "play":
            p = audio.AudioPlay.model_validate_json(p.params_json)
        match (ns, op):
            case ("settings", "list"):
                return Reply(ticket, settings.SettingsValues(result="values")), []
            case ("kv", "list"):
                return Reply(ticket, kv.KvKeys(result="keys", keys=list(self.kv))), []
            case ("kv", "get"):
                value = self.kv.get(p.key)
                return Reply(ticket, kv.KvValue(result="value", value=value, revision=1)), []
            case ("kv", "set"):
                self.kv[p.key] = p.value
                return Reply(ticket, kv.KvWritten(result="written", revision=1)), []
            case ("kv", "delete"):
                self.kv.pop(p.key, None)
                return Reply(ticket, kv.KvDeleted(result="deleted")), []
            case ("panel", "props"):
                return Reply(ticket, panel.PanelApplied(result="applied")), []
            case ("panel", "define"):
                return Reply(ticket, panel.PanelDefined(result="defined", revision=1)), []
            case ("audio", "load"):
                self.next_id += 1
                sound = f"s-{self.next_id:08d}"
                self.sounds[sound] = p.path
                outcomes = self.load_outcomes.get(p.path)
                outcome: Any = (
                    outcomes.pop(0) if outcomes else audio.Loaded(kind="loaded", duration_ms=600)
                )
                if isinstance(outcome, audio.Loaded):
                    self.cache.add(sound)
                    self.reported_loaded.add(sound)
                event = events.AudioLoaded(event="audio_loaded", sound=sound, outcome=outcome)
                return Reply(ticket, audio.AudioLoading(result="loading", sound=sound)), [event]
            case ("audio", "play"):
                if p.sound not in self.cache:
                    return Failure(ticket, HostFailure("domain", "unknown_sound")), []
                self.playing.add(p.sound)
                return Reply(ticket, _ok(ns)), []
            case ("audio", "stop"):
                self.playing.discard(p.sound)
                return Reply(ticket, _ok(ns)), []
            case ("audio", "stop_all"):
                self.playing.clear()
                return Reply(ticket, _ok(ns)), []
            case ("audio", "unload"):
                self.cache.discard(p.sound)
                return Reply(ticket, _ok(ns)), []
            case ("audio", "get_status"):
                rows = [audio.PlayingRow(sound=s, targets=[]) for s in sorted(self.playing)]
                return Reply(ticket, audio.AudioStatus(result="status", playing=rows)), []
            case ("audio", "list_channels"):
                return Reply(ticket, audio.AudioChannels(result="channels", channels=[])), []
            case ("audio", "list_devices"):
                r = audio.AudioDevices(result="devices", endpoints=[], default_endpoint=None)
                return Reply(ticket, r), []
            case ("media", _):
                return self._media(send)
            case ("secrets", "get"):
                value = self.secret_slots.get(p.slot)
                return Reply(ticket, secrets.SecretValue(result="value", value=value)), []
            case ("secrets", "set"):
                self.secret_slots[p.slot] = p.value
                return Reply(ticket, secrets.SecretOk(result="ok")), []
            case ("secrets", "delete"):
                self.secret_slots.pop(p.slot, None)
                return Reply(ticket, secrets.SecretOk(result="ok")), []
            case _:
                return Reply(ticket, _ok(ns)), []

    def _media(self, send: Send) -> tuple[Reply | Failure, list[Any]]:
        """vrOS's player, settled at once: every change is followed by a complete snapshot."""
        p: Any = send.params
        op, ticket = send.op, send.ticket
        row = self.sessions.get(getattr(p, "session", ""))
        if op != "open" and row is None:
            return Failure(ticket, HostFailure("domain", "no_such_session")), []
        result: Any
        if op == "open":
            self.next_id += 1
            session = f"m-{self.next_id:08d}"
            row = {
                "key": p.key, "session": session, "source_generation": 1,
                "title": p.title or "", "playback": {"kind": "playing"}, "video": "ready",
                "paused": False, "volume_pct": 100, "muted": False, "show_video": True,
                "max_fps": 30, "native_controls": bool(p.native_controls),
                "controls_on_player": False,
            }  # fmt: skip
            self.sessions[session] = row
            result = media.MediaOpened(result="opened", session=session, source_generation=1)
        elif op == "set":
            assert row is not None
            row.update(p.model_dump(exclude_none=True, exclude={"op", "session"}))
            gen = row["source_generation"]
            result = media.MediaApplied(result="applied", source_generation=gen)
        elif op == "reload":
            assert row is not None
            row["source_generation"] += 1
            gen = row["source_generation"]
            result = media.MediaApplied(result="applied", source_generation=gen)
        elif op == "close":
            self.sessions.pop(p.session)
            result = media.MediaClosed(result="closed")
        else:  # status
            result = media.MediaStatusReply.model_validate({"result": "status", **(row or {})})
        snapshot = events.MediaSnapshot.model_validate(
            {"event": "media_snapshot", "granted": True, "sessions": list(self.sessions.values())}
        )
        return Reply(ticket, result), [snapshot]


class Driver:
    """The runtime's part, in memory: carries effects out against a :class:`FakeHost`."""

    def __init__(
        self,
        host: FakeHost | None = None,
        lib: Library | None = None,
        *,
        seed: int = 1,
        locale: str = "en-US",
    ) -> None:
        self.host = host or FakeHost()
        self.host.clock = lambda: self.now
        self.lib = lib or library("01 Beep.wav", "02 Boop.wav", "Memes/Vine.wav")
        self.core = CueboardCore(rng=random.Random(seed), data_home=Path("/data"))
        self.now = 0.0
        self.timers: dict[str, float] = {}
        self.logs: list[Log] = []
        self.jobs: list[object] = []
        self.exit: int | None = None
        self.locale = locale
        self.on_send: Callable[[Send], None] | None = None
        self.files: dict[Path, str] = {}  # what WriteFile wrote, for ReadFile
        self.tasks = 0  # what CountTasks reports as running (a runtime has some; this none)
        self.statuses: list[tuple[float, str | None]] = []  # every change of the status line
        self.events_first = False  # feed a reply's events before the reply itself
        self.unix_s: float | None = UNIX_AT_START  # the wall clock when connecting
        self.hold_renders = False  # keep RenderSound jobs in `renders` instead of answering
        self.renders: list[RenderSound] = []

    def feed(self, item: Input) -> None:
        self.carry(self.core.handle(item, self.now))
        status = self.status_key()
        if not self.statuses or self.statuses[-1][1] != status:
            self.statuses.append((self.now, status))

    def carry(self, effects: list[Effect]) -> None:
        queue = list(effects)
        while queue:
            effect = queue.pop(0)
            match effect:
                case Send():
                    outcome, follow = self.host.answer(effect)
                    if not self.events_first:
                        queue += self.core.handle(outcome, self.now)
                    for event in follow:
                        queue += self.core.handle(event, self.now)
                    if self.events_first:  # the events overtook the reply on their way here
                        queue += self.core.handle(outcome, self.now)
                case Wake(key=key, at=at):
                    self.timers[key] = at
                case Log():
                    self.logs.append(effect)
                case Scan(root=root):
                    ours = root == self.lib.root
                    lib = Library(root)
                    if ours:
                        lib = Library(root, self.lib.sounds, empty_folders=self.lib.empty_folders)
                    scanned = Scanned(lib, effect.reason, 1.0, ours)
                    queue += self.core.handle(scanned, self.now)
                case DecodeIcons(items=items):
                    decoded = IconsDecoded(tuple((rel, icon_of(rel)) for rel, _ in items))
                    queue += self.core.handle(decoded, self.now)
                case DrawWaveform(rel=rel, path=path, fingerprint=fp, edit=edit):
                    self.jobs.append(effect)  # the worker's own drawing, on the file as it is
                    result = draw_waveform(str(path), effect.peaks, effect.duration_ms, edit)
                    queue += self.core.handle(WaveformDrawn(rel, fp, edit, result), self.now)
                case LoadCatalog(locale=locale):
                    queue += self.core.handle(CatalogLoaded(load_catalog(locale)), self.now)
                case Exit(code=code):
                    self.exit = code
                case Watch() | FetchSound() | CancelFetch() | DiscardSound():
                    self.jobs.append(effect)
                case RenderSound():
                    self.renders.append(effect)
                    if not self.hold_renders:
                        queue += self.core.handle(rendered(effect), self.now)
                case DropRenders() | TouchRender():
                    self.jobs.append(effect)
                case WriteFile(path=path, text=text, purpose=purpose, request_id=rid):
                    self.files[path] = text
                    queue += self.core.handle(FileWritten(purpose, rid, None), self.now)
                case ReadFile(path=path, purpose=purpose, request_id=rid):
                    text = self.files.get(path)
                    missing = "missing" if text is None else None
                    queue += self.core.handle(FileRead(purpose, rid, text, missing), self.now)
                case CountTasks():
                    counts = TaskCounts(self.tasks, len(self.timers))
                    queue += self.core.handle(counts, self.now)
                case Notice():
                    raise AssertionError(f"a notice reached the runtime: {effect!r}")
                case _:
                    assert_never(effect)

    def advance(self, seconds: float) -> None:
        """Let the virtual clock run, firing every timer that falls due, in order."""
        end = self.now + seconds
        while True:
            due = [(at, key) for key, at in self.timers.items() if at <= end]
            if not due:
                break
            at, key = min(due)
            del self.timers[key]
            self.now = max(self.now, at)
            self.feed(Tick(key, self.now))
        self.now = end

    def connect(self, settle: float = 1.0) -> None:
        welcome = Welcome(
            result="welcome",
            vxp_version="1.7",
            granted=self.host.granted,
            locale=self.locale,
            content_root="/content",
        )
        version = Version.parse(welcome.vxp_version)
        self.host.put_ok.clear()  # a connection's asset table starts empty (AST-17)
        unix_s = None if self.unix_s is None else self.unix_s + self.now
        self.feed(Connected(welcome, EXT_ID, version, load_catalog(self.locale), unix_s))
        self.advance(settle)

    def event(self, event: HostEvent, settle: float = 0.0) -> None:
        self.feed(event)
        self.advance(settle)

    def invoke(self, command: str, settle: float = 0.0) -> None:
        self.event(events.CommandInvoked(event="command_invoked", command=command), settle)

    def click(self, panel_name: str, callback: str, *args: Any) -> None:
        tagged: list[Any] = []
        for a in args:
            if isinstance(a, bool):
                tagged.append({"t": "bool", "v": a})
            elif isinstance(a, int):
                tagged.append({"t": "i64", "v": a})
            else:
                tagged.append({"t": "str", "v": a})
        event = events.PanelEvent.model_validate(
            {"event": "panel_event", "panel": panel_name, "callback": callback, "args": tagged}
        )
        self.feed(event)

    def status_key(self) -> str | None:
        status = self.core.board.status
        return None if status is None else status.key
