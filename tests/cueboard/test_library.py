"""The library scan: categories, natural order, sniffing, icons, the 256 MiB limit (AUD-15)."""

from __future__ import annotations

import io
import wave
from pathlib import Path

from cueboard.core.library import SLOTS_PER_PAGE, natural_key
from cueboard.workers.scan import scan, sniff_sound


def _wav(path: Path, frames: int = 480) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    buf = io.BytesIO()
    with wave.open(buf, "wb") as w:
        w.setnchannels(1)
        w.setsampwidth(2)
        w.setframerate(48000)
        w.writeframes(b"\x00\x00" * frames)
    path.write_bytes(buf.getvalue())


def test_scan_categories_natural_sort_icons_and_sniffing(tmp_path: Path) -> None:
    for name in ("Sound 10.wav", "sound 2.wav", "Airhorn.wav"):
        _wav(tmp_path / name)
    _wav(tmp_path / "Memes" / "bruh.wav")
    (tmp_path / "Airhorn.gif").write_bytes(b"GIF89a")
    (tmp_path / "fake.mp3").write_text("not audio at all")
    (tmp_path / "notes.txt").write_text("hello")
    (tmp_path / ".hidden.wav").write_bytes(b"RIFF")
    lib = scan(tmp_path)
    assert [s.rel_path for s in lib.sounds] == [
        "Airhorn.wav",
        "fake.mp3",
        "sound 2.wav",
        "Sound 10.wav",
        "Memes/bruh.wav",
    ]
    assert lib.categories == ["", "Memes"]
    assert lib.by_path["Airhorn.wav"].icon == "Airhorn.gif"
    assert lib.by_path["Memes/bruh.wav"].category == "Memes"
    assert lib.skipped == ["fake.mp3"]
    assert lib.by_path["fake.mp3"].problem == "not_audio"  # counted as can't load, not dropped
    assert lib.by_path["Airhorn.wav"].problem is None


def test_pages_split_by_category_and_twelve_slots(tmp_path: Path) -> None:
    for i in range(SLOTS_PER_PAGE + 3):
        _wav(tmp_path / f"s{i}.wav")
    _wav(tmp_path / "B" / "x.wav")
    pages = scan(tmp_path).pages()
    assert [(p.category, p.number, p.of, len(p.sounds)) for p in pages] == [
        ("", 1, 2, 12),
        ("", 2, 2, 3),
        ("B", 1, 1, 1),
    ]


def test_search_spans_the_whole_library(tmp_path: Path) -> None:
    _wav(tmp_path / "Memes" / "Vine Boom.wav")
    _wav(tmp_path / "Music" / "boom box.wav")
    _wav(tmp_path / "quiet.wav")
    lib = scan(tmp_path)
    assert [s.name for s in lib.search("BOOM")] == ["Vine Boom", "boom box"]
    assert [s.name for s in lib.search("memes boom")] == ["Vine Boom"]


def test_too_large_files_are_listed_not_loaded(tmp_path: Path) -> None:
    big = tmp_path / "huge.wav"
    _wav(big)
    with big.open("r+b") as f:
        f.truncate(256 * 1024 * 1024 + 1)  # sparse: no real disk use
    lib = scan(tmp_path)
    assert lib.by_path["huge.wav"].too_large


def test_missing_folder_is_an_empty_library(tmp_path: Path) -> None:
    assert scan(tmp_path / "nope").sounds == []


def test_sniffing_and_natural_key() -> None:
    assert sniff_sound(b"RIFF\x00\x00\x00\x00WAVEfmt ")
    assert sniff_sound(b"fLaC")
    assert sniff_sound(b"OggS")
    assert sniff_sound(b"ID3\x04")
    assert sniff_sound(b"\xff\xfb\x90\x00")
    assert not sniff_sound(b"hello world!")
    assert sorted(["a10", "a2", "A1"], key=natural_key) == ["A1", "a2", "a10"]


def test_folders_with_no_sound_in_or_below_them_are_listed_with_their_other_files(
    tmp_path: Path,
) -> None:
    _wav(tmp_path / "Memes" / "bruh.wav")
    _wav(tmp_path / "Games" / "Boss" / "theme.wav")  # Games holds none itself, Boss does
    (tmp_path / "Games" / "Later").mkdir()
    (tmp_path / "Empty 10").mkdir()
    (tmp_path / "Empty 9").mkdir()
    (tmp_path / "Pictures").mkdir()
    (tmp_path / "Pictures" / "a.gif").write_bytes(b"GIF89a")
    (tmp_path / "Pictures" / "notes.txt").write_text("hello")
    (tmp_path / "Pictures" / ".DS_Store").write_text("")
    lib = scan(tmp_path)
    assert lib.empty_folders == [
        ("Empty 9", 0),
        ("Empty 10", 0),
        ("Games/Later", 0),
        ("Pictures", 2),
    ]
