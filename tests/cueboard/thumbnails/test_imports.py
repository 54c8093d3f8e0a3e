"""Start fast: the asset table and cueboard itself import neither Pillow nor httpx."""

from __future__ import annotations

import subprocess
import sys


def test_asset_table_does_not_import_heavy_libraries() -> None:
    code = (
        "import sys, cueboard, cueboard.asset_table;"
        "heavy = [m for m in ('PIL', 'httpx', 'numpy', 'imageio', 'av') if m in sys.modules];"
        "print(','.join(heavy))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == ""


def test_public_surface_is_pinned() -> None:
    import cueboard.thumbnails as thumbnails

    assert sorted(thumbnails.__all__) == [
        "IconCache",
        "Thumbnail",
        "ThumbnailError",
        "ThumbnailFrame",
        "decode_file",
        "decode_thumbnail",
        "fetch_url",
        "is_url",
        "load_source",
        "read_local",
    ]
