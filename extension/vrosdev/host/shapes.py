"""Request shapes as vrosdev reads them: types checked strictly, unknown fields ignored (T-12).

These are vrosdev's own, written from the spec rather than taken from the SDK: the SDK's
request models refuse bad values before sending, while a host must receive them and answer
with the spec's domain error (an over-long kv key is ``key_too_large``, not -32602). A params
object that fits no shape of its namespace is -32602 (E-8); an unknown ``op`` too
(docs/protocol-notes.md#r4).
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter


class Shape(BaseModel):
    model_config = ConfigDict(extra="ignore", strict=True, frozen=True)


def _adapter(*members: type[Shape]) -> TypeAdapter[Any]:
    union: Any = members[0]
    for m in members[1:]:
        union = union | m
    return TypeAdapter(Annotated[union, Field(discriminator="op")])


# kv
class KvGet(Shape):
    op: Literal["get"]
    key: str


class KvSet(Shape):
    op: Literal["set"]
    key: str
    value: Any = Field(default=None)


class KvDelete(Shape):
    op: Literal["delete"]
    key: str


class KvList(Shape):
    op: Literal["list"]


# secrets
class SecretSet(Shape):
    op: Literal["set"]
    slot: str
    value: str


class SecretGet(Shape):
    op: Literal["get"]
    slot: str


class SecretDelete(Shape):
    op: Literal["delete"]
    slot: str


class SecretExists(Shape):
    op: Literal["exists"]
    slot: str


# bus
class BusPublish(Shape):
    op: Literal["publish"]
    topic: str
    payload: Any = None


class BusSubscribe(Shape):
    op: Literal["subscribe"]
    pattern: str


class BusUnsubscribe(Shape):
    op: Literal["unsubscribe"]
    pattern: str


# panel
class PanelProps(Shape):
    op: Literal["props"]
    panel: str
    props: list[list[Any]]  # [name, typed value] pairs, checked by the panel namespace


class PanelDefine(Shape):
    op: Literal["define"]
    panel: str
    source: str
    width: float | None = None
    height: float | None = None
    anchor: str | None = None


class PanelRemove(Shape):
    op: Literal["remove"]
    panel: str


# assets
class AssetFrame(Shape):
    rgba_base64: str
    delay_ms: int


class AssetPut(Shape):
    op: Literal["put"]
    key: str
    width: int
    height: int
    frames: list[AssetFrame]
    loop: int


class AssetRemove(Shape):
    op: Literal["remove"]
    key: str


class AssetClear(Shape):
    op: Literal["clear"]


# commands
class CommandRegister(Shape):
    op: Literal["register"]
    name: str


class CommandUnregister(Shape):
    op: Literal["unregister"]
    name: str


# settings
class SettingsGet(Shape):
    op: Literal["get"]
    key: str


class SettingsList(Shape):
    op: Literal["list"]


# strings
class StringsGet(Shape):
    op: Literal["get"]
    prefix: str
    locale: str | None = None


# audio
class AudioTarget(Shape):
    channel: str
    gain_pct: int


class AudioLoad(Shape):
    op: Literal["load"]
    path: str
    normalize: bool = False


class AudioUnload(Shape):
    op: Literal["unload"]
    sound: str


class AudioPreArm(Shape):
    op: Literal["pre_arm"]
    channel: str


class AudioPlay(Shape):
    op: Literal["play"]
    sound: str
    targets: list[AudioTarget]
    looping: bool = False


class AudioStop(Shape):
    op: Literal["stop"]
    sound: str


class AudioStopAll(Shape):
    op: Literal["stop_all"]


class AudioGetStatus(Shape):
    op: Literal["get_status"]


class AudioListChannels(Shape):
    op: Literal["list_channels"]


class AudioListDevices(Shape):
    op: Literal["list_devices"]


# face
class FaceRegister(Shape):
    op: Literal["register"]
    source: dict[str, Any]


class FaceUnregister(Shape):
    op: Literal["unregister"]
    source_id: str


class FacePublish(Shape):
    op: Literal["publish"]
    source_id: str
    generation: int
    sample: dict[str, Any]


class FaceSubscribe(Shape):
    op: Literal["subscribe"]
    eyes: Any = None
    mouth: Any = None


class FaceUnsubscribe(Shape):
    op: Literal["unsubscribe"]


REQUESTS: dict[str, TypeAdapter[Any]] = {
    "kv": _adapter(KvGet, KvSet, KvDelete, KvList),
    "secrets": _adapter(SecretSet, SecretGet, SecretDelete, SecretExists),
    "bus": _adapter(BusPublish, BusSubscribe, BusUnsubscribe),
    "panel": _adapter(PanelProps, PanelDefine, PanelRemove),
    "assets": _adapter(AssetPut, AssetRemove, AssetClear),
    "commands": _adapter(CommandRegister, CommandUnregister),
    "settings": _adapter(SettingsGet, SettingsList),
    "strings": _adapter(StringsGet),
    "audio": _adapter(
        AudioLoad,
        AudioUnload,
        AudioPreArm,
        AudioPlay,
        AudioStop,
        AudioStopAll,
        AudioGetStatus,
        AudioListChannels,
        AudioListDevices,
    ),
    "face": _adapter(FaceRegister, FaceUnregister, FacePublish, FaceSubscribe, FaceUnsubscribe),
}
