"""The leak sweep's search (tests/leaks.py) finds exactly the values a plain search finds."""

from __future__ import annotations

import random
import secrets
from pathlib import Path

from tests import leaks

TOKEN = secrets.token_urlsafe(24).encode()
URL = b"https://user:pw@cam.example.test:8443/LEAKPATH-2/x?token=LEAKTOKEN-2"
DOTTED = b"a.b.c.d.e.f.g.h"  # no run of 8 URL-safe characters: looked for in full


def _plain(values: list[bytes], data: bytes) -> set[bytes]:
    return {value for value in values if value in data}


def test_values_are_found_in_text_inside_longer_runs_and_not_by_their_anchor_alone() -> None:
    others = [secrets.token_urlsafe(24).encode() for _ in range(50)]
    values = [TOKEN, URL, DOTTED, *others]
    finder = leaks.Finder(values)
    cases = [
        b"log line " + TOKEN + b"\n",
        b"AAAA" + TOKEN + b"BBBB",  # in a longer run of token characters
        b'{"url": "' + URL + b'"}',
        b"LEAKPATH-2 and https://cam.example.test but not the whole URL",
        b"x" + DOTTED + b"y",
        b"a.b.c.d.e.f.g",
        b"",
    ]
    for data in cases:
        assert finder.found(data) == _plain(values, data), data


def test_random_bytes_with_planted_values_match_a_plain_search() -> None:
    rng = random.Random(7)
    values = [secrets.token_urlsafe(24).encode() for _ in range(30)] + [URL, DOTTED]
    finder = leaks.Finder(values)
    for _ in range(20):
        data = bytearray(rng.randbytes(20_000))
        for value in rng.sample(values, 3):
            at = rng.randrange(len(data))
            data[at:at] = value
        assert finder.found(bytes(data)) == _plain(values, bytes(data))


def test_sweep_names_each_file_and_text_once_per_value(tmp_path: Path) -> None:
    (tmp_path / "a").mkdir()
    (tmp_path / "a" / "t.jsonl").write_bytes(TOKEN + b" " + URL + b" " + TOKEN)
    (tmp_path / "clean.txt").write_bytes(b"nothing here")
    secrets_ = {TOKEN.decode(): "token", URL.decode(): "url"}
    hits = leaks.sweep([tmp_path, tmp_path / "a"], [("x [stderr]", URL.decode())], secrets_)
    where = str(tmp_path / "a" / "t.jsonl")
    assert sorted(hits, key=lambda h: (h.where, h.kind)) == [
        leaks.Hit(where, "token"),
        leaks.Hit(where, "url"),
        leaks.Hit("x [stderr]", "url"),
    ]
