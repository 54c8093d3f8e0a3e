"""vrosdev's audio engine: the VXP audio namespace without the wire.

Theory of operation
-------------------
Every public method is synchronous, cheap and thread-safe (one lock around the state): the
protocol layer calls it on its event loop and turns the return value into the response.
Only `load` starts work that takes time: the decode runs on a small thread pool, and its end is
reported through `on_loaded(sound_id, outcome)`, called on that worker thread, outside the lock.

Ordering `loading` before `audio_loaded`: a tiny file can finish decoding before `load` has
returned to its caller. A caller that bridges `on_loaded` into its event loop (for example with
`anyio.from_thread.run_sync(..., token=token)`) and queues the `loading` response before it
next yields to that loop gets the two in the right order, because the bridged callback cannot
run on the loop until then.

Time: the mixer clock is seconds since the engine started (injectable, so tests place plays
exactly); the decode deadline is always real time (time.monotonic), counted from the moment a
worker starts the decode, not from `load` (a queued load has not started decoding).

Decisions where the page and docs/protocol-notes.md are silent (each documented once, here):
- A relative path is refused by `load` with `not_found` ("path must be absolute"); so is a path
  that does not name a regular file.
- `cache_full` arrives as `audio_loaded` `failed`: the decoded size is only known while
  decoding. The decode stops as soon as it would not fit; loading sounds do not reserve memory,
  the check at the end of a decode is against what is cached at that moment.
- `unload` of a sound still decoding cancels the decode; its `audio_loaded` still comes (a load
  is always followed by one) and is `failed` with `unknown_sound`.
- `unload` of a playing sound stops its playback first.
- In `play`: an unknown sound is `unknown_sound`; a sound still loading or failed is
  `sample_not_cached`. A target that cannot play is skipped (see `Played.skipped`): a channel
  this host does not have, a channel without a device, a channel named a second time, a gain
  outside 0-100. When nothing is left the play fails and nothing changes (a playback already
  running continues): `unknown_channel` when every target names a channel the host lacks, else
  `no_valid_targets` (AUD-20, docs/protocol-notes.md#r34). A gain of 0 is accepted: silent,
  but playing.
- `pre_arm` of a channel without a device is `no_endpoint`; `pre_arm` and `play` mark a channel
  armed, which `list_channels` shows.
- `stop` of a known sound that is not playing is `ok`; of an unknown one, `unknown_sound`.
"""

from __future__ import annotations

import logging
import math
import os
import stat
import threading
import time
from collections.abc import Callable, Iterable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from types import TracebackType
from typing import TYPE_CHECKING, Final, Literal, Self

from vrosdev.audio.channels import CHANNEL_ENDPOINTS, CHANNELS, DEFAULT_CHANNEL, as_channel
from vrosdev.audio.limits import (
    BYTES_PER_FRAME,
    DEFAULT_DECODE_LIMIT_S,
    MAX_FILE_BYTES,
    SAMPLE_RATE,
    DecodeCancelled,
    DecodeFailed,
)
from vrosdev.audio.results import (
    AudioError,
    ChannelInfo,
    ChannelName,
    Devices,
    Loaded,
    LoadFailed,
    LoadOutcome,
    LoadStarted,
    StatusRow,
    Target,
)

if TYPE_CHECKING:
    from vrosdev.audio.decode import Frames
    from vrosdev.audio.mixer import Mixer, Placement

_log = logging.getLogger(__name__)

DEFAULT_CACHE_MIB: Final = 512
_MIB: Final = 1024 * 1024
_MAX_GAIN_PCT: Final = 100

type OnLoaded = Callable[[str, LoadOutcome], None]
type Clock = Callable[[], float]


@dataclass(frozen=True, slots=True)
class SkippedTarget:
    """A target `play` could not use, and why (for vrosdev's log; never sent on the wire)."""

    channel: str
    gain_pct: int
    reason: str


@dataclass(frozen=True, slots=True)
class Played:
    """`play` answered `ok`: what was accepted (the status row) and what was skipped."""

    accepted: tuple[Target, ...]
    skipped: tuple[SkippedTarget, ...]


@dataclass(slots=True)
class _Sound:
    id: str
    path: str
    normalize: bool
    state: Literal["loading", "loaded", "failed"] = "loading"
    frames: Frames | None = None
    cancelled: threading.Event = field(default_factory=threading.Event)

    @property
    def nbytes(self) -> int:
        return 0 if self.frames is None else self.frames.shape[0] * BYTES_PER_FRAME


@dataclass(slots=True)
class _Playback:
    sound: str
    targets: tuple[Target, ...]
    looping: bool
    start: int
    length: int
    placements: list[Placement]

    def running_at(self, frame: int) -> bool:
        return self.looping or frame < self.start + self.length

    def cut(self, frame: int) -> None:
        for placement in self.placements:
            placement.cut(frame)


def _monotonic_clock() -> Clock:
    started = time.monotonic()
    return lambda: time.monotonic() - started


class AudioEngine:
    """Decodes, caches and mixes sounds for the emulated host's three channels.

    `on_loaded(sound_id, outcome)` runs on a decode worker thread after the sound's state has
    changed, so a `play` issued from inside it, or after it, sees the sound loaded. An
    exception it raises is logged and otherwise ignored.
    """

    def __init__(
        self,
        on_loaded: OnLoaded,
        *,
        cache_mib: float = DEFAULT_CACHE_MIB,
        decode_limit_s: float = DEFAULT_DECODE_LIMIT_S,
        no_device: Iterable[str] = (),
        clock: Clock | None = None,
        decode_workers: int = 2,
    ) -> None:
        missing: set[ChannelName] = set()
        for name in no_device:
            channel = as_channel(name)
            if channel is None:
                raise ValueError(f"no_device names an unknown channel: {name!r}")
            missing.add(channel)
        self._on_loaded = on_loaded
        self._budget_bytes = int(cache_mib * _MIB)
        self._decode_limit_s = decode_limit_s
        self._no_device = frozenset(missing)
        self._clock = clock if clock is not None else _monotonic_clock()
        self._lock = threading.RLock()
        self._sounds: dict[str, _Sound] = {}
        self._playbacks: dict[str, _Playback] = {}
        self._armed: set[ChannelName] = set()
        self._cached_bytes = 0
        self._next_id = 1
        self._closed = False
        self._mixer_made: Mixer | None = None
        self._workers = ThreadPoolExecutor(decode_workers, thread_name_prefix="vrosdev-audio")

    @property
    def _mixer(self) -> Mixer:
        """Made at the first play or write: numpy is not imported before a sound needs it."""
        if self._mixer_made is None:
            from vrosdev.audio.mixer import Mixer

            self._mixer_made = Mixer()
        return self._mixer_made

    @property
    def decode_limit_s(self) -> float:
        """How long a decode may run before its sound fails ``too_long`` (AUD-16)."""
        return self._decode_limit_s

    # -- lifetime ---------------------------------------------------------------------------

    def close(self, wait: bool = True) -> None:
        """Cancel decodes still running or queued; a decode that ends after this reports nothing.

        With `wait`, also join the workers. Do not wait on the event-loop thread when
        `on_loaded` bridges into that loop (a worker may be blocked handing an outcome to it):
        call `close` through `anyio.to_thread.run_sync`, or pass `wait=False`. The state
        stays readable (status, write_wavs) after close.
        """
        with self._lock:
            self._closed = True
            for sound in self._sounds.values():
                sound.cancelled.set()
        self._workers.shutdown(wait=wait, cancel_futures=True)

    def __enter__(self) -> Self:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()

    # -- load / unload ----------------------------------------------------------------------

    def load(self, path: str, normalize: bool) -> LoadStarted | AudioError:
        """AUD-6/14/15/17, docs/protocol-notes.md#r14: path checks now, decode in the background."""
        if "\0" in path or not os.path.isabs(path):
            return AudioError("not_found", "path must be absolute")
        try:
            info = os.stat(path)
        except OSError:
            return AudioError("not_found", "no file at path")
        if not stat.S_ISREG(info.st_mode):
            return AudioError("not_found", "path is not a regular file")
        if info.st_size > MAX_FILE_BYTES:
            return AudioError("too_long", "the file is larger than 256 MiB")
        with self._lock:
            if self._closed:
                return AudioError("internal", "the audio engine is shut down")
            sound = _Sound(id=f"s-{self._next_id:08d}", path=path, normalize=normalize)
            self._next_id += 1
            self._sounds[sound.id] = sound
            self._workers.submit(self._decode, sound)
        return LoadStarted(sound.id)

    def unload(self, sound: str) -> AudioError | None:
        """AUD-7. Frees the cached frames; a decode in progress is cancelled."""
        with self._lock:
            entry = self._sounds.pop(sound, None)
            if entry is None:
                return _unknown_sound()
            entry.cancelled.set()
            self._cached_bytes -= entry.nbytes
            self._stop_locked(sound, self._now_frame())
        return None

    def fail(self, sound: str) -> None:
        """Make a decoded sound one that failed to load (a test's injected ``audio_loaded``
        failure): it stays known, can never be played, and gives its cache back."""
        with self._lock:
            entry = self._sounds.get(sound)
            if entry is None:
                return
            self._cached_bytes -= entry.nbytes
            entry.frames = None
            entry.state = "failed"

    def _free_bytes(self) -> int:
        with self._lock:
            return self._budget_bytes - self._cached_bytes

    def _decode(self, sound: _Sound) -> None:
        deadline = time.monotonic() + self._decode_limit_s
        limit_s = self._decode_limit_s

        def checkpoint(decoded_bytes: int) -> None:
            if sound.cancelled.is_set():
                raise DecodeCancelled
            if time.monotonic() >= deadline:
                raise DecodeFailed("too_long", f"decoding took longer than {limit_s:g} s")
            if decoded_bytes > self._free_bytes():
                raise DecodeFailed("cache_full", "the decoded sound does not fit the cache")

        outcome: LoadOutcome
        frames: Frames | None = None
        try:
            from vrosdev.audio import loudness
            from vrosdev.audio.decode import decode_file

            frames = decode_file(sound.path, checkpoint=checkpoint)
            lufs = loudness.measure_lufs(frames)
            if sound.normalize:
                frames, lufs = loudness.normalize(frames, lufs)
            checkpoint(frames.shape[0] * BYTES_PER_FRAME)
            duration_ms = round(frames.shape[0] * 1000 / SAMPLE_RATE)
            outcome = Loaded(duration_ms=duration_ms, loudness_lufs=round(lufs, 1))
        except DecodeFailed as exc:
            outcome = LoadFailed(exc.code, exc.message)
        except DecodeCancelled:
            outcome = LoadFailed("unknown_sound", "the sound was unloaded while decoding")
        except Exception:
            _log.exception("audio decode crashed")
            outcome = LoadFailed("internal", "the decoder failed unexpectedly")
        with self._lock:
            if self._closed:
                return
            if sound.cancelled.is_set():
                outcome = LoadFailed("unknown_sound", "the sound was unloaded while decoding")
            elif isinstance(outcome, Loaded) and frames is not None:
                if frames.shape[0] * BYTES_PER_FRAME > self._free_bytes():
                    outcome = LoadFailed("cache_full", "the decoded sound does not fit the cache")
                    sound.state = "failed"
                else:
                    sound.frames = frames
                    sound.state = "loaded"
                    self._cached_bytes += sound.nbytes
            else:
                sound.state = "failed"
        try:
            self._on_loaded(sound.id, outcome)
        except Exception:
            _log.exception("on_loaded callback raised")

    # -- channels ---------------------------------------------------------------------------

    def pre_arm(self, channel: str) -> AudioError | None:
        """AUD-8. A channel without a device is `no_endpoint`."""
        known = as_channel(channel)
        if known is None:
            return _unknown_channel(channel)
        if known in self._no_device:
            return AudioError("no_endpoint", f"channel {known} has no output device")
        with self._lock:
            self._armed.add(known)
        return None

    def list_channels(self) -> list[ChannelInfo]:
        """AUD-12, in the spec's channel order."""
        with self._lock:
            return [
                ChannelInfo(
                    channel=c,
                    available=c not in self._no_device,
                    armed=c in self._armed,
                    endpoint=None if c in self._no_device else CHANNEL_ENDPOINTS[c].id,
                )
                for c in CHANNELS
            ]

    def list_devices(self) -> Devices:
        """AUD-13: the machine's outputs; a `no_device` channel's device is absent."""
        present: list[ChannelName] = [c for c in CHANNELS if c not in self._no_device]
        default = None if DEFAULT_CHANNEL in self._no_device else CHANNEL_ENDPOINTS[DEFAULT_CHANNEL]
        return Devices(
            endpoints=tuple(CHANNEL_ENDPOINTS[c] for c in present),
            default_endpoint=None if default is None else default.id,
        )

    # -- play / stop / status ---------------------------------------------------------------

    def play(
        self, sound: str, targets: Sequence[Target | tuple[str, int]], looping: bool
    ) -> Played | AudioError:
        """AUD-9/18/19/20/22: play now on every target that can, replacing an earlier play."""
        wanted = [t if isinstance(t, Target) else Target(t[0], t[1]) for t in targets]
        with self._lock:
            entry = self._sounds.get(sound)
            if entry is None:
                return _unknown_sound()
            if entry.state != "loaded" or entry.frames is None:
                why = "is still loading" if entry.state == "loading" else "failed to load"
                return AudioError("sample_not_cached", f"sound {sound} {why}")
            accepted: list[tuple[ChannelName, Target]] = []
            skipped: list[SkippedTarget] = []
            for target in wanted:
                channel = as_channel(target.channel)
                if channel is None:
                    reason = "no such channel"
                else:
                    reason = self._skip_reason(channel, target.gain_pct, accepted)
                if channel is not None and reason is None:
                    accepted.append((channel, target))
                else:
                    skipped.append(SkippedTarget(target.channel, target.gain_pct, reason))
            if not accepted:
                if wanted and all(as_channel(t.channel) is None for t in wanted):
                    return _unknown_channel(wanted[0].channel)
                return AudioError("no_valid_targets", "none of the targets can play")
            now = self._now_frame()
            self._stop_locked(sound, now)
            frames = entry.frames
            placements = [
                self._mixer.place(channel, frames, target.gain_pct / 100, now, looping)
                for channel, target in accepted
            ]
            self._armed.update(channel for channel, _ in accepted)
            rows = tuple(target for _, target in accepted)
            self._playbacks[sound] = _Playback(
                sound, rows, looping, now, frames.shape[0], placements
            )
            return Played(accepted=rows, skipped=tuple(skipped))

    def _skip_reason(
        self, channel: ChannelName, gain_pct: int, accepted: list[tuple[ChannelName, Target]]
    ) -> str | None:
        if channel in self._no_device:
            return f"channel {channel} has no output device"
        if any(channel == c for c, _ in accepted):
            return f"channel {channel} is named twice"
        if isinstance(gain_pct, bool) or not 0 <= gain_pct <= _MAX_GAIN_PCT:
            return "gain_pct must be 0-100"
        return None

    def stop(self, sound: str) -> AudioError | None:
        """AUD-10: the playback is cut at this moment."""
        with self._lock:
            if sound not in self._sounds:
                return _unknown_sound()
            self._stop_locked(sound, self._now_frame())
        return None

    def stop_all(self) -> None:
        """AUD-10."""
        with self._lock:
            now = self._now_frame()
            for sound in list(self._playbacks):
                self._stop_locked(sound, now)

    def status(self) -> list[StatusRow]:
        """AUD-11/21: playbacks still sounding, oldest first, with their accepted targets."""
        with self._lock:
            now = self._now_frame()
            for sound, playback in list(self._playbacks.items()):
                if not playback.running_at(now):
                    del self._playbacks[sound]
            return [
                StatusRow(sound=p.sound, targets=p.targets, looping=p.looping)
                for p in sorted(self._playbacks.values(), key=lambda p: p.start)
            ]

    def _stop_locked(self, sound: str, frame: int) -> None:
        playback = self._playbacks.pop(sound, None)
        if playback is not None:
            playback.cut(frame)

    # -- clock and output -------------------------------------------------------------------

    def _now_frame(self) -> int:
        return max(0, round(self._clock() * SAMPLE_RATE))

    def cached_bytes(self) -> int:
        """Decoded bytes held in the cache (what `cache_mib` bounds)."""
        with self._lock:
            return self._cached_bytes

    def write_wavs(
        self, out_dir: str | os.PathLike[str], end_s: float | None = None
    ) -> dict[ChannelName, Path]:
        """Write soundboard.wav, mic.wav and ui.wav: 48 kHz stereo 32-bit float, from the
        engine's start to `end_s` (default: now). Looping plays still running are rendered
        up to that end."""
        with self._lock:
            end_time = self._clock() if end_s is None else end_s
            placements = self._mixer.snapshot()
        end = max(0, round(end_time * SAMPLE_RATE)) if math.isfinite(end_time) else 0
        target_dir = Path(out_dir)
        target_dir.mkdir(parents=True, exist_ok=True)
        written: dict[ChannelName, Path] = {}
        from vrosdev.audio.mixer import write_channel_wav

        for channel in CHANNELS:
            path = target_dir / f"{channel}.wav"
            write_channel_wav(path, placements[channel], end)
            written[channel] = path
        return written


def _unknown_sound() -> AudioError:
    return AudioError("unknown_sound", "no such sound (load it again)")


def _unknown_channel(name: str) -> AudioError:
    shown = name if len(name) <= 32 else name[:32] + "…"
    return AudioError("unknown_channel", f"no channel {shown!r}; channels are soundboard, mic, ui")


__all__ = ["AudioEngine", "Played", "SkippedTarget"]
