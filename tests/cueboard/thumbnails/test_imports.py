"""Start fast: the asset table and cueboard itself import neither Pillow nor httpx; a worker
that decodes local icons imports the decoders and nothing for the network."""

from __future__ import annotations

import io
import subprocess
import sys
from pathlib import Path

from PIL import Image


def test_asset_table_does_not_import_heavy_libraries() -> None:
    code = (
        "import sys, cueboard, cueboard.core.asset_table;"
        "heavy = [m for m in ('PIL', 'httpx', 'numpy', 'imageio', 'av') if m in sys.modules];"
        "print(','.join(heavy))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == ""


def test_the_icon_worker_job_module_leaves_the_core_models_behind() -> None:
    """A worker imports the module of the job it runs: the icon jobs' module loads neither the
    core's inputs and effects nor the SDK's event models, only what a decode needs."""
    code = (
        "import sys, cueboard.workers.icon_job;"
        "mods = ('cueboard.core.inputs', 'cueboard.core.effects', 'vxp.models.events');"
        "print(','.join(m for m in mods if m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == ""


def _icons(directory: Path) -> list[Path]:
    """One local icon of each format the pipeline reads from images (clips need imageio)."""
    frames = [Image.new("RGBA", (40, 30), (i * 60, 0, 0, 255)) for i in range(3)]
    paths = []
    for name, fmt in (("a.gif", "GIF"), ("a.png", "PNG"), ("a.webp", "WEBP")):
        path = directory / name
        frames[0].save(path, fmt, save_all=True, append_images=frames[1:], duration=80)
        paths.append(path)
    buffer = io.BytesIO()
    frames[0].convert("RGB").save(buffer, "JPEG")
    (directory / "a.jpg").write_bytes(buffer.getvalue())
    still = directory / "still.png"
    frames[0].save(still, "PNG")
    return [*paths, directory / "a.jpg", still]


def test_decoding_local_files_imports_nothing_for_urls(tmp_path: Path) -> None:
    """The package imports anyio, httpx and the URL cache only when a URL is fetched, numpy
    only for 16-bit greyscale, imageio only for clips, and PyAV for a JPEG only when its
    Huffman codes do not walk whole (jpegwalk.py): decoding every kind of whole local image
    loads none of them."""
    paths = _icons(tmp_path)
    code = (
        "import sys; from pathlib import Path; import cueboard.workers.thumbnails as t;"
        "frames = [len(t.decode_file(Path(p)).frames) for p in sys.argv[1:]];"
        "mods = ('anyio', 'httpx', 'numpy', 'imageio', 'av', 'cueboard.workers.thumbnails.cache');"
        "print(frames, [m for m in mods if m in sys.modules])"
    )
    out = subprocess.run(
        [sys.executable, "-c", code, *map(str, paths)], capture_output=True, text=True, check=True
    )
    assert out.stdout.strip() == "[3, 3, 3, 1, 1] []"


def test_the_url_parts_load_on_first_use() -> None:
    """The lazy names still resolve: the cache class, and httpx once a URL is fetched."""
    code = (
        "import sys, anyio, cueboard.workers.thumbnails as t\n"
        "print(t.IconCache.__name__, 'httpx' in sys.modules)\n"
        "try:\n"
        "    anyio.run(lambda: t.fetch_url('http://127.0.0.1:9/x.gif', network_granted=False))\n"
        "except t.ThumbnailError as error:\n"
        "    print(error.kind, 'httpx' in sys.modules)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.split("\n")[:2] == ["IconCache False", "network_denied True"]


def test_public_surface_is_pinned() -> None:
    import cueboard.workers.thumbnails as thumbnails

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


def test_after_the_warm_up_a_first_icon_imports_nothing(tmp_path: Path) -> None:
    """The worker's warm-up (run while start-up runs) imports what the first icons need, the
    JPEG check's PyAV included: decoding every kind of local image imports nothing more."""
    paths = _icons(tmp_path)
    code = (
        "import sys; from pathlib import Path; import cueboard.workers.thumbnails as t;"
        "from cueboard.workers.thumbnails.warm import warm_up; warm_up();"
        "before = set(sys.modules); print('av' in before);"
        "frames = [len(t.decode_file(Path(p)).put_params()['frames']) for p in sys.argv[1:]];"
        "print(frames, sorted(set(sys.modules) - before))"
    )
    out = subprocess.run(
        [sys.executable, "-c", code, *map(str, paths)], capture_output=True, text=True, check=True
    )
    assert out.stdout.split("\n")[:2] == ["True", "[3, 3, 3, 1, 1] []"]
