"""Favourite command names readable in any script (cueboard.core.command_names)."""

from __future__ import annotations

import re
import subprocess
import sys

import pytest
from hypothesis import given
from hypothesis import strategies as st

from cueboard.core.command_names import (
    MAX_FAVOURITES,
    Named,
    Refused,
    name_favourite,
    slugify,
)
from cueboard.runtime.catalogs import load_catalog

# CMD-8's rule for the whole command name.
COMMAND_NAME = re.compile(r"^[a-z0-9-]{1,64}$")


@pytest.mark.parametrize(
    ("name", "slug"),
    [
        # Japanese: pykakasi's Hepburn reading, words apart
        ("拍手", "hakushu"),
        ("「拍手」", "hakushu"),
        ("ドラムロール", "doramurooru"),
        ("ﾊｸｼｭ", "hakushu"),
        ("爆笑の声", "bakushou-no-koe"),
        ("スーパー拍手!!", "suupaa-hakushu"),
        ("Clap 拍手 2", "clap-hakushu-2"),
        # Chinese (kanji pykakasi has no reading for, or none it can read all of): pinyin
        ("你好世界", "ni-hao-shi-jie"),
        ("北京烤鸭", "bei-jing-kao-ya"),
        # other scripts through anyascii
        ("Привет мир", "privet-mir"),
        ("Καλημέρα", "kalimera"),
        ("Café crème", "cafe-creme"),
        ("ｈｅｌｌｏ", "hello"),
        # emoji-only names read as their names
        ("👏", "clap"),
        ("🔥🔥", "fire-fire"),
        ("❤️", "heart"),
        ("😂😂😂 lol", "joy-joy-joy-lol"),
        # nothing readable at all: a fallback that still reads as a word
        ("...", "sound"),
        ("", "sound"),
        ("Hype Train Level 1", "hype-train-level-1"),
    ],
)
def test_a_name_becomes_a_readable_slug(name: str, slug: str) -> None:
    assert slugify(name, set()) == slug


def test_clapping_becomes_fav_hakushu() -> None:
    named = name_favourite("拍手", set())
    assert named == Named("hakushu")
    assert isinstance(named, Named)
    assert named.command == "fav-hakushu"


def test_a_taken_slug_is_never_given_again_and_the_old_one_is_kept() -> None:
    taken = {"hakushu"}
    assert slugify("拍手", taken) == "hakushu-2"
    assert slugify("ハクシュ", taken | {"hakushu-2"}) == "hakushu-3"
    assert taken == {"hakushu"}  # the caller's set is read, not changed


def test_a_long_name_is_cut_at_a_word_and_stays_a_valid_command() -> None:
    name = "the quite extraordinarily long name of a sound effect for the stream"
    slug = slugify(name, set())
    assert slug == "the-quite-extraordinarily-long-name-of-a"
    assert len(slug) <= 40
    assert slugify("a" * 80, set()) == "a" * 40


def test_the_seventeenth_favourite_is_refused_with_its_reason() -> None:
    taken: set[str] = set()
    for n in range(MAX_FAVOURITES):
        named = name_favourite(f"sound {n}", taken)
        assert isinstance(named, Named)
        taken.add(named.slug)
    assert MAX_FAVOURITES == 16
    refused = name_favourite("one more", taken)
    assert refused == Refused("limit", 16)
    assert isinstance(refused, Refused)
    for locale in ("en-US", "ja-JP"):
        said = load_catalog(locale).t(refused.message_key, limit=refused.limit)
        assert "16" in said and refused.message_key not in said


def test_pykakasi_is_loaded_only_for_a_name_with_japanese_in_it() -> None:
    code = (
        "import sys\n"
        "from cueboard.core.command_names import slugify\n"
        "slugify('Привет 👏 Hype', set())\n"
        "assert 'pykakasi' not in sys.modules\n"
        "slugify('拍手', set())\n"
        "assert 'pykakasi' in sys.modules\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stderr


@given(
    name=st.text(alphabet=st.characters(codec="utf-8", exclude_categories=["Cs"]), max_size=30),
    taken=st.sets(st.sampled_from(["sound", "sound-2", "a", "hakushu", "x"]), max_size=5),
)
def test_every_name_gets_a_new_valid_command(name: str, taken: set[str]) -> None:
    slug = slugify(name, taken)
    assert slug not in taken
    assert COMMAND_NAME.match("fav-" + slug)
    assert not slug.startswith("-") and not slug.endswith("-") and "--" not in slug
