"""What vrosdev's launch refuses in a manifest: each settings rule, and keys it does not know.

Each case breaks one rule of a small valid manifest and reads it as `vrosdev run --manifest`
does (its argument parser and launch configuration, in this process): the launch stops before
anything runs, with a line that names the field.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from vrosdev.cli import build_parser, config_from_args

HEAD = (
    'id = "com.example.settings"\nname = "Settings"\nversion = "0.1.0"\nvxp_version = "1.7"\n'
    'command = ["python3", "-c", "pass"]\n'
)
TEXT = '[[settings]]\nkey = "folder"\nkind = "text"\nlabel = "Folder"\ndefault = ""\n'
TOGGLE = '[[settings]]\nkey = "on"\nkind = "toggle"\nlabel = "On"\ndefault = true\n'
NUMBER = (
    '[[settings]]\nkey = "gain"\nkind = "number"\nlabel = "Gain"\ndefault = 40\n'
    "min = 0\nmax = 100\n"
)
SELECT = (
    '[[settings]]\nkey = "mode"\nkind = "select"\nlabel = "Mode"\ndefault = "a"\n'
    'choices = [{ value = "a", label = "A" }, { value = "b", label = "B" }]\n'
)
VALID = HEAD + "\n".join([TEXT, TOGGLE, NUMBER, SELECT])


def _launch(tmp_path: Path, text: str) -> str | None:
    """The refusal vrosdev's launch gives the manifest, or None when it would launch."""
    path = tmp_path / "manifest.toml"
    path.write_text(text, encoding="utf-8")
    args = build_parser().parse_args(["run", "--manifest", str(path), "--content-root", "."])
    try:
        config_from_args(args)
    except SystemExit as exc:
        return str(exc)
    return None


BROKEN = [
    pytest.param(TEXT.replace('kind = "text"', 'kind = "slider"'), "kind", id="SET-4-kind"),
    pytest.param(TEXT.replace('label = "Folder"\n', ""), "label", id="SET-4-label"),
    pytest.param(TEXT.replace('default = ""', 'default = "' + "x" * 1025 + '"'), "default",
                 id="SET-5-text-1KiB"),
    pytest.param(TEXT + "placeholder = 3\n", "placeholder", id="SET-5-placeholder"),
    pytest.param(TOGGLE.replace("default = true", 'default = "true"'), "default", id="SET-6"),
    pytest.param(NUMBER.replace("default = 40", "default = 101"), "default", id="SET-7-range"),
    pytest.param(NUMBER.replace("default = 40", "default = 4.5"), "default", id="SET-7-integer"),
    pytest.param(NUMBER.replace("min = 0\n", ""), "min", id="SET-8-min-required"),
    pytest.param(NUMBER.replace("min = 0", "min = 100"), "max", id="SET-8-min-below-max"),
    pytest.param(NUMBER.replace("max = 100", "max = 1000001"), "max", id="SET-8-bound"),
    pytest.param(SELECT.replace('default = "a"', 'default = "c"'), "default", id="SET-9"),
    pytest.param(SELECT.replace(', { value = "b", label = "B" }', ""), "choices",
                 id="SET-10-two-choices"),
    pytest.param(SELECT.replace('value = "b"', 'value = "a"'), "choices", id="SET-10-unique"),
    pytest.param("\n".join(TOGGLE.replace('"on"', f'"on{n}"') for n in range(17)), "settings",
                 id="SET-11-at-most-16"),
    pytest.param(TOGGLE.replace('"on"', '"On"'), "key", id="SET-12-characters"),
    pytest.param(TOGGLE.replace('"on"', '"' + "k" * 65 + '"'), "key", id="SET-12-64-bytes"),
    pytest.param(TOGGLE.replace('"On"', '"' + "l" * 201 + '"'), "label", id="SET-13"),
]  # fmt: skip


@pytest.mark.parametrize(("settings", "field"), BROKEN)
def test_each_settings_rule_is_enforced_when_vrosdev_reads_the_manifest(
    tmp_path: Path, settings: str, field: str, request: pytest.FixtureRequest
) -> None:
    """SET-4, SET-5, SET-6, SET-7, SET-8, SET-9, SET-10, SET-11, SET-12, SET-13: a manifest
    breaking the rule (one case each, named by its ID) is refused at launch, naming the field;
    the same manifest with valid settings launches."""
    assert _launch(tmp_path, VALID) is None
    refusal = _launch(tmp_path, HEAD + settings)
    assert refusal is not None, settings
    assert refusal.startswith("vrosdev: the manifest is refused:"), refusal
    assert field in refusal, refusal
    line = "-".join(request.node.callspec.id.split("-")[:2])
    assert line in refusal, (line, refusal)  # refused for this rule, not another


def test_a_key_this_host_does_not_know_is_refused_by_name(tmp_path: Path) -> None:
    """VER-13: a manifest key newer than this host is refused, naming the key
    (docs/protocol-notes.md#r27)."""
    refusal = _launch(
        tmp_path, VALID.replace("[[settings]]", "hand_tracking = true\n\n[[settings]]", 1)
    )
    assert refusal is not None
    assert "hand_tracking" in refusal
