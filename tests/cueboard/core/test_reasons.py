"""A failed tile's reason is a short phrase in the user's language (cueboard.core.reasons)."""

from __future__ import annotations

import pytest

from cueboard.core.names import width
from cueboard.core.reasons import LOAD_FAILURE_KEYS, OTHER, load_failure_key
from cueboard.runtime.catalogs import load_catalog

# A tile line holds about 14 columns; the state mark and a space take two of them.
TILE_REASON_COLUMNS = 12


def test_codes_map_to_phrases_and_an_unknown_code_to_the_general_one() -> None:
    assert load_failure_key("undecodable") == "slot.reason.undecodable"
    assert load_failure_key("a_code_from_a_newer_host") == OTHER


@pytest.mark.parametrize("locale", ["en-US", "ja-JP"])
@pytest.mark.parametrize("code", [*LOAD_FAILURE_KEYS, "internal"])
def test_every_reason_is_words_that_fit_a_tile(locale: str, code: str) -> None:
    catalog = load_catalog(locale)
    phrase = catalog.t(load_failure_key(code))
    assert code not in phrase
    assert phrase != load_failure_key(code), "the key itself: missing from the catalog"
    if code != "too_large":  # "Too large (over 256 MiB)" names its limit and may elide
        assert width(phrase) <= TILE_REASON_COLUMNS, phrase


def test_the_undecodable_tile_says_so_in_both_languages() -> None:
    assert load_catalog("en-US").t(load_failure_key("undecodable")) == "Can't decode"
    assert load_catalog("ja-JP").t(load_failure_key("undecodable")) == "非対応の形式"
