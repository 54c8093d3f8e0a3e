"""The extension manifest (``manifest.toml``): one schema for vrosdev, the packager and tests.

The VXP page shows only ``[[settings]]`` and the panel roles; the rest of the format is ours,
documented key by key in ``docs/manifest.md``. Every table refuses keys it does not know, naming
them, because the page warns that older hosts reject newer manifest keys
(docs/protocol-notes.md#r27): a typo must fail here rather than in front of a user. Values are never
coerced (``"80"`` is not a number, ``1`` is not ``true``), since a manifest is written by hand and
read by hosts that may be stricter than pydantic's lax mode.

:func:`load_manifest` turns every problem into one line, ``<file>: <key path>: <reason (rule)>``,
so that vrosdev can show the reason instead of launching (SET-14) and the packager can refuse
to pack. Importing this module builds no schema; the first validation does.
"""

from __future__ import annotations

import os
import re
from collections.abc import ItemsView, Mapping, Sequence
from pathlib import Path, PurePosixPath, PureWindowsPath
from typing import Annotated, Any

from pydantic import AfterValidator, BaseModel, ConfigDict, Field, ValidationError, field_validator

from .errors import VxpError
from .limits import SETTINGS_MAX, utf8_len
from .manifest_problems import PANEL_ROLES, describe
from .models.handshake import Granted
from .settings_rules import (
    NumberSetting,
    SelectChoice,
    SelectSetting,
    Setting,
    TextSetting,
    ToggleSetting,
    describe_json,
    list_length,
)

__all__ = [
    "BUS_PATTERN_RE",
    "EXTENSION_ID_RE",
    "PANEL_ROLES",
    "Capabilities",
    "Manifest",
    "ManifestError",
    "NumberSetting",
    "Panels",
    "SelectChoice",
    "SelectSetting",
    "Setting",
    "TextSetting",
    "ToggleSetting",
    "load_manifest",
    "parse_manifest",
    "validate_manifest",
]

# Ours, not the page's: the id names the socket `$XDG_RUNTIME_DIR/vros/ext-<id>.sock`, and a
# Unix socket path is limited to 108 bytes (sun_path); 64 leaves room for the runtime dir.
EXTENSION_ID_MAX_BYTES = 64
# Reverse-DNS: two or more dot-separated labels of [a-z0-9-], no label starting or ending in '-'.
EXTENSION_ID_RE = re.compile(
    r"^[a-z0-9](?:[a-z0-9-]*[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]*[a-z0-9])?)+$"
)
EXTENSION_NAME_MAX_BYTES = 64  # ours: the display name in vrOS's extension list
# Semantic Versioning 2.0 (the packager names bundles with it).
SEMVER_RE = re.compile(
    r"^(?:0|[1-9][0-9]*)\.(?:0|[1-9][0-9]*)\.(?:0|[1-9][0-9]*)"
    r"(?:-[0-9A-Za-z.-]+)?(?:\+[0-9A-Za-z.-]+)?$"
)
VXP_VERSION_RE = re.compile(r"^[0-9]+\.[0-9]+$")  # H-5: "major.minor"
# BUS-6: an exact topic, or a prefix ending in `.*` (docs/protocol-notes.md#r10). Segments are
# non-empty and hold no whitespace, dots or stars.
BUS_PATTERN_RE = re.compile(r"^[^\s.*]+(?:\.[^\s.*]+)*(?:\.\*)?$")


# --- value rules ----------------------------------------------------------------------------


def _relative_path_problem(path: str) -> str | None:
    """Paths are relative to the extension's folder, portable, and stay inside it."""
    if not path:
        return "is empty"
    if "\0" in path:
        return "contains a NUL character"
    if "\\" in path:
        return f"{path!r} uses '\\'; write paths with '/' on every platform"
    if path.startswith(("/", "~")) or PureWindowsPath(path).drive:
        return f"{path!r} is absolute; paths are relative to the extension's folder"
    if ".." in PurePosixPath(path).parts:
        return f"{path!r} leaves the extension's folder ('..')"
    return None


def _bus_pattern(pattern: str) -> str:
    if not BUS_PATTERN_RE.fullmatch(pattern):
        raise ValueError(
            f"{pattern!r} is neither a topic nor a prefix ending in '.*' "
            "(BUS-6, docs/protocol-notes.md#r10)"
        )
    return pattern


def _panel_file(path: str) -> str:
    problem = _relative_path_problem(path)
    if problem is None and not path.endswith(".slint"):
        problem = f"{path!r} is not a .slint file"
    if problem is not None:
        raise ValueError(problem)
    return path


BusPattern = Annotated[str, AfterValidator(_bus_pattern)]
PanelFile = Annotated[str, AfterValidator(_panel_file)]


# --- the tables -----------------------------------------------------------------------------


class _Table(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True, strict=True, defer_build=True)


class Capabilities(_Table):
    """``[capabilities]``: what the extension asks for, in the shape of welcome's ``granted``.

    vrOS narrows it by the user's consent (H-7); the extension's own bus prefix
    ``ext.<id>.`` needs no pattern (BUS-4).
    """

    bus: list[BusPattern] = Field(default_factory=list[str])
    overlays: bool = False
    capture: bool = False
    audio: bool = False
    media: bool = False
    osc: bool = False
    network: bool = False
    secrets: bool = False
    face_provide: bool = False
    face_read: bool = False

    def to_granted(self) -> Granted:
        """Everything asked for, granted: what a host sends when the user consents to all."""
        return Granted.model_validate(self.model_dump())


class Panels(_Table):
    """``[panels]``: role -> ``.slint`` file; the roles are the panels' names (PAN-2)."""

    overlay: PanelFile | None = None
    dash_tab: PanelFile | None = Field(default=None, alias="dash-tab")

    def roles(self) -> dict[str, str]:
        """Role -> file for the panels the manifest declares, in role order."""
        declared = {"overlay": self.overlay, "dash-tab": self.dash_tab}
        return {role: path for role, path in declared.items() if path is not None}

    def items(self) -> ItemsView[str, str]:
        """``(role, file)`` pairs of the declared panels, like a mapping's."""
        return self.roles().items()


class Manifest(_Table):
    """A whole ``manifest.toml``; see ``docs/manifest.md`` for each key."""

    id: str
    name: str
    version: str
    vxp_version: str
    command: list[str]
    capabilities: Capabilities = Field(default_factory=Capabilities)
    panels: Panels = Field(default_factory=Panels)
    settings: list[Setting] = Field(default_factory=list[Setting])

    @field_validator("id", mode="before")
    @classmethod
    def _id_rule(cls, value: Any) -> Any:
        if not isinstance(value, str):
            raise ValueError(f"must be a string, not {describe_json(value)}")
        if utf8_len(value) > EXTENSION_ID_MAX_BYTES:
            raise ValueError(
                f"is {utf8_len(value)} bytes; at most {EXTENSION_ID_MAX_BYTES} "
                "(it names the socket ext-<id>.sock, whose path is limited)"
            )
        if not EXTENSION_ID_RE.fullmatch(value):
            raise ValueError(
                f"{value[:80]!r} is not a reverse-DNS id such as 'com.example.hello' "
                "(lowercase labels of [a-z0-9-], separated by dots)"
            )
        return value

    @field_validator("name", mode="before")
    @classmethod
    def _name_rule(cls, value: Any) -> Any:
        if not isinstance(value, str):
            raise ValueError(f"must be a string, not {describe_json(value)}")
        if not value.strip():
            raise ValueError("is empty")
        if utf8_len(value) > EXTENSION_NAME_MAX_BYTES:
            raise ValueError(f"is {utf8_len(value)} bytes; at most {EXTENSION_NAME_MAX_BYTES}")
        return value

    @field_validator("version", mode="before")
    @classmethod
    def _version_rule(cls, value: Any) -> Any:
        if not isinstance(value, str) or not SEMVER_RE.fullmatch(value):
            shown = repr(value[:40]) if isinstance(value, str) else describe_json(value)
            raise ValueError(f"{shown} is not a semantic version such as '0.1.0'")
        return value

    @field_validator("vxp_version", mode="before")
    @classmethod
    def _vxp_version_rule(cls, value: Any) -> Any:
        if not isinstance(value, str) or not VXP_VERSION_RE.fullmatch(value):
            shown = repr(value[:40]) if isinstance(value, str) else describe_json(value)
            raise ValueError(f"{shown} is not a 'major.minor' string such as '1.7' (H-5)")
        return value

    @field_validator("command")
    @classmethod
    def _command_rule(cls, argv: list[str]) -> list[str]:
        if not argv:
            raise ValueError("is empty; give the program and its arguments")
        for index, arg in enumerate(argv):
            if "\0" in arg:
                raise ValueError(f"command[{index}] contains a NUL character")
        program = argv[0]
        if not program:
            raise ValueError("command[0] is empty")
        if "/" in program or "\\" in program or PureWindowsPath(program).drive:
            problem = _relative_path_problem(program)
            if problem is not None:
                raise ValueError(f"command[0] {problem}")
        return argv

    @field_validator("settings", mode="before")
    @classmethod
    def _count_rule(cls, value: Any) -> Any:
        count = list_length(value)
        if count is not None and count > SETTINGS_MAX:
            raise ValueError(f"declares {count} settings; at most {SETTINGS_MAX} (SET-11)")
        return value

    @field_validator("settings")
    @classmethod
    def _unique_keys_rule(cls, settings: list[Setting]) -> list[Setting]:
        first: dict[str, int] = {}
        for index, setting in enumerate(settings):
            if setting.key in first:
                raise ValueError(
                    f"settings[{first[setting.key]}] and settings[{index}] both declare key "
                    f"{setting.key!r}; each key is one kv row (SET-3, SET-12)"
                )
            first[setting.key] = index
        return settings

    def setting(self, key: str) -> Setting | None:
        """The declared setting for a kv key, or None: the host checks writes to these
        (docs/protocol-notes.md#r9)."""
        for setting in self.settings:
            if setting.key == key:
                return setting
        return None

    @property
    def settings_by_key(self) -> dict[str, Setting]:
        """Key -> setting, in manifest order (SET-16 lists them in this order)."""
        return {setting.key: setting for setting in self.settings}

    def resolve_command(self, folder: str | os.PathLike[str]) -> list[str]:
        """The argv to start the extension installed in ``folder``.

        A program with a '/' is a path inside ``folder``; a bare name is looked up on PATH.
        """
        program, *args = self.command
        if "/" in program:
            program = str(Path(folder, *program.split("/")))
        return [program, *args]

    def panel_files(self, folder: str | os.PathLike[str]) -> dict[str, Path]:
        """Role -> the panel's file inside ``folder`` (existence is the caller's check)."""
        return {role: Path(folder, *path.split("/")) for role, path in self.panels.roles().items()}


# --- loading and messages -------------------------------------------------------------------


class ManifestError(VxpError):
    """A manifest that cannot be used; ``str()`` is one line per problem (SET-14)."""

    def __init__(self, source: str, problems: Sequence[str]) -> None:
        self.source = source
        self.problems = tuple(problems)
        super().__init__("\n".join(f"{source}: {problem}" for problem in self.problems))


def load_manifest(path: str | os.PathLike[str]) -> Manifest:
    """Read and validate a ``manifest.toml``; every problem is reported, not just the first."""
    source = os.fspath(path)
    try:
        text = Path(path).read_bytes().decode("utf-8")
    except OSError as exc:
        raise ManifestError(source, [f"cannot read: {exc.strerror or exc}"]) from None
    except UnicodeDecodeError as exc:
        raise ManifestError(source, [f"is not UTF-8 (byte {exc.start})"]) from None
    return parse_manifest(text, source)


def parse_manifest(text: str, source: str = "manifest.toml") -> Manifest:
    """Validate manifest TOML text; ``source`` names it in messages."""
    import tomllib  # only hosts and the packager read manifests: keep the SDK's import light

    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise ManifestError(source, [f"is not valid TOML: {exc}"]) from None
    return validate_manifest(data, source)


def validate_manifest(data: Mapping[str, Any], source: str = "manifest.toml") -> Manifest:
    """Validate an already parsed manifest table."""
    try:
        return Manifest.model_validate(dict(data))
    except ValidationError as exc:
        problems = [describe(error, data) for error in exc.errors(include_url=False)]
        raise ManifestError(source, problems) from None
