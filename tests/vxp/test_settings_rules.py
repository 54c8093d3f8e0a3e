"""check_value: what a host accepts under a declared setting's key.

Used for kv writes to declared keys (SET-18, KV-13, docs/protocol-notes.md#r9: err
invalid_value), for the values of settings_changed, and for stored text values (SET-5 with
docs/protocol-notes.md#r13).
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from vxp.settings_rules import (
    NumberSetting,
    SelectChoice,
    SelectSetting,
    Setting,
    TextSetting,
    ToggleSetting,
    check_value,
)

TEXT = TextSetting(key="target", kind="text", label="Target", default="")
TOGGLE = ToggleSetting(key="on", kind="toggle", label="On", default=True)
NUMBER = NumberSetting(key="rate", kind="number", label="Rate", default=10, min=1, max=60)
NEGATIVE = NumberSetting(key="t", kind="number", label="T", default=-5, min=-10, max=-1)
WIDE = NumberSetting(key="w", kind="number", label="W", default=0, min=-1_000_000, max=1_000_000)
SELECT = SelectSetting(
    key="mode",
    kind="select",
    label="Mode",
    default="auto",
    choices=[
        SelectChoice(value="auto", label="Automatic"),
        SelectChoice(value="manual", label="Manual"),
    ],
)
ALL: list[Setting] = [TEXT, TOGGLE, NUMBER, NEGATIVE, WIDE, SELECT]


@pytest.mark.parametrize(
    ("setting", "value"),
    [
        (TEXT, ""),
        (TEXT, "127.0.0.1:9000"),
        (TEXT, "x" * 1024),  # SET-5: up to 1 KiB, inclusive
        (TEXT, "é" * 512),  # 1024 UTF-8 bytes
        (TOGGLE, True),
        (TOGGLE, False),
        (NUMBER, 1),  # docs/protocol-notes.md#r13: min inclusive
        (NUMBER, 60),  # docs/protocol-notes.md#r13: max inclusive
        (NUMBER, 30),
        (NEGATIVE, -10),
        (NEGATIVE, -1),
        (WIDE, -1_000_000),
        (WIDE, 1_000_000),
        (SELECT, "auto"),
        (SELECT, "manual"),
    ],
)
def test_valid_values_pass(setting: Setting, value: Any) -> None:
    assert check_value(setting, value) is None


@pytest.mark.parametrize(
    ("setting", "value", "rule"),
    [
        # docs/protocol-notes.md#r13: stored text values are bounded too
        (TEXT, "x" * 1025, "SET-5"),
        (TEXT, "é" * 512 + "a", "SET-5"),
        (TEXT, 5, "SET-5"),
        (TEXT, None, "SET-5"),
        (TEXT, ["a"], "SET-5"),
        (TOGGLE, 1, "SET-6"),
        (TOGGLE, 0, "SET-6"),
        (TOGGLE, "true", "SET-6"),
        (TOGGLE, None, "SET-6"),
        (NUMBER, 0, "SET-7"),  # just below min
        (NUMBER, 61, "SET-7"),  # just above max
        (NUMBER, 30.0, "SET-7"),  # an integer, not a float, even when integral
        (NUMBER, 30.5, "SET-7"),
        (NUMBER, True, "SET-7"),  # bool is not an integer here
        (NUMBER, "30", "SET-7"),
        (NUMBER, None, "SET-7"),
        (NEGATIVE, 0, "SET-7"),
        (NEGATIVE, -11, "SET-7"),
        (WIDE, 1_000_001, "SET-7"),
        # beyond int->str's 4300-digit limit: still only a reason (and no str() in the id)
        pytest.param(WIDE, 10**5000, "SET-7", id="huge-int"),
        (SELECT, "Automatic", "SET-9"),  # a label is not a value
        (SELECT, "AUTO", "SET-9"),
        (SELECT, 1, "SET-9"),
        (SELECT, None, "SET-9"),
        (SELECT, {"value": "auto"}, "SET-9"),
    ],
)
def test_invalid_values_give_a_reason_naming_the_rule_r9(
    setting: Setting, value: Any, rule: str
) -> None:
    reason = check_value(setting, value)
    assert reason is not None
    assert rule in reason


def test_reason_does_not_echo_a_long_value() -> None:
    """The reason goes into an invalid_value message and logs: a bounded quotation at most."""
    reason = check_value(SELECT, "secret-" + "x" * 5000)
    assert reason is not None
    assert len(reason) < 200
    reason = check_value(TEXT, "y" * 100_000)
    assert reason is not None
    assert "yyyyyyyyyy" not in reason


def test_min_max_inclusive_boundaries_r13() -> None:
    for n in range(NUMBER.min - 3, NUMBER.max + 4):
        assert (check_value(NUMBER, n) is None) == (NUMBER.min <= n <= NUMBER.max)


JSON = st.recursive(
    st.none()
    | st.booleans()
    | st.integers()
    | st.floats(allow_nan=True, allow_infinity=True)
    | st.text(),
    lambda children: (
        st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=8), children, max_size=4)
    ),
    max_leaves=12,
)


@given(value=JSON)
def test_check_value_never_raises_and_accepts_exactly_the_kind(value: Any) -> None:
    """One invariant per kind: a reason (str) or None, never an exception."""
    for setting in ALL:
        reason = check_value(setting, value)
        assert reason is None or isinstance(reason, str)
    assert (check_value(TOGGLE, value) is None) == isinstance(value, bool)
    is_int = isinstance(value, int) and not isinstance(value, bool)
    assert (check_value(NUMBER, value) is None) == (is_int and 1 <= value <= 60)
    assert (check_value(SELECT, value) is None) == (value in ("auto", "manual"))
    is_short_text = isinstance(value, str) and len(value.encode("utf-8", "surrogatepass")) <= 1024
    assert (check_value(TEXT, value) is None) == is_short_text


@given(text=st.text(alphabet=st.characters(codec="utf-8"), max_size=400))
def test_text_limit_is_measured_in_utf8_bytes(text: str) -> None:
    value = text * 3
    fits = len(value.encode("utf-8")) <= 1024
    assert (check_value(TEXT, value) is None) == fits


def _accepted(setting: Setting, value: Any) -> bool:
    """The rule of each kind, restated: what check_value must accept, and nothing else."""
    if setting is TOGGLE:
        return isinstance(value, bool)
    if setting is NUMBER:
        return isinstance(value, int) and not isinstance(value, bool) and 1 <= value <= 60
    if setting is SELECT:
        return value in ("auto", "manual")
    assert setting is TEXT
    return isinstance(value, str) and len(value.encode("utf-8", "surrogatepass")) <= 1024


# Lines as a host receives them: what json.dumps writes, and spellings it never writes but a
# JSON parser reads (a float that equals an integer, exponents, overflow to infinity, -0,
# integers beyond 64 bits, escapes, a lone surrogate).
JSON_LINES = JSON.map(json.dumps) | st.sampled_from(
    [
        "30.0", "1e1", "6E1", "-0", "1E400", "-1E400", "18446744073709551617", "0.5", "true",
        '"auto"', '"\\u0061uto"', '"manual "', '"\\ud800"', '"\\u00e9"', "[true]", "{}",
    ]
)  # fmt: skip


@given(raw=JSON_LINES)
def test_values_parsed_from_json_lines_get_their_kinds_verdict(raw: str) -> None:
    """What a host actually receives: whatever json.loads made of a kv set's value."""
    value = json.loads(raw)
    for setting in (TEXT, TOGGLE, NUMBER, SELECT):
        reason = check_value(setting, value)
        assert (reason is None) == _accepted(setting, value), (setting.key, raw)
        assert reason is None or isinstance(reason, str)
