"""commands: named commands the user can bind (VXP CMD-1 … CMD-9). No capability.

Registrations end with the connection: register again after every hello (CMD-7).
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import Field, Tag, field_validator

from . import _checks
from ._base import Inbound, Outbound, tag_of

NAMESPACE = "commands"
CAPABILITY: str | None = None
SINCE = "1.0"


def _check_command(name: str) -> str:
    return _checks.name(name, "command name", "invalid_name")


# --- requests -------------------------------------------------------------------------------


class CommandRegister(Outbound):
    op: Literal["register"] = "register"
    name: str

    _name = field_validator("name")(_check_command)


class CommandUnregister(Outbound):
    op: Literal["unregister"] = "unregister"
    name: str

    _name = field_validator("name")(_check_command)


CommandsRequest = Annotated[
    Annotated[CommandRegister, Tag("register")] | Annotated[CommandUnregister, Tag("unregister")],
    Field(discriminator="op"),
]

# --- responses ------------------------------------------------------------------------------


class CommandOk(Inbound):
    result: Literal["ok"]


class CommandErr(Inbound):
    result: Literal["err"]
    code: str
    message: str | None = None


class CommandUnknown(Inbound):
    result: str


CommandsResponse = Annotated[
    Annotated[CommandOk, Tag("ok")]
    | Annotated[CommandErr, Tag("err")]
    | Annotated[CommandUnknown, Tag("unknown")],
    tag_of("result", CommandOk, CommandErr),
]

ERROR_CODES = frozenset({"invalid_name", "internal"})
