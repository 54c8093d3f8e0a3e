"""vrosdev's panel tooling: static rules, compiling, typed props and the live preview.

Protocol-free: the host (vrosdev's panel namespace) calls these and speaks VXP itself.
Nothing here imports Slint at import time; the Slint window lives in a worker process
(preview_worker) driven by PreviewClient.
"""

from vrosdev.panels.assets import Asset, AssetFrame, asset_from_wire, frame_index
from vrosdev.panels.check import PanelCheck, check_source
from vrosdev.panels.compile import (
    CompileResult,
    CompilerUnavailable,
    Diagnostic,
    compile_source,
    compile_source_async,
)
from vrosdev.panels.declarations import PanelInterface, parse_interface
from vrosdev.panels.preview_client import PreviewClient, PreviewError, screenshot_panel
from vrosdev.panels.props import AcceptedProp, accept_prop, to_slint_value, wire_args
from vrosdev.panels.window import PanelHookError, PanelLoadError, PanelWindow, ThemeSettings
from vrosdev.panels.xvfb import DisplayUnavailable, VirtualDisplay, display_for_preview

__all__ = [
    "AcceptedProp",
    "Asset",
    "AssetFrame",
    "CompileResult",
    "CompilerUnavailable",
    "Diagnostic",
    "DisplayUnavailable",
    "PanelCheck",
    "PanelHookError",
    "PanelInterface",
    "PanelLoadError",
    "PanelWindow",
    "PreviewClient",
    "PreviewError",
    "ThemeSettings",
    "VirtualDisplay",
    "accept_prop",
    "asset_from_wire",
    "check_source",
    "compile_source",
    "compile_source_async",
    "display_for_preview",
    "frame_index",
    "parse_interface",
    "screenshot_panel",
    "to_slint_value",
    "wire_args",
]
