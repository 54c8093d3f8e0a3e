"""The manifest schema (vxp.manifest) and Cueboard's own manifest.toml.

Settings rules: SET-4 … SET-13 with docs/protocol-notes.md#r13; unknown keys:
docs/protocol-notes.md#r27; panel roles: PAN-2; bus patterns: BUS-6 / docs/protocol-notes.md#r10;
the capability shape:
H-7. Every broken manifest is written to a real file and read with ``load_manifest``, as vrosdev and
the packager read it.
"""

from __future__ import annotations

import copy
import json
import tomllib
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from vxp.errors import VxpError
from vxp.manifest import (
    Capabilities,
    Manifest,
    ManifestError,
    NumberSetting,
    Panels,
    SelectChoice,
    SelectSetting,
    TextSetting,
    ToggleSetting,
    load_manifest,
    parse_manifest,
)
from vxp.models.handshake import Granted
from vxp.settings_rules import check_value
from vxp.version import CLIENT_VERSION

REPO = Path(__file__).resolve().parents[2]
REPO_MANIFEST = REPO / "manifest.toml"


# --- a tiny TOML writer, so each case is a real file ----------------------------------------


def _key(name: str) -> str:
    bare = name.replace("_", "").replace("-", "")
    return name if bare.isascii() and bare.isalnum() else json.dumps(name)


def _value(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float):
        return repr(value)
    if isinstance(value, str):
        return json.dumps(value, ensure_ascii=False)
    if isinstance(value, list):
        return "[" + ", ".join(_value(v) for v in value) + "]"
    if isinstance(value, dict):
        return "{ " + ", ".join(f"{_key(k)} = {_value(v)}" for k, v in value.items()) + " }"
    raise TypeError(type(value))


def to_toml(data: dict[str, Any]) -> str:
    lines: list[str] = []
    tables: list[str] = []
    for name, value in data.items():
        if isinstance(value, dict):
            tables.append(f"\n[{_key(name)}]")
            tables += [f"{_key(k)} = {_value(v)}" for k, v in value.items()]
        elif isinstance(value, list) and value and all(isinstance(v, dict) for v in value):
            for entry in value:
                tables.append(f"\n[[{_key(name)}]]")
                tables += [f"{_key(k)} = {_value(v)}" for k, v in entry.items()]
        else:
            lines.append(f"{_key(name)} = {_value(value)}")
    return "\n".join(lines + tables) + "\n"


def base() -> dict[str, Any]:
    """A valid manifest with one setting of each kind: settings[0] text … settings[3] select."""
    return {
        "id": "com.example.hello",
        "name": "Hello",
        "version": "1.2.3",
        "vxp_version": "1.7",
        "command": ["bin/python", "-m", "hello"],
        "capabilities": {"bus": ["vr.lifecycle", "ext.cat.kittyn.twitch.*"], "audio": True},
        "panels": {"overlay": "panels/overlay.slint", "dash-tab": "panels/dash-tab.slint"},
        "settings": [
            {"key": "target", "kind": "text", "label": "Target", "default": "127.0.0.1:9000"},
            {"key": "on", "kind": "toggle", "label": "On", "default": True},
            {"key": "rate", "kind": "number", "label": "Rate", "default": 10, "min": 1, "max": 60},
            {
                "key": "mode",
                "kind": "select",
                "label": "Mode",
                "default": "auto",
                "choices": [
                    {"value": "auto", "label": "Automatic"},
                    {"value": "manual", "label": "Manual"},
                ],
            },
        ],
    }


def write(tmp_path: Path, data: dict[str, Any]) -> Path:
    path = tmp_path / "manifest.toml"
    path.write_text(to_toml(data), encoding="utf-8")
    return path


def test_toml_writer_round_trips() -> None:
    """Guards the helper itself: the files the cases write say what the cases mean."""
    assert tomllib.loads(to_toml(base())) == base()


def test_base_manifest_is_valid(tmp_path: Path) -> None:
    m = load_manifest(write(tmp_path, base()))
    assert [type(s) for s in m.settings] == [
        TextSetting,
        ToggleSetting,
        NumberSetting,
        SelectSetting,
    ]


# --- Cueboard's manifest.toml ---------------------------------------------------------------


def test_repository_manifest_loads_set1() -> None:
    """SET-1, SET-4 … SET-13: Cueboard's own manifest obeys every rule."""
    m = load_manifest(REPO_MANIFEST)
    assert m.id == "com.cueboard.soundboard"
    assert m.name == "Cueboard"
    assert m.vxp_version == str(CLIENT_VERSION)
    assert m.command == [".venv/bin/python", "-m", "cueboard"]
    assert m.panels.roles() == {
        "overlay": "panels/overlay.slint",
        "dash-tab": "panels/dash-tab.slint",
    }
    assert [s.key for s in m.settings] == [
        "sounds_folder",
        "soundboard_gain",
        "mic_gain",
        "mic_enabled",
        "overlap",
        "normalize",
        "now_playing_toast",
        "render_cache_mb",
    ]


def test_repository_manifest_settings_defaults() -> None:
    s = load_manifest(REPO_MANIFEST).settings_by_key
    folder = s["sounds_folder"]
    assert isinstance(folder, TextSetting)
    assert folder.default == ""
    assert "Cueboard/Sounds" in folder.label or "Cueboard/Sounds" in (folder.placeholder or "")
    for key, default in (("soundboard_gain", 80), ("mic_gain", 40)):
        gain = s[key]
        assert isinstance(gain, NumberSetting)
        assert (gain.min, gain.max, gain.default) == (0, 100, default)
    toggles = {k: v.default for k, v in s.items() if isinstance(v, ToggleSetting)}
    assert toggles == {"mic_enabled": True, "normalize": True, "now_playing_toast": False}
    overlap = s["overlap"]
    assert isinstance(overlap, SelectSetting)
    assert overlap.choice_values == ["overlap", "stop_others", "toggle"]
    assert overlap.default == "overlap"
    for setting in s.values():
        assert check_value(setting, setting.default) is None


def test_repository_manifest_asks_only_for_what_cueboard_uses() -> None:
    """Issue 9: audio, overlays, media, network, secrets, bus vr.lifecycle; nothing else."""
    caps = load_manifest(REPO_MANIFEST).capabilities
    assert caps == Capabilities(
        bus=["vr.lifecycle"], audio=True, overlays=True, media=True, network=True, secrets=True
    )


def test_repository_manifest_version_is_the_package_version() -> None:
    pyproject = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))
    assert load_manifest(REPO_MANIFEST).version == pyproject["project"]["version"]


# --- every rule, refused with the file, the key path and the rule ---------------------------

Mutation = Callable[[dict[str, Any]], None]


def _setting(index: int, **changes: Any) -> Mutation:
    def mutate(data: dict[str, Any]) -> None:
        entry = data["settings"][index]
        for name, value in changes.items():
            if value is DELETE:
                del entry[name]
            else:
                entry[name] = value

    return mutate


def _top(**changes: Any) -> Mutation:
    def mutate(data: dict[str, Any]) -> None:
        for name, value in changes.items():
            if value is DELETE:
                del data[name]
            else:
                data[name] = value

    return mutate


def _table(table: str, **changes: Any) -> Mutation:
    def mutate(data: dict[str, Any]) -> None:
        data[table].update(changes)

    return mutate


def _choices(choices: list[dict[str, Any]]) -> Mutation:
    return _setting(3, choices=choices)


def _count(n: int) -> Mutation:
    def mutate(data: dict[str, Any]) -> None:
        data["settings"] = [
            {"key": f"s{i}", "kind": "toggle", "label": f"S{i}", "default": False} for i in range(n)
        ]

    return mutate


def _duplicate_key(data: dict[str, Any]) -> None:
    data["settings"][1]["key"] = "target"


DELETE = object()
KIB = 1024
_CHOICE = {"value": "x", "label": "X"}

# (id, mutation, key path in the message, rule named in the message)
REFUSED: list[tuple[str, Mutation, str, str]] = [
    # SET-4: every entry has key, kind, label, default; kind is one of four.
    ("set4-no-key", _setting(0, key=DELETE), "settings[0].key", "SET-4"),
    ("set4-no-kind", _setting(0, kind=DELETE), "settings[0].kind", "SET-4"),
    ("set4-no-label", _setting(1, label=DELETE), "settings[1].label", "SET-4"),
    ("set4-no-default", _setting(2, default=DELETE), "settings[2].default", "SET-4"),
    ("set4-unknown-kind", _setting(0, kind="slider"), "settings[0].kind", "SET-4"),
    # SET-5: text default is a string of at most 1 KiB; placeholder allowed (a string).
    ("set5-default-not-string", _setting(0, default=5), "settings[0].default", "SET-5"),
    (
        "set5-default-over-1kib",
        _setting(0, default="x" * (KIB + 1)),
        "settings[0].default",
        "SET-5",
    ),
    (
        "set5-multibyte-over-1kib",
        _setting(0, default="é" * 512 + "a"),
        "settings[0].default",
        "SET-5",
    ),
    ("set5-placeholder-not-string", _setting(0, placeholder=3), "settings[0].placeholder", "SET-5"),
    # SET-6: toggle default is true or false.
    ("set6-default-string", _setting(1, default="true"), "settings[1].default", "SET-6"),
    ("set6-default-int", _setting(1, default=1), "settings[1].default", "SET-6"),
    # SET-7: number default is an integer within min..max (inclusive, docs/protocol-notes.md#r13).
    ("set7-default-float", _setting(2, default=10.0), "settings[2].default", "SET-7"),
    ("set7-default-string", _setting(2, default="10"), "settings[2].default", "SET-7"),
    ("set7-default-bool", _setting(2, default=True), "settings[2].default", "SET-7"),
    ("set7-default-below-min", _setting(2, default=0), "settings[2].default", "SET-7"),
    ("set7-default-above-max", _setting(2, default=61), "settings[2].default", "SET-7"),
    # SET-8: min and max required, min < max, both within ±1,000,000.
    ("set8-no-min", _setting(2, min=DELETE), "settings[2].min", "SET-8"),
    ("set8-no-max", _setting(2, max=DELETE), "settings[2].max", "SET-8"),
    ("set8-min-equals-max", _setting(2, min=10, max=10), "settings[2].max", "SET-8"),
    ("set8-min-above-max", _setting(2, min=20, max=10, default=15), "settings[2].max", "SET-8"),
    ("set8-min-below-range", _setting(2, min=-1_000_001), "settings[2].min", "SET-8"),
    ("set8-max-above-range", _setting(2, max=1_000_001), "settings[2].max", "SET-8"),
    ("set8-min-float", _setting(2, min=1.0), "settings[2].min", "SET-8"),
    # SET-9: select default is one of the choices' values.
    ("set9-default-not-a-value", _setting(3, default="Automatic"), "settings[3].default", "SET-9"),
    ("set9-default-not-string", _setting(3, default=1), "settings[3].default", "SET-9"),
    # SET-10: 2-8 choices of {value, label}, values unique.
    ("set10-one-choice", _choices([_CHOICE]), "settings[3].choices", "SET-10"),
    (
        "set10-nine-choices",
        _choices([{"value": f"v{i}", "label": f"V{i}"} for i in range(9)]),
        "settings[3].choices",
        "SET-10",
    ),
    ("set10-duplicate-value", _choices([_CHOICE, _CHOICE]), "settings[3].choices", "SET-10"),
    ("set10-no-choices", _setting(3, choices=DELETE), "settings[3].choices", "SET-10"),
    (
        "set10-value-not-string",
        _choices([{"value": 1, "label": "One"}, _CHOICE]),
        "settings[3].choices[0].value",
        "SET-10",
    ),
    # SET-11: at most 16 settings.
    ("set11-seventeen-settings", _count(17), "settings", "SET-11"),
    # SET-12: keys [a-z0-9_-], at most 64 bytes; unique (each is one kv row, SET-3).
    ("set12-uppercase-key", _setting(0, key="Target"), "settings[0].key", "SET-12"),
    ("set12-space-in-key", _setting(0, key="send target"), "settings[0].key", "SET-12"),
    ("set12-dot-in-key", _setting(0, key="send.target"), "settings[0].key", "SET-12"),
    ("set12-empty-key", _setting(0, key=""), "settings[0].key", "SET-12"),
    ("set12-key-65-bytes", _setting(0, key="k" * 65), "settings[0].key", "SET-12"),
    ("set12-key-not-string", _setting(0, key=7), "settings[0].key", "SET-12"),
    ("set12-duplicate-key", _duplicate_key, "settings", "SET-12"),
    # SET-13: labels at most 200 bytes, choice labels too (docs/protocol-notes.md#r13).
    ("set13-label-201-bytes", _setting(0, label="L" * 201), "settings[0].label", "SET-13"),
    ("set13-label-multibyte", _setting(0, label="ü" * 101), "settings[0].label", "SET-13"),
    (
        "set13-choice-label-201-bytes",
        _choices([{"value": "a", "label": "L" * 201}, _CHOICE]),
        "settings[3].choices[0].label",
        "SET-13",
    ),
    # Unknown keys anywhere are refused, naming the key (docs/protocol-notes.md#r27); panel roles
    # are two (PAN-2).
    (
        "r27-top-level",
        _top(homepage="https://example.com"),
        "homepage",
        "docs/protocol-notes.md#r27",
    ),
    (
        "r27-capabilities",
        _table("capabilities", microphone=True),
        "capabilities.microphone",
        "docs/protocol-notes.md#r27",
    ),
    ("r27-panel-role", _table("panels", settings="panels/s.slint"), "panels.settings", "PAN-2"),
    ("r27-setting", _setting(0, hint="h"), "settings[0].hint", "docs/protocol-notes.md#r27"),
    ("r27-number-setting", _setting(2, step=5), "settings[2].step", "docs/protocol-notes.md#r27"),
    (
        "r27-choice",
        _choices([{"value": "a", "label": "A", "icon": "i"}, _CHOICE]),
        "settings[3].choices[0].icon",
        "docs/protocol-notes.md#r27",
    ),
    # The manifest's own keys (docs/manifest.md).
    ("id-not-reverse-dns", _top(id="hello"), "id", "reverse-DNS"),
    ("id-uppercase", _top(id="com.Example.hello"), "id", "reverse-DNS"),
    ("id-too-long", _top(id="com." + "a" * 61), "id", "at most 64"),
    ("id-missing", _top(id=DELETE), "id", "required"),
    ("name-empty", _top(name=" "), "name", "empty"),
    ("version-not-semver", _top(version="1.2"), "version", "semantic version"),
    ("vxp-version-not-major-minor", _top(vxp_version="1"), "vxp_version", "H-5"),
    ("vxp-version-number", _top(vxp_version=1.7), "vxp_version", "H-5"),
    ("command-empty", _top(command=[]), "command", "is empty"),
    ("command-not-array", _top(command="python -m hello"), "command", "array"),
    ("command-absolute", _top(command=["/usr/bin/python3"]), "command", "absolute"),
    ("command-windows-absolute", _top(command=["C:/Python/python.exe"]), "command", "absolute"),
    ("command-escapes", _top(command=["../python"]), "command", ".."),
    ("command-backslash", _top(command=[".venv\\Scripts\\python.exe"]), "command", "'/'"),
    ("bus-bare-star", _table("capabilities", bus=["*"]), "capabilities.bus[0]", "BUS-6"),
    ("bus-star-inside", _table("capabilities", bus=["vr.*.x"]), "capabilities.bus[0]", "BUS-6"),
    ("bus-space", _table("capabilities", bus=["vr.lifecycle "]), "capabilities.bus[0]", "BUS-6"),
    (
        "capability-not-bool",
        _table("capabilities", audio="yes"),
        "capabilities.audio",
        "true or false",
    ),
    ("panel-not-slint", _table("panels", overlay="panels/overlay.txt"), "panels.overlay", ".slint"),
    ("panel-absolute", _table("panels", overlay="/panels/o.slint"), "panels.overlay", "absolute"),
    ("panel-escapes", _table("panels", overlay="../o.slint"), "panels.overlay", ".."),
    ("settings-as-table", _top(settings={"key": "x"}), "settings", "[[settings]]"),
]


@pytest.mark.parametrize(
    ("mutate", "path", "rule"), [c[1:] for c in REFUSED], ids=[c[0] for c in REFUSED]
)
def test_rule_refused_naming_file_key_and_rule(
    tmp_path: Path, mutate: Mutation, path: str, rule: str
) -> None:
    """SET-4, SET-5, SET-6, SET-7, SET-8, SET-9, SET-10, SET-11, SET-12, SET-13, SET-14: each rule.

    A manifest that breaks a rule is not loaded, and the reason says which.
    """
    data = copy.deepcopy(base())
    mutate(data)
    file = write(tmp_path, data)
    with pytest.raises(ManifestError) as caught:
        load_manifest(file)
    message = str(caught.value)
    assert len(caught.value.problems) == 1, message
    assert message.startswith(f"{file}: {path}:") or message.startswith(f"{file}: {path} ("), (
        message
    )
    assert rule in message
    assert "\n" not in message
    assert "Traceback" not in message
    assert "pydantic" not in message


@pytest.mark.parametrize(
    ("mutate", "key"),
    [
        (_top(homepage="x"), "'homepage'"),
        (_table("capabilities", microphone=True), "'microphone'"),
        (_setting(0, hint="h"), "'hint'"),
    ],
)
def test_r27_unknown_key_message_names_the_key(tmp_path: Path, mutate: Mutation, key: str) -> None:
    """VER-13: a key this version does not know is refused, and the message names it."""
    data = base()
    mutate(data)
    with pytest.raises(ManifestError, match=f"unknown key {key}"):
        load_manifest(write(tmp_path, data))


ACCEPTED: list[tuple[str, Mutation]] = [
    ("set5-text-exactly-1kib", _setting(0, default="é" * 512)),
    ("set5-empty-text-with-placeholder", _setting(0, default="", placeholder="host:port")),
    ("set7-default-equals-min", _setting(2, default=1)),
    ("set7-default-equals-max", _setting(2, default=60)),
    ("set8-bounds-at-1e6", _setting(2, min=-1_000_000, max=1_000_000, default=0)),
    ("set8-negative-range", _setting(2, min=-10, max=-5, default=-7)),
    (
        "set10-eight-choices",
        _choices(
            [{"value": f"v{i}", "label": f"V{i}"} for i in range(7)]
            + [{"value": "auto", "label": "A"}]
        ),
    ),
    ("set11-sixteen-settings", _count(16)),
    ("set12-key-64-bytes", _setting(0, key="k" * 64)),
    ("set12-key-all-classes", _setting(0, key="a-z_0-9")),
    ("set13-label-200-bytes", _setting(0, label="ü" * 100)),
    ("no-settings-no-panels", _top(settings=DELETE, panels=DELETE, capabilities=DELETE)),
    ("bare-program-on-path", _top(command=["python3", "launcher.py"])),
    ("empty-label", _setting(0, label="")),
]


@pytest.mark.parametrize("mutate", [c[1] for c in ACCEPTED], ids=[c[0] for c in ACCEPTED])
def test_boundaries_accepted(tmp_path: Path, mutate: Mutation) -> None:
    """The limits are inclusive where the page says "up to" / "at most" (and
    docs/protocol-notes.md#r13 for min/max)."""
    data = base()
    mutate(data)
    load_manifest(write(tmp_path, data))


def test_every_problem_is_reported_one_line_each(tmp_path: Path) -> None:
    data = base()
    data["id"] = "x"
    data["settings"][2]["default"] = 99
    data["settings"][3]["label"] = "L" * 300
    data["extra"] = 1
    file = write(tmp_path, data)
    with pytest.raises(ManifestError) as caught:
        load_manifest(file)
    lines = str(caught.value).splitlines()
    assert len(lines) == 4
    assert all(line.startswith(f"{file}: ") for line in lines)
    assert any("settings[2].default (setting 'rate')" in line for line in lines)


def test_unreadable_files_are_manifest_errors(tmp_path: Path) -> None:
    missing = tmp_path / "absent.toml"
    with pytest.raises(ManifestError, match="cannot read"):
        load_manifest(missing)
    broken = tmp_path / "broken.toml"
    broken.write_text('id = "com.x.y"\nname = \n', encoding="utf-8")
    with pytest.raises(ManifestError, match="not valid TOML"):
        load_manifest(broken)
    latin = tmp_path / "latin.toml"
    latin.write_bytes('name = "Caf\xe9"\n'.encode("latin-1"))
    with pytest.raises(ManifestError, match="not UTF-8"):
        load_manifest(latin)


def test_manifest_error_is_an_sdk_error_without_a_cause() -> None:
    with pytest.raises(ManifestError) as caught:
        parse_manifest("id = 1\n", source="inline")
    assert isinstance(caught.value, VxpError)
    assert caught.value.__cause__ is None
    assert caught.value.source == "inline"
    assert all(not p.startswith("inline") for p in caught.value.problems)


# --- helpers the host and packager use ------------------------------------------------------


def test_capabilities_become_welcome_granted_h7() -> None:
    """H-7: welcome's granted has the manifest's shape; asking for everything grants that."""
    m = Manifest.model_validate(base())
    granted = m.capabilities.to_granted()
    assert isinstance(granted, Granted)
    assert granted.bus == ["vr.lifecycle", "ext.cat.kittyn.twitch.*"]
    assert granted.audio
    assert not granted.overlays
    assert not granted.face_read
    assert set(Capabilities.model_fields) == set(Granted.model_fields)


def test_command_and_panels_resolve_inside_the_folder(tmp_path: Path) -> None:
    m = Manifest.model_validate(base())
    assert m.resolve_command(tmp_path) == [str(tmp_path / "bin" / "python"), "-m", "hello"]
    assert m.panel_files(tmp_path) == {
        "overlay": tmp_path / "panels" / "overlay.slint",
        "dash-tab": tmp_path / "panels" / "dash-tab.slint",
    }
    assert dict(m.panels.items()) == m.panels.roles()
    bare = Manifest.model_validate({**base(), "command": ["python3", "x.py"]})
    assert bare.resolve_command(tmp_path) == ["python3", "x.py"]


def test_setting_lookup_for_kv_writes_r9() -> None:
    m = Manifest.model_validate(base())
    rate = m.setting("rate")
    assert isinstance(rate, NumberSetting)
    assert m.setting("count") is None
    assert list(m.settings_by_key) == ["target", "on", "rate", "mode"]


def test_docs_describe_every_key() -> None:
    """docs/manifest.md documents each key the schema accepts (the schema refuses all others)."""
    docs = (REPO / "docs" / "manifest.md").read_text(encoding="utf-8")
    models = [
        Manifest,
        Capabilities,
        Panels,
        TextSetting,
        ToggleSetting,
        NumberSetting,
        SelectSetting,
        SelectChoice,
    ]
    for model in models:
        for name, field in model.model_fields.items():
            key = field.alias or name
            assert f"`{key}`" in docs, f"{model.__name__}.{key} is not documented"
    for table in ("| `id` |", "| `bus` |", "| `overlay` |", "| `dash-tab` |", "| `default` |"):
        assert table in docs
