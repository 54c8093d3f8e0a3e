"""Arbitrary JSON into every inbound adapter: parsed, or a ValidationError; nothing else.

The invariant of h11's fuzzing, applied to the models: nothing a host sends, however broken,
raises anything but pydantic's ValidationError (VER-3, T-12). Request adapters are fed the
same way on the host side (``host_context``), since the host emulator validates with them.
"""

from __future__ import annotations

import typing
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from pydantic import BaseModel, TypeAdapter, ValidationError

from vxp.models import registry

json_values: st.SearchStrategy[Any] = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(min_value=-(2**70), max_value=2**70)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=20),
    lambda inner: (
        st.lists(inner, max_size=5) | st.dictionaries(st.text(max_size=8), inner, max_size=5)
    ),
    max_leaves=25,
)

RESULT_TAGS = ["value", "written", "deleted", "keys", "err", "ok", "exists", "applied"]
RESULT_TAGS += ["defined", "removed", "values", "strings", "loading", "status", "channels"]
RESULT_TAGS += ["devices", "opened", "closed", "registered", "zzz"]
EVENT_TAGS = [*registry.event_since(), "zzz"]
FIELD_NAMES = ["value", "revision", "code", "message", "playing", "targets", "sessions"]
FIELD_NAMES += ["outcome", "action", "args", "state", "entries", "channels", "endpoints", "kind"]


def _field_names(union: Any) -> list[str]:
    """The field names of every model in a (nested, annotated) union, so values land in them."""
    names: set[str] = set()
    for arg in typing.get_args(union) or (union,):
        if isinstance(arg, type) and issubclass(arg, BaseModel):
            names.update(arg.model_fields)
        elif typing.get_args(arg):
            names.update(_field_names(arg))
    return sorted(names)


def _tagged(
    tag_field: str, tags: list[str], names: list[str] = FIELD_NAMES
) -> st.SearchStrategy[dict[str, Any]]:
    """Objects with a known tag and plausible field names holding arbitrary JSON."""
    return st.builds(
        lambda tag, fields: {**fields, tag_field: tag},  # pyright: ignore[reportUnknownLambdaType]
        st.sampled_from(tags),
        st.dictionaries(st.sampled_from(names), json_values, max_size=6),
    )


def _only_validation_errors(adapter: TypeAdapter[Any], value: Any, **kwargs: Any) -> None:
    try:
        adapter.validate_python(value, **kwargs)
    except ValidationError:
        pass


@settings(max_examples=100, suppress_health_check=[HealthCheck.too_slow], deadline=None)
@given(st.data())
def test_responses_parse_or_raise_validation_error(data: st.DataObject) -> None:
    """VER-3: an arbitrary result is a model or a ValidationError, for every namespace."""
    spec = registry.NAMESPACES[data.draw(st.sampled_from(list(registry.NAMESPACES)))]
    names = [*FIELD_NAMES, *_field_names(spec.response_type)]
    value = data.draw(json_values | _tagged("result", RESULT_TAGS, names))
    _only_validation_errors(spec.response, value)


@settings(max_examples=150, suppress_health_check=[HealthCheck.too_slow], deadline=None)
@given(json_values | _tagged("event", EVENT_TAGS))
def test_events_parse_or_raise_validation_error(value: Any) -> None:
    """VER-3 for events."""
    _only_validation_errors(registry.event_adapter(), value)


@settings(max_examples=100, suppress_health_check=[HealthCheck.too_slow], deadline=None)
@given(st.data())
def test_host_side_requests_parse_or_raise_validation_error(data: st.DataObject) -> None:
    """E-8: whatever a client sends, the host's validation gives a model or -32602/an err."""
    namespace = data.draw(st.sampled_from(list(registry.NAMESPACES)))
    spec = registry.NAMESPACES[namespace]
    names = _field_names(spec.request_type)
    value = data.draw(json_values | _tagged("op", [*spec.ops, "zzz"], names))
    try:
        spec.request.validate_python(value, context=registry.host_context())
    except ValidationError as exc:
        registry.domain_error_of(exc)  # must not raise either
