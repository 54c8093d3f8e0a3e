"""The domain error codes the spec documents for each namespace, plus the readings' extras.

The fault matrix (tests/e2e) answers every request kind with each code of its namespace, and
the README's vrosdev section lists the same table (a test keeps the two in step).
"""

from __future__ import annotations

DOCUMENTED_CODES: dict[str, tuple[str, ...]] = {
    "kv": ("key_too_large", "value_too_large", "invalid_value", "internal"),
    "secrets": ("not_persistable", "too_large", "internal"),
    "bus": ("not_allowed", "internal"),
    "panel": (
        "invalid_name",
        "source_too_large",
        "compile_failed",
        "no_such_panel",
        "not_allowed",
        "internal",
    ),
    "assets": ("too_large", "too_many_frames", "budget_full", "bad_key", "bad_pixels"),
    "commands": ("invalid_name", "internal"),
    "settings": ("no_such_key", "no_schema", "internal"),
    "strings": ("prefix_not_allowed", "internal"),
    "audio": (
        "not_found",
        "undecodable",
        "too_long",
        "cache_full",
        "unknown_sound",
        "unknown_channel",
        "sample_not_cached",
        "no_valid_targets",
        "no_endpoint",
        "internal",
    ),
    "media": (
        "invalid_url",
        "invalid_key",
        "invalid_value",
        "unsupported",
        "too_many",
        "no_such_session",
        "busy",
        "endpoint_unavailable",
        "open_failed",
        "playback_failed",
        "dimension_limit",
    ),
    "face": (
        "not_granted",
        "invalid_source",
        "invalid_sample",
        "too_many",
        "no_such_source",
        "stale_generation",
        "out_of_order",
        "not_demanded",
        "unsupported",
    ),
}

# Failures that arrive in events rather than responses.
AUDIO_LOADED_FAILED = ("undecodable", "too_long", "cache_full", "unknown_sound", "internal")
REJECTED = ("bad_token", "wrong_id", "version_unsupported", "already_connected")
