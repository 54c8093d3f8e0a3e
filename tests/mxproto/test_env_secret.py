"""The launch environment (four MX_* variables) and the token's secret type."""

from __future__ import annotations

import pickle

import pytest

from mxproto import InvalidEnvironment, LaunchEnvironment, Secret

TOKEN = "tok-4f1b8c0e9d"
ENV = {
    "MX_EXTENSION_HOST": "127.0.0.1:4100",
    "MX_EXTENSION_TOKEN": TOKEN,
    "MX_EXTENSION_ID": "com.example.one",
    "MX_EXTENSION_PROTOCOL": "1",
}


def test_the_four_variables() -> None:
    env = LaunchEnvironment.from_environ(ENV)
    assert (env.host, env.port, env.extension_id, env.protocol_version) == (
        "127.0.0.1",
        4100,
        "com.example.one",
        1,
    )
    assert env.token.reveal() == TOKEN
    assert TOKEN not in repr(env)


def test_ipv6_host_in_brackets() -> None:
    env = LaunchEnvironment.from_environ({**ENV, "MX_EXTENSION_HOST": "[::1]:9"})
    assert (env.host, env.port, env.address) == ("::1", 9, "[::1]:9")


@pytest.mark.parametrize(
    ("name", "value"),
    [
        ("MX_EXTENSION_HOST", None),
        ("MX_EXTENSION_HOST", "localhost"),
        ("MX_EXTENSION_HOST", "h:0"),
        ("MX_EXTENSION_HOST", "h:http"),
        ("MX_EXTENSION_TOKEN", None),
        ("MX_EXTENSION_TOKEN", ""),
        ("MX_EXTENSION_ID", None),
        ("MX_EXTENSION_PROTOCOL", "one"),
    ],
)
def test_bad_variables_are_named_never_the_token(name: str, value: str | None) -> None:
    env = {k: v for k, v in ENV.items() if k != name}
    if value is not None:
        env[name] = value
    with pytest.raises(InvalidEnvironment) as info:
        LaunchEnvironment.from_environ(env)
    assert name in str(info.value)
    assert TOKEN not in str(info.value)


def test_secret_never_shows_its_value() -> None:
    secret = Secret(TOKEN)
    assert TOKEN not in repr(secret)
    assert TOKEN not in str(secret)
    assert TOKEN not in f"{secret}"
    assert TOKEN not in f"{secret!r:>40}"
    assert secret == Secret(TOKEN)
    assert secret != Secret("other")
    with pytest.raises(TypeError):
        pickle.dumps(secret)
