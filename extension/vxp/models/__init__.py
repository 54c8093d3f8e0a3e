"""Pydantic models of VXP 1.7, one module per namespace, named like the wire.

Names are re-exported here and imported on first use, so ``import vxp`` (and the framing and
session code, which need only ``vxp.limits`` and ``handshake``) builds no namespace module
before hello. The imports under ``TYPE_CHECKING`` below are the one list of exported names:
type checkers read them, and on first use the same lines are read from this file's source to
learn which module holds which name (the stub-driven lazy loading of Scientific Python's
SPEC 1). The per-namespace constants (``NAMESPACE``, ``CAPABILITY``, ``SINCE``,
``ERROR_CODES``) stay on their modules and in :mod:`.registry`.
"""

# The TYPE_CHECKING imports are this package's exports, read by __getattr__, not unused.
# ruff: noqa: F401
# pyright: reportUnusedImport=false

from __future__ import annotations

import ast
import functools
import importlib
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .assets import (
        AssetClear,
        AssetErr,
        AssetFrame,
        AssetOk,
        AssetPut,
        AssetRemove,
        AssetsRequest,
        AssetsResponse,
        AssetUnknown,
    )
    from .audio import (
        AcceptedTarget,
        AudioChannels,
        AudioDevices,
        AudioEndpoint,
        AudioErr,
        AudioGetStatus,
        AudioListChannels,
        AudioListDevices,
        AudioLoad,
        AudioLoading,
        AudioOk,
        AudioPlay,
        AudioPreArm,
        AudioRequest,
        AudioResponse,
        AudioStatus,
        AudioStop,
        AudioStopAll,
        AudioUnknown,
        AudioUnload,
        ChannelInfo,
        Loaded,
        LoadFailed,
        LoadOutcome,
        PlayingRow,
        PlayTarget,
        UnknownOutcome,
    )
    from .bus import (
        BusErr,
        BusOk,
        BusPublish,
        BusRequest,
        BusResponse,
        BusSubscribe,
        BusUnknown,
        BusUnsubscribe,
    )
    from .commands import (
        CommandErr,
        CommandOk,
        CommandRegister,
        CommandsRequest,
        CommandsResponse,
        CommandUnknown,
        CommandUnregister,
    )
    from .events import (
        EVENT_SINCE,
        AudioLoaded,
        BusMessage,
        CommandInvoked,
        Event,
        FaceUpdate,
        KnownEvent,
        LocaleChanged,
        MediaControl,
        MediaSnapshot,
        PanelEvent,
        PanelHidden,
        PanelShown,
        SettingsChanged,
        ShuttingDown,
        UnknownEvent,
        VrLifecycle,
    )
    from .face import (
        Eyes,
        FaceCapabilities,
        FaceDemand,
        FaceErr,
        FaceGrant,
        FaceOk,
        FacePublish,
        FaceRegister,
        FaceRegistered,
        FaceRequest,
        FaceResponse,
        FaceSample,
        FaceSource,
        FaceState,
        FaceSubscribe,
        FaceUnknown,
        FaceUnregister,
        FaceUnsubscribe,
        Mouth,
        SelectedEyes,
        SelectedMouth,
        Weight,
    )
    from .handshake import (
        Granted,
        Hello,
        HelloResponse,
        Rejected,
        UnknownHelloResult,
        Welcome,
    )
    from .kv import (
        KvDelete,
        KvDeleted,
        KvErr,
        KvGet,
        KvKeys,
        KvList,
        KvRequest,
        KvResponse,
        KvSet,
        KvUnknown,
        KvValue,
        KvWritten,
    )
    from .media import (
        MediaAction,
        MediaApplied,
        MediaClose,
        MediaClosed,
        MediaErr,
        MediaOpen,
        MediaOpened,
        MediaReload,
        MediaRequest,
        MediaResponse,
        MediaSession,
        MediaSet,
        MediaStatus,
        MediaStatusReply,
        MediaUnknown,
        Playback,
        PlaybackBuffering,
        PlaybackEnded,
        PlaybackFailed,
        PlaybackOpening,
        PlaybackPaused,
        PlaybackPlaying,
        PlaybackUnknown,
        SetPaused,
        SetVolume,
        StopPlayback,
        UnknownAction,
    )
    from .panel import (
        ArgValue,
        AssetsValue,
        BoolValue,
        CellValue,
        F64Value,
        I64Value,
        PanelApplied,
        PanelDefine,
        PanelDefined,
        PanelErr,
        PanelProps,
        PanelRemove,
        PanelRemoved,
        PanelRequest,
        PanelResponse,
        PanelUnknown,
        PropValue,
        RowsValue,
        StrListValue,
        StrValue,
        TypedCell,
        TypedValue,
        UnknownValue,
        cell,
        prop,
        prop_assets,
        prop_bool,
        prop_f64,
        prop_i64,
        prop_rows,
        prop_str,
        prop_str_list,
    )
    from .secrets import (
        SecretDelete,
        SecretErr,
        SecretExistence,
        SecretExists,
        SecretGet,
        SecretOk,
        SecretSet,
        SecretsRequest,
        SecretsResponse,
        SecretUnknown,
        SecretValue,
    )
    from .settings import (
        SettingEntry,
        SettingsErr,
        SettingsGet,
        SettingsList,
        SettingsRequest,
        SettingsResponse,
        SettingsUnknown,
        SettingsValue,
        SettingsValues,
    )
    from .strings import (
        Strings,
        StringsErr,
        StringsGet,
        StringsRequest,
        StringsResponse,
        StringsUnknown,
    )


@functools.cache
def _where() -> dict[str, str]:
    """Exported name -> the module holding it, from the ``TYPE_CHECKING`` imports above."""
    tree = ast.parse(Path(__file__).read_text(encoding="utf-8"))
    guard = next(
        node
        for node in tree.body
        if isinstance(node, ast.If)
        and isinstance(node.test, ast.Name)
        and node.test.id == "TYPE_CHECKING"
    )
    return {
        alias.asname or alias.name: str(node.module)
        for node in guard.body
        if isinstance(node, ast.ImportFrom)
        for alias in node.names
    }


def __getattr__(name: str) -> Any:
    if name == "__all__":
        return sorted(_where())
    module = _where().get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(f"{__name__}.{module}"), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *_where()})
