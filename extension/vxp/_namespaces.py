"""One typed async method per op, grouped by namespace (``await client.audio.play(...)``).

Each method builds the namespace's request model, so a value outside the spec's limits fails
here with :class:`InvalidRequest` (naming the rule and, where the spec has one, the host's
error code) before anything is sent; the host's ``err`` raises :class:`DomainError`.
Model modules are imported on first use, after hello, to keep the time to hello short.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Sequence
from typing import TYPE_CHECKING, Any, Protocol, TypeVar

if TYPE_CHECKING:
    from pydantic import BaseModel

from .errors import InvalidRequest, validation_summary
from .prepared import Prepared, prepare
from .secret import Secret

if TYPE_CHECKING:
    from .models.assets import AssetFrame
    from .models.audio import AudioChannels, AudioDevices, PlayingRow, PlayTarget
    from .models.face import FaceSample, FaceSource
    from .models.media import MediaOpened, MediaStatusReply
    from .models.panel import PropValue
    from .models.settings import SettingEntry, SettingsValue
    from .models.strings import Strings

T = TypeVar("T")


class _Caller(Protocol):
    async def request(self, namespace: str, params: BaseModel | Prepared) -> Any: ...
    async def call(self, namespace: str, params: BaseModel | Prepared, expect: type[T]) -> T: ...


def build[M: BaseModel](model: Callable[..., M], /, **fields: Any) -> M:
    """Construct a request model; turn a validation failure into :class:`InvalidRequest`."""
    from pydantic import ValidationError

    try:
        return model(**fields)
    except ValidationError as exc:
        from .models.registry import domain_error_of

        coded = domain_error_of(exc)
        if coded is not None:
            raise InvalidRequest(coded[1], coded[0]) from None
        raise InvalidRequest(validation_summary(exc, limit=1), None) from None


class _Namespace:
    __slots__ = ("_c",)

    def __init__(self, caller: _Caller) -> None:
        self._c = caller


class KvNamespace(_Namespace):
    """kv: no capability needed (KV-1)."""

    async def get(self, key: str) -> tuple[Any, int]:
        """(value, revision); a missing key is (None, 0) (KV-5)."""
        from .models import kv

        r = await self._c.call("kv", build(kv.KvGet, key=key), kv.KvValue)
        return r.value, r.revision

    async def set(self, key: str, value: Any) -> tuple[int, bool]:
        """(revision, over_quota) (KV-6)."""
        from .models import kv

        r = await self._c.call("kv", build(kv.KvSet, key=key, value=value), kv.KvWritten)
        return r.revision, r.over_quota

    async def delete(self, key: str) -> None:
        from .models import kv

        await self._c.call("kv", build(kv.KvDelete, key=key), kv.KvDeleted)

    async def list(self) -> list[str]:
        from .models import kv

        return (await self._c.call("kv", kv.KvList(), kv.KvKeys)).keys


class SecretsNamespace(_Namespace):
    """secrets: needs the ``secrets`` grant (SEC-1). Values travel as :class:`Secret`."""

    async def set(self, slot: str, value: Secret | str) -> None:
        from .models import secrets

        raw = value.reveal() if isinstance(value, Secret) else value
        await self._c.call(
            "secrets", build(secrets.SecretSet, slot=slot, value=raw), secrets.SecretOk
        )

    async def get(self, slot: str) -> Secret | None:
        from .models import secrets

        r = await self._c.call("secrets", build(secrets.SecretGet, slot=slot), secrets.SecretValue)
        return None if r.value is None else Secret(r.value)

    async def delete(self, slot: str) -> None:
        from .models import secrets

        await self._c.call("secrets", build(secrets.SecretDelete, slot=slot), secrets.SecretOk)

    async def exists(self, slot: str) -> bool:
        from .models import secrets

        r = await self._c.call(
            "secrets", build(secrets.SecretExists, slot=slot), secrets.SecretExistence
        )
        return r.exists


class BusNamespace(_Namespace):
    async def publish(self, topic: str, payload: Any) -> None:
        from .models import bus

        await self._c.call("bus", build(bus.BusPublish, topic=topic, payload=payload), bus.BusOk)

    async def subscribe(self, pattern: str) -> None:
        from .models import bus

        await self._c.call("bus", build(bus.BusSubscribe, pattern=pattern), bus.BusOk)

    async def unsubscribe(self, pattern: str) -> None:
        from .models import bus

        await self._c.call("bus", build(bus.BusUnsubscribe, pattern=pattern), bus.BusOk)


class PanelNamespace(_Namespace):
    async def props(self, panel: str, props: Sequence[tuple[str, PropValue | Any]]) -> None:
        """``props`` pairs a Slint prop name with a typed value (a model or a ``{t, v}`` dict)."""
        from .models import panel as p

        await self._c.call(
            "panel", build(p.PanelProps, panel=panel, props=list(props)), p.PanelApplied
        )

    async def define(
        self,
        panel: str,
        source: str,
        *,
        width: int | None = None,
        height: int | None = None,
        anchor: str | None = None,
    ) -> int:
        """Create or replace a runtime overlay; returns its revision (PAN-4, PAN-17)."""
        from .models import panel as p

        req = build(
            p.PanelDefine, panel=panel, source=source, width=width, height=height, anchor=anchor
        )
        return (await self._c.call("panel", req, p.PanelDefined)).revision

    async def remove(self, panel: str) -> None:
        from .models import panel as p

        await self._c.call("panel", build(p.PanelRemove, panel=panel), p.PanelRemoved)


class AssetsNamespace(_Namespace):
    async def put(
        self, key: str, width: int, height: int, frames: Sequence[AssetFrame | Any], loop: int = 0
    ) -> None:
        from .models import assets

        req = build(
            assets.AssetPut, key=key, width=width, height=height, frames=list(frames), loop=loop
        )
        await self._c.call("assets", req, assets.AssetOk)

    async def put_prepared(self, prepared: Prepared) -> None:
        """A put validated and serialised ahead of time (:func:`vxp.prepare`), e.g. in the
        worker process that decoded the image: the event loop only frames and writes it."""
        from .models import assets

        await self._c.call("assets", prepared, assets.AssetOk)

    async def remove(self, key: str) -> None:
        from .models import assets

        await self._c.call("assets", build(assets.AssetRemove, key=key), assets.AssetOk)

    async def clear(self) -> None:
        from .models import assets

        await self._c.call("assets", assets.AssetClear(), assets.AssetOk)


class CommandsNamespace(_Namespace):
    async def register(self, name: str) -> None:
        from .models import commands

        await self._c.call(
            "commands", build(commands.CommandRegister, name=name), commands.CommandOk
        )

    async def unregister(self, name: str) -> None:
        from .models import commands

        await self._c.call(
            "commands", build(commands.CommandUnregister, name=name), commands.CommandOk
        )


class SettingsNamespace(_Namespace):
    async def get(self, key: str) -> SettingsValue:
        from .models import settings

        return await self._c.call(
            "settings", build(settings.SettingsGet, key=key), settings.SettingsValue
        )

    async def list(self) -> list[SettingEntry]:
        from .models import settings

        r = await self._c.call("settings", settings.SettingsList(), settings.SettingsValues)
        return r.entries


class StringsNamespace(_Namespace):
    async def get(self, prefix: str, locale: str | None = None) -> Strings:
        from .models import strings

        req = build(strings.StringsGet, prefix=prefix, locale=locale)
        return await self._c.call("strings", req, strings.Strings)


PLAY_REQUESTS_KEPT = 256


class AudioNamespace(_Namespace):
    """audio: needs the ``audio`` grant (AUD-1)."""

    __slots__ = ("_plays",)

    def __init__(self, caller: _Caller) -> None:
        super().__init__(caller)
        self._plays: dict[Hashable, Prepared] = {}

    async def load(self, path: str, normalize: bool = False) -> str:
        """Start a load; returns the sound id. Wait for its ``audio_loaded`` (AUD-6, AUD-18)."""
        from .models import audio

        req = build(audio.AudioLoad, path=path, normalize=normalize)
        return (await self._c.call("audio", req, audio.AudioLoading)).sound

    async def unload(self, sound: str) -> None:
        from .models import audio

        await self._c.call("audio", build(audio.AudioUnload, sound=sound), audio.AudioOk)

    async def pre_arm(self, channel: str) -> None:
        from .models import audio

        await self._c.call("audio", build(audio.AudioPreArm, channel=channel), audio.AudioOk)

    async def play(
        self, sound: str, targets: Sequence[PlayTarget | tuple[str, int]], looping: bool = False
    ) -> None:
        """A press is the hot path: the request for the same sound, targets and looping is
        validated and serialised once and kept (:data:`PLAY_REQUESTS_KEPT` of them), so a
        repeated play costs a dictionary look-up and the framing (bench/bench_latency.py)."""
        from .models import audio

        key: Hashable = (
            sound,
            tuple(
                (t.channel, t.gain_pct) if isinstance(t, audio.PlayTarget) else t for t in targets
            ),
            looping,
        )
        try:
            prepared = self._plays.get(key)
        except TypeError:  # an unhashable argument (a target given as a list): not kept
            key, prepared = None, None
        if prepared is None:
            ts = [
                t
                if isinstance(t, audio.PlayTarget)
                else build(audio.PlayTarget, channel=t[0], gain_pct=t[1])
                for t in targets
            ]
            prepared = prepare(
                "audio", build(audio.AudioPlay, sound=sound, targets=ts, looping=looping)
            )
            if key is not None:
                if len(self._plays) >= PLAY_REQUESTS_KEPT:
                    self._plays.clear()
                self._plays[key] = prepared
        await self._c.call("audio", prepared, audio.AudioOk)

    async def stop(self, sound: str) -> None:
        from .models import audio

        await self._c.call("audio", build(audio.AudioStop, sound=sound), audio.AudioOk)

    async def stop_all(self) -> None:
        from .models import audio

        await self._c.call("audio", audio.AudioStopAll(), audio.AudioOk)

    async def get_status(self) -> list[PlayingRow]:
        from .models import audio

        return (await self._c.call("audio", audio.AudioGetStatus(), audio.AudioStatus)).playing

    async def list_channels(self) -> AudioChannels:
        from .models import audio

        return await self._c.call("audio", audio.AudioListChannels(), audio.AudioChannels)

    async def list_devices(self) -> AudioDevices:
        from .models import audio

        return await self._c.call("audio", audio.AudioListDevices(), audio.AudioDevices)


class MediaNamespace(_Namespace):
    """media: needs the ``media`` grant and a 1.4 host (MED-1). URLs may be :class:`Secret`."""

    async def open(
        self, key: str, url: Secret | str, title: str | None = None, **options: Any
    ) -> MediaOpened:
        from .models import media

        raw = url.reveal() if isinstance(url, Secret) else url
        req = build(media.MediaOpen, key=key, url=raw, title=title, **options)
        return await self._c.call("media", req, media.MediaOpened)

    async def set(self, session: str, **options: Any) -> int:
        """Change options; returns the session's source_generation (MED-4)."""
        from .models import media

        req = build(media.MediaSet, session=session, **options)
        return (await self._c.call("media", req, media.MediaApplied)).source_generation

    async def reload(self, session: str, url: Secret | str, title: str | None = None) -> int:
        """Change the source; returns the new source_generation (MED-5, MED-16)."""
        from .models import media

        raw = url.reveal() if isinstance(url, Secret) else url
        req = build(media.MediaReload, session=session, url=raw, title=title)
        return (await self._c.call("media", req, media.MediaApplied)).source_generation

    async def close(self, session: str) -> None:
        from .models import media

        await self._c.call("media", build(media.MediaClose, session=session), media.MediaClosed)

    async def status(self, session: str) -> MediaStatusReply:
        from .models import media

        req = build(media.MediaStatus, session=session)
        return await self._c.call("media", req, media.MediaStatusReply)


class FaceNamespace(_Namespace):
    async def register(self, source: FaceSource | dict[str, Any]) -> int:
        from .models import face

        req = build(face.FaceRegister, source=source)
        return (await self._c.call("face", req, face.FaceRegistered)).generation

    async def unregister(self, source_id: str) -> None:
        from .models import face

        await self._c.call("face", build(face.FaceUnregister, source_id=source_id), face.FaceOk)

    async def publish(
        self, source_id: str, generation: int, sample: FaceSample | dict[str, Any]
    ) -> None:
        from .models import face

        req = build(face.FacePublish, source_id=source_id, generation=generation, sample=sample)
        await self._c.call("face", req, face.FaceOk)

    async def subscribe(self, eyes: bool, mouth: bool) -> None:
        from .models import face

        await self._c.call("face", build(face.FaceSubscribe, eyes=eyes, mouth=mouth), face.FaceOk)

    async def unsubscribe(self) -> None:
        from .models import face

        await self._c.call("face", face.FaceUnsubscribe(), face.FaceOk)


class Namespaces:
    """Mixed into :class:`vxp.Client`: ``client.kv``, ``client.audio``, …"""

    def __init__(self) -> None:
        caller: Any = self
        self.kv = KvNamespace(caller)
        self.secrets = SecretsNamespace(caller)
        self.bus = BusNamespace(caller)
        self.panel = PanelNamespace(caller)
        self.assets = AssetsNamespace(caller)
        self.commands = CommandsNamespace(caller)
        self.settings = SettingsNamespace(caller)
        self.strings = StringsNamespace(caller)
        self.audio = AudioNamespace(caller)
        self.media = MediaNamespace(caller)
        self.face = FaceNamespace(caller)
