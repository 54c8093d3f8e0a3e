"""Everything a decode imports on first use, imported ahead of the first icon.

The runtime calls `warm_up` in its icon worker process while start-up runs, so the first
page's icons pay for no import: Pillow's plugins for every format the pipeline reads, the
base64 encoder, and PyAV with this thread's FFmpeg decoder for the JPEG check (integrity.py).
Clips (imageio), 16-bit greyscale (numpy) and URLs (httpx) stay on first use: icons seldom
need them, and each would cost the worker memory it then keeps.
"""

from __future__ import annotations


def warm_up() -> None:
    from PIL import (
        GifImagePlugin,  # noqa: F401
        Image,
        ImageChops,  # noqa: F401
        ImagePalette,  # noqa: F401
        ImageSequence,  # noqa: F401
        JpegImagePlugin,  # noqa: F401
        PngImagePlugin,  # noqa: F401
        WebPImagePlugin,  # noqa: F401
    )

    from . import decode  # noqa: F401
    from .integrity import load_jpeg_check
    from .model import b64encode

    Image.preinit()
    b64encode(b"")
    load_jpeg_check()
