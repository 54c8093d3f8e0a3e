"""Cueboard's catalogs: en-US and ja-JP complete, same placeholders, every key the code uses
present, the locale fallback chain (STR-3: vrOS carries no keys of ours)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

import cueboard.core.i18n as i18n
import cueboard.runtime.catalogs as catalogs
from cueboard.core.contract import PANELS
from cueboard.core.i18n import Catalog, placeholders
from cueboard.runtime.catalogs import available_locales, load_catalog, load_entries, locale_chain

REPO = Path(__file__).resolve().parents[2]
CODE = REPO / "extension" / "cueboard"
KEY_IN_CODE = re.compile(r"""\b(?:t|msgid)\(\s*["']([^"']+)["']""")
# Words kept as they are in every language (names, units, protocols).
LOANWORDS = re.compile(r"\b(?:URL|KiB|MiB|SteamVR|vrOS|Windows|Cueboard|https?|Mic)\b")
JAPANESE = re.compile(r"[\u3040-\u30ff\u4e00-\u9fff]")


def _catalog(locale: str) -> dict[str, str]:
    return json.loads((CODE / "runtime" / "locales" / f"{locale}.json").read_text(encoding="utf-8"))


def keys_used_in_code() -> set[str]:
    keys = {p.text_key for panel in PANELS.values() for p in panel.text_props}
    for path in CODE.rglob("*.py"):
        keys.update(KEY_IN_CODE.findall(path.read_text(encoding="utf-8")))
    return {k for k in keys if k is not None}


def test_both_locales_are_shipped() -> None:
    assert {"en-US", "ja-JP"} <= set(available_locales())


def test_every_key_is_in_both_catalogs() -> None:
    en, ja = _catalog("en-US"), _catalog("ja-JP")
    assert sorted(en.keys() - ja.keys()) == [], "missing from ja-JP"
    assert sorted(ja.keys() - en.keys()) == [], "missing from en-US"


def test_placeholders_match_between_catalogs() -> None:
    en, ja = _catalog("en-US"), _catalog("ja-JP")
    differ = {k: (en[k], ja[k]) for k in en if placeholders(en[k]) != placeholders(ja.get(k, ""))}
    assert differ == {}


def test_every_key_used_in_code_exists() -> None:
    used = keys_used_in_code()
    assert len(used) > 40, "the scan found too few keys to prove anything"
    for locale in ("en-US", "ja-JP"):
        missing = sorted(used - _catalog(locale).keys())
        assert missing == [], f"{locale} lacks {missing}"


def test_japanese_entries_are_translated() -> None:
    """A ja-JP entry is Japanese, or holds no words at all (`{used} / {quota}`)."""
    ja = _catalog("ja-JP")
    untranslated = [
        k
        for k, text in ja.items()
        if re.search(r"[A-Za-z]{2,}", LOANWORDS.sub("", i18n.PLACEHOLDER.sub("", text)))
        and not JAPANESE.search(text)
    ]
    assert untranslated == []


def test_no_empty_entries() -> None:
    for locale in ("en-US", "ja-JP"):
        assert [k for k, v in _catalog(locale).items() if not v.strip()] == []


@pytest.mark.parametrize(
    ("requested", "chain_head"),
    [
        ("ja-JP", "ja-JP"),
        ("ja", "ja-JP"),  # a language alone finds the shipped region
        ("ja_JP", "ja-JP"),
        ("ja-Hira-JP", "ja-JP"),
        ("en-US", "en-US"),
        ("en-GB", "en-US"),
        ("fr-FR", "en-US"),
        ("", "en-US"),
        ("../../etc/passwd", "en-US"),  # never a path
    ],
)
def test_locale_chain(requested: str, chain_head: str) -> None:
    chain = locale_chain(requested)
    assert chain[0] == chain_head
    assert chain[-1] == "en-US"
    assert load_catalog(requested).locale == chain_head


def test_t_fills_placeholders_and_never_fails() -> None:
    ja = load_catalog("ja-JP")
    assert ja.t("overlay.stop_all") == "サウンドをすべて停止"
    assert ja.t("status.play_failed", name="エアホーン", code="undecodable") == (
        "エアホーン を再生できませんでした（undecodable）。"
    )
    en = load_catalog("en-US")
    assert en.t("status.play_failed", name="Airhorn") == "Could not play Airhorn ({code})."
    assert en.t("no.such.key") == "no.such.key"
    assert i18n.msgid("a.b") == "a.b"


def test_t_fills_each_placeholder_once_and_keeps_unknown_ones() -> None:
    """A placeholder repeated is filled each time; one not given stays as written; a value
    holding braces is not filled again; text outside the placeholders is kept."""
    cat = i18n.Catalog("en-US", "en-US", {"k": "{a}-{b}-{a} {Up} {not closed"})
    assert cat.t("k", a="{b}", c=1) == "{b}-{b}-{b} {Up} {not closed"
    assert cat.t("k", a=1, b=2) == "1-2-1 {Up} {not closed"
    assert i18n.Catalog("en-US", "en-US", {"k": "plain"}).t("k", a=1) == "plain"


def test_a_key_missing_in_a_locale_falls_back_to_en_us(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "en-US.json").write_text('{"a": "A", "b": "B {n}"}', encoding="utf-8")
    (tmp_path / "ja-JP.json").write_text('{"a": "エー"}', encoding="utf-8")
    monkeypatch.setattr(catalogs, "LOCALES_DIR", tmp_path)
    load_entries.cache_clear()
    try:
        ja = load_catalog("ja")
        assert (ja.t("a"), ja.t("b", n=2)) == ("エー", "B 2")
    finally:
        load_entries.cache_clear()


def test_a_malformed_catalog_is_a_clear_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "en-US.json").write_text('{"a": 1}', encoding="utf-8")
    monkeypatch.setattr(catalogs, "LOCALES_DIR", tmp_path)
    load_entries.cache_clear()
    try:
        with pytest.raises(catalogs.CatalogError, match="en-US"):
            load_catalog("en-US")
    finally:
        load_entries.cache_clear()


def test_a_text_derived_from_a_catalog_is_built_once_per_catalog() -> None:
    built: list[str] = []

    def greeting(cat: Catalog) -> str:
        built.append(cat.locale)
        return cat.t("hello", name="Aoi")

    en = Catalog("en-US", "en-US", {"hello": "Hello, {name}"})
    ja = Catalog("ja-JP", "ja-JP", {"hello": "{name}さん、こんにちは"})
    assert [en.derived(greeting), en.derived(greeting), ja.derived(greeting)] == [
        "Hello, Aoi",
        "Hello, Aoi",
        "Aoiさん、こんにちは",
    ]
    assert built == ["en-US", "ja-JP"]
    assert en == Catalog("en-US", "en-US", {"hello": "Hello, {name}"})  # what it keeps is no part
