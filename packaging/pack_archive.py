"""A byte-for-byte reproducible zip: two builds of the same sources give the same file.

Everything that usually varies is fixed: entries are sorted by name, carry one timestamp
(``SOURCE_DATE_EPOCH`` when set, else 1980-01-01, the earliest a zip can store), one
permission (0644, "made on Unix"), no directory entries and no extra fields, and are
deflated at one level.
"""

from __future__ import annotations

import hashlib
import os
import time
import zipfile
from collections.abc import Callable, Mapping
from pathlib import Path

ZIP_EPOCH = (1980, 1, 1, 0, 0, 0)
FILE_MODE = 0o100644  # a regular file, rw-r--r--
MADE_ON_UNIX = 3
COMPRESS_LEVEL = 6

Content = Callable[[], bytes]


def fixed_timestamp() -> tuple[int, int, int, int, int, int]:
    """``SOURCE_DATE_EPOCH`` (reproducible-builds.org) in UTC, clamped to what a zip holds."""
    raw = os.environ.get("SOURCE_DATE_EPOCH", "").strip()
    if not raw:
        return ZIP_EPOCH
    try:
        stamp = time.gmtime(int(raw))
    except (ValueError, OverflowError, OSError):
        raise ValueError(f"SOURCE_DATE_EPOCH={raw!r} is not a Unix timestamp") from None
    date_time = (
        stamp.tm_year,
        stamp.tm_mon,
        stamp.tm_mday,
        stamp.tm_hour,
        stamp.tm_min,
        stamp.tm_sec - stamp.tm_sec % 2,  # DOS time has 2-second resolution
    )
    return max(date_time, ZIP_EPOCH)  # years past 2107 do not fit either: zipfile refuses them


def write_zip(
    path: Path,
    entries: Mapping[str, Content],
    on_entry: Callable[[str], None] = lambda _: None,
) -> None:
    """Write ``entries`` (name -> content) to ``path`` atomically, in name order."""
    date_time = fixed_timestamp()
    partial = path.with_name(f".{path.name}.partial")
    try:
        with zipfile.ZipFile(partial, "w", allowZip64=True) as archive:
            for name in sorted(entries):
                info = zipfile.ZipInfo(name, date_time)
                info.compress_type = zipfile.ZIP_DEFLATED
                info.create_system = MADE_ON_UNIX
                info.external_attr = FILE_MODE << 16
                archive.writestr(info, entries[name](), compresslevel=COMPRESS_LEVEL)
                on_entry(name)
        os.replace(partial, path)
    finally:
        partial.unlink(missing_ok=True)


def sha256_file(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as file:
        for block in iter(lambda: file.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def write_checksum(path: Path) -> str:
    """``<bundle>.sha256`` in ``sha256sum`` format, so ``sha256sum -c`` verifies it."""
    digest = sha256_file(path)
    checksum = path.with_name(path.name + ".sha256")
    checksum.write_text(f"{digest}  {path.name}\n", encoding="ascii")
    return digest
